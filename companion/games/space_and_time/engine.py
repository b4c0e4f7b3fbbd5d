"""Rules engine of Space and Time, the two-player coin game on a 4 x 6 board.

The engine is pure: ``apply(state, action) -> Accepted | Rejected`` for the game's typed
actions (:mod:`.model`). It never reads a clock, draws randomness or does I/O. Inside, a
broken rule is raised with :func:`~companion.rules.outcome.refuse`; the public functions
(``apply``, ``check_move``) are :func:`~companion.rules.outcome.checked` and answer the
:class:`~companion.rules.outcome.Rejected`. The rulebook (``space-and-time.txt``) has no
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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.deck import Pile
from companion.rules.outcome import Accepted, Rejected, checked, refuse
from companion.rules.text import Text, text

from .model import (
    BLOCK_CELLS,
    CELLS,
    CENTRE_CELLS,
    COINS_PER_RANK,
    COLS,
    RANKS,
    ROWS,
    SUIT_BLOCKS,
    TROPHIES_TO_END_ROUND,
    TROPHIES_TO_WIN,
    Board,
    BoardCleared,
    BoardDealt,
    Cell,
    CoinEntered,
    CoinsSwapped,
    CoinTakenBack,
    Deal,
    GameEnded,
    GameState,
    Move,
    PlaceCoin,
    Player,
    Redeal,
    RoundEnded,
    ShowHints,
    Swap,
    TakeBackCoin,
    TrophyTaken,
    block_of,
    flatten,
    other,
    rank_name,
    unflatten,
)

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
BLOCK_TEXTS: tuple[Text, ...] = (
    text("the top-left block"),
    text("the top-right block"),
    text("the bottom-left block"),
    text("the bottom-right block"),
)
"""The suit blocks as players read them, in the order of ``SUIT_BLOCKS``."""


class InvalidBoardError(InvalidRecordError):
    """A starting board breaks the setup rules (rulebook, *Setup*)."""


def _index(cell: Cell) -> int:
    return cell[0] * COLS + cell[1]


def _cell(index: int) -> Cell:
    r, c = divmod(index, COLS)
    return (r, c)


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


def rank_text(rank: int) -> Text | str:
    """A rank as players read it: null, ace, or its number."""
    return RANK_TEXTS.get(rank) or str(rank)


def _cell_text(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]})"  # coordinates, the same in every language


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


def new_game(round1_board: object, round2_board: object | None = None) -> GameState:
    """Start a game: round 1 (Night) on the first board, A playing Space and moving first.

    Both boards are checked with :func:`validate_board`; a bad one raises
    :class:`InvalidBoardError` naming the round. Without a second board, the Day board is dealt
    and entered when the Night round ends (:class:`~.model.Deal`).
    """
    b1 = validate_board(round1_board, label="the round 1 board")
    if round2_board is None:
        return GameState(starting_boards=(b1,), board=b1)
    b2 = validate_board(round2_board, label="the round 2 board")
    return GameState(starting_boards=(b1, b2), board=b1)


def new_table_game() -> GameState:
    """A game at a table that plays with its box: the Night board is dealt by hand and entered coin by
    coin (:func:`entered`) before anyone swaps."""
    return GameState(starting_boards=(), board=(), deal=Deal(1))


# --------------------------------------------------------------------------- a board dealt at the table


def _open_deal(state: GameState) -> Deal:
    """The deal of the round's board, refused when the board is not being entered."""
    if state.deal is None:
        refuse(
            text(
                "The {round} board is on the table already: its coins can no longer be entered or taken back",
                round=ROUND_TEXTS[state.round],
            ),
            RULE_SETUP,
        )
    return state.deal


def coins_left(deal: Deal, block: int) -> Pile:
    """The coins of a block's suit not yet known on the board (one coin of each rank per suit)."""
    coins = deal.coins()
    known = {coins[r * COLS + c] for r, c in BLOCK_CELLS[block]}
    return Pile.of(str(rank) for rank in RANKS if rank not in known)


def _with_deal(state: GameState, deal: Deal) -> GameState:
    """The state with ``deal`` as the round's board being entered, its board on the table once complete."""
    dealt = state.starting_boards[: state.round - 1]
    if not deal.is_complete:
        return replace(state, deal=deal, board=(), starting_boards=dealt)
    ranks = [rank for rank in deal.coins() if rank is not None]
    board = validate_board(unflatten(ranks), label=f"the round {deal.round} board")
    return replace(state, deal=deal, board=board, starting_boards=(*dealt, board))


