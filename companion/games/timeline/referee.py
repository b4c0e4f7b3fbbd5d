"""Timeline: España on the hub: the table referee, with each player's sandtimer as a turn timer.

How a table plays it (see "On the hub" in docs/games/timeline.md):

* The player whose turn it is flips their turn timer (their timer 1) to start the turn;
  the very first flip of the starting player starts the game. A flip by anyone else is
  refused ("It is ana's turn, not ben's"), and so is a second flip while the turn is
  already running (it restarts nothing) or a flip of another timer of the player.
* During the turn the player's phone lists, for each card in hand (named by its title,
  never its year), the gaps of the timeline it can go into, named by their neighbours
  ("between 711 The Muslim conquest... and 1808 Dos de Mayo..."). Tapping one places the card
  at once: the engine reveals the year, keeps or discards the card, deals the penalty
  card, and the turn passes to the next player, who flips their timer.
* With ``setup.turn_limit`` on, the sand running out while the turn is open times the turn
  out (:func:`~.engine.time_out`): no card placed, none drawn, the turn passes.
  With ``turn_limit`` off the sand is only a reminder.
* The master clock only bounds the session: its start and end change nothing here.
* Ended early by the host (:meth:`TimelineReferee.game_ended_early`): Timeline has no score
  before its end (only the one player who empties their hand alone wins), so the game ends
  there without a winner, and says so.

The turn timer, the log and the notes are :class:`~companion.rules.turns.TurnReferee`'s; whether a
turn runs, how many turns started and how the game ended are the table's (the context). The logged
actions are the engine's (:class:`~.model.PlaceCard`) and the contract's ``StartTurn``/``TimeOut``.
"""

from __future__ import annotations

from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.context import Context
from companion.rules.outcome import Decision, Rejected, Step, checked, refuse
from companion.rules.pages import MenuItem, View
from companion.rules.setup import TableSetup
from companion.rules.text import text
from companion.rules.turns import Applied, TurnReferee

from .box import TimelineData
from .engine import RULE_GAMEPLAY, RULE_VICTORY, apply, game_from_deal, new_game, time_out
from .model import GameStopped, Place, PlaceCard, TimelineState
from .pages import ENDED_EARLY_NOTE, TITLE, Pages, describe, ending
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
        """``data``: the deck and settings (``GAME.data``); ``hand_size`` the cards dealt to each player
        (default: the settings'); ``deal`` (``hands``, ``reference``, ``draw_pile``) replaces the
        seeded deal, as in a game record."""
        super().__init__(setup)
        self.cards = data.deck
        self.settings = data.settings
        self.hand_size = hand_size if hand_size is not None else data.settings.hand_size
        self.deal = dict(deal) if deal is not None else None
        self.pages = Pages(self.turn_timer, {p: setup.colour_of(p) for p in setup.players})

    @classmethod
    def for_table(cls, setup: TableSetup, data: TimelineData) -> TimelineReferee:
        """The hub's referee for a Timeline table (``GAME.referee``): the variant gives the hand
        size; a setup the game cannot start is a ConfigError whose message is a text."""
        referee = cls(setup, data, hand_size=hand_size_of(setup.variant, default=data.settings.hand_size))
        players, settings = len(setup.players), data.settings
        if not settings.min_players <= players <= settings.max_players:
            raise TimelineConfigError(
                text(
                    "Timeline is for {low} to {high} players, not {players}",
                    low=settings.min_players,
                    high=settings.max_players,
                    players=players,
                )
            )
        needed = players * referee.hand_size + 1
        if len(data.deck) < needed:
            raise TimelineConfigError(
                text(
                    "The deck has {cards} cards: too few to deal {hand} cards to each of {players} players and turn up the reference card",
                    cards=len(data.deck),
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
        limits = {"min_players": self.settings.min_players, "max_players": self.settings.max_players}
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
            ends_turn=True,
            ends_game=ending(outcome.state),
        )

    def time_out(self, state: TimelineState, ctx: Context, player: str) -> Applied[TimelineState]:
        outcome = time_out(state, player)
        if isinstance(outcome, Rejected):
            refuse(outcome.reason, outcome.rule)
        notes = [
            text("{player}'s time ran out: no card placed, the turn passes", player=player),
            *describe(outcome.events, outcome.state),
        ]
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
        closed = self.closed(state, ctx, player)
        if closed is not None:
            return closed
        if not isinstance(action, Place):
            refuse(
                text("The only action in Timeline is placing a card in a gap of the timeline"), RULE_GAMEPLAY
            )
        if player != state.to_move:
            refuse(
                text("It is {player}'s turn, not {other}'s", player=state.to_move or "", other=player),
                RULE_GAMEPLAY,
            )
        return self.play(state, ctx, player, PlaceCard(player, action.card, action.gap))

    def menu(
        self, state: TimelineState, ctx: Context, player: str, *, intents: dict[str, Any]
    ) -> list[MenuItem]:
        """While ``player``'s turn runs: for each card of their hand (by title, never the year), one
        button per gap of the timeline, left to right."""
        if not self.can_play(state, ctx, player):
            return []
        return self.pages.menu(state, player)

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
