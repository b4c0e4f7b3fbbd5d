"""The hub deck of Space and Time: the starting boards the hub deals itself from the table's seed.

A table without the box (or a demo) plays on these boards; they are exactly the boards every
hub dealt before the table deck existed, so older logs read back as the same games. Kept apart
from the pure engine because it shuffles; the randomness is a private ``random.Random(seed)``,
so the same seed always deals the same boards.
"""

from __future__ import annotations

import random

from .engine import validate_board
from .model import CENTRE_CELLS, COLS, RANKS, ROWS, SUIT_BLOCKS, Board


def deal_board(seed: int) -> Board:
    """A valid starting board chosen by ``seed``.

    Rule (rulebook, *Setup*): each suit (one coin of every rank) fills one 2 x 3 block
    in shuffled order; if the four central coins show one rank, shuffle and deal again.
    """
    rng = random.Random(seed)
    while True:
        grid = [[0] * COLS for _ in range(ROWS)]
        for _name, (r0, r1), (c0, c1) in SUIT_BLOCKS:
            suit = list(RANKS)
            rng.shuffle(suit)
            cells = [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
            for (r, c), rank in zip(cells, suit, strict=True):
                grid[r][c] = rank
        if len({grid[r][c] for r, c in CENTRE_CELLS}) > 1:
            return validate_board(grid)


def deal_boards(seed: int) -> tuple[Board, Board]:
    """Starting boards for round 1 and round 2 from one seed (the second differs from the first)."""
    rng = random.Random(seed)
    return deal_board(rng.getrandbits(64)), deal_board(rng.getrandbits(64))
