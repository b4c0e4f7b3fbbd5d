"""Table state, rebuilt by folding the event log over the setup and the game's starting state.

``fold(start, events)`` gives the same state whether it runs live, on a resume
after a crash, or in a test, and it never asks the rules: a game step carries
the change it made to the game state. Nothing here reads a clock: every
question about "now" takes ``now_s`` as an argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any

from companion.rules.codec import patch
from companion.rules.context import RECENT_NOTES, Context, EndedBy
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text
from companion.table import events as ev
from companion.table.frozen import changed


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
    actions: tuple[Any, ...]
    before: Any
    """The game state the step was decided on."""
    undone: bool = False
    turn_before: tuple[bool, int] = (False, 0)
    """(turn open, turns started) before the step: an undo gives them back."""
    opens_turn: bool = False
    ends_turn: bool = False
    ended: bool = False
    """The step ended the game by its rules."""


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
    """The latest game steps of the log, in order (at most :data:`UNDO_DEPTH`: what an undo can reach)."""
    step_count: int = 0
    """Game steps logged in all (the log's own count; :attr:`steps` keeps only the latest)."""
    last_at_s: float = 0.0
    """Game time of the latest event folded in (a resumed hub's clock goes on from here)."""
    turn_open: bool = False
    """Turn-based games: the player to move started their turn and has not ended it."""
    turns: int = 0
    """Turns started so far."""
    ended_by: EndedBy = ""
    """How the game ended: by its rules, the master clock or the host ("" while it goes on)."""

    @property
    def paused(self) -> bool:
        return self.clock.phase == "paused"

    @cached_property
    def context(self) -> Context:
        """The table's bookkeeping of the game, as every referee call gets it."""
        notes: list[Text] = []
        for step in reversed(self.steps):
            if len(notes) == RECENT_NOTES:
                break
            if not step.undone and step.note:
                notes.append(step.note)
        notes.reverse()
        return Context(
            started=self.clock.phase != "ready",
            clock_over=self.clock.is_over,
            turn_open=self.turn_open,
            turns=self.turns,
            ended_by=self.ended_by,
            recent=tuple(notes),
        )


UNDO_DEPTH = 256
"""Game steps a table remembers for undo (each with the game state it was decided on). A step
appends in constant time however long the game has run; no table takes back more steps than this."""


def initial_state(setup: TableSetup, game: Any = None) -> TableState:
    """The table before its first event: ``game`` is the game's starting state."""
    timers = {s.node: TimerState(s.node, s.player, s.index) for s in setup.seats}
    return TableState(setup, MasterClock(setup.clock_length_s), MappingProxyType(timers), game=game)


def _with_timers(state: TableState, changes: dict[str, TimerState], **kw: Any) -> TableState:
    timers = dict(state.timers)
    timers.update(changes)
    return changed(state, timers=MappingProxyType(timers), **kw)


def _reported(state: TableState, changes: dict[str, TimerState], **kw: Any) -> TableState:
    """The state after a node's report changed only timers and counts: the game's context (made of
    the clock's phase, the turn, the end and the steps' notes) is the one already made, if any."""
    new = _with_timers(state, changes, **kw)
    made = state.__dict__.get("context")  # what functools.cached_property kept
    if made is not None:
        new.__dict__["context"] = made
    return new


def evolve(state: TableState, event: ev.Event) -> TableState:
    """The state after one event. Events of unknown nodes leave timers alone."""
    index = state.events
    counted: dict[str, Any] = {"events": index + 1, "last_at_s": max(state.last_at_s, event.at_s)}
    match event:  # a node's report first: it is most of what a table folds, in one copy of the state
        case ev.TimerFlipped(node=node, at_s=at, upper_s=upper):
            timer = state.timers.get(node)
            if timer is None:
                return changed(state, **counted)
            phase = "running" if upper > 0 else "empty"
            flipped = changed(
                timer, phase=phase, upper_s=upper, at_s=at, flips=timer.flips + 1, refused=Text("")
            )
            return _reported(state, {node: flipped}, **counted)
        case ev.FlipRefused(node=node, at_s=at, upper_s=upper, reason=reason):
            timer = state.timers.get(node)
            if timer is None:
                return changed(state, refused_flips=state.refused_flips + 1, **counted)
            phase = "running" if upper > 0 else "empty"
            refused = changed(
                timer, phase=phase, upper_s=upper, at_s=at, flips=timer.flips + 1, refused=reason
            )
            return _reported(state, {node: refused}, refused_flips=state.refused_flips + 1, **counted)
        case ev.TimerEmptied(node=node, at_s=at):
            timer = state.timers.get(node)
            if timer is None:
                return changed(state, **counted)
            emptied = changed(timer, phase="empty", upper_s=0.0, at_s=at)
            return _reported(state, {node: emptied}, **counted)
        case ev.GameStepped():
            return _stepped(state, event, index, counted)
    state = changed(state, **counted)
    clock = state.clock
    match event:
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
            ended: EndedBy = state.ended_by or ("rules" if reason else "")
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
            return replace(state, clock=expired, ended_by=ended)
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
            return replace(state, clock=aborted, ended_by=state.ended_by or "host")
        case ev.StepUndone(step=step, change=change):
            return _undone(state, step, patch(state.game, change))
        case ev.SeatAdded(player=player, index=seat_index, node=node):
            if state.setup.seat_of(node) is not None or player not in state.setup.players:
                return state
            setup = replace(state.setup, seats=(*state.setup.seats, Seat(player, seat_index, node)))
            return _with_timers(replace(state, setup=setup), {node: TimerState(node, player, seat_index)})
        case ev.ClockCheckpoint() | ev.TimerKnocked():
            return state
    raise TypeError(f"not a table event: {event!r}")


def _stepped(state: TableState, event: ev.GameStepped, index: int, counted: dict[str, Any]) -> TableState:
    record = StepRecord(
        index,
        event.player,
        event.note,
        event.actions,
        state.game,
        turn_before=(state.turn_open, state.turns),
        opens_turn=event.opens_turn,
        ends_turn=event.ends_turn,
        ended=bool(event.ended),
    )
    game = event.after if event.after is not None else patch(state.game, event.change)
    turn_open, turns = _turn_after(state.turn_open, state.turns, event.opens_turn, event.ends_turn)
    ended: EndedBy = state.ended_by or (_ended_by(event.ended_by) if event.ended else "")
    return changed(
        state,
        game=game,
        steps=(*state.steps[-(UNDO_DEPTH - 1) :], record),
        step_count=state.step_count + 1,
        turn_open=turn_open,
        turns=turns,
        ended_by=ended,
        **counted,
    )


def _ended_by(how: str) -> EndedBy:
    return "clock" if how == "clock" else "host" if how == "host" else "rules"


def _turn_after(turn_open: bool, turns: int, opens: bool, ends: bool) -> tuple[bool, int]:
    if opens:
        turn_open, turns = True, turns + 1
    if ends:
        turn_open = False
    return turn_open, turns


def _undone(state: TableState, step: int, game: Any) -> TableState:
    """The state after the step at log index ``step`` was taken back: the game as the undo decided it,
    the turn as it was before that step with the later steps' turns applied again."""
    steps = tuple(replace(s, undone=True) if s.index == step else s for s in state.steps)
    taken = next((s for s in state.steps if s.index == step), None)
    if taken is None:
        return replace(state, game=game, steps=steps)
    turn_open, turns = taken.turn_before
    for later in steps:
        if later.index > step and not later.undone:
            turn_open, turns = _turn_after(turn_open, turns, later.opens_turn, later.ends_turn)
    ended = state.ended_by
    if taken.ended and ended == "rules" and not state.clock.is_over:
        ended = ""
    return replace(state, game=game, steps=steps, turn_open=turn_open, turns=turns, ended_by=ended)


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
