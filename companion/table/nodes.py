"""What the hub knows about each node: availability, battery, clock mapping, sequence numbers.

Availability is not game state, so it lives here and not in the event log. A
:class:`NodeLink` is a frozen value; the table replaces it whenever a node is heard.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

OFFSET_WINDOW = 24
"""Clock samples kept per node (the smallest wins)."""
VERDICT_CACHE = 64
"""Verdicts kept per node, to answer a repeated report the same way."""


@dataclass(frozen=True)
class NodeLink:
    """One node as the hub last heard it.

    The clock mapping: every message gives one sample ``hub_receive_s - node_t_s``;
    network delay only ever makes a sample larger, so the smallest sample of a recent
    window is the best estimate of the offset (it also follows slow crystal drift).
    """

    node: str
    online: bool = False
    last_seen_s: float | None = None
    boot: str | None = None
    node_kind: str | None = None
    firmware: str | None = None
    battery_mv: int | None = None
    queued: int = 0
    last_seq: int = 0
    last_at_s: float = 0.0
    """Hub time of the last sequenced event, so mapped times never run backwards."""
    offsets: tuple[float, ...] = ()
    verdicts: tuple[tuple[int, str, str], ...] = ()
    """Recent (seq, verdict, reason), oldest first."""

    @property
    def offset_s(self) -> float | None:
        return min(self.offsets) if self.offsets else None

    def heard(self, *, boot: str, t_ms: int, now_s: float) -> NodeLink:
        """The link after a message stamped ``t_ms`` by boot ``boot`` arrived at ``now_s``.

        A new boot id means the node restarted: its sequence numbers and clock start afresh.
        """
        link = self
        if boot != self.boot:
            link = replace(self, boot=boot, last_seq=0, last_at_s=0.0, verdicts=(), offsets=())
        sample = now_s - t_ms / 1000.0
        return replace(link, offsets=(*link.offsets, sample)[-OFFSET_WINDOW:], last_seen_s=now_s, online=True)

    def to_hub(self, t_ms: int, now_s: float) -> float:
        """Hub time of a node timestamp, never later than ``now_s``."""
        offset = self.offset_s
        if offset is None:
            return now_s
        return min(now_s, t_ms / 1000.0 + offset)

    def verdict(self, seq: int) -> tuple[str, str] | None:
        for known, verdict, reason in self.verdicts:
            if known == seq:
                return verdict, reason
        return None

    def remember(self, seq: int, verdict: str, reason: str) -> NodeLink:
        verdicts = (*self.verdicts, (seq, verdict, reason))[-VERDICT_CACHE:]
        return replace(self, verdicts=verdicts, last_seq=max(self.last_seq, seq))

    def reported(self, boot: str, seq: int, verdict: str, reason: str, *, at_s: float) -> NodeLink:
        """The link after the hub logged its verdict on report ``seq`` of boot ``boot`` (made at ``at_s``)."""
        link = self
        if boot != self.boot:
            link = replace(self, boot=boot, last_seq=0, last_at_s=0.0, verdicts=(), offsets=())
        return replace(link.remember(seq, verdict, reason), last_at_s=max(link.last_at_s, at_s))

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "online": self.online,
            "last_seen_s": self.last_seen_s,
            "boot": self.boot,
            "kind": self.node_kind,
            "firmware": self.firmware,
            "battery_mv": self.battery_mv,
            "queued": self.queued,
            "last_seq": self.last_seq,
            "clock_offset_s": self.offset_s,
        }
