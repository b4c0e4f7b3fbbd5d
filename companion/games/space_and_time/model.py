"""What a game of Space and Time is made of: the board, the state, the moves and the events.

Cells are ``(row, column)`` with row 0 at the top and column 0 at the left; a swap is a
pair of cells. The board is also read as a flat tuple of 24 ranks, index ``row * 6 +
column``. Every value here is a frozen dataclass (or a plain value), so the one codec of
``companion.rules.codec`` writes them to the log and reads a phone's post back exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

ROWS = 4
COLS = 6
CELLS = ROWS * COLS
RANKS = tuple(range(6))
"""Coin ranks: 0 = null, 1 = ace, then 2 to 5 (rulebook, *Time*)."""
COINS_PER_RANK = 4
"""One coin of each rank per suit, four suits (rulebook, *Setup*)."""
TROPHIES_TO_END_ROUND = 5
"""A round ends once five of its six trophies are gone (rulebook, *End of a round*)."""
TROPHIES_TO_WIN = 6
"""Holding six trophies ends the game at once (rulebook, *End of the game*)."""

Player = Literal["A", "B"]
Role = Literal["Space", "Time"]
Cell = tuple[int, int]
Move = tuple[Cell, Cell]
Board = tuple[tuple[int, ...], ...]

PLAYERS: tuple[Player, Player] = ("A", "B")
ROUND_NAMES = {1: "Night", 2: "Day"}
RANK_NAMES = {0: "null", 1: "ace", 2: "2", 3: "3", 4: "4", 5: "5"}
SUIT_BLOCKS: tuple[tuple[str, tuple[int, int], tuple[int, int]], ...] = (
    ("top-left", (0, 1), (0, 2)),
    ("top-right", (0, 1), (3, 5)),
    ("bottom-left", (2, 3), (0, 2)),
    ("bottom-right", (2, 3), (3, 5)),
)
"""The four 2 x 3 suit blocks: name, first and last row, first and last column."""
CENTRE_CELLS: tuple[Cell, ...] = ((1, 2), (1, 3), (2, 2), (2, 3))
"""The four central coins, one of each block (rulebook, *Setup*: re-deal when they show one rank)."""
BLOCK_CELLS: tuple[tuple[Cell, ...], ...] = tuple(
    tuple((r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
    for _, (r0, r1), (c0, c1) in SUIT_BLOCKS
)
"""The six cells of each suit block, in reading order (the blocks in the order of :data:`SUIT_BLOCKS`)."""
READING_ORDER: tuple[Cell, ...] = tuple((r, c) for r in range(ROWS) for c in range(COLS))
"""Every cell, row by row from the top left: the order in which a table enters a dealt board."""


def rank_name(rank: int) -> str:
    """How a player calls a rank: null, ace, 2, 3, 4 or 5."""
    return RANK_NAMES.get(rank, str(rank))


def flatten(board: Board) -> tuple[int, ...]:
    """The 24 ranks of a board, row by row."""
    return tuple(rank for row in board for rank in row)


def unflatten(flat: Sequence[int]) -> Board:
    """Rows of six ranks from 24 ranks listed row by row."""
    return tuple(tuple(flat[r * COLS : (r + 1) * COLS]) for r in range(ROWS))


def block_of(cell: Cell) -> int:
    """The suit block ``cell`` lies in (an index of :data:`SUIT_BLOCKS`)."""
    r, c = cell
    return (r // 2) * 2 + c // 3


def other(player: Player) -> Player:
    """The opponent of ``player``."""
    return "B" if player == "A" else "A"


# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class Deal:
    """A starting board as the table enters it, coin by coin, at a table that plays with its box.

    The coins were shuffled and dealt by hand, suit by suit into the four blocks; the table tells
    the hub each coin it reads. Since each suit holds one coin of every rank, the last coin of a
    block follows from the other five (:meth:`coins` fills it in).
    """

    round: int
    """The round whose board this is: 1 (Night) or 2 (Day)."""
    placed: tuple[tuple[tuple[int, int], int], ...] = ()
    """The coins the table entered, in the order entered: ``((row, column), rank)``."""

    def coins(self) -> tuple[int | None, ...]:
        """The 24 cells row by row: the rank known there, or None while nobody entered it (the last
        coin of a block counts as known once the other five are)."""
        flat: list[int | None] = [None] * CELLS
        for (r, c), rank in self.placed:
            flat[r * COLS + c] = rank
        for cells in BLOCK_CELLS:
            unknown = [r * COLS + c for r, c in cells if flat[r * COLS + c] is None]
            if len(unknown) == 1:
                known = {flat[r * COLS + c] for r, c in cells}
                missing = [rank for rank in RANKS if rank not in known]
                if len(missing) == 1:
                    flat[unknown[0]] = missing[0]
        return tuple(flat)

    @property
    def is_complete(self) -> bool:
        """Every coin of the board is known."""
        return None not in self.coins()

    def next_cell(self) -> Cell | None:
        """The first cell in reading order whose coin is not known yet (None when the board is complete)."""
        coins = self.coins()
        return next((cell for cell in READING_ORDER if coins[cell[0] * COLS + cell[1]] is None), None)


@dataclass(frozen=True)
class GameState:
    """Everything needed to referee the next swap, and what the table shows of the game."""

    starting_boards: tuple[Board, ...]
    """The starting boards dealt so far: round 1's (Night), then round 2's (Day). The hub deck deals
    both at the start; at a table deck each is entered when its round begins."""
    board: Board
    """The coins now on the table, 4 rows of 6 ranks (empty while the round's board is being entered)."""
    round: int = 1
    """1 (Night: A is Space) or 2 (Day: B is Space)."""
    to_move: Player = "A"
    """Whose swap comes next."""
    last_swap: frozenset[Cell] | None = None
    """The two cells the previous player swapped in this round, which may not be swapped back."""
    trophies: tuple[tuple[Player | None, ...], tuple[Player | None, ...]] = field(
        default=((None,) * 6, (None,) * 6)
    )
    """``trophies[round - 1][rank]``: who holds that trophy, or None while it is free."""
    winner: Player | None = None
    """Set when the game has ended."""
    swaps: int = 0
    """Swaps made so far in the game (the computer's seed at a hub table is the table's seed plus this)."""
    last_swap_by: Player | None = None
    """Who made the latest swap (the picture outlines it while it may not be swapped back)."""
    hints: bool = False
    """Someone at the table asked to see the swaps that complete a molecule (until someone hides them)."""
    deal: Deal | None = None
    """At a table deck: the coins entered for this round's board, kept until the round's first turn
    starts (so an entry can still be taken back); None when the board is not being entered."""

    @property
    def is_dealing(self) -> bool:
        """The round's board is still being entered: nobody may swap or start a turn yet."""
        return self.deal is not None and not self.deal.is_complete

    @property
    def is_over(self) -> bool:
        """True once the game has ended (rulebook, *End of the game*)."""
        return self.winner is not None

    def role_of(self, player: Player) -> Role:
        """Space or Time: A is Space at Night (round 1), B is Space by Day (round 2)."""
        return "Space" if (player == "A") == (self.round == 1) else "Time"

    @property
    def role_to_move(self) -> Role:
        """The role of the player whose swap comes next."""
        return self.role_of(self.to_move)

    def trophy_count(self, player: Player) -> int:
        """How many trophies ``player`` holds over both rounds."""
        return sum(holder == player for rnd in self.trophies for holder in rnd)

    def free_ranks(self) -> tuple[int, ...]:
        """Ranks whose trophy of the current round nobody has taken yet."""
        return tuple(k for k, holder in enumerate(self.trophies[self.round - 1]) if holder is None)


# --------------------------------------------------------------------------- moves and actions


@dataclass(frozen=True)
class Swap:
    """The player to move swaps the coins on two cells (posted by the phone's board, logged as it is)."""

    cells: tuple[tuple[int, int], tuple[int, int]]
    """The two cells, ``((row, column), (row, column))``."""


@dataclass(frozen=True)
class ComputerMove:
    """A phone asks the computer opponent to choose the swap of the player to move ("Computer plays
    this turn", "Let the computer move"). Never logged: the swap it chose is."""


@dataclass(frozen=True)
class ShowHints:
    """Show or hide the swaps that complete a molecule for the player to move (anyone, any time)."""

    show: bool
    """True to show them, False to hide them."""


@dataclass(frozen=True)
class EndEarly:
    """The host ended the game before its end (hub rule): it is scored by the trophies taken so far.
    Logged by the referee, never posted by a phone."""


@dataclass(frozen=True)
class PlaceCoin:
    """The table reads one coin of the board being dealt: the rank it shows on a cell."""

    cell: tuple[int, int]
    """``(row, column)``."""
    rank: int
    """0 (null), 1 (ace), 2, 3, 4 or 5."""


@dataclass(frozen=True)
class TakeBackCoin:
    """The latest coin entered was a mistake: forget it (before the round's first turn starts)."""


@dataclass(frozen=True)
class Redeal:
    """The coins are shuffled and dealt again (the four central coins showed one rank, or the board
    was knocked over): forget every coin entered for this board."""


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class CoinEntered:
    """The table entered a coin of the board being dealt."""

    round: int
    cell: Cell
    rank: int
    follows: tuple[tuple[Cell, int], ...] = ()
    """The coins it made known too: the last coin of its block, ``(cell, rank)``."""


@dataclass(frozen=True)
class BoardDealt:
    """Every coin of a round's starting board is known: the round can be played."""

    round: int
    board: Board


@dataclass(frozen=True)
class CoinTakenBack:
    """The latest coin entered was taken back."""

    round: int
    cell: Cell
    rank: int


@dataclass(frozen=True)
class BoardCleared:
    """The coins entered for a round's board were forgotten: the table deals again."""

    round: int


@dataclass(frozen=True)
class CoinsSwapped:
    """A player swapped two coins."""

    player: Player
    role: Role
    cells: Move
    ranks: tuple[int, int]
    """The ranks that were on ``cells[0]`` and ``cells[1]`` before the swap."""


@dataclass(frozen=True)
class TrophyTaken:
    """A molecule was completed and its trophy taken."""

    player: Player
    round: int
    rank: int


@dataclass(frozen=True)
class RoundEnded:
    """Five trophies of the round are gone; the rest are set aside unscored."""

    round: int
    set_aside: tuple[int, ...]


@dataclass(frozen=True)
class GameEnded:
    """The game is over."""

    winner: Player
    trophies: tuple[int, int]
    """Trophies of A and of B."""
