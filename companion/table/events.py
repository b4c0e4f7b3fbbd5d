"""Events of a table: facts the hub accepted, in the order it accepted them.

Times are seconds of hub game time (``at_s``); node timestamps are mapped onto
the hub's clock before an event is made, so the log counts time with one clock.

Every event here is written to the game's log. A game step (:class:`GameStepped`)
records what the rules decided as facts: the engine's own events and the change
the step made to the game state, so reading a log back never asks the rules again.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.codec import Codec, Op
from companion.rules.text import Text, from_json


class LoggedEvent:
    """Marks the events that are written to the game's log (every class of this module that has it);
    the table's other changes are kept in memory only (:mod:`companion.table.model`)."""

    __slots__ = ()
    at_s: float


@dataclass(frozen=True)
class TimerFlipped(LoggedEvent):
    """A sandtimer node was turned over and the flip was accepted."""

    node: str
    at_s: float
    upper_s: float
    """Sand in the upper bulb right after the flip, in seconds of running time."""
    lower_s: float
    boot: str = ""
    """The node's boot id and sequence number of the report (which report this was)."""
    seq: int = 0
    early: bool = False
    """Lifted before its sand ran through, on a table that lets that count (``early_lifts``)."""


@dataclass(frozen=True)
class FlipRefused(LoggedEvent):
    """A node was turned over against the rules; its sand runs but counts for nothing."""

    node: str
    at_s: float
    upper_s: float
    lower_s: float
    reason: Text
    boot: str = ""
    seq: int = 0


@dataclass(frozen=True)
class TimerKnocked(LoggedEvent):
    """A node was turned and turned back within the table's grace window (a knock, a tip-over):
    neither flip counts and nothing is flagged."""

    node: str
    at_s: float
    back_at_s: float
    boot: str = ""
    seq: int = 0
    """The report of the first turn; ``back_seq`` the one that turned it back."""
    back_seq: int = 0


@dataclass(frozen=True)
class TimerEmptied(LoggedEvent):
    """The upper bulb of a node ran out."""

    node: str
    at_s: float
    boot: str = ""
    seq: int = 0


@dataclass(frozen=True)
class ClockStarted(LoggedEvent):
    """The master clock started with ``length_s`` to run."""

    at_s: float
    length_s: float


@dataclass(frozen=True)
class ClockPaused(LoggedEvent):
    at_s: float


@dataclass(frozen=True)
class ClockResumed(LoggedEvent):
    at_s: float


@dataclass(frozen=True)
class ClockExpired(LoggedEvent):
    """The master clock ran out: no new timer may start, running ones finish."""

    at_s: float
    reason: Text = Text("")
    """Why the game time ended early by the rules (e.g. the last victory-point marker); empty when it ran out."""


@dataclass(frozen=True)
class ClockAborted(LoggedEvent):
    """The game was ended early from the hub (the rules then score it as it stands)."""

    at_s: float
    unscored: Text = Text("")
    """Why the rules cannot score the game as it stands; empty when they could."""


@dataclass(frozen=True)
class GameStepped(LoggedEvent):
    """The game's rules accepted one step (a flip, a tap, a time fact): what they decided, as facts."""

    at_s: float
    player: str
    """Who acted, "" for time facts."""
    note: Text
    """What happened, for players (a message id with its arguments)."""
    facts: tuple[Any, ...]
    """The engine's own events, in order (the game's types)."""
    change: tuple[Op, ...]
    """What the step changed in the game state (see :func:`companion.rules.codec.diff`)."""
    actions: tuple[Any, ...] = ()
    """The actions the step applied, the game's typed values (an undo decides the later steps again
    from them)."""
    rules: int = 0
    """The version of the game's rules that decided the step."""
    opens_turn: bool = False
    """The step started the turn of the player to move."""
    ends_turn: bool = False
    """The step ended the running turn."""
    ended: Text = Text("")
    """Why the rules ended the game with this step; empty while it goes on."""
    ended_by: str = ""
    """How: "rules" (a step of play), "clock" (the rules' answer to the master clock running out) or
    "host" (to "End game"); "" while the game goes on."""
    after: Any = field(default=None, compare=False, repr=False)
    """The game state after the step, when the step was decided here (never logged): folding it takes
    this state instead of patching the old one with ``change``, which gives an equal state."""


@dataclass(frozen=True)
class ClockCheckpoint(LoggedEvent):
    """Game time passed while nothing else happened: a resumed game goes on from here, not from
    the last event (so a crash gives back at most the checkpoint interval)."""

    at_s: float


