"""Commands the hub sends out: what a transaction asks of the nodes, in the order they must see it.

The table's :func:`~companion.table.decide.decide` returns them as one ordered list
per transaction (a node sees its ack before anything else its flip caused), and the
MQTT bridge sends them in that order. ``kind`` and ``fields`` are the protocol's
message kind and payload fields (see ``companion.core.protocol``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class Ack:
    """The verdict on one sequenced report (flip or empty) of a node."""

    kind: ClassVar[str] = "ack"
    node: str
    boot: str
    seq: int
    verdict: str
    reason: str = ""

    @property
    def fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"boot": self.boot, "seq": self.seq, "verdict": self.verdict}
        if self.reason:
            out["reason"] = self.reason[:200]
        return out


@dataclass(frozen=True)
class Show:
    """Light a node's pattern (identify blink, sabotaged, clear)."""

    kind: ClassVar[str] = "show"
    node: str
    pattern: str

    @property
    def fields(self) -> dict[str, Any]:
        return {"pattern": self.pattern}


@dataclass(frozen=True)
class Configure:
    """Tell a node the table's sand duration."""

    kind: ClassVar[str] = "config"
    node: str
    sand_ms: int

    @property
    def fields(self) -> dict[str, Any]:
        return {"sand_ms": self.sand_ms}


@dataclass(frozen=True)
class Restart:
    """Ask a node to restart."""

    kind: ClassVar[str] = "restart"
    node: str

    @property
    def fields(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class PublishTableState:
    """The retained table state every node follows (master clock phase and time left)."""

    kind: ClassVar[str] = "table"
    clock: str
    remaining_ms: int
    length_ms: int
    game: str
    time_scale: float
    node: ClassVar[None] = None

    @property
    def fields(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CallForReports:
    """Every node sends its whole outbox again now (the hub's status is published ``online`` once
    more), e.g. when the hub can log again the reports it answered ``retry``."""

    kind: ClassVar[str] = "online"
    node: ClassVar[None] = None

    @property
    def fields(self) -> dict[str, Any]:
        return {}


Command = Ack | Show | Configure | Restart | PublishTableState | CallForReports