def entered(state: GameState, cell: object, rank: object) -> Accepted[GameState]:
    """The table read the coin on ``cell``: it shows ``rank``.

    Rules (rulebook, *Setup*): each suit, one coin of every rank, fills one 2 x 3 block, so a
    block holds each rank once and its last coin follows from the other five; the four central
    coins may not all show one rank (the coins are dealt again: :class:`~.model.Redeal`). An entry
    the dealt coins cannot hold is refused with the reason and changes nothing.
    """
    deal = _open_deal(state)
    if deal.is_complete:
        refuse(
            text(
                "The {round} board is complete: take back the last coin to correct it",
                round=ROUND_TEXTS[deal.round],
            ),
            RULE_SETUP,
        )
    where = _checked_cell(cell)
    if isinstance(rank, bool) or not isinstance(rank, int) or rank not in RANKS:
        refuse(text("A coin shows null, ace, 2, 3, 4 or 5, not {rank}", rank=repr(rank)), RULE_SETUP)
    before = deal.coins()
    known = before[_index(where)]
    if known is not None:
        refuse(
            text(
                "The coin at {cell} is known already: it is a {rank} (take back the last coin to correct it)",
                cell=_cell_text(where),
                rank=rank_text(known),
            ),
            RULE_SETUP,
        )
    block = block_of(where)
    coins_left(deal, block).take(str(rank), pile=BLOCK_TEXTS[block], name=rank_text(rank))
    after = Deal(deal.round, (*deal.placed, (where, rank)))
    coins = after.coins()
    centre = [coins[_index(c)] for c in CENTRE_CELLS]
    if centre[0] is not None and centre.count(centre[0]) == len(centre):
        refuse(
            text(
                'The four central coins would all show {rank}: by the rules the coins are shuffled and dealt again (tap "Deal again")',
                rank=rank_text(centre[0]),
            ),
            RULE_SETUP,
        )
    follows = tuple(
        (_cell(i), coin)
        for i, coin in enumerate(coins)
        if coin is not None and before[i] is None and i != _index(where)
    )
    events: list[object] = [CoinEntered(deal.round, where, rank, follows)]
    new_state = _with_deal(state, after)
    if after.is_complete:
        events.append(BoardDealt(deal.round, new_state.board))
    return Accepted(new_state, tuple(events))


def taken_back(state: GameState) -> Accepted[GameState]:
    """The latest coin entered is forgotten (a mistake at the table), with the coins that followed from it."""
    deal = _open_deal(state)
    if not deal.placed:
        refuse(
            text("No coin of the {round} board has been entered yet", round=ROUND_TEXTS[deal.round]),
            RULE_SETUP,
        )
    (cell, rank) = deal.placed[-1]
    return Accepted(
        _with_deal(state, Deal(deal.round, deal.placed[:-1])), (CoinTakenBack(deal.round, cell, rank),)
    )


def redealt(state: GameState) -> Accepted[GameState]:
    """The coins are shuffled and dealt again: every coin entered for the round's board is forgotten
    (rulebook, *Setup*: "If the four central coins show the same rank, reshuffle and re-deal")."""
    deal = _open_deal(state)
    if not deal.placed:
        refuse(
            text("No coin of the {round} board has been entered yet", round=ROUND_TEXTS[deal.round]),
            RULE_SETUP,
        )
    return Accepted(_with_deal(state, Deal(deal.round)), (BoardCleared(deal.round),))


def board_kept(state: GameState) -> GameState:
    """The round's first turn starts: the board entered stays as it is (no more taking back)."""
    if state.deal is None or not state.deal.is_complete:
        return state
    return replace(state, deal=None)


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


def _checked_cell(cell: object) -> Cell:
    if (
        not isinstance(cell, (list, tuple))
        or len(cell) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in cell)
    ):
        refuse(text("A cell is given as (row, column), but {cell} is not one.", cell=repr(cell)), RULE_SETUP)
    r, c = cell
    if not (0 <= r < ROWS and 0 <= c < COLS):
        refuse(
            text(
                "Cell {cell} is not on the board; rows run from 0 to {last_row} and columns from 0 to {last_column}.",
                cell=_cell_text((r, c)),
                last_row=ROWS - 1,
                last_column=COLS - 1,
            ),
            RULE_SETUP,
        )
    return (r, c)


