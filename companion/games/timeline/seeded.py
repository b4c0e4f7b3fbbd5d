"""Seeded shuffling for the Timeline engine, with the generator state carried as data.

The rules engine must not touch global randomness (house style), so the shuffle uses a
small SplitMix64 generator whose whole state is one integer kept in the game state.
The same seed always gives the same deal and the same reshuffles, on every Python.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def next_random(state: int) -> tuple[int, int]:
    """Advance the generator: return ``(new_state, 64-bit output)``."""
    state = (state + _GOLDEN) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def seed_state(seed: int) -> int:
    """Turn any integer seed (negative or huge too) into a generator state."""
    return seed & _MASK


def shuffled(items: Iterable[T], state: int) -> tuple[tuple[T, ...], int]:
    """Fisher-Yates shuffle of ``items``; return the shuffled tuple and the new generator state."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state, r = next_random(state)
        j = r % (i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out), state
