"""Turn timers, and the referee of a turn-based game built on them.

The player to move flips their turn timer (their lowest-numbered node) to start
the turn; with the table's turn limit on, the turn is forfeited when its sand
runs out. These checks (:class:`TurnTimers`) and the plumbing around them
(:class:`TurnReferee`: deciding table actions into one decision, replaying a
logged action) are the same for every turn-based game, so the table referees of
those games share them and supply only their own steps and words.

Whether a turn runs and how many have started is the table's bookkeeping (the
:class:`~companion.rules.context.Context`), never the game's state: a decision says
that it opened or ended a turn, and the table folds that.

Every word a player reads here is a :class:`~companion.rules.text.Text` (a message id with
its arguments); the Spanish and German are in ``companion/i18n/turns.es.json`` and
``turns.de.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Generic, TypeVar

from companion.errors import InvalidRecordError
from companion.rules.context import Context
from companion.rules.outcome import Decision, IllegalAction, Rejected, Step, checked, refuse
from companion.rules.referee import Referee
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, as_text, joined, text

RULE_TURN_TIMER = text("Turn timer")
"""The hub's rule of the turn timer (not a rulebook's), cited by its refusals."""

T = TypeVar("T")


# --- the actions every turn-based game logs ----------------------------------------------------


@dataclass(frozen=True)
class StartTurn:
    """The player to move started their turn (flipped their turn timer, or made a first move on a
    table where they have none)."""

    player: str


@dataclass(frozen=True)
class TimeOut:
    """The turn timer of the player to move ran out (turn limit on): their turn ends."""

    player: str


@dataclass(frozen=True)
class TurnTimers:
    """Which node of each player is the turn timer, for one table."""

    game_title: Text | str
    """The game's name in sentences (a name is shown as it is)."""
    by_player: dict[str, int]
    """Player -> index of their turn timer (their lowest-numbered node)."""
    turn_limit: bool

    @classmethod
    def of(cls, setup: TableSetup, game_title: Text | str) -> TurnTimers:
        by_player: dict[str, int] = {}
        for seat in setup.seats:
            by_player[seat.player] = min(seat.index, by_player.get(seat.player, seat.index))
        return cls(game_title, by_player, setup.turn_limit)

    def index(self, player: str) -> int:
        return self.by_player.get(player, 1)

    def flip_refusal(
        self, seat: Seat, *, to_move: str, turn_open: bool, rule: Text | str, what_next: Text | str
    ) -> Rejected | None:
        """Why ``seat``'s flip cannot start a turn, or None when it starts the turn of the player to move.

        ``rule`` is the rulebook section cited when it is another player's turn; ``what_next`` says
        what the player does once their turn runs (``text("place a card")``)."""
        wanted = self.index(seat.player)
        if seat.index != wanted:
            return Rejected(
                text(
                    "Timer {index} is not used in {game}: flip timer {wanted} to start your turn",
                    index=seat.index,
                    game=self.game_title,
                    wanted=wanted,
                ),
                RULE_TURN_TIMER,
            )
        if seat.player != to_move:
            return Rejected(
                text("It is {player}'s turn, not {other}'s", player=to_move, other=seat.player), as_text(rule)
            )
        if turn_open:
            return Rejected(
                text("Your turn is already running: flipping again restarts nothing; {next}", next=what_next),
                RULE_TURN_TIMER,
            )
        return None

    def times_out(self, seat: Seat, *, to_move: str, turn_open: bool, is_over: bool) -> bool:
        """True when ``seat`` running out ends the turn of the player to move (turn limit on)."""
        return (
            self.turn_limit
            and not is_over
            and turn_open
            and seat.player == to_move
            and seat.index == self.index(seat.player)
        )

    def tap_refusal(self, player: str, *, turn_open: bool) -> Rejected | None:
        """A tap before the player flipped their turn timer."""
        if player in self.by_player and not turn_open:
            return Rejected(
                text("Flip your timer {index} to start your turn first", index=self.by_player[player]),
                RULE_TURN_TIMER,
            )
        return None


# --- the referee of a turn-based game ------------------------------------------------------------


@dataclass(frozen=True)
class Applied(Generic[T]):
    """One logged action applied by a turn-based game: the state after it and what it caused."""

    state: T
    facts: tuple[Any, ...] = ()
    """The engine's events (the step's facts)."""
    notes: Sequence[Text] = ()
    ends_turn: bool = False
    """The action ended the running turn (a placement, a swap, a time-out)."""
    ends_game: Text | None = None
    """Why the rules ended the game with it (a winner is known)."""


