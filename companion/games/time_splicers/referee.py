"""Time Splicers on the hub: the table referee, with each player's sandtimer as a turn timer.

How a table plays it (see "On the hub" in docs/games/time-splicers.md):

* The player whose turn it is flips their turn timer (their timer 1) to start the turn. A flip
  by anyone else is refused ("It is ana's turn, not ben's"), and so is a second flip while the
  turn is already running (it restarts nothing) or a flip of another timer of the player.
* During the turn the player's phone lists every legal action, worked out by the engine:
  the main actions first (place or splice a card, with the collapse choices when a
  placement needs one; move; the Time Portal), then the free actions (Time Freeze, Time
  Jump card or token, a new hand for a token, Quantum Tunnel). A main action ends the turn
  (``ends_turn``) and the next player flips their timer; the step that finds the seventh
  crystal ends the game (``ends_game``).
* At a table deck (``setup.deck == "table"``, the players shuffle the box) the hub knows only
  how many cards each hand holds: a player names the card they place, and the table names the
  card it turns up (the starting card before the first turn, and the card that starts a new
  Timeline when a collapse leaves none) on any phone. With the hub deck the hub's own seeded
  shuffle (:mod:`.hubdeck`) knows every card and nothing needs telling.
* With ``setup.turn_limit`` on, the sand running out while the turn is open forfeits it
  (the contract's :class:`~companion.rules.turns.TimeOut`, applied as the engine's
  ``ForfeitTurn``): no main action, the meeple stays, the hand is refilled to the minimum.
* The master clock only bounds the session. When it runs out, or when the host ends the game
  early, the game ends where it stands (the table keeps how: ``ctx.ended_by``) and is scored on
  the Time Crystals found so far; the referee logs the fact (:class:`~.model.GameStopped`).

The turn timer, the log and the notes are :class:`~companion.rules.turns.TurnReferee`'s; whether
a turn runs, how many started and how the game ended are the table's (:class:`Context`).
"""

from __future__ import annotations

from typing import Any, cast

from companion.errors import ConfigError, InvalidRecordError
from companion.rules.context import Context
from companion.rules.deck import DeckMode
from companion.rules.outcome import Decision, Rejected, Step, refuse
from companion.rules.pages import MenuItem, View
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, TextError, text
from companion.rules.turns import Applied, TurnReferee

from .components import DeckConfig
from .engine import apply
from .model import MOVES, CorrectStartingCard, ForfeitTurn, GameState, GameStopped, GameWon, RevealCard
from .pages import STOPPED, Pages, correction_menu, describe, legal_actions, reveal_menu, stopped_by
from .setup import new_game
from .words import R_END, R_HAND_MAX, R_SETUP, R_TURN


class TableSetupError(ConfigError, TextError):
    """A table the game cannot start at (a player count or a variant), in words for the host."""


