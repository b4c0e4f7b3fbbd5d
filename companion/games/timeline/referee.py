"""Timeline: España on the hub: the table referee, with each player's sandtimer as a turn timer.

How a table plays it (see "On the hub" in docs/games/timeline.md):

* The player whose turn it is flips their turn timer (their timer 1) to start the turn;
  the very first flip of the starting player starts the game. A flip by anyone else is
  refused ("It is ana's turn, not ben's"), and so is a second flip while the turn is
  already running (it restarts nothing) or a flip of another timer of the player.
* A table deck (``setup.deck == "table"``, the default: the table plays with its box). During
  the turn the player's phone lists the gaps of the timeline, named by their years ("between
  711 and 1808"); the player taps where they put their card (:class:`~.model.PutIn`, which they
  may correct until the card is turned over), turns it over and taps "right" or "wrong", or
  types the year printed on it on the number pad (:class:`~.model.YearTyped`, kept with their
  turn timer between taps, never logged) and sends it (:class:`~.model.TurnOver`). The hub
  judges by the year where the years it knows decide it, keeps the counts of hands, deck and
  discard pile, and passes the turn. Anyone may enter the year of a timeline card nobody
  entered (the reference card at the start) (:class:`~.model.NameYear`).
* The hub deck (``setup.deck == "hub"``: no box at the table, a demo): the hub deals its card
  list. The player's phone lists, for each card in hand (named by its title, never its year),
  the gaps of the timeline it can go into, named by their neighbours ("between 711 The Muslim
  conquest... and 1808 Dos de Mayo..."). Tapping one places the card at once: the engine
  reveals the year, keeps or discards the card, deals the penalty card, and the turn passes
  to the next player, who flips their timer.
* With ``setup.turn_limit`` on, the sand running out while the turn is open times the turn
  out (:func:`~.engine.time_out`): no card placed, none drawn, the turn passes.
  With ``turn_limit`` off the sand is only a reminder.
* The master clock only bounds the session: its start and end change nothing here.
* Ended early by the host (:meth:`TimelineReferee.game_ended_early`): Timeline has no score
  before its end (only the one player who empties their hand alone wins), so the game ends
  there without a winner, and says so.

The turn timer, the log and the notes are :class:`~companion.rules.turns.TurnReferee`'s; whether a
turn runs, how many turns started and how the game ended are the table's (the context). The logged
actions are the engine's (:class:`~.model.PlaceCard`, :class:`~.model.PutCard`,
:class:`~.model.RevealCard`, :class:`~.model.NameYear`) and the contract's ``StartTurn``/``TimeOut``.
"""

from __future__ import annotations

from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.context import Context
from companion.rules.outcome import Decision, Rejected, Step, checked, refuse
from companion.rules.pages import MenuItem, View
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import text
from companion.rules.turns import Applied, TurnReferee

from .box import TimelineData
from .engine import RULE_GAMEPLAY, RULE_VICTORY, apply, game_from_deal, new_game, table_game, time_out
from .model import (
    GameStopped,
    NameYear,
    Place,
    PlaceCard,
    PutCard,
    PutIn,
    RevealCard,
    TimelineState,
    TurnOver,
    YearTyped,
)
from .pages import ENDED_EARLY_NOTE, MAX_DIGITS, TITLE, Pages, describe, ending
from .variants import TimelineConfigError, hand_size_of

RULE_ENDED_EARLY = text("hub rule: a game ended early")
"""Not a rulebook rule: what the hub does when the host ends the game before its end."""