@dataclass
class TurnSteps(Generic[T]):
    """A decision of a turn-based game being built: each action applied once, the turn followed."""

    state: T
    ctx: Context
    actions: list[Any] = field(default_factory=list)
    facts: list[Any] = field(default_factory=list)
    notes: list[Text] = field(default_factory=list)
    opens_turn: bool = False
    ends_turn: bool = False
    ends_game: Text | None = None

    def add(self, action: Any, applied: Applied[T], *, opens: bool = False) -> None:
        """Record one applied action. An action that would end a turn ends one only if a turn runs (a
        computer's move made outside every turn ends none)."""
        if opens and self.ends_turn:
            raise ValueError("one decision cannot end a turn and then open the next")
        ends = applied.ends_turn and (self.ctx.turn_open or opens)
        self.state = applied.state
        self.actions.append(action)
        self.facts.extend(applied.facts)
        note = joined(list(applied.notes))
        if note:
            self.notes.append(note)
        self.ctx = self.ctx.with_turn(opens=opens, ends=ends)
        self.opens_turn = self.opens_turn or opens
        self.ends_turn = self.ends_turn or ends
        self.ends_game = self.ends_game or applied.ends_game

    def decision(self) -> Decision:
        return Decision(
            self.state,
            actions=tuple(self.actions),
            facts=tuple(self.facts),
            notes=tuple(self.notes),
            opens_turn=self.opens_turn,
            ends_turn=self.ends_turn,
            ends_game=self.ends_game,
        )


