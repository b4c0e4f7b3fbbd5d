"""Table state, rebuilt by folding the event log over the setup.

``fold(setup, events)`` gives the same state whether it runs live, on replay
after a crash, or in a test. Nothing here reads a clock: every question about
"now" takes ``now_s`` as an argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from companion.core.protocol import is_valid_id
from companion.errors import ConfigError
from companion.table import events as ev

PLAYER_COLOURS = ("red", "yellow", "green", "blue", "purple", "orange", "white", "black")

INTRO_CLOCK_S = 12 * 60
FULL_CLOCK_S = 30 * 60
DEFAULT_SAND_S = 60.0


@dataclass(frozen=True)
class Seat:
    """One sandtimer at the table: which player owns it and which node it is."""

    player: str
    index: int
    """1-based number of the timer among the player's timers."""
    node: str


@dataclass(frozen=True)
class TableSetup:
    """Everything fixed before the first event: the table, its game and its timers."""

    table: str
    game: str = "sandtimers"
    clock_length_s: float = INTRO_CLOCK_S
    sand_s: float = DEFAULT_SAND_S
    players: tuple[str, ...] = ()
    seats: tuple[Seat, ...] = ()
    variant: str = ""
    """Game variant, e.g. ``intro`` or ``full``; "" for the game's default."""
    seed: int = 0
    """Seed of every shuffle in the game, so a replay deals the same."""
    turn_limit: bool = True
    """Turn-based games: the sandtimer is a turn limit and running out forfeits the turn."""
    colours: tuple[str, ...] = ()
    """Each player's colour (from :data:`PLAYER_COLOURS`), in the order of ``players``."""

    def colour_of(self, player: str) -> str:
        if player in self.players and len(self.colours) == len(self.players):
            return self.colours[self.players.index(player)]
        return ""

    def seat_of(self, node: str) -> Seat | None:
        for seat in self.seats:
            if seat.node == node:
                return seat
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "game": self.game,
            "clock_length_s": self.clock_length_s,
            "sand_s": self.sand_s,
            "players": list(self.players),
            "seats": [{"player": s.player, "index": s.index, "node": s.node} for s in self.seats],
            "variant": self.variant,
            "seed": self.seed,
            "turn_limit": self.turn_limit,
            "colours": list(self.colours),
        }

    @classmethod
    def from_dict(cls, data: Any) -> TableSetup:
        try:
            seats = tuple(Seat(str(s["player"]), int(s["index"]), str(s["node"])) for s in data["seats"])
            return make_setup(
                table=str(data["table"]),
                game=str(data["game"]),
                clock_length_s=float(data["clock_length_s"]),
                sand_s=float(data["sand_s"]),
                players=tuple(str(p) for p in data["players"]),
                seats=seats,
                variant=str(data.get("variant", "")),
                seed=int(data.get("seed", 0)),
                turn_limit=bool(data.get("turn_limit", True)),
                colours=tuple(str(c) for c in data.get("colours", ())),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"table setup is incomplete or malformed ({exc})") from exc


