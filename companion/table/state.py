"""Table state, rebuilt by folding the event log over the setup and the game's starting state.

``fold(start, events)`` gives the same state whether it runs live, on a resume
after a crash, or in a test, and it never asks the rules: a game step carries
the change it made to the game state. Nothing here reads a clock: every
question about "now" takes ``now_s`` as an argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from companion.rules.codec import patch
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text
from companion.table import events as ev


@dataclass(frozen=True)
class MasterClock:
    """The table's master clock: ready, running, paused, expired or aborted."""

    length_s: float
    phase: str = "ready"
    run_before_s: float = 0.0
    """Game time run in earlier segments (before the last pause)."""
    running_since_s: float | None = None
    ended_at_s: float | None = None
    changed_at_s: float | None = None
    """Game time of the last start, pause, resume or end."""
    end_reason: Text = Text("")
    """Why the rules ended the game before the clock ran out; after an early end ("aborted"), why the
    rules could not score it as it stood. Empty otherwise."""

    def elapsed_s(self, now_s: float) -> float:
        if self.phase == "running" and self.running_since_s is not None:
            return min(self.length_s, self.run_before_s + max(0.0, now_s - self.running_since_s))
        return self.run_before_s

    def remaining_s(self, now_s: float) -> float:
        return max(0.0, self.length_s - self.elapsed_s(now_s))

    @property
    def expires_at_s(self) -> float | None:
        """Game time at which a running clock runs out."""
        if self.phase != "running" or self.running_since_s is None:
            return None
        return self.running_since_s + (self.length_s - self.run_before_s)

    @property
    def is_over(self) -> bool:
        return self.phase in ("expired", "aborted")


@dataclass(frozen=True)
class TimerState:
    """The hub's view of one sandtimer, from the levels its node reported."""

    node: str
    player: str
    index: int
    phase: str = "idle"
    """idle (never started), running, or empty."""
    upper_s: float = 0.0
    """Sand on top at ``at_s``."""
    at_s: float = 0.0
    flips: int = 0
    refused: Text = Text("")
    """Why the last flip was refused; empty when it was accepted."""

    def upper_at(self, now_s: float, *, paused: bool) -> float:
        """Sand on top at ``now_s``, extrapolated from the last report."""
        if self.phase != "running" or paused:
            return self.upper_s if self.phase == "running" else 0.0
        return max(0.0, self.upper_s - max(0.0, now_s - self.at_s))


@dataclass(frozen=True)
class StepRecord:
    """A game step still known to the table: where it is in the log and what it found, for an undo."""

    index: int
    """Position of its :class:`~companion.table.events.GameStepped` in the log."""
    player: str
    note: Text
    actions: tuple[dict[str, Any], ...]
    before: Any
    """The game state the step was decided on."""
    undone: bool = False


@dataclass(frozen=True)
class TableState:
    setup: TableSetup
    clock: MasterClock
    timers: Mapping[str, TimerState] = field(default_factory=dict)
    events: int = 0
    """How many events are folded in (the next event's log index)."""
    refused_flips: int = 0
    game: Any = None
    """The game referee's state (None for a table of timers only)."""
    steps: tuple[StepRecord, ...] = ()
    """Every game step of the log, in order."""
    last_at_s: float = 0.0
    """Game time of the latest event folded in (a resumed hub's clock goes on from here)."""

    @property
    def paused(self) -> bool:
        return self.clock.phase == "paused"


def initial_state(setup: TableSetup, game: Any = None) -> TableState:
    """The table before its first event: ``game`` is the game's starting state."""
    timers = {s.node: TimerState(s.node, s.player, s.index) for s in setup.seats}
    return TableState(setup, MasterClock(setup.clock_length_s), MappingProxyType(timers), game=game)


def _with_timers(state: TableState, changes: dict[str, TimerState], **kw: Any) -> TableState:
    timers = dict(state.timers)
    timers.update(changes)
    return replace(state, timers=MappingProxyType(timers), **kw)