class TurnReferee(Referee[T]):
    """The referee of a turn-based game at a hub table: the turn timer, the log and the notes.

    It owns what every turn-based game does the same way: the player to move flips their
    turn timer to start the turn (:meth:`timer_flipped`), the sand running out times the
    turn out (:meth:`timer_emptied`), a tap starts the turn of a player without a turn
    timer (:meth:`play`), several table actions are decided into one
    :class:`~companion.rules.outcome.Decision` with each action applied exactly once
    (:meth:`decide`), and a logged action is applied again (:meth:`replay`).

    A game supplies :meth:`step` (the one place its state changes, raising
    :func:`~companion.rules.outcome.refuse` for a broken rule), :meth:`player_to_move`,
    :meth:`is_over`, :meth:`closed` and :meth:`time_out`, and may add moves of its own
    after a step with :meth:`follow_up` (a computer opponent).
    """

    title: ClassVar[Text | str] = ""
    """The game's name in sentences (``text("Timeline")``; a plain string is a name shown as it is)."""
    turn_rule: ClassVar[Text | str] = ""
    """The rulebook section cited when it is someone else's turn (``text("Gameplay")``)."""
    what_next: ClassVar[Text | str] = text("make your move")
    """What a player does once their turn runs, said when they flip again (``text("place a card")``)."""

    def __init__(self, setup: TableSetup) -> None:
        super().__init__(setup)
        self.turns = TurnTimers.of(setup, self.title)
        self.turn_timer = self.turns.by_player
        """Player -> index of their turn timer (players without a sandtimer are not in it)."""

    # --- what each game supplies ----------------------------------------------------------------
    def step(self, state: T, ctx: Context, action: Any) -> Applied[T]:
        """Apply one logged table action (not :class:`StartTurn` or :class:`TimeOut`): the single place
        where the game's state changes; a broken rule is raised with :func:`refuse`."""
        raise NotImplementedError

    def player_to_move(self, state: T) -> str:
        """The hub player whose turn it is (a seat's player); "" when nobody's (the game is over)."""
        raise NotImplementedError

    def is_over(self, state: T, ctx: Context) -> bool:
        """The game is over by its rules or ended by the table (``ctx.is_over``)."""
        raise NotImplementedError

    def closed(self, state: T, ctx: Context, player: str) -> Rejected | None:
        """Why ``player`` cannot act at all now (the game is over, they are out), or None."""
        if ctx.ended_early:
            return Rejected(text("The game was ended early"), RULE_TURN_TIMER)
        if ctx.is_over:
            return Rejected(text("The game is over"), RULE_TURN_TIMER)
        return None

    def turn_started(self, state: T, ctx: Context, player: str) -> Applied[T]:
        """What starting ``player``'s turn does to the game (nothing, by default; the table counts it)."""
        return Applied(state, notes=[text("{player} started their turn", player=self.who(state, player))])

    def time_out(self, state: T, ctx: Context, player: str) -> Applied[T]:
        """The step of :class:`TimeOut`: ``player``'s time ran out (it must end the turn)."""
        raise NotImplementedError

    def follow_up(self, steps: TurnSteps[T]) -> None:
        """Moves the game makes on its own after the actions of a decision (none by default)."""

    def who(self, state: T, player: str) -> Text | str:
        """How notes name ``player`` (their name, by default)."""
        return player

    # --- applying actions -----------------------------------------------------------------------
    def applied(self, state: T, ctx: Context, action: Any) -> Applied[T]:
        """The step of one logged action (the turn's own actions first)."""
        if isinstance(action, StartTurn):
            return self.turn_started(state, ctx, action.player)
        if isinstance(action, TimeOut):
            timed_out = self.time_out(state, ctx, action.player)
            return replace(timed_out, ends_turn=True)
        return self.step(state, ctx, action)

    def take(self, steps: TurnSteps[T], *actions: Any) -> None:
        """Apply ``actions`` in order into ``steps``, each once; a broken rule raises."""
        for action in actions:
            steps.add(
                action, self.applied(steps.state, steps.ctx, action), opens=isinstance(action, StartTurn)
            )

    def replay(self, state: T, ctx: Context, action: Any) -> Decision:
        steps = TurnSteps(state, ctx)
        try:
            self.take(steps, action)
        except IllegalAction as exc:
            raise InvalidRecordError(f"a logged {self.title} action cannot be replayed: {exc}") from None
        return steps.decision()

    @checked
    def decide(self, state: T, ctx: Context, *actions: Any, follow_up: bool = True) -> Decision:
        """``actions`` in order (then the game's own :meth:`follow_up`) as one decision, or the
        first rejection."""
        steps = TurnSteps(state, ctx)
        self.take(steps, *actions)
        if follow_up:
            self.follow_up(steps)
        return steps.decision()

    # --- time ---------------------------------------------------------------------------------
    def clock_started(self, state: T, ctx: Context) -> Step:
        """The master clock only bounds the session; the game may move on its own (:meth:`follow_up`)."""
        return self.decide(state, ctx)

    @checked
    def timer_flipped(self, state: T, ctx: Context, seat: Seat, *, intent: Any, ran_out: bool) -> Step:
        """The player to move flipped their turn timer: their turn starts."""
        closed = self.closed(state, ctx, seat.player)
        if closed is not None:
            return closed
        steps = TurnSteps(state, ctx)
        self.follow_up(steps)  # the game's own moves come first (a computer that opens)
        refused = self.turns.flip_refusal(
            seat,
            to_move=self.player_to_move(steps.state),
            turn_open=steps.ctx.turn_open,
            rule=self.turn_rule,
            what_next=self.what_next,
        )
        if refused is not None:
            return refused
        self.take(steps, StartTurn(self.player_to_move(steps.state)))
        self.follow_up(steps)
        return steps.decision()

    def timer_emptied(self, state: T, ctx: Context, seat: Seat) -> Step:
        """With the turn limit on, the sand of the running turn ran out: the turn is timed out."""
        to_move = self.player_to_move(state)
        if not self.turns.times_out(
            seat, to_move=to_move, turn_open=ctx.turn_open, is_over=self.is_over(state, ctx)
        ):
            return Decision(state)
        step = self.decide(state, ctx, TimeOut(to_move))
        return step if isinstance(step, Decision) else Decision(state)

    # --- phones -------------------------------------------------------------------------------
    def can_play(self, state: T, ctx: Context, player: str) -> bool:
        """``player`` may act now: their turn, started (or they have no turn timer at this table)."""
        return (
            not self.is_over(state, ctx)
            and player == self.player_to_move(state)
            and (ctx.turn_open or player not in self.turn_timer)
        )

    def play(self, state: T, ctx: Context, player: str, action: Any) -> Step:
        """A tap's ``action`` by the player to move: in their running turn, or starting it when
        they have no turn timer; refused before they flipped their timer."""
        if ctx.turn_open:
            return self.decide(state, ctx, action)
        refused = self.turns.tap_refusal(player, turn_open=False)
        if refused is not None:
            return refused
        # a player without a sandtimer at this table starts the turn by playing
        return self.decide(state, ctx, StartTurn(player), action)


__all__ = [
    "RULE_TURN_TIMER",
    "Applied",
    "StartTurn",
    "TimeOut",
    "TurnReferee",
    "TurnSteps",
    "TurnTimers",
    "refuse",
]
