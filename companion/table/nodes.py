"""What the hub knows about each node: availability, battery, clock mapping, sequence numbers.

Availability is not game state, so it lives here and not in the event log. A
:class:`NodeLink` is a frozen value; the table replaces it whenever a node is heard.

Sequence numbers: every flip or empty report carries the node's boot id and a number
that counts up from 1 per boot. The hub remembers its verdict on each (boot, number) it
logged (rebuilt from the log after a restart), answers a report it has seen with the
same verdict, and applies any other one: a report that arrives late or after a gap is
applied and counted, never swallowed. A number too far ahead of anything the node can
have buffered is refused, so one forged message cannot make the hub ignore a node.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Any

from companion.table.frozen import changed

OFFSET_SAMPLES = 24
"""Clock samples kept per node (the smallest wins): two minutes of heartbeats."""
VERDICT_MEMORY = 1024
"""Verdicts kept per node (a 30-minute game has a few dozen reports per node)."""
MAX_SEQ_JUMP = 1024
"""The largest step ahead a report's number may take: a node buffers far fewer (see protocol.md)."""
VERDICT_CHUNK = 64
"""Verdicts are kept in chunks of this many, so remembering one more copies at most a chunk, not
the whole memory (a node that has sent a thousand reports costs the same per report as a new one)."""

Verdict = tuple[str, int, str, str]
"""(boot, seq, verdict, reason) of one report the hub decided."""


@dataclass(frozen=True)
class NodeLink:
    """One node as the hub last heard it.

    The clock mapping: every live message (hello, heartbeat) gives one sample
    ``hub_receive_s - node_t_s``; network delay only ever makes a sample larger, so the
    smallest of the recent samples is the best estimate of the offset (it also follows
    slow crystal drift). Flip and empty reports give none: they may come from the node's
    buffer long after they happened, and a backlog of them must not push the good
    samples out.
    """

    node: str
    online: bool = False
    last_seen_s: float | None = None
    boot: str | None = None
    node_kind: str | None = None
    firmware: str | None = None
    battery_mv: int | None = None
    queued: int = 0
    dropped: int = 0
    """Events the node says it had to drop from a full buffer during this boot."""
    last_seq: int = 0
    """The highest report number of the current boot."""
    last_at_s: float = 0.0
    """Hub time of the last sequenced event, so mapped times never run backwards."""
    offsets: tuple[float, ...] = ()
    """The recent clock samples, oldest first."""
    verdict_chunks: tuple[tuple[Verdict, ...], ...] = ()
    """Older verdicts in full chunks of :data:`VERDICT_CHUNK`, oldest first (see :attr:`verdicts`)."""
    verdict_tail: tuple[Verdict, ...] = ()
    """The newest verdicts, fewer than a chunk."""

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        """The latest :data:`VERDICT_MEMORY` reports the hub decided, oldest first."""
        return tuple(chain(*self.verdict_chunks, self.verdict_tail))[-VERDICT_MEMORY:]

    @property
    def offset_s(self) -> float | None:
        return min(self.offsets) if self.offsets else None

    def seq_of(self, boot: str) -> int:
        """The highest report number heard from ``boot``."""
        if boot == self.boot:
            return self.last_seq
        return max((seq for b, seq, _, _ in self.verdicts if b == boot), default=0)

    def heard(self, *, boot: str, now_s: float, t_ms: int | None = None) -> NodeLink:
        """The link after a message of boot ``boot`` arrived at ``now_s``; ``t_ms``: its stamp, when it
        is a live message whose stamp is a clock sample.

        A new boot id means the node restarted: its clock starts afresh (the verdicts of
        the old boot are kept, so its late reports are still recognised).
        """
        changes: dict[str, Any] = {"last_seen_s": now_s, "online": True}
        offsets = self.offsets
        if boot != self.boot:
            changes.update(self._new_boot(boot))
            offsets = ()
        if t_ms is not None:
            offsets = (*offsets, now_s - t_ms / 1000.0)[-OFFSET_SAMPLES:]
        if offsets is not self.offsets:
            changes["offsets"] = offsets
        return changed(self, **changes)

    def _new_boot(self, boot: str) -> dict[str, Any]:
        """What a new boot id resets: its clock, its numbers (those of ``boot`` heard before) and its drops."""
        return {"boot": boot, "last_seq": self.seq_of(boot), "last_at_s": 0.0, "offsets": (), "dropped": 0}

    def to_hub(self, t_ms: int, now_s: float) -> float:
        """Hub time of a node timestamp, never later than ``now_s``."""
        offset = self.offset_s
        if offset is None:
            return now_s
        return min(now_s, t_ms / 1000.0 + offset)

    def verdict(self, boot: str, seq: int) -> tuple[str, str] | None:
        """The verdict the hub gave report ``seq`` of ``boot``, if it decided one.

        A new report of the current boot (above its highest number, the usual case) needs no
        search through the remembered verdicts.
        """
        if boot == self.boot and seq > self.last_seq:
            return None
        for b, known, verdict, reason in self.verdicts:
            if b == boot and known == seq:
                return verdict, reason
        return None

    def reported(self, boot: str, seq: int, verdict: str, reason: str, *, at_s: float) -> NodeLink:
        """The link after the hub logged its verdict on report ``seq`` of ``boot`` (made at ``at_s``)."""
        changes = self._new_boot(boot) if boot != self.boot else {}
        last_seq, last_at_s = changes.get("last_seq", self.last_seq), changes.get("last_at_s", self.last_at_s)
        changes["last_seq"], changes["last_at_s"] = max(last_seq, seq), max(last_at_s, at_s)
        tail = (*self.verdict_tail, (boot, seq, verdict, reason))
        if len(tail) < VERDICT_CHUNK:
            changes["verdict_tail"] = tail
        else:  # a full chunk: it joins the older ones, and the oldest beyond the memory are let go
            kept = VERDICT_MEMORY // VERDICT_CHUNK
            changes["verdict_chunks"] = (*self.verdict_chunks, tail)[-kept:]
            changes["verdict_tail"] = ()
        return changed(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "online": self.online,
            "last_seen_s": None if self.last_seen_s is None else round(self.last_seen_s, 1),
            "boot": self.boot,
            "kind": self.node_kind,
            "firmware": self.firmware,
            "battery_mv": self.battery_mv,
            "queued": self.queued,
            "dropped": self.dropped,
            "last_seq": self.last_seq,
            "clock_offset_s": self.offset_s,
        }