class TimelineReferee(TurnReferee[TimelineState]):
    """Timeline: España at a hub table (see the module docstring)."""

    game = "timeline"
    title = TITLE
    turn_rule = RULE_GAMEPLAY
    what_next = text("place a card")

    def __init__(
        self,
        setup: TableSetup,
        data: TimelineData,
        *,
        hand_size: int | None = None,
        deal: dict[str, Any] | None = None,
    ) -> None:
        """``data``: the box and the hub deck's card list (``GAME.data``); ``hand_size`` the cards dealt to
        each player (default: the box's); ``deal`` (hub deck only) (``hands``, ``reference``, ``draw_pile``) replaces the
        seeded deal, as in a game record."""
        super().__init__(setup)
        self.cards = data.deck
        self.box = data.box
        self.hand_size = hand_size if hand_size is not None else data.box.hand_size
        self.deal = dict(deal) if deal is not None else None
        self.hub_deck = setup.deck == "hub"
        """The hub deals its own card list (else the table plays with its box)."""
        nodes = {s.player: s.node for s in setup.seats if self.turn_timer.get(s.player) == s.index}
        self.pages = Pages(self.turn_timer, {p: setup.colour_of(p) for p in setup.players}, nodes)

    @classmethod
    def for_table(cls, setup: TableSetup, data: TimelineData) -> TimelineReferee:
        """The hub's referee for a Timeline table (``GAME.referee``): the variant gives the hand
        size; a setup the game cannot start is a ConfigError whose message is a text."""
        referee = cls(setup, data, hand_size=hand_size_of(setup.variant, default=data.box.hand_size))
        players, box = len(setup.players), data.box
        if not box.min_players <= players <= box.max_players:
            raise TimelineConfigError(
                text(
                    "Timeline is for {low} to {high} players, not {players}",
                    low=box.min_players,
                    high=box.max_players,
                    players=players,
                )
            )
        needed = players * referee.hand_size + 1
        if referee.hub_deck and len(data.deck) < needed:
            raise TimelineConfigError(
                text(
                    "The deck has {cards} cards: too few to deal {hand} cards to each of {players} players and turn up the reference card",
                    cards=len(data.deck),
                    hand=referee.hand_size,
                    players=players,
                )
            )
        if not referee.hub_deck and data.box.cards < needed:
            raise TimelineConfigError(
                text(
                    "The box has {cards} cards: too few to deal {hand} cards to each of {players} players and turn up the reference card",
                    cards=data.box.cards,
                    hand=referee.hand_size,
                    players=players,
                )
            )
        try:
            referee.start(setup)
        except InvalidRecordError as exc:
            raise TimelineConfigError(
                text("Timeline cannot start at this table: {reason}", reason=str(exc))
            ) from None
        return referee

    # --- start and steps ----------------------------------------------------------------------
    def start(self, setup: TableSetup) -> TimelineState:
        limits = {"min_players": self.box.min_players, "max_players": self.box.max_players}
        if not self.hub_deck:
            return table_game(setup.players, cards=self.box.cards, hand_size=self.hand_size, **limits)
        if self.deal is not None:
            return game_from_deal(
                self.cards,
                setup.players,
                hands=self.deal["hands"],
                reference=self.deal["reference"],
                draw_pile=self.deal.get("draw_pile", ()),
                seed=setup.seed,
                **limits,
            )
        return new_game(self.cards, setup.players, seed=setup.seed, hand_size=self.hand_size, **limits)

    def step(self, state: TimelineState, ctx: Context, action: Any) -> Applied[TimelineState]:
        if ctx.ended_early:
            refuse(text("The game was ended early"), RULE_ENDED_EARLY)
        outcome = apply(state, action)
        if isinstance(outcome, Rejected):
            refuse(outcome.reason, outcome.rule)
        return Applied(
            outcome.state,
            outcome.events,
            describe(outcome.events, outcome.state),
            ends_turn=isinstance(action, (PlaceCard, RevealCard)),
            ends_game=ending(outcome.state),
        )

    def time_out(self, state: TimelineState, ctx: Context, player: str) -> Applied[TimelineState]:
        outcome = time_out(state, player)
        if isinstance(outcome, Rejected):
            refuse(outcome.reason, outcome.rule)
        ran_out = (
            text("{player}'s time ran out: the card goes back to their hand, the turn passes", player=player)
            if state.placing is not None
            else text("{player}'s time ran out: no card placed, the turn passes", player=player)
        )
        notes = [ran_out, *describe(outcome.events, outcome.state)]
        return Applied(outcome.state, outcome.events, notes, ends_game=ending(outcome.state))

    @checked
    def game_ended_early(self, state: TimelineState, ctx: Context) -> Step:
        """The host ended the game: Timeline is won only by the player who alone empties their hand in a
        round, so a game stopped before that has no winner; it ends here, and nobody plays on."""
        if state.is_over or ctx.ended_early:
            return Decision(state)
        return Decision(state, facts=(GameStopped(),), notes=(ENDED_EARLY_NOTE,), ends_turn=ctx.turn_open)

    # --- turns --------------------------------------------------------------------------------
    def player_to_move(self, state: TimelineState) -> str:
        return state.to_move or ""

    def is_over(self, state: TimelineState, ctx: Context) -> bool:
        return state.is_over or ctx.ended_early

    def closed(self, state: TimelineState, ctx: Context, player: str) -> Rejected | None:
        """Why ``player`` cannot act at all now (game over, ended early, eliminated), or None."""
        if state.winner is not None:
            return Rejected(
                text("The game is over: {player} has already won", player=state.winner), RULE_VICTORY
            )
        if state.shared_by:
            return Rejected(
                text("The game is over: {players} share it", players=state.shared_by), RULE_VICTORY
            )
        if ctx.ended_early:
            return Rejected(text("The game was ended early"), RULE_ENDED_EARLY)
        if player in state.eliminated:
            return Rejected(
                text("{player} was eliminated when the play-off began", player=player), RULE_VICTORY
            )
        return None

    # --- phones -------------------------------------------------------------------------------
    @checked
    def player_action(self, state: TimelineState, ctx: Context, player: str, action: Any) -> Step:
        """A phone's move: a placement in the player's own turn (:class:`~.model.Place` with the hub
        deck; :class:`~.model.PutIn` then :class:`~.model.TurnOver` at a table deck), or the year of a
        timeline card nobody entered (:class:`~.model.NameYear`, anyone at a table deck)."""
        closed = self.closed(state, ctx, player)
        if closed is not None:
            return closed
        if isinstance(action, NameYear):
            return self.decide(state, ctx, action, follow_up=False)
        turn_action = self._turn_action(player, action)
        if player != state.to_move:
            refuse(
                text("It is {player}'s turn, not {other}'s", player=state.to_move or "", other=player),
                RULE_GAMEPLAY,
            )
        return self.play(state, ctx, player, turn_action)

    @staticmethod
    def _turn_action(player: str, move: Any) -> PlaceCard | PutCard | RevealCard:
        if isinstance(move, Place):
            return PlaceCard(player, move.card, move.gap)
        if isinstance(move, PutIn):
            return PutCard(player, move.gap)
        if isinstance(move, TurnOver):
            return RevealCard(player, move.year, move.right)
        refuse(text("The only action in Timeline is placing a card in a gap of the timeline"), RULE_GAMEPLAY)

    def check_intent(self, state: TimelineState, ctx: Context, seat: Seat, intent: Any) -> Rejected | None:
        """A phone's number pad keeps the year typed so far with the turn timer (table deck only)."""
        if self.hub_deck or not isinstance(intent, YearTyped):
            return Rejected(text("This phone has no year to type: the hub deals the cards"), RULE_GAMEPLAY)
        digits = intent.digits
        if len(digits) > MAX_DIGITS or not (digits == "" or (digits.isdigit() and digits[0] != "0")):
            return Rejected(
                text("A year has one to {count} digits and no leading zero", count=MAX_DIGITS), RULE_GAMEPLAY
            )
        return None

    def menu(
        self, state: TimelineState, ctx: Context, player: str, *, intents: dict[str, Any]
    ) -> list[MenuItem]:
        """Hub deck: while ``player``'s turn runs, for each card of their hand (by title, never the year),
        one button per gap. Table deck: where the card went, what it shows, a number pad (see
        :meth:`~.pages.Pages.table_menu`)."""
        playing = self.can_play(state, ctx, player)
        if self.hub_deck:
            return self.pages.hub_menu(state, player) if playing else []
        if self.is_over(state, ctx) or player not in state.players or player in state.eliminated:
            return []
        return self.pages.table_menu(state, ctx, player, playing=playing, intents=intents)

    # --- pages --------------------------------------------------------------------------------
    def view(self, state: TimelineState, ctx: Context) -> View:
        return self.pages.view(state, ctx)

    def player_view(self, state: TimelineState, ctx: Context, player: str) -> View:
        return self.pages.player_view(state, ctx, player)

    def scores(self, state: TimelineState, ctx: Context) -> dict[str, Any] | None:
        """Once the game is over: the winner (or those sharing it) and each player's cards left.

        Ended early, nobody wins (``winners`` is empty) and the cards left are shown as they stand."""
        if not self.is_over(state, ctx):
            return None
        winners = [state.winner] if state.winner is not None else list(state.shared_by)
        left = {p: state.held(p) for p in state.players}
        ranking = sorted(state.players, key=lambda p: (p not in winners, p in state.eliminated, left[p]))
        out: dict[str, Any] = {
            "winners": winners,
            "shared": not state.winner,
            "ranking": ranking,
            "players": {
                p: {"total": left[p], "cards_left": left[p], "eliminated": p in state.eliminated}
                for p in state.players
            },
            "rounds": state.round,
        }
        if ctx.ended_early and not state.is_over:
            out.update(shared=False, ended_early=True)
        return out
