"""What can happen to a table: the inputs of :func:`companion.table.decide.decide`.

Node reports arrive validated by the protocol module; phone taps and hub controls
come from the web API; ``Tick`` comes from the ticker thread when a deadline is due.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.core.protocol import Message as NodeMessage
from companion.rules.setup import TableSetup
from companion.rules.text import Text


@dataclass(frozen=True)
class NodeReport:
    """A node's event message (hello, heartbeat, flip or empty)."""

    node: str
    message: NodeMessage


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

    action: str
    """``start``, ``pause``, ``resume`` or ``abort``."""
    at_s: float | None = None
    """When it took effect, if earlier than now (a resumed game is paused where the log ends)."""


@dataclass(frozen=True)
class Tick:
    """Time passed: apply what is due (the master clock running out)."""


@dataclass(frozen=True)
class PlayerAction:
    """A player tapped an action on their phone."""

    player: str
    action: dict[str, Any]


@dataclass(frozen=True)
class ChooseIntent:
    """A player chose what their timer ``node`` does at its next flip (None forgets the choice)."""

    player: str
    node: str
    intent: dict[str, Any] | None


@dataclass(frozen=True)
class Undo:
    """Take back the latest accepted player step."""

    step: int | None = None
    """The step the host confirmed (its log index); refused if the latest step is another one now."""


@dataclass(frozen=True)
class NodeCommand:
    """The host asked a node to ``restart`` or to ``identify`` itself (blink)."""

    node: str
    what: str


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
