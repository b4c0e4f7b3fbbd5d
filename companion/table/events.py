"""Events of a table: facts the hub accepted, in the order it accepted them.

Times are seconds of hub game time (``at_s``); node timestamps are mapped onto
the hub's clock before an event is made, so the log counts time with one clock.
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any

from companion.errors import InvalidRecordError


@dataclass(frozen=True)
class TimerFlipped:
    """A sandtimer node was turned over and the flip was accepted."""

    node: str
    at_s: float
    upper_s: float
    """Sand in the upper bulb right after the flip, in seconds of running time."""
    lower_s: float


@dataclass(frozen=True)
class FlipRefused:
    """A node was turned over against the rules; its sand runs but counts for nothing."""

    node: str
    at_s: float
    upper_s: float
    lower_s: float
    reason: str


@dataclass(frozen=True)
class TimerEmptied:
    """The upper bulb of a node ran out."""

    node: str
    at_s: float


@dataclass(frozen=True)
class ClockStarted:
    """The master clock started with ``length_s`` to run."""

    at_s: float
    length_s: float


@dataclass(frozen=True)
class ClockPaused:
    at_s: float


@dataclass(frozen=True)
class ClockResumed:
    at_s: float


@dataclass(frozen=True)
class ClockExpired:
    """The master clock ran out: no new timer may start, running ones finish."""

    at_s: float
    reason: str = ""
    """Why the game time ended early by the rules (e.g. the last victory-point marker); "" when it ran out."""


@dataclass(frozen=True)
class ClockAborted:
    """The game was ended early from the hub."""

    at_s: float


@dataclass(frozen=True)
class GameActed:
    """The game's rules engine accepted this action (its JSON form, replayed on restart)."""

    at_s: float
    action: dict
    player: str = ""
    """Who acted, "" for time facts."""
    note: str = ""
    """What happened, in words."""


@dataclass(frozen=True)
class ActionRefused:
    """A player's action was refused by the rules (shown in red, changes nothing)."""

    at_s: float
    player: str
    reason: str


@dataclass(frozen=True)
class SeatAdded:
    """A player got one more sandtimer during the game (e.g. Space Dealer's Robot Factory)."""

    at_s: float
    player: str
    index: int
    node: str


@dataclass(frozen=True)
class StepUndone:
    """The hub undid one accepted game step: the ``count`` GameActed events from log index ``first``."""

    at_s: float
    first: int
    count: int
    note: str = ""


Event = (
    TimerFlipped
    | FlipRefused
    | TimerEmptied
    | ClockStarted
    | ClockPaused
    | ClockResumed
    | ClockExpired
    | ClockAborted
    | GameActed
    | ActionRefused
    | StepUndone
    | SeatAdded
)

EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        TimerFlipped,
        FlipRefused,
        TimerEmptied,
        ClockStarted,
        ClockPaused,
        ClockResumed,
        ClockExpired,
        ClockAborted,
        GameActed,
        ActionRefused,
        StepUndone,
        SeatAdded,
    )
}


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON-ready form of an event, tagged with its type name."""
    return {"type": type(event).__name__, **asdict(event)}


def event_from_dict(data: Any) -> Event:
    """Rebuild an event from :func:`event_to_dict` output, checking every field."""
    if not isinstance(data, dict):
        raise InvalidRecordError("an event must be a JSON object")
    cls = EVENT_TYPES.get(data.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise InvalidRecordError(f"unknown event type {data.get('type')!r}")
    values = {}
    for f in fields(cls):
        if f.name not in data and f.default is not MISSING:
            continue
        if f.name not in data:
            raise InvalidRecordError(f"{cls.__name__} event lacks field {f.name!r}")
        value = data[f.name]
        if f.type == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidRecordError(f"{cls.__name__}.{f.name} must be a number")
            value = float(value)
        elif f.type == "str" and not isinstance(value, str):
            raise InvalidRecordError(f"{cls.__name__}.{f.name} must be text")
        elif f.type == "int" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise InvalidRecordError(f"{cls.__name__}.{f.name} must be a whole number")
        elif f.type == "dict" and not isinstance(value, dict):
            raise InvalidRecordError(f"{cls.__name__}.{f.name} must be an object")
        values[f.name] = value
    extra = set(data) - {"type"} - set(values)
    if extra:
        raise InvalidRecordError(f"{cls.__name__} event has unexpected fields {sorted(extra)}")
    return cls(**values)
