"""What the hub knows about each node: availability, battery, clock mapping, sequence numbers.

Availability is not game state, so it lives here and not in the event log.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, field

OFFSET_WINDOW = 24
VERDICT_CACHE = 64


class ClockMapper:
    """Maps a node's monotonic milliseconds onto hub game seconds.

    Every message gives one sample ``hub_receive_s - node_t_s``; network delay
    only ever makes a sample larger, so the smallest sample of a recent window is
    the best estimate of the offset (it also follows slow crystal drift).
    """

    def __init__(self) -> None:
        self._samples: deque[float] = deque(maxlen=OFFSET_WINDOW)

    def observe(self, node_t_ms: int, hub_now_s: float) -> None:
        self._samples.append(hub_now_s - node_t_ms / 1000.0)

    @property
    def offset_s(self) -> float | None:
        return min(self._samples) if self._samples else None

    def to_hub(self, node_t_ms: int, hub_now_s: float) -> float:
        """Hub time of a node timestamp, never later than ``hub_now_s``."""
        offset = self.offset_s
        if offset is None:
            return hub_now_s
        return min(hub_now_s, node_t_ms / 1000.0 + offset)

    def reset(self) -> None:
        self._samples.clear()


@dataclass
class NodeInfo:
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
    clock: ClockMapper = field(default_factory=ClockMapper)
    verdicts: OrderedDict[int, tuple[str, str]] = field(default_factory=OrderedDict)
    """Recent (verdict, reason) by sequence number, to answer a duplicate the same way."""

    def new_boot(self, boot: str) -> None:
        """The node restarted: its sequence numbers and clock start afresh."""
        self.boot = boot
        self.last_seq = 0
        self.last_at_s = 0.0
        self.verdicts.clear()
        self.clock.reset()

    def remember(self, seq: int, verdict: str, reason: str) -> None:
        self.verdicts[seq] = (verdict, reason)
        while len(self.verdicts) > VERDICT_CACHE:
            self.verdicts.popitem(last=False)

    def to_dict(self) -> dict:
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
            "clock_offset_s": self.clock.offset_s,
        }
