"""What can happen to a table: the inputs of :func:`companion.table.decide.decide`.

Node reports arrive validated by the protocol module; phone taps and hub controls
come from the web API; ``Tick`` comes from the ticker thread when a deadline is due.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from companion.core.protocol import Message as NodeMessage
from companion.rules.setup import TableSetup
from companion.rules.text import Text

ClockAction = Literal["start", "pause", "resume", "abort"]
"""What the host can do to the master clock ("abort" is "End game")."""
CLOCK_ACTIONS: tuple[ClockAction, ...] = ("start", "pause", "resume", "abort")

NodeRequest = Literal["restart", "identify"]
"""What the host can ask of a node."""
NODE_REQUESTS: tuple[NodeRequest, ...] = ("restart", "identify")


# --- what a node reports, as the hub reads it ----------------------------------------------------


@dataclass(frozen=True)
class Hello:
    """A node (re)connected: its boot, its clock, its sand and what it is."""

    boot: str
    t_ms: int
    sand_ms: int
    node_kind: str
    firmware: str
    dropped: int | None = None
    """Events its full buffer had to drop since it booted (None: not said)."""

    kind = "hello"


@dataclass(frozen=True)
class Heartbeat:
    """A node is alive (every 5 s): its sand and its outbox."""

    boot: str
    t_ms: int
    upper_ms: int
    lower_ms: int
    queued: int
    battery_mv: int | None = None
    dropped: int | None = None

    kind = "heartbeat"


@dataclass(frozen=True)
class Flipped:
    """A node was turned over (a sequenced report, kept in the node's outbox until acknowledged)."""

    boot: str
    t_ms: int
    seq: int
    upper_ms: int
    lower_ms: int

    kind = "flip"


@dataclass(frozen=True)
class Emptied:
    """A node's upper bulb ran out (a sequenced report)."""

    boot: str
    t_ms: int
    seq: int

    kind = "empty"


Report = Hello | Heartbeat | Flipped | Emptied
"""One validated event message of a node."""

_REPORTS: dict[str, type[Report]] = {
    "hello": Hello,
    "heartbeat": Heartbeat,
    "flip": Flipped,
    "empty": Emptied,
}


def report_of(message: NodeMessage) -> Report:
    """The typed report of a validated ``event`` message (see :mod:`companion.core.protocol`)."""
    if message.channel != "event" or message.kind not in _REPORTS:
        raise ValueError(f"not a node report: {message!r}")
    return _REPORTS[message.kind](**message.fields())


@dataclass(frozen=True)
class NodeReport:
    """A node's event message (hello, heartbeat, flip or empty)."""

    node: str
    report: Report


@dataclass(frozen=True)
class NodeStatus:
    """A node's retained availability changed (or its last will was published)."""

    node: str
    online: bool


@dataclass(frozen=True)
class BrokerStatus:
    """The hub's MQTT connection came up or went down (``detail``: why, for the dashboard)."""

    online: bool
    detail: Text | str = ""


@dataclass(frozen=True)
class ClockCommand:
    """The host started, paused, resumed or ended the master clock."""

    action: ClockAction
    at_s: float | None = None
    """When it took effect, if earlier than now (a resumed game is paused where the log ends)."""


@dataclass(frozen=True)
class Tick:
    """Time passed: apply what is due (the master clock running out)."""


@dataclass(frozen=True)
class PlayerAction:
    """A player tapped an action on their phone."""

    player: str
    action: Any
    """One of the game's typed moves (``GameInfo.moves``), read from the phone's post by the game's codec."""


@dataclass(frozen=True)
class ChooseIntent:
    """A player chose what their timer ``node`` does at its next flip (None forgets the choice)."""

    player: str
    node: str
    intent: Any
    """One of the game's typed intents (``GameInfo.intents``); None forgets the choice."""


@dataclass(frozen=True)
class Undo:
    """Take back the latest accepted player step."""

    step: int | None = None
    """The step the host confirmed (its log index); refused if the latest step is another one now."""


@dataclass(frozen=True)
class NodeCommand:
    """The host asked a node to ``restart`` or to ``identify`` itself (blink)."""

    node: str
    what: NodeRequest


@dataclass(frozen=True)
class BeginPairing:
    """Set up a new game whose seats take the nodes flipped in turn."""

    setup: TableSetup


@dataclass(frozen=True)
class CancelPairing:
    """Stop pairing; the current game goes on."""


@dataclass(frozen=True)
class NewGame:
    """Start a new game at this table with ``setup`` (its seats name their nodes)."""

    setup: TableSetup


Message = (
    NodeReport
    | NodeStatus
    | BrokerStatus
    | ClockCommand
    | Tick
    | PlayerAction
    | ChooseIntent
    | Undo
    | NodeCommand
    | BeginPairing
    | CancelPairing
    | NewGame
)