def legal_swap(state: GameState, move: object) -> Move:
    """The move as a pair of cells if it is a legal swap for the player to move; else it is refused.

    Rules, checked in this order: the game must not be over (*End of the game*); both
    cells on the board and different; the coins of different ranks (issue 7); Space
    swaps neighbours with wrap-around (*Space*), Time swaps consecutive ranks with 5
    wrapping to null (*Time*); and not the two cells the opponent has just swapped
    (*No reversing*).
    """
    player = state.to_move
    if state.is_over:
        refuse(
            text(
                "The game is over and player {player} has won; no more swaps can be made.",
                player=state.winner or "",
            ),
            RULE_END,
        )
    if state.is_dealing:
        refuse(not_dealt_yet(state), RULE_SETUP)
    if not isinstance(move, (list, tuple)) or len(move) != 2:
        refuse(text("A swap names two cells, but {move} does not.", move=repr(move)), RULE_SWAP)
    first, second = _checked_cell(move[0]), _checked_cell(move[1])
    if first == second:
        refuse(
            text("A swap needs two different coins, but both cells are {cell}.", cell=_cell_text(first)),
            RULE_SWAP,
        )
    rank1 = state.board[first[0]][first[1]]
    rank2 = state.board[second[0]][second[1]]
    if rank1 == rank2:
        refuse(
            text(
                "Both coins at {cell} and {other} show rank {rank}; a swap must exchange coins of different ranks.",
                cell=_cell_text(first),
                other=_cell_text(second),
                rank=rank_text(rank1),
            ),
            RULE_SWAP,
        )
    if state.role_of(player) == "Space":
        if _index(second) not in SPACE_NEIGHBOURS[_index(first)]:
            refuse(
                text(
                    "Player {player} plays Space and may only swap a coin with one of its eight neighbours (the board wraps at the edges); {cell} and {other} are not neighbours.",
                    player=player,
                    cell=_cell_text(first),
                    other=_cell_text(second),
                ),
                RULE_SPACE,
            )
    elif (rank1 - rank2) % 6 not in (1, 5):
        refuse(
            text(
                "Player {player} plays Time and may only swap coins whose ranks follow each other (null, ace, 2, 3, 4, 5, then null again); {rank} and {other} do not.",
                player=player,
                rank=rank_text(rank1),
                other=rank_text(rank2),
            ),
            RULE_TIME,
        )
    if state.last_swap is not None and frozenset((first, second)) == state.last_swap:
        refuse(
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


def not_dealt_yet(state: GameState) -> Text:
    """Why nobody may swap or start a turn: the round's board is still being entered."""
    coins = state.deal.coins() if state.deal is not None else ()
    return text(
        "The {round} board is not entered yet ({count} of 24 coins): enter its coins on a phone first",
        round=ROUND_TEXTS[state.round],
        count=sum(coin is not None for coin in coins),
    )


check_move = checked(legal_swap)
"""``legal_swap`` answering a :class:`Rejected` instead of raising: the move as cells, or why not."""


def is_legal(state: GameState, move: object) -> bool:
    """True when ``move`` is a legal swap for the player to move."""
    return not isinstance(check_move(state, move), Rejected)


def winner_of(trophies_a: int, trophies_b: int) -> Player:
    """More trophies wins; on a tie (five each) A, who played Space at Night, wins.

    Rule: rulebook, *End of the game*; issue 7 names A as the Night-round Space player.
    """
    return "B" if trophies_b > trophies_a else "A"


def swapped(state: GameState, move: object) -> Accepted[GameState]:
    """Make a swap: the new state and its events (a broken rule is refused, the same player to move).

    After the swap, each of the two ranks that moved whose four coins now form a
    molecule wins the swapper that rank's trophy of the round if it is still free
    (*Molecules and trophies*; several at once are all taken). Then: six trophies for
    one player, or the fifth trophy of round 2, end the game (*End of the game*); the
    fifth trophy of round 1 ends the round, the rest are set aside, and round 2 starts
    on its own board with roles switched, Space (B) first and no move to reverse
    (*End of a round*, *Roles and rounds*).
    """
    first, second = legal_swap(state, move)
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

    new_state = replace(
        state,
        board=unflatten(flat),
        to_move=other(player),
        last_swap=frozenset((first, second)),
        trophies=trophies,
        swaps=state.swaps + 1,
        last_swap_by=player,
        deal=None,
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
    elif round_over and len(state.starting_boards) > 1:
        # Round 2 (Day): its own board, roles switch, Space (now B) moves first.
        new_state = replace(new_state, round=2, board=state.starting_boards[1], to_move="B", last_swap=None)
    elif round_over:
        # The same, on a board the table deals now and enters before anyone swaps.
        new_state = replace(new_state, round=2, board=(), to_move="B", last_swap=None, deal=Deal(2))
    return Accepted(new_state, tuple(events))


@checked
def apply(state: GameState, action: Any) -> Accepted[GameState]:
    """Apply one of the game's actions: a :class:`~.model.Swap` (the rules above), what the table
    entered of a board it dealt (:class:`~.model.PlaceCoin`, :class:`~.model.TakeBackCoin`,
    :class:`~.model.Redeal`) or :class:`~.model.ShowHints` (the table's hint switch, no rule of the
    game); anything else is refused. A refusal changes nothing."""
    if isinstance(action, Swap):
        return swapped(state, action.cells)
    if isinstance(action, ShowHints):
        return Accepted(replace(state, hints=bool(action.show)))
    if isinstance(action, PlaceCoin):
        return entered(state, action.cell, action.rank)
    if isinstance(action, TakeBackCoin):
        return taken_back(state)
    if isinstance(action, Redeal):
        return redealt(state)
    refuse(text("In Space and Time you swap two coins: tap them on the board"), RULE_SWAP)


def pass_turn(state: GameState) -> GameState:
    """The player to move loses the turn (hub rule: their turn timer ran out): no swap, the other
    player moves, and since nobody has just swapped there is no swap to protect from reversing."""
    return replace(state, to_move=other(state.to_move), last_swap=None)


# --------------------------------------------------------------------------- helpers


def legal_moves(state: GameState) -> list[Move]:
    """Every legal swap for the player to move, each pair listed once, in board order.

    Space: each coin with its eight wrapped neighbours; Time: each pair of coins with
    consecutive ranks. Pairs of equal ranks and the opponent's last swap are left out.
    """
    if state.is_over or state.is_dealing:
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
    result = apply(state, Swap(move))
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
