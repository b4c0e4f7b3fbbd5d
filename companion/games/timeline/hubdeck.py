"""The hub deck: the hub's own cards for a table without the box, shuffled from the setup's seed.

A table that plays with its box needs none of this (its piles are counts, :class:`~.model.CountedPiles`).
Without the box the hub deals the shipped card list itself, keeps which card lies where
(:class:`HubPiles`) and reveals each year as the card is placed. The shuffles use a small
SplitMix64 generator whose whole state is one integer kept in the piles (the rules touch no global
randomness), so the same seed always gives the same deal and the same reshuffles, on every
Python: the deals and reshuffles of every older hub's games come out the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TypeVar

from .cards import Card

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


@dataclass(frozen=True)
class HubPiles:
    """Where each card of the hub deck lies, as only the hub knows it (it dealt them)."""

    cards: Mapping[str, Card]
    """Every card of the deck by id (read-only)."""
    hands: tuple[tuple[str, ...], ...]
    """Card ids in each player's hand, aligned with the game's players."""
    deck: tuple[str, ...]
    """Face-down draw pile, top card first."""
    discard: tuple[str, ...] = ()
    """Discarded (misplaced) cards, oldest first."""
    rng: int = field(default=0, repr=False)
    """State of the seeded shuffle generator."""

    def held(self, index: int) -> int:
        return len(self.hands[index])

    @property
    def deck_size(self) -> int:
        return len(self.deck)

    @property
    def discard_size(self) -> int:
        return len(self.discard)

    def played(self, index: int, card: str, *, kept: bool) -> HubPiles:
        """The piles after player ``index`` played ``card``: into the timeline (``kept``) or the discard pile."""
        hands = list(self.hands)
        hands[index] = tuple(c for c in hands[index] if c != card)
        discard = self.discard if kept else self.discard + (card,)
        return replace(self, hands=tuple(hands), discard=discard)

    def drawn(self, index: int) -> tuple[HubPiles, str]:
        """The piles after player ``index`` drew the top card, and that card (the deck is not empty)."""
        hands = list(self.hands)
        hands[index] = hands[index] + (self.deck[0],)
        return replace(self, hands=tuple(hands), deck=self.deck[1:]), self.deck[0]

    def reshuffled(self) -> HubPiles:
        """The discard pile shuffled (with the seeded generator) into a new deck."""
        deck, rng = shuffled(self.discard, self.rng)
        return replace(self, deck=deck, discard=(), rng=rng)

    def all_card_ids(self) -> tuple[str, ...]:
        """Every card id in the deck, the discard pile and the hands (the timeline's are the game's)."""
        return self.deck + self.discard + tuple(c for hand in self.hands for c in hand)