def make_setup(
    *,
    table: str,
    game: str = "sandtimers",
    clock_length_s: float = INTRO_CLOCK_S,
    sand_s: float = DEFAULT_SAND_S,
    players: tuple[str, ...] = (),
    seats: tuple[Seat, ...] = (),
    variant: str = "",
    seed: int = 0,
    turn_limit: bool = True,
    colours: tuple[str, ...] = (),
) -> TableSetup:
    """Build a checked :class:`TableSetup`."""
    if not is_valid_id(table):
        raise ConfigError(f"table id {table!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
    if not clock_length_s > 0:
        raise ConfigError("the master clock needs a positive length")
    if not sand_s > 0:
        raise ConfigError("a sandtimer needs a positive running time")
    nodes = [s.node for s in seats]
    if len(set(nodes)) != len(nodes):
        raise ConfigError("a node can sit in only one seat")
    for seat in seats:
        if not is_valid_id(seat.node):
            raise ConfigError(f"node id {seat.node!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
        if seat.player not in players:
            raise ConfigError(f"seat {seat.node!r} belongs to unknown player {seat.player!r}")
    if len(set(players)) != len(players):
        raise ConfigError("player names must be different")
    return TableSetup(
        table,
        game,
        float(clock_length_s),
        float(sand_s),
        tuple(players),
        tuple(seats),
        variant,
        int(seed),
        bool(turn_limit),
        player_colours(tuple(players), tuple(colours)),
    )


def player_colours(players: tuple[str, ...], chosen: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A colour per player: the chosen ones, else a player named after a colour gets it, else the next free one."""
    if chosen:
        if len(chosen) != len(players):
            raise ConfigError("give one colour per player")
        unknown = [c for c in chosen if c not in PLAYER_COLOURS]
        if unknown:
            raise ConfigError(f"unknown colour {unknown[0]!r}; choose from {', '.join(PLAYER_COLOURS)}")
        if len(set(chosen)) != len(chosen):
            raise ConfigError("two players have the same colour")
        return tuple(chosen)
    if len(players) > len(PLAYER_COLOURS):
        raise ConfigError(f"at most {len(PLAYER_COLOURS)} players can have their own colour")
    taken = {p for p in players if p in PLAYER_COLOURS}
    free = [c for c in PLAYER_COLOURS if c not in taken]
    return tuple(p if p in PLAYER_COLOURS else free.pop(0) for p in players)


def default_setup(
    table: str = "demo",
    *,
    players: int = 4,
    timers: int = 2,
    clock_length_s: float = INTRO_CLOCK_S,
    sand_s: float = DEFAULT_SAND_S,
    game: str = "sandtimers",
    variant: str = "",
    seed: int = 0,
) -> TableSetup:
    """Players named by colour, each with ``timers`` nodes called ``<colour>-<n>``."""
    if not 1 <= players <= len(PLAYER_COLOURS):
        raise ConfigError(f"players must be between 1 and {len(PLAYER_COLOURS)}")
    if not 1 <= timers <= 4:
        raise ConfigError("timers per player must be between 1 and 4")
    names = PLAYER_COLOURS[:players]
    seats = tuple(Seat(p, i, f"{p}-{i}") for p in names for i in range(1, timers + 1))
    return make_setup(
        table=table,
        game=game,
        clock_length_s=clock_length_s,
        sand_s=sand_s,
        players=names,
        seats=seats,
        variant=variant,
        seed=seed,
    )


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
    end_reason: str = ""
    """Why the rules ended the game before the clock ran out ("" otherwise)."""

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
    refused: str = ""
    """Why the last flip was refused; empty when it was accepted."""

    def upper_at(self, now_s: float, *, paused: bool) -> float:
        """Sand on top at ``now_s``, extrapolated from the last report."""
        if self.phase != "running" or paused:
            return self.upper_s if self.phase == "running" else 0.0
        return max(0.0, self.upper_s - max(0.0, now_s - self.at_s))


@dataclass(frozen=True)
class TableState:
    setup: TableSetup
    clock: MasterClock
    timers: Mapping[str, TimerState] = field(default_factory=dict)
    events: int = 0
    refused_flips: int = 0
    game: Any = None
    """The game engine's state (None for a table of timers only)."""

    @property
    def paused(self) -> bool:
        return self.clock.phase == "paused"


def initial_state(setup: TableSetup, game: Any = None) -> TableState:
    timers = {s.node: TimerState(s.node, s.player, s.index) for s in setup.seats}
    return TableState(setup, MasterClock(setup.clock_length_s), MappingProxyType(timers), game=game)


def _with_timers(state: TableState, changes: dict[str, TimerState], **kw: Any) -> TableState:
    timers = dict(state.timers)
    timers.update(changes)
    return replace(state, timers=MappingProxyType(timers), **kw)


def apply_event(state: TableState, event: ev.Event, referee: Any = None) -> TableState:
    """The state after one event. Events of unknown nodes leave timers alone.

    ``referee`` replays ``GameActed`` events into the game state (see ``companion.table.referee``).
    """
    state = replace(state, events=state.events + 1)
    clock = state.clock
    match event:
        case ev.TimerFlipped(node=node, at_s=at, upper_s=upper):
            timer = state.timers.get(node)
            if timer is None:
                return state
            phase = "running" if upper > 0 else "empty"
            return _with_timers(
                state,
                {
                    node: replace(
                        timer, phase=phase, upper_s=upper, at_s=at, flips=timer.flips + 1, refused=""
                    )
                },
            )
        case ev.FlipRefused(node=node, at_s=at, upper_s=upper, reason=reason):
            timer = state.timers.get(node)
            if timer is None:
                return replace(state, refused_flips=state.refused_flips + 1)
            phase = "running" if upper > 0 else "empty"
            return _with_timers(
                state,
                {
                    node: replace(
                        timer, phase=phase, upper_s=upper, at_s=at, flips=timer.flips + 1, refused=reason
                    )
                },
                refused_flips=state.refused_flips + 1,
            )
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
            return _with_timers(
                state, rebased, clock=replace(clock, phase="running", running_since_s=at, changed_at_s=at)
            )
        case ev.ClockExpired(at_s=at, reason=reason):
            run = clock.length_s if not reason else clock.elapsed_s(at)
            return replace(
                state,
                clock=replace(
                    clock,
                    phase="expired",
                    run_before_s=run,
                    running_since_s=None,
                    ended_at_s=at,
                    changed_at_s=at,
                    end_reason=reason,
                ),
            )
        case ev.ClockAborted(at_s=at):
            return replace(
                state,
                clock=replace(
                    clock,
                    phase="aborted",
                    run_before_s=clock.elapsed_s(at),
                    running_since_s=None,
                    ended_at_s=at,
                    changed_at_s=at,
                ),
            )
        case ev.GameActed(action=action):
            if referee is None:
                return state
            return replace(state, game=referee.replay(state.game, action))
        case ev.SeatAdded(player=player, index=index, node=node):
            if state.setup.seat_of(node) is not None or player not in state.setup.players:
                return state
            seat = Seat(player, index, node)
            setup = replace(state.setup, seats=(*state.setup.seats, seat))
            return _with_timers(replace(state, setup=setup), {node: TimerState(node, player, index)})
        case ev.ActionRefused() | ev.StepUndone():
            return state  # an undo changes the past: fold() skips the undone steps
    raise TypeError(f"not a table event: {event!r}")


def undone_indexes(events: list[ev.Event]) -> set[int]:
    """Log indexes of the game steps that a later ``StepUndone`` took back."""
    undone: set[int] = set()
    for event in events:
        if isinstance(event, ev.StepUndone):
            undone.update(range(event.first, event.first + event.count))
    return undone


def fold(setup: TableSetup, events: Iterable[ev.Event], referee: Any = None) -> TableState:
    """Rebuild a table's state from its setup and the events it accepted, in order.

    Game steps taken back by a ``StepUndone`` are skipped (they stay in the log).
    """
    events = list(events)
    undone = undone_indexes(events)
    state = initial_state(setup, referee.start(setup) if referee is not None else None)
    for index, event in enumerate(events):
        if index in undone:
            state = replace(state, events=state.events + 1)
            continue
        state = apply_event(state, event, referee)
    return state
