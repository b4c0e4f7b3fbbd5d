"""The hub process's garbage collector, set for a server that answers a node within a millisecond.

CPython's cyclic collector stops every thread while it walks the objects of a generation; a full
collection walks every object alive. In a started hub most of those are there for good: imported
modules, the Flask app and its templates, the message catalogs, the games' data. At 640 flips a
second the full collections of a plain hub paused it for 12 to 35 ms, which is what the slowest
verdicts waited for (docs/performance.md).

:func:`settle` runs once the hub has started: it collects what start-up left behind, then freezes
what remains, so later collections only walk what the tables made since. Frozen objects are still
freed by reference counting; only a cycle among them is never collected. What exists at start-up
mostly lives as long as the process anyway; the exception is a club's table that was open when
the club settled and is ended later: its cycles (about 1,500 objects a table, measured) stay
until the process ends. Tables added after the start are collected as usual.
"""

from __future__ import annotations

import gc


def settle() -> int:
    """Collect once, then leave every object alive now out of later collections; how many were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
