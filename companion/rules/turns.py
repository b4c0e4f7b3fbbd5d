"""Turn timers, and the referee of a turn-based game built on them.

The player to move flips their turn timer (their lowest-numbered node) to start
the turn; with the table's turn limit on, the turn is forfeited when its sand
runs out. These checks (:class:`TurnTimers`) and the plumbing around them
(:class:`TurnReferee`: deciding table actions into one decision, replaying a
logged action, the latest happenings kept for the pages) are the same for every
turn-based game, so the table referees of those games share them and supply
only their own steps and words.

Every word a player reads here is a :class:`~companion.rules.text.Text` (a message id with
its arguments); the Spanish and German are in ``companion/i18n/turns.es.json`` and
``turns.de.json``. A game gives its title, rule and next move as texts (a plain string is
shown as it is) and its notes as texts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Protocol, TypeAlias, TypeVar

from companion.errors import InvalidRecordError
from companion.rules.outcome import Decision, Rejected, Step
from companion.rules.referee import Referee, Steps
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, as_text, joined, text

RULE_TURN_TIMER = text("Turn timer")
"""The hub's rule of the turn timer (not a rulebook's), cited by its refusals."""


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


class TurnState(Protocol):
    """What a turn-based game keeps beside its engine state (fields of a frozen dataclass)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def turn_open(self) -> bool:
        """The player to move started their turn (flipped their turn timer) and has not ended it."""

    @property
    def turns(self) -> int:
        """Turns started so far."""

    @property
    def last(self) -> tuple[Text | str, ...]:
        """The latest happenings, oldest first, for the pages (a plain string: an older log's note)."""


T = TypeVar("T", bound=TurnState)

Applied: TypeAlias = tuple[T, tuple[Any, ...], Sequence[Text]]
"""One table action applied: the state after it, the engine's events (facts) and the notes (texts)."""


