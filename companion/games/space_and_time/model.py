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


def rank_name(rank: int) -> str:
    """How a player calls a rank: null, ace, 2, 3, 4 or 5."""
    return RANK_NAMES.get(rank, str(rank))


def flatten(board: Board) -> tuple[int, ...]:
    """The 24 ranks of a board, row by row."""
    return tuple(rank for row in board for rank in row)


def unflatten(flat: Sequence[int]) -> Board:
    """Rows of six ranks from 24 ranks listed row by row."""
    return tuple(tuple(flat[r * COLS : (r + 1) * COLS]) for r in range(ROWS))


def other(player: Player) -> Player:
    """The opponent of ``player``."""
    return "B" if player == "A" else "A"


# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class GameState:
    """Everything needed to referee the next swap, and what the table shows of the game."""

    starting_boards: tuple[Board, Board]
    """Starting board of round 1 (Night) and of round 2 (Day)."""
    board: Board
    """The coins now on the table, 4 rows of 6 ranks."""
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


# --------------------------------------------------------------------------- events


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
