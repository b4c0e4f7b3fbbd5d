"""Rules engine of Space and Time, the two-player coin game on a 4 x 6 board.

The engine is pure: ``apply(state, move) -> Accepted | Rejected``. It never reads a
clock, draws randomness or does I/O. The rulebook (``space-and-time.txt``) has no
numbered sections, so rules are cited by the topic of its paragraph:

* *Setup*: the 24 coins (four suits of null, ace, 2, 3, 4, 5) dealt suit by suit
  into the four 2 x 3 blocks; re-deal when the four central coins show one rank.
* *Roles and rounds*: Space and Time, a Night round then a Day round with roles
  switched; Space always goes first.
* *Space*: swap a coin with any of its eight neighbours, the board wrapping at
  both pairs of edges.
* *Time*: swap two coins anywhere whose ranks follow each other, 5 wrapping to null.
* *No reversing*: the two coins the opponent has just swapped may not be swapped back.
* *Molecules and trophies*: four coins of one rank joined edge to edge (never
  across a wrapped edge) win that rank's trophy of the round, once per round.
* *End of a round* and *End of the game*: five trophies of six end a round; the
  game ends at six trophies for one player or the fifth trophy of the Day round;
  more trophies wins, and at five each the Night-round Space player wins.

Where issue 7 ("Space and Time, exactly") is more precise than the rulebook, it is
followed: player ``A`` is Space in round 1, a swap must exchange two different
ranks, and an illegal move leaves the same player to move again.

Cells are ``(row, column)`` with row 0 at the top and column 0 at the left; a move
is a pair of cells. Internally the board is also read as a flat tuple of 24 ranks,
index ``row * 6 + column``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from companion.errors import InvalidRecordError
from companion.games.base import Accepted, Rejected
from companion.rules.text import Text, text

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

RULE_SETUP = text("Space and Time rulebook, Setup")
RULE_SPACE = text("Space and Time rulebook, Space")
RULE_TIME = text("Space and Time rulebook, Time")
RULE_REVERSE = text("Space and Time rulebook, No reversing")
RULE_SWAP = text("hub rule (issue 7): a swap exchanges coins of different ranks")
RULE_END = text("Space and Time rulebook, End of the game")

ROLE_TEXTS: dict[str, Text] = {"Space": text("Space"), "Time": text("Time")}
"""The roles as players read them."""
ROUND_TEXTS: dict[int, Text] = {1: text("Night"), 2: text("Day")}
"""The rounds as players read them (Night: Moon trophies; Day: Sun trophies)."""
RANK_TEXTS: dict[int, Text] = {0: text("null"), 1: text("ace")}
"""The ranks that have a name; the others are their number."""


class InvalidBoardError(InvalidRecordError):
    """A starting board breaks the setup rules (rulebook, *Setup*)."""


def _index(cell: Cell) -> int:
    return cell[0] * COLS + cell[1]


def _cell(index: int) -> Cell:
    return divmod(index, COLS)


def _build_space_neighbours() -> tuple[tuple[int, ...], ...]:
    table = []
    for i in range(CELLS):
        r, c = _cell(i)
        near = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr or dc:
                    near.append(((r + dr) % ROWS) * COLS + (c + dc) % COLS)
        table.append(tuple(near))
    return tuple(table)


def _build_orthogonal_neighbours() -> tuple[tuple[int, ...], ...]:
    table = []
    for i in range(CELLS):
        r, c = _cell(i)
        near = []
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < ROWS and 0 <= cc < COLS:
                near.append(rr * COLS + cc)
        table.append(tuple(near))
    return tuple(table)


SPACE_NEIGHBOURS = _build_space_neighbours()
"""For each flat index, the eight cells Space may swap it with (board wraps both ways)."""
ORTHOGONAL = _build_orthogonal_neighbours()
"""For each flat index, the cells sharing an edge with it, without wrapping (molecules)."""


def rank_name(rank: int) -> str:
    """How a player calls a rank: null, ace, 2, 3, 4 or 5."""
    return RANK_NAMES.get(rank, str(rank))


def rank_text(rank: int) -> Text | str:
    """A rank as players read it: null, ace, or its number."""
    return RANK_TEXTS.get(rank) or str(rank)


def _cell_text(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]})"  # coordinates, the same in every language


def flatten(board: Board) -> tuple[int, ...]:
    """The 24 ranks of a board, row by row."""
    return tuple(rank for row in board for rank in row)


def unflatten(flat: Sequence[int]) -> Board:
    """Rows of six ranks from 24 ranks listed row by row."""
    return tuple(tuple(flat[r * COLS : (r + 1) * COLS]) for r in range(ROWS))


# --------------------------------------------------------------------------- setup


def validate_board(board: object, *, label: str = "the board") -> Board:
    """Check a starting board and return it as a tuple of tuples.

    Rule (rulebook, *Setup*; issue 7): 4 rows of 6 ranks from 0 to 5, each rank exactly
    four times, each 2 x 3 suit block holding one coin of each rank, and the four central
    coins not all showing the same rank. Raises :class:`InvalidBoardError` with one
    sentence naming ``label`` and what is wrong.
    """
    if not isinstance(board, (list, tuple)) or len(board) != ROWS:
        raise InvalidBoardError(f"{label} must be a list of {ROWS} rows of {COLS} ranks")
    rows = []
    for r, row in enumerate(board):
        if not isinstance(row, (list, tuple)) or len(row) != COLS:
            raise InvalidBoardError(f"{label} row {r} must be a list of {COLS} ranks")
        for c, rank in enumerate(row):
            if isinstance(rank, bool) or not isinstance(rank, int) or rank not in RANKS:
                raise InvalidBoardError(
                    f"{label} has {rank!r} at row {r} column {c}; ranks are whole numbers 0 (null) to 5"
                )
        rows.append(tuple(row))
    flat = [rank for row in rows for rank in row]
    for rank in RANKS:
        count = flat.count(rank)
        if count != COINS_PER_RANK:
            raise InvalidBoardError(
                f"{label} has rank {rank_name(rank)} {count} times; each rank must appear exactly "
                f"{COINS_PER_RANK} times"
            )
    for name, (r0, r1), (c0, c1) in SUIT_BLOCKS:
        block = sorted(rows[r][c] for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
        if block != list(RANKS):
            missing = [rank_name(k) for k in RANKS if k not in block]
            raise InvalidBoardError(
                f"{label}'s {name} suit block (rows {r0}-{r1}, columns {c0}-{c1}) lacks rank "
                f"{', '.join(missing)}; each 2 x 3 suit block must hold one coin of each rank"
            )
    centre = {rows[r][c] for r, c in CENTRE_CELLS}
    if len(centre) == 1:
        raise InvalidBoardError(
            f"{label}'s four central coins all show rank {rank_name(centre.pop())}; "
            "the coins must be re-dealt"
        )
    return tuple(rows)


def is_valid_board(board: object) -> bool:
    """True when ``board`` is a legal starting board (see :func:`validate_board`)."""
    try:
        validate_board(board)
    except InvalidBoardError:
        return False
    return True


# --------------------------------------------------------------------------- state


@dataclass(frozen=True)
class GameState:
    """Everything needed to referee the next swap."""

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


def new_game(round1_board: object, round2_board: object) -> GameState:
    """Start a game: round 1 (Night) on the first board, A playing Space and moving first.

    Both boards are checked with :func:`validate_board`; a bad one raises
    :class:`InvalidBoardError` naming the round.
    """
    b1 = validate_board(round1_board, label="the round 1 board")
    b2 = validate_board(round2_board, label="the round 2 board")
    return GameState(starting_boards=(b1, b2), board=b1)


def other(player: Player) -> Player:
    """The opponent of ``player``."""
    return "B" if player == "A" else "A"


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


# --------------------------------------------------------------------------- rules


def is_molecule(flat: Sequence[int], rank: int) -> bool:
    """True when the four coins of ``rank`` form one orthogonally connected group.

    Rule (rulebook, *Molecules and trophies*): coins join by sharing an edge; diagonal
    contact does not count and the board does not wrap for molecules.
    """
    cells = [i for i, k in enumerate(flat) if k == rank]
    if not cells:
        return False
    seen = {cells[0]}
    stack = [cells[0]]
    members = set(cells)
    while stack:
        i = stack.pop()
        for j in ORTHOGONAL[i]:
            if j in members and j not in seen:
                seen.add(j)
                stack.append(j)
    return len(seen) == len(cells)


def _check_cell(cell: object) -> Cell | Rejected:
    if (
        not isinstance(cell, (list, tuple))
        or len(cell) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in cell)
    ):
        return Rejected(
            text("A cell is given as (row, column), but {cell} is not one.", cell=repr(cell)), RULE_SETUP
        )
    r, c = cell
    if not (0 <= r < ROWS and 0 <= c < COLS):
        return Rejected(
            text(
                "Cell {cell} is not on the board; rows run from 0 to {last_row} and columns from 0 to {last_column}.",
                cell=_cell_text((r, c)),
                last_row=ROWS - 1,
                last_column=COLS - 1,
            ),
            RULE_SETUP,
        )
    return (r, c)


def check_move(state: GameState, move: object) -> Move | Rejected:
    """Return the move as a pair of cells if it is legal for the player to move, else the rejection.

    Rules, checked in this order: the game must not be over (*End of the game*); both
    cells on the board and different; the coins of different ranks (issue 7); Space
    swaps neighbours with wrap-around (*Space*), Time swaps consecutive ranks with 5
    wrapping to null (*Time*); and not the two cells the opponent has just swapped
    (*No reversing*).
    """
    player = state.to_move
    if state.is_over:
        return Rejected(
            text(
                "The game is over and player {player} has won; no more swaps can be made.",
                player=state.winner or "",
            ),
            RULE_END,
        )
    if not isinstance(move, (list, tuple)) or len(move) != 2:
        return Rejected(text("A swap names two cells, but {move} does not.", move=repr(move)), RULE_SWAP)
    first = _check_cell(move[0])
    if isinstance(first, Rejected):
        return first
    second = _check_cell(move[1])
    if isinstance(second, Rejected):
        return second
    if first == second:
        return Rejected(
            text("A swap needs two different coins, but both cells are {cell}.", cell=_cell_text(first)),
            RULE_SWAP,
        )
    rank1 = state.board[first[0]][first[1]]
    rank2 = state.board[second[0]][second[1]]
    if rank1 == rank2:
        return Rejected(
            text(
                "Both coins at {cell} and {other} show rank {rank}; a swap must exchange coins of different ranks.",
                cell=_cell_text(first),
                other=_cell_text(second),
                rank=rank_text(rank1),
            ),
            RULE_SWAP,
        )
    role = state.role_of(player)
    if role == "Space":
        if _index(second) not in SPACE_NEIGHBOURS[_index(first)]:
            return Rejected(
                text(
                    "Player {player} plays Space and may only swap a coin with one of its eight neighbours (the board wraps at the edges); {cell} and {other} are not neighbours.",
                    player=player,
                    cell=_cell_text(first),
                    other=_cell_text(second),
                ),
                RULE_SPACE,
            )
    elif (rank1 - rank2) % 6 not in (1, 5):
        return Rejected(
            text(
                "Player {player} plays Time and may only swap coins whose ranks follow each other (null, ace, 2, 3, 4, 5, then null again); {rank} and {other} do not.",
                player=player,
                rank=rank_text(rank1),
                other=rank_text(rank2),
            ),
            RULE_TIME,
        )
    if state.last_swap is not None and frozenset((first, second)) == state.last_swap:
        return Rejected(
            text(
                "Player {player} may not swap back the two coins player {other} has just swapped, {cell} and {other_cell}.",
                player=player,
                other=other(player),
                cell=_cell_text(first),
                other_cell=_cell_text(second),
            ),
            RULE_REVERSE,
        )
    return (first, second)


def is_legal(state: GameState, move: object) -> bool:
    """True when ``move`` is a legal swap for the player to move."""
    return not isinstance(check_move(state, move), Rejected)


def winner_of(trophies_a: int, trophies_b: int) -> Player:
    """More trophies wins; on a tie (five each) A, who played Space at Night, wins.

    Rule: rulebook, *End of the game*; issue 7 names A as the Night-round Space player.
    """
    return "B" if trophies_b > trophies_a else "A"


def apply(state: GameState, move: object) -> Accepted[GameState] | Rejected:
    """Make a swap: the new state and its events, or a rejection leaving the same player to move.

    After the swap, each of the two ranks that moved whose four coins now form a
    molecule wins the swapper that rank's trophy of the round if it is still free
    (*Molecules and trophies*; several at once are all taken). Then: six trophies for
    one player, or the fifth trophy of round 2, end the game (*End of the game*); the
    fifth trophy of round 1 ends the round, the rest are set aside, and round 2 starts
    on its own board with roles switched, Space (B) first and no move to reverse
    (*End of a round*, *Roles and rounds*).
    """
    checked = check_move(state, move)
    if isinstance(checked, Rejected):
        return checked
    first, second = checked
    player = state.to_move
    flat = list(flatten(state.board))
    i, j = _index(first), _index(second)
    ranks = (flat[i], flat[j])
    flat[i], flat[j] = flat[j], flat[i]
    events: list[object] = [CoinsSwapped(player, state.role_of(player), (first, second), ranks)]

    round_trophies = list(state.trophies[state.round - 1])
    for rank in sorted(ranks):
        if round_trophies[rank] is None and is_molecule(flat, rank):
            round_trophies[rank] = player
            events.append(TrophyTaken(player, state.round, rank))
    all_trophies = list(state.trophies)
    all_trophies[state.round - 1] = tuple(round_trophies)
    trophies = (all_trophies[0], all_trophies[1])

    new_state = GameState(
        starting_boards=state.starting_boards,
        board=unflatten(flat),
        round=state.round,
        to_move=other(player),
        last_swap=frozenset((first, second)),
        trophies=trophies,
    )
    taken_this_round = sum(holder is not None for holder in round_trophies)
    count_a, count_b = new_state.trophy_count("A"), new_state.trophy_count("B")
    round_over = taken_this_round >= TROPHIES_TO_END_ROUND
    if round_over:
        set_aside = tuple(k for k, holder in enumerate(round_trophies) if holder is None)
        events.append(RoundEnded(state.round, set_aside))
    if max(count_a, count_b) >= TROPHIES_TO_WIN or (round_over and state.round == 2):
        winner = winner_of(count_a, count_b)
        events.append(GameEnded(winner, (count_a, count_b)))
        new_state = replace(new_state, winner=winner)
    elif round_over:
        # Round 2 (Day): its own board, roles switch, Space (now B) moves first.
        new_state = replace(new_state, round=2, board=state.starting_boards[1], to_move="B", last_swap=None)
    return Accepted(new_state, tuple(events))


# --------------------------------------------------------------------------- helpers


def legal_moves(state: GameState) -> list[Move]:
    """Every legal swap for the player to move, each pair listed once, in board order.

    Space: each coin with its eight wrapped neighbours; Time: each pair of coins with
    consecutive ranks. Pairs of equal ranks and the opponent's last swap are left out.
    """
    if state.is_over:
        return []
    flat = flatten(state.board)
    moves: list[Move] = []
    space = state.role_to_move == "Space"
    last = state.last_swap
    for i in range(CELLS):
        if space:
            partners: Iterable[int] = (j for j in SPACE_NEIGHBOURS[i] if j > i)
        else:
            partners = range(i + 1, CELLS)
        for j in partners:
            diff = (flat[i] - flat[j]) % 6
            if diff == 0 or (not space and diff not in (1, 5)):
                continue
            move = (_cell(i), _cell(j))
            if last is not None and frozenset(move) == last:
                continue
            moves.append(move)
    return moves


def trophies_for(state: GameState, move: Move) -> tuple[int, ...]:
    """Ranks whose trophy ``move`` would take for the player to move (empty if none or illegal)."""
    result = apply(state, move)
    if isinstance(result, Rejected):
        return ()
    return tuple(e.rank for e in result.events if isinstance(e, TrophyTaken))


def molecule_completing_moves(state: GameState) -> list[tuple[Move, tuple[int, ...]]]:
    """The legal swaps that would complete a molecule for the player to move, with the ranks won.

    Only ranks whose trophy of the current round is still free count (rulebook,
    *Molecules and trophies*). The dashboard shows these on request.
    """
    found = []
    for move in legal_moves(state):
        ranks = trophies_for(state, move)
        if ranks:
            found.append((move, ranks))
    return found
