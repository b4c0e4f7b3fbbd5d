"""The hub deck: Time Splicers' own seeded shuffles, for a table without the box (or a demo).

With the hub deck the hub shuffles and deals from the table's seed, so it knows every card: the
engine state holds the draw pile in order and each hand's cards, and a card turned up is the top
of that pile. These are the shuffles every earlier version of the hub made (a hash of seed,
shuffle number and card id), kept exactly so that logs of every format replay the same game.
With the table deck none of this runs: the players shuffle and the table says what it turns up.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def shuffled(cards: Iterable[str], seed: str, n: int) -> tuple[str, ...]:
    """Shuffle number ``n`` of ``cards`` for ``seed``: the cards sorted by a hash of ``seed/n/card``.

    The order depends only on which cards there are, not on the order they are given in."""
    return tuple(sorted(cards, key=lambda c: hashlib.sha256(f"{seed}/{n}/{c}".encode()).hexdigest()))


def first_deal(cards: Iterable[str], seed: str) -> tuple[str, ...]:
    """The draw pile at setup, top card first (shuffle number 0 of every card but the Time Portal)."""
    return shuffled(cards, seed, 0)


def reshuffle(discard: Iterable[str], seed: str, number: int, top: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The draw pile made of the discard pile at reshuffle ``number`` (1, 2, ...): ``top`` (a record's
    real order, already checked to be in the pile) first, the rest in the seeded order."""
    order = shuffled(discard, seed, number)
    return top + tuple(c for c in order if c not in top)
