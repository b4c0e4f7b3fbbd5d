"""The hub deck of Time 'n' Space: the hub's own seeded shuffle of the building tiles.

A table without the box (or a demo) lets the hub lay out the moons' piles. The shuffle is
the one every hub before the table deck used (a Fisher-Yates shuffle driven by a
splitmix64 stream of the setup's seed), so a game logged then deals the same tiles when it
is read again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1


def shuffled(items: Sequence[T], seed: int) -> list[T]:
    """Fisher-Yates shuffle driven by a splitmix64 stream of ``seed`` (same seed, same order)."""
    out = list(items)
    x = seed & _MASK

    def draw() -> int:
        nonlocal x
        x = (x + 0x9E3779B97F4A7C15) & _MASK
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    for i in range(len(out) - 1, 0, -1):
        j = draw() % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def dealt_piles(tiles: Sequence[Any], moons: int, seed: int) -> tuple[tuple[Any, ...], ...]:
    """The tiles shuffled with ``seed`` into ``moons`` piles of equal height, top first."""
    order = shuffled(tiles, seed)
    height = len(order) // moons
    return tuple(tuple(order[i * height : (i + 1) * height]) for i in range(moons))
