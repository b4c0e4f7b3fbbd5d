"""The box on the table is the truth: what the table drew, revealed or chose is an input to the rules.

At a table that plays with its box (a *table deck*, the default) the players shuffle by hand and
tell the hub what came up; the rules keep only what a face-down pile can still hold (its
contents, never its order, :class:`Pile`) and refuse an entry the pile cannot hold. A *hub deck*
(a table without the box, a demo) is the same game with the hub supplying those inputs from its
own seeded shuffle (:class:`HubDeck`): a draw is the same logged action whichever deck gave it,
so a log replays the same way.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from companion.rules.outcome import refuse
from companion.rules.text import Text, text

DeckMode = Literal["table", "hub"]
"""Where a table's random components come from: its own box ("table") or the hub's shuffle ("hub")."""
DECK_MODES: tuple[DeckMode, ...] = ("table", "hub")

DECK_TITLES = {
    "table": text("Table deck: the players shuffle the box and tell the hub what they draw"),
    "hub": text("Hub deck: the hub shuffles and shows what is drawn"),
}
"""What the setup page and the dashboard say of each mode."""


@dataclass(frozen=True)
class Pile:
    """What a face-down pile, stack or deck can still hold: how many of each component, not their order."""

    counts: tuple[tuple[str, int], ...] = ()
    """(component id, copies left), sorted by id; no zero counts."""

    @classmethod
    def of(cls, items: Iterable[str]) -> Pile:
        """The pile holding ``items`` (a component listed twice is two copies)."""
        counted: dict[str, int] = {}
        for item in items:
            counted[item] = counted.get(item, 0) + 1
        return cls(tuple(sorted(counted.items())))

    def __len__(self) -> int:
        return sum(n for _, n in self.counts)

    def __contains__(self, item: object) -> bool:
        return self.count(item) > 0

    def count(self, item: object) -> int:
        for key, n in self.counts:
            if key == item:
                return n
        return 0

    def kinds(self) -> tuple[str, ...]:
        """The different components the pile can still hold, in id order."""
        return tuple(key for key, _ in self.counts)

    def likeliest(self) -> tuple[str, ...]:
        """The different components, the likeliest draw first (most copies left, then id order)."""
        return tuple(key for key, _ in sorted(self.counts, key=lambda kv: (-kv[1], kv[0])))

    def items(self) -> tuple[str, ...]:
        """Every copy, in id order."""
        return tuple(key for key, n in self.counts for _ in range(n))

    def take(self, item: str, *, pile: Text | str, name: Text | str | None = None) -> Pile:
        """The pile without one ``item``; refused when the pile cannot hold it ("there is no second
        Research plant II in this pile"). ``pile`` names the pile and ``name`` the component in words."""
        left = self.count(item)
        shown = item if name is None else name
        if left == 0:
            refuse(
                text("There is no {item} left in {pile}", item=shown, pile=pile),
                text("What the table drew"),
            )
        return Pile(
            tuple((k, n - 1 if k == item else n) for k, n in self.counts if not (k == item and n == 1))
        )

    def take_all(
        self, items: Iterable[str], *, pile: Text | str, names: dict[str, Text | str] | None = None
    ) -> Pile:
        pile_left = self
        for item in items:
            pile_left = pile_left.take(item, pile=pile, name=(names or {}).get(item))
        return pile_left

    def put(self, *items: str) -> Pile:
        """The pile with ``items`` added (a discard shuffled back, a card returned under the stack)."""
        return Pile.of((*self.items(), *items))


@dataclass(frozen=True)
class HubDeck:
    """The hub's own shuffle, for a table without the box: it answers what a draw turns up.

    Deterministic: the same seed, pile and draw number give the same component, so a replay of the
    setup deals the same game. It never decides a rule: the referee turns its answer into the same
    action a player would have entered.
    """

    seed: int

    def pick(self, pile: Pile, *, key: str, count: int = 1) -> tuple[str, ...]:
        """``count`` components drawn from ``pile`` (without putting back). ``key`` names the draw
        (the pile and how many were drawn from it before), so every draw has its own shuffle."""
        rng = random.Random(f"{self.seed}:{key}")
        copies = list(pile.items())
        rng.shuffle(copies)
        return tuple(copies[:count])

    def order(self, items: Sequence[str], *, key: str) -> tuple[str, ...]:
        """``items`` in the order of one shuffle of them (a pile laid out at the start)."""
        rng = random.Random(f"{self.seed}:{key}")
        copies = list(items)
        rng.shuffle(copies)
        return tuple(copies)