@dataclass(frozen=True)
class SeatAdded(LoggedEvent):
    """A player got one more sandtimer during the game (e.g. Space Dealer's Robot Factory)."""

    at_s: float
    player: str
    index: int
    node: str
    boot: str = ""
    """The boot id and sequence number of the new node's flip that took the seat."""
    seq: int = 0


@dataclass(frozen=True)
class StepUndone(LoggedEvent):
    """The hub took back the game step logged at index ``step``; ``change`` is what that did to the state
    (the later steps decided again without it)."""

    at_s: float
    step: int
    note: Text
    change: tuple[Op, ...] = ()


Event = (
    TimerFlipped
    | FlipRefused
    | TimerKnocked
    | TimerEmptied
    | ClockStarted
    | ClockPaused
    | ClockResumed
    | ClockExpired
    | ClockAborted
    | GameStepped
    | ClockCheckpoint
    | StepUndone
    | SeatAdded
)

EVENT_TYPES: dict[str, type[LoggedEvent]] = {cls.__name__: cls for cls in LoggedEvent.__subclasses__()}
"""Every logged event by the name the log writes."""

NODE_REPORTS = (TimerFlipped, FlipRefused, TimerKnocked, TimerEmptied, SeatAdded)
"""Events that answer one sequenced report of a node (the hub remembers its verdict)."""

CLOCK_EVENTS = (ClockStarted, ClockPaused, ClockResumed, ClockExpired, ClockAborted)
"""Events that change the master clock (the nodes are told the table state again)."""

LEGACY_SKIPPED = {"ActionRefused"}
"""Event types older logs hold that are no longer logged (a refused tap changes nothing); reading skips them."""

_GAME_FIELDS = {"facts", "change", "actions", "after"}
"""Fields whose values are the game's own types, written with the game's codec."""


def event_to_dict(event: Event, codec: Codec | None = None) -> dict[str, Any]:
    """JSON-ready form of an event, tagged with its type name (game values through ``codec``)."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for f in fields(event):
        if not f.compare:
            continue  # kept in memory only
        value = getattr(event, f.name)
        if f.name in ("facts", "actions"):
            value = [_codec(codec).encode(item) for item in value]
        elif f.name == "change":
            value = _codec(codec).encode_ops(value)
        elif isinstance(value, Text):
            value = value.to_json()
        out[f.name] = value
    return out


def event_summary(event: Event) -> dict[str, Any]:
    """The event's type and plain fields, without the game's own values (facts, state change)."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for f in fields(event):
        if f.name not in _GAME_FIELDS and f.compare:
            value = getattr(event, f.name)
            if isinstance(value, Text):
                value = value.to_json()
            out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def _codec(codec: Codec | None) -> Codec:
    return codec if codec is not None else Codec()


def event_from_dict(data: Any, codec: Codec | None = None) -> Event:
    """Rebuild an event from :func:`event_to_dict` output, checking every field."""
    if not isinstance(data, dict):
        raise InvalidRecordError("an event must be a JSON object")
    cls: Any = EVENT_TYPES.get(data.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise InvalidRecordError(f"unknown event type {data.get('type')!r}")
    values: dict[str, Any] = {}
    for f in fields(cls):
        if not f.compare:
            continue
        if f.name not in data and f.default is not MISSING:
            continue
        if f.name not in data:
            raise InvalidRecordError(f"{cls.__name__} event lacks field {f.name!r}")
        values[f.name] = _field(cls.__name__, f.name, str(f.type), data[f.name], codec)
    extra = set(data) - {"type"} - set(values)
    if extra:
        raise InvalidRecordError(f"{cls.__name__} event has unexpected fields {sorted(extra)}")
    return cls(**values)  # type: ignore[no-any-return]


def _field(owner: str, name: str, kind: str, value: Any, codec: Codec | None) -> Any:
    where = f"{owner}.{name}"
    if name in ("facts", "actions"):
        if not isinstance(value, list):
            raise InvalidRecordError(f"{where} must be a list")
        return tuple(_codec(codec).decode(item) for item in value)
    if name == "change":
        return _codec(codec).decode_ops(value)
    if kind == "Text":
        try:
            return from_json(value)  # a plain string (an older log's English sentence) is kept verbatim
        except ValueError as exc:
            raise InvalidRecordError(f"{where}: {exc}") from None
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidRecordError(f"{where} must be a number")
        return float(value)
    if kind == "bool" and not isinstance(value, bool):
        raise InvalidRecordError(f"{where} must be true or false")
    if kind == "str" and not isinstance(value, str):
        raise InvalidRecordError(f"{where} must be text")
    if kind == "int" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise InvalidRecordError(f"{where} must be a whole number")
    return value
