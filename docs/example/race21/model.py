"""What a game of Race to 21 is made of: its state, the moves a phone posts, the actions and events it logs."""

from __future__ import annotations

from dataclasses import dataclass

TARGET = 21
"""The count that wins."""
MOST = 3
"""The most a player may add in one turn."""


@dataclass(frozen=True)
class RaceState:
    """A game at one moment."""

    players: tuple[str, ...]
    """In turn order; the first one starts."""
    count: int = 0
    """The shared count so far."""
    to_move: int = 0
    """Index of the player whose turn it is."""
    winner: str = ""
    """Who brought the count to 21 ("" until someone has)."""


@dataclass(frozen=True)
class Add:
    """A phone's move: add ``amount`` to the count (the table says who)."""

    amount: int


@dataclass(frozen=True)
class Count:
    """The logged action: ``player`` adds ``amount``."""

    player: str
    amount: int


@dataclass(frozen=True)
class Counted:
    """Event: the count went up."""

    player: str
    amount: int
    count: int


@dataclass(frozen=True)
class Won:
    """Event: ``player`` reached 21."""

    player: str
