"""``companion bench``: what the hub costs on this machine, measured against the broker itself.

:func:`main` (``python -m companion.bench``, and what ``companion bench`` runs) is the harness
of :mod:`companion.bench.harness`; ``docs/performance.md`` explains each figure it prints and
how to compare two runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.bench.stats import Percentiles
from companion.bench.streams import StreamLoad

__all__ = ["Percentiles", "StreamLoad", "main"]


def main(argv: list[str] | None = None, echo: Callable[[str], object] = print) -> dict[str, Any]:
    """``python -m companion.bench [options]``: run the harness (``--help`` lists the options);
    return every number it printed (what ``--json`` writes)."""
    from companion.bench.harness import main as harness_main

    return harness_main(argv, echo)
