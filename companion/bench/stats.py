"""Percentiles of latencies, as the benchmark prints and saves them."""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class Percentiles:
    n: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    mean_ms: float

    @classmethod
    def of(cls, seconds: list[float]) -> Percentiles:
        """Percentiles of ``seconds`` (nearest rank); all zero for no samples."""
        if not seconds:
            return cls(0, 0.0, 0.0, 0.0, 0.0)
        ms = sorted(s * 1000 for s in seconds)
        p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
        return cls(len(ms), statistics.median(ms), p99, ms[-1], statistics.fmean(ms))

    def line(self, label: str) -> str:
        return (
            f"{label:<22} n={self.n:<5} p50={self.p50_ms:7.2f} ms  p99={self.p99_ms:7.2f} ms  "
            f"max={self.max_ms:7.2f} ms  mean={self.mean_ms:7.2f} ms"
        )

    def to_dict(self) -> dict[str, Any]:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}