class TurnReferee(Referee[T]):
    """The referee of a turn-based game at a hub table: the turn timer, the log and the notes.

    It owns what every turn-based game does the same way: the player to move flips their
    turn timer to start the turn (:meth:`timer_flipped`), the sand running out times the
    turn out (:meth:`timer_emptied`), a tap starts the turn of a player without a turn
    timer (:meth:`play`), several table actions are decided into one
    :class:`~companion.rules.outcome.Decision` with each action applied exactly once
    (:meth:`decide`), a logged action is applied again (:meth:`replay`), and the latest
    happenings are kept in the state for the pages.

    A game supplies :meth:`step` (the one place its state changes), :meth:`player_to_move`,
    :meth:`is_over`, :meth:`closed`, :meth:`turn_start` and :meth:`turn_time_out`, and may
    add moves of its own after a step with :meth:`follow_up` (a computer opponent).
    """

    title: ClassVar[Text | str] = ""
    """The game's name in sentences (``text("Timeline")``; a plain string is a name shown as it is)."""
    turn_rule: ClassVar[Text | str] = ""
    """The rulebook section cited when it is someone else's turn (``text("Gameplay")``)."""
    what_next: ClassVar[Text | str] = text("make your move")
    """What a player does once their turn runs, said when they flip again (``text("place a card")``)."""
    last_notes: ClassVar[int] = 4
    """How many of the latest happenings the state keeps for the pages."""

    def __init__(self, setup: TableSetup) -> None:
        super().__init__(setup)
        self.turns = TurnTimers.of(setup, self.title)
        self.turn_timer = self.turns.by_player
        """Player -> index of their turn timer (players without a sandtimer are not in it)."""

    # --- what each game supplies ----------------------------------------------------------------
    def step(self, state: T, action: dict[str, Any]) -> Applied[T] | Rejected:
        """Apply one logged table action: the single place where the game's state changes."""
        raise NotImplementedError

    def player_to_move(self, state: T) -> str:
        """The hub player whose turn it is (a seat's player)."""
        raise NotImplementedError

    def is_over(self, state: T) -> bool:
        raise NotImplementedError

    def closed(self, state: T, player: str) -> Rejected | None:
        """Why ``player`` cannot act at all now (the game is over, they are out), or None."""
        return None

    def turn_start(self, state: T) -> dict[str, Any]:
        """The logged action that starts the turn of the player to move."""
        raise NotImplementedError

    def turn_time_out(self, state: T) -> dict[str, Any]:
        """The logged action that ends the turn of the player to move when their sand ran out."""
        raise NotImplementedError

    def follow_up(self, steps: Steps) -> None:
        """Moves the game makes on its own after the actions of a decision (none by default)."""

    # --- applying actions -----------------------------------------------------------------------
    def open_turn(self, state: T, who: Text | str) -> Applied[T]:
        """The step of a turn-start action: the turn runs and is counted ("ana started their turn").

        ``who`` is the player's name, or a text naming them (``text("{name} ({letter})", ...)``)."""
        return (
            replace(state, turn_open=True, turns=state.turns + 1),
            (),
            [text("{player} started their turn", player=who)],
        )

    def applied(self, state: T, action: dict[str, Any]) -> Applied[T] | Rejected:
        """:meth:`step`, with its notes added to the latest happenings kept in the state."""
        step = self.step(state, action)
        if isinstance(step, Rejected):
            return step
        after, facts, notes = step
        return replace(after, last=(after.last + tuple(notes))[-self.last_notes :]), facts, notes

    def replay(self, state: T, action: dict[str, Any]) -> T:
        step = self.applied(state, action)
        if isinstance(step, Rejected):
            raise InvalidRecordError(f"a logged {self.title} action cannot be replayed: {step}")
        return step[0]

    def take(self, steps: Steps, *actions: dict[str, Any]) -> Rejected | None:
        """Apply ``actions`` in order into ``steps``, each once; the first rejection stops them."""
        for action in actions:
            step = self.applied(steps.state, action)
            if isinstance(step, Rejected):
                return step
            after, facts, notes = step
            steps.add(after, action, tuple(facts), joined(list(notes)))
        return None

    def decide(self, state: T, *actions: dict[str, Any], follow_up: bool = True) -> Decision | Rejected:
        """``actions`` in order (then the game's own :meth:`follow_up`) as one decision, or the
        first rejection."""
        steps = Steps(state)
        refused = self.take(steps, *actions)
        if refused is not None:
            return refused
        if follow_up:
            self.follow_up(steps)
        return steps.decision()

    # --- time ---------------------------------------------------------------------------------
    def clock_started(self, state: T) -> Step:
        """The master clock only bounds the session; the game may move on its own (:meth:`follow_up`)."""
        return self.decide(state)

    def timer_flipped(self, state: T, seat: Seat, *, intent: dict[str, Any] | None, ran_out: bool) -> Step:
        """The player to move flipped their turn timer: their turn starts."""
        closed = self.closed(state, seat.player)
        if closed is not None:
            return closed
        steps = Steps(state)
        self.follow_up(steps)  # the game's own moves come first (a computer that opens)
        refused = self.turns.flip_refusal(
            seat,
            to_move=self.player_to_move(steps.state),
            turn_open=steps.state.turn_open,
            rule=self.turn_rule,
            what_next=self.what_next,
        )
        if refused is None:
            refused = self.take(steps, self.turn_start(steps.state))
        if refused is not None:
            return refused
        self.follow_up(steps)
        return steps.decision()

    def timer_emptied(self, state: T, seat: Seat) -> Step:
        """With the turn limit on, the sand of the running turn ran out: the turn is timed out."""
        if not self.turns.times_out(
            seat, to_move=self.player_to_move(state), turn_open=state.turn_open, is_over=self.is_over(state)
        ):
            return Decision(state)
        step = self.decide(state, self.turn_time_out(state))
        return step if isinstance(step, Decision) else Decision(state)

    # --- phones -------------------------------------------------------------------------------
    def can_play(self, state: T, player: str) -> bool:
        """``player`` may act now: their turn, started (or they have no turn timer at this table)."""
        return (
            not self.is_over(state)
            and player == self.player_to_move(state)
            and (state.turn_open or player not in self.turn_timer)
        )

    def play(self, state: T, player: str, action: dict[str, Any]) -> Step:
        """A tap's ``action`` by the player to move: in their running turn, or starting it when
        they have no turn timer; refused before they flipped their timer."""
        if state.turn_open:
            return self.decide(state, action)
        refused = self.turns.tap_refusal(player, turn_open=False)
        if refused is not None:
            return refused
        # a player without a sandtimer at this table starts the turn by playing
        return self.decide(state, self.turn_start(state), action)