class SplicersReferee(TurnReferee[GameState]):
    """Time Splicers at a hub table (see the module docstring)."""

    game = "time-splicers"
    title = "Time Splicers"
    turn_rule = R_TURN

    def __init__(self, setup: TableSetup, data: DeckConfig) -> None:
        """``data``: the component counts (``GAME.data``, or a table's own component file)."""
        super().__init__(setup)
        self.config = data
        self.pages = Pages(self.turn_timer, setup.colour_of)

    @classmethod
    def for_table(cls, setup: TableSetup, data: DeckConfig) -> SplicersReferee:
        """The hub's referee for a Time Splicers table (``GAME.referee``); a setup the game cannot
        start is a ConfigError (:class:`TableSetupError`, in words for the host)."""
        if setup.variant.strip().lower() not in ("", "standard", "default"):
            raise TableSetupError(
                text(
                    "Time Splicers has no variant {variant}: leave the variant empty",
                    variant=repr(setup.variant),
                )
            )
        count = len(setup.players)
        if not data.min_players <= count <= data.max_players:
            raise TableSetupError(
                text(
                    "Time Splicers needs {low} to {high} players, not {players}",
                    low=data.min_players,
                    high=data.max_players,
                    players=count,
                )
            )
        referee = cls(setup, data)
        try:
            referee.start(setup)
        except InvalidRecordError as exc:
            raise ConfigError(f"Time Splicers cannot start at this table: {exc}") from None
        return referee

    # --- start and steps ----------------------------------------------------------------
    def start(self, setup: TableSetup) -> GameState:
        """The game as set up: dealt by the hub deck from the seed, or waiting for the starting card the
        table turns up (a table deck)."""
        deck = cast(DeckMode, setup.deck if setup.deck in ("table", "hub") else "hub")
        return new_game(list(setup.players), seed=setup.seed, config=self.config, deck=deck)

    def step(self, state: GameState, ctx: Context, action: Any) -> Applied[GameState]:
        """One engine action: the state after it, its events as facts and in words; the turn ends when
        the engine passed it on, the game when the rules decided it."""
        outcome = apply(state, action)
        if isinstance(outcome, Rejected):
            refuse(outcome.reason, outcome.rule)
        game = outcome.state
        ended: Text | None = None
        if game.is_over and not state.is_over:
            won = next((e for e in outcome.events if isinstance(e, GameWon)), None)
            ended = (
                describe([won], game.config)[0]
                if won is not None
                else text("Every player has been eliminated")
            )
        return Applied(
            game,
            outcome.events,
            describe(outcome.events, game.config),
            ends_turn=game.turn != state.turn or game.is_over,
            ends_game=ended,
        )

    def time_out(self, state: GameState, ctx: Context, player: str) -> Applied[GameState]:
        """The turn timer ran out: the turn is forfeited (nothing while the table turns up a card)."""
        return self.step(state, ctx, ForfeitTurn())

    # --- the end before the rules' own end ---------------------------------------------------
    def game_ended_early(self, state: GameState, ctx: Context) -> Step:
        """The host ended the game: it ends where it stands and is scored on the crystals found so far
        (the most crystals lead; nobody wins while nobody has found one). Nothing changes once the
        game is already over."""
        return self._stopped(state, ctx, "host")

    def clock_expired(self, state: GameState, ctx: Context) -> Step:
        """The master clock ran out: no flip can start a turn any more, so the game ends as it stands,
        scored like an early end."""
        return self._stopped(state, ctx, "clock")

    def _stopped(self, state: GameState, ctx: Context, by: Any) -> Decision:
        """The game ends where it stands (the running turn too), scored on the crystals found so far."""
        if state.is_over or ctx.ended_by not in ("", by) or stopped_by(state, ctx) not in ("", by):
            return Decision(state)
        return Decision(
            state,
            facts=(GameStopped(by),),
            notes=(STOPPED[by],),
            ends_turn=ctx.turn_open,
            ends_game=STOPPED[by],
        )

    # --- turns --------------------------------------------------------------------------
    def player_to_move(self, state: GameState) -> str:
        return "" if state.is_over else state.current_player

    def is_over(self, state: GameState, ctx: Context) -> bool:
        return self.pages.is_over(state, ctx)

    def closed(self, state: GameState, ctx: Context, player: str) -> Rejected | None:
        if state.winner is not None:
            return Rejected(text("The game is over: {player} has won", player=state.winner), R_END)
        if state.is_over:
            return Rejected(text("The game is over: every player has been eliminated"), R_END)
        stopped = stopped_by(state, ctx)
        if stopped == "host":
            return Rejected(text("The game is over: the host ended it"), R_END)
        if stopped or ctx.is_over:
            return Rejected(text("The game is over: the master clock ran out"), R_END)
        try:
            if state.player(player).eliminated:
                return Rejected(text("{player} has been eliminated from the game", player=player), R_HAND_MAX)
        except KeyError:
            return Rejected(
                text("{player} is not playing Time Splicers at this table", player=player), R_TURN
            )
        return None

    def timer_flipped(
        self, state: GameState, ctx: Context, seat: Seat, *, intent: Any, ran_out: bool
    ) -> Step:
        """A flip starts the turn of the player to move, once the starting card has been turned up."""
        if state.turning_up is not None and state.turning_up.why == "start" and not self.is_over(state, ctx):
            return Rejected(text("Turn up the starting card and enter it on a phone first"), R_SETUP)
        return super().timer_flipped(state, ctx, seat, intent=intent, ran_out=ran_out)

    # --- phones -------------------------------------------------------------------------
    def player_action(self, state: GameState, ctx: Context, player: str, action: Any) -> Step:
        closed = self.closed(state, ctx, player)
        if closed is not None:
            return closed
        if not isinstance(action, MOVES):
            return Rejected(
                text("Unknown action {action}: choose one of the buttons", action=type(action).__name__),
                R_TURN,
            )
        if isinstance(action, CorrectStartingCard) and ctx.turns > 0:
            return Rejected(
                text("The first turn has started: the host can take the starting card back with undo"),
                R_SETUP,
            )
        if isinstance(action, (RevealCard, CorrectStartingCard)):  # anyone at the table says what lies
            return self.decide(state, ctx, action)
        if player != state.current_player:
            return Rejected(
                text("It is {player}'s turn, not {other}'s", player=state.current_player, other=player),
                R_TURN,
            )
        return self.play(state, ctx, player, action)

    def menu(self, state: GameState, ctx: Context, player: str, *, intents: dict[str, Any]) -> list[MenuItem]:
        if self.closed(state, ctx, player) is not None:
            return []
        if state.turning_up is not None:
            return reveal_menu(state)
        if ctx.turns == 0 and state.deck_mode == "table":  # until the first turn starts
            return correction_menu(state)
        if not self.can_play(state, ctx, player):
            return []
        return legal_actions(state, player)

    # --- pages --------------------------------------------------------------------------
    def view(self, state: GameState, ctx: Context) -> View:
        return self.pages.view(state, ctx)

    def player_view(self, state: GameState, ctx: Context, player: str) -> View:
        return self.pages.player_view(state, ctx, player)

    def scores(self, state: GameState, ctx: Context) -> dict[str, Any] | None:
        return self.pages.scores(state, ctx)