def evolve(state: TableState, event: ev.Event) -> TableState:
    """The state after one event. Events of unknown nodes leave timers alone."""
    index = state.events
    state = replace(state, events=index + 1, last_at_s=max(state.last_at_s, event.at_s))
    clock = state.clock
    match event:
        case ev.TimerFlipped(node=node, at_s=at, upper_s=upper):
            timer = state.timers.get(node)
            if timer is None:
                return state
            phase = "running" if upper > 0 else "empty"
            flipped = replace(
                timer, phase=phase, upper_s=upper, at_s=at, flips=timer.flips + 1, refused=Text("")
            )
            return _with_timers(state, {node: flipped})
        case ev.FlipRefused(node=node, at_s=at, upper_s=upper, reason=reason):
            timer = state.timers.get(node)
            if timer is None:
                return replace(state, refused_flips=state.refused_flips + 1)
            phase = "running" if upper > 0 else "empty"
            refused = replace(
                timer, phase=phase, upper_s=upper, at_s=at, flips=timer.flips + 1, refused=reason
            )
            return _with_timers(state, {node: refused}, refused_flips=state.refused_flips + 1)
        case ev.TimerEmptied(node=node, at_s=at):
            timer = state.timers.get(node)
            if timer is None:
                return state
            return _with_timers(state, {node: replace(timer, phase="empty", upper_s=0.0, at_s=at)})
        case ev.ClockStarted(at_s=at, length_s=length):
            return replace(state, clock=MasterClock(length, "running", 0.0, at, changed_at_s=at))
        case ev.ClockPaused(at_s=at):
            frozen = {
                n: replace(t, upper_s=t.upper_at(at, paused=False), at_s=at)
                for n, t in state.timers.items()
                if t.phase == "running"
            }
            new_clock = replace(
                clock, phase="paused", run_before_s=clock.elapsed_s(at), running_since_s=None, changed_at_s=at
            )
            return _with_timers(state, frozen, clock=new_clock)
        case ev.ClockResumed(at_s=at):
            rebased = {n: replace(t, at_s=at) for n, t in state.timers.items() if t.phase == "running"}
            resumed = replace(clock, phase="running", running_since_s=at, changed_at_s=at)
            return _with_timers(state, rebased, clock=resumed)
        case ev.ClockExpired(at_s=at, reason=reason):
            run = clock.length_s if not reason else clock.elapsed_s(at)
            expired = replace(
                clock,
                phase="expired",
                run_before_s=run,
                running_since_s=None,
                ended_at_s=at,
                changed_at_s=at,
                end_reason=reason,
            )
            return replace(state, clock=expired)
        case ev.ClockAborted(at_s=at, unscored=unscored):
            aborted = replace(
                clock,
                phase="aborted",
                run_before_s=clock.elapsed_s(at),
                running_since_s=None,
                ended_at_s=at,
                changed_at_s=at,
                end_reason=unscored,
            )
            return replace(state, clock=aborted)
        case ev.GameStepped(player=player, note=note, actions=actions, change=change):
            record = StepRecord(index, player, note, actions, state.game)
            return replace(state, game=patch(state.game, change), steps=(*state.steps, record))
        case ev.StepUndone(step=step, change=change):
            steps = tuple(replace(s, undone=True) if s.index == step else s for s in state.steps)
            return replace(state, game=patch(state.game, change), steps=steps)
        case ev.SeatAdded(player=player, index=seat_index, node=node):
            if state.setup.seat_of(node) is not None or player not in state.setup.players:
                return state
            setup = replace(state.setup, seats=(*state.setup.seats, Seat(player, seat_index, node)))
            return _with_timers(replace(state, setup=setup), {node: TimerState(node, player, seat_index)})
        case ev.ClockCheckpoint() | ev.TimerKnocked():
            return state
    raise TypeError(f"not a table event: {event!r}")


def fold(setup: TableSetup, events: Iterable[ev.Event], game: Any = None) -> TableState:
    """Rebuild a table's state from its setup, the game's starting state and the events it accepted."""
    state = initial_state(setup, game)
    for event in events:
        state = evolve(state, event)
    return state


def last_step(state: TableState) -> StepRecord | None:
    """The latest player step still in force (what an undo takes back), or None."""
    for step in reversed(state.steps):
        if step.player and not step.undone:
            return step
    return None
