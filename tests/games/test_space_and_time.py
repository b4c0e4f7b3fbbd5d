"""Space and Time engine: board validation, legal and illegal swaps, molecules, trophies, rounds, end."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.errors import InvalidRecordError
from companion.games.space_and_time.engine import (
    InvalidBoardError,
    apply,
    check_move,
    is_legal,
    is_molecule,
    is_valid_board,
    legal_moves,
    molecule_completing_moves,
    new_game,
    validate_board,
)
from companion.games.space_and_time.model import (
    CoinsSwapped,
    GameEnded,
    GameState,
    RoundEnded,
    ShowHints,
    Swap,
    TrophyTaken,
    flatten,
)
from companion.games.space_and_time.record import referee_record
from companion.rules.outcome import Rejected

# A valid starting board: every suit block holds 0-5, centre shows 5, 3, 2, 0.
START = [
    [0, 1, 2, 0, 1, 2],
    [3, 4, 5, 3, 4, 5],
    [0, 1, 2, 0, 1, 2],
    [3, 4, 5, 3, 4, 5],
]
# A second valid starting board for round 2.
START2 = [
    [5, 4, 3, 2, 1, 0],
    [2, 1, 0, 5, 4, 3],
    [1, 0, 5, 3, 2, 4],
    [4, 3, 2, 0, 5, 1],
]
# Mid-game position: three aces in row 0, the fourth diagonally below (1, 3).
# Swapping (0, 3) and (1, 3) completes the ace molecule (row 0, columns 0-3).
MID = (
    (1, 1, 1, 2, 3, 4),
    (0, 5, 0, 1, 2, 3),
    (4, 5, 0, 2, 3, 4),
    (5, 0, 2, 3, 4, 5),
)
# Swapping (0, 3) and (1, 3) completes two molecules at once: aces and 2s.
DOUBLE = (
    (1, 1, 1, 2, 0, 0),
    (0, 3, 3, 1, 2, 2),
    (3, 4, 4, 0, 5, 2),
    (5, 5, 4, 3, 4, 5),
)
NO_TROPHIES = ((None,) * 6, (None,) * 6)


def position(board, *, round_=1, to_move="A", last=None, trophies=NO_TROPHIES) -> GameState:
    """A mid-game state on ``board`` (starting boards are START and START2)."""
    start = new_game(START, START2)
    return replace(
        start,
        board=tuple(tuple(r) for r in board),
        round=round_,
        to_move=to_move,
        last_swap=frozenset(last) if last else None,
        trophies=trophies,
    )


def with_trophies(round1: str, round2: str = "") -> tuple:
    """Trophy table from strings like "AAB-B-": one letter per rank, '-' for free."""

    def row(text: str) -> tuple:
        text = text.ljust(6, "-")
        return tuple(None if ch == "-" else ch for ch in text)

    return (row(round1), row(round2))


# --------------------------------------------------------------------------- board validation


def test_the_example_boards_are_valid():
    assert validate_board(START) == tuple(tuple(r) for r in START)
    assert is_valid_board(START2)


def _swapped(board, a, b):
    rows = [list(r) for r in board]
    rows[a[0]][a[1]], rows[b[0]][b[1]] = rows[b[0]][b[1]], rows[a[0]][a[1]]
    return rows


CENTRE_ALL_FIVES = [
    [0, 1, 2, 0, 1, 2],
    [3, 4, 5, 5, 3, 4],
    [0, 1, 5, 5, 0, 1],
    [2, 3, 4, 2, 3, 4],
]


@pytest.mark.parametrize(
    ("board", "message"),
    [
        ("not a board", "must be a list of 4 rows of 6 ranks"),
        (START[:3], "must be a list of 4 rows of 6 ranks"),
        ([START[0], START[1], START[2], START[3][:5]], "row 3 must be a list of 6 ranks"),
        ([[6, 1, 2, 0, 1, 2]] + START[1:], "has 6 at row 0 column 0; ranks are whole numbers 0 (null) to 5"),
        ([["1", 1, 2, 0, 1, 2]] + START[1:], "has '1' at row 0 column 0"),
        ([[True, 1, 2, 0, 1, 2]] + START[1:], "has True at row 0 column 0"),
        ([[1, 1, 2, 0, 1, 2]] + START[1:], "has rank null 3 times; each rank must appear exactly 4 times"),
        (_swapped(START, (0, 0), (0, 4)), "top-left suit block (rows 0-1, columns 0-2) lacks rank null"),
        (_swapped(START, (3, 5), (2, 2)), "bottom-left suit block (rows 2-3, columns 0-2) lacks rank 2"),
        (CENTRE_ALL_FIVES, "four central coins all show rank 5; the coins must be re-dealt"),
    ],
)
def test_invalid_boards_are_refused_with_a_reason(board, message):
    with pytest.raises(InvalidBoardError, match="the board") as info:
        validate_board(board)
    assert message in str(info.value)
    assert not is_valid_board(board)


def test_new_game_names_the_round_of_a_bad_board():
    with pytest.raises(InvalidBoardError, match="^the round 2 board's four central coins"):
        new_game(START, CENTRE_ALL_FIVES)
    with pytest.raises(InvalidRecordError, match="^the round 1 board has rank null 3 times"):
        new_game([[1, 1, 2, 0, 1, 2]] + START[1:], START2)


def test_centre_with_two_ranks_is_fine():
    # Three fives and a zero in the centre is allowed: only all four alike is re-dealt.
    board = _swapped(CENTRE_ALL_FIVES, (2, 3), (2, 4))
    assert is_valid_board(board)


def test_new_game_starts_night_round_with_space_a_to_move():
    state = new_game(START, START2)
    assert (state.round, state.to_move, state.role_of("A"), state.role_of("B")) == (1, "A", "Space", "Time")
    assert state.last_swap is None and state.winner is None and not state.is_over
    assert state.board == validate_board(START)


# --------------------------------------------------------------------------- legal and illegal swaps


@pytest.mark.parametrize(
    ("to_move", "round_", "move"),
    [
        ("A", 1, ((0, 3), (1, 3))),  # diagonal neighbours
        ("A", 1, ((0, 0), (0, 5))),  # wraps left-right
        ("A", 1, ((0, 0), (3, 0))),  # wraps top-bottom
        ("A", 1, ((0, 0), (3, 5))),  # wraps at a corner, diagonally
        ("A", 1, ((1, 1), (2, 2))),  # 5 and null, diagonal
        ("B", 2, ((0, 5), (1, 0))),  # B is Space by Day; 4 and null wrap left-right, one row down
    ],
)
def test_legal_space_swaps(to_move, round_, move):
    """Space swaps a coin with any of its eight neighbours, wrapping both ways (rulebook, Space)."""
    state = position(MID, round_=round_, to_move=to_move)
    assert state.role_to_move == "Space"
    result = apply(state, Swap(move))
    assert result.ok, result
    assert move in legal_moves(state) or (move[1], move[0]) in legal_moves(state)


@pytest.mark.parametrize(
    "move",
    [
        ((0, 3), (1, 3)),  # 2 and ace, next to each other
        ((0, 0), (3, 2)),  # ace and 2, far apart
        ((0, 5), (3, 0)),  # 4 and 5
        ((3, 5), (1, 0)),  # 5 and null: the sequence wraps
        ((1, 0), (0, 1)),  # null and ace
    ],
)
def test_legal_time_swaps(move):
    """Time swaps any two coins of consecutive ranks, 5 wrapping to null (rulebook, Time)."""
    state = position(MID, to_move="B")
    assert state.role_to_move == "Time"
    assert apply(state, Swap(move)).ok
    assert frozenset(move) in {frozenset(m) for m in legal_moves(state)}


@pytest.mark.parametrize(
    ("to_move", "last", "move", "reason"),
    [
        (
            "A",
            None,
            ((0, 0), (2, 0)),
            "Player A plays Space and may only swap a coin with one of its eight "
            "neighbours (the board wraps at the edges); (0, 0) and (2, 0) are not neighbours.",
        ),
        ("A", None, ((0, 0), (1, 4)), "(0, 0) and (1, 4) are not neighbours."),
        (
            "A",
            None,
            ((0, 0), (0, 1)),
            "Both coins at (0, 0) and (0, 1) show rank ace; a swap must exchange coins of different ranks.",
        ),
        ("B", None, ((0, 0), (0, 1)), "show rank ace; a swap must exchange coins of different ranks."),
        (
            "B",
            None,
            ((0, 0), (0, 4)),
            "Player B plays Time and may only swap coins whose ranks follow each "
            "other (null, ace, 2, 3, 4, 5, then null again); ace and 3 do not.",
        ),
        ("B", None, ((1, 0), (0, 3)), "null and 2 do not."),
        ("B", None, ((0, 5), (1, 0)), "4 and null do not."),
        ("A", None, ((0, 0), (0, 0)), "A swap needs two different coins, but both cells are (0, 0)."),
        (
            "A",
            None,
            ((4, 0), (0, 0)),
            "Cell (4, 0) is not on the board; rows run from 0 to 3 and columns from 0 to 5.",
        ),
        ("A", None, ((0, 0), (0, -1)), "Cell (0, -1) is not on the board"),
        ("A", None, ((0, 0),), "A swap names two cells, but ((0, 0),) does not."),
        ("A", None, ((0, 0), "b2"), "A cell is given as (row, column), but 'b2' is not one."),
        (
            "B",
            ((0, 3), (1, 3)),
            ((1, 3), (0, 3)),
            "Player B may not swap back the two coins player A has just swapped, (1, 3) and (0, 3).",
        ),
        ("A", ((0, 0), (0, 5)), ((0, 0), (0, 5)), "Player A may not swap back the two coins player B"),
    ],
)
def test_illegal_swaps_are_refused_with_a_reason(to_move, last, move, reason):
    state = position(MID, to_move=to_move, last=last)
    result = apply(state, Swap(move))
    assert isinstance(result, Rejected)
    sentence = str(result.reason)
    assert reason in sentence
    assert sentence[0].isupper() and sentence.endswith(".")
    assert not result.reason.verbatim and "(0" not in result.reason.msgid, "a message id with arguments"
    assert str(result.rule).startswith(("Space and Time rulebook", "hub rule (issue 7)"))
    assert not is_legal(state, move)


def test_reversing_is_only_forbidden_for_the_exact_pair_just_swapped():
    state = position(MID, to_move="B", last=((0, 3), (1, 3)))
    # One of the two cells with another coin is fine for Time (2 at (0, 3) with ace at (0, 0)).
    assert apply(state, Swap(((0, 3), (0, 0)))).ok
    # The pair is allowed again once another swap has come between.
    a = apply(position(MID), Swap(((0, 3), (1, 3)))).state
    b = apply(a, Swap(((2, 0), (3, 0)))).state  # B (Time): 4 and 5
    assert apply(b, Swap(((1, 3), (0, 3)))).ok


def test_an_illegal_move_leaves_the_state_unchanged_and_the_same_player_to_move():
    state = new_game(START, START2)
    refused = apply(state, Swap(((0, 0), (2, 0))))
    assert not refused.ok
    accepted = apply(state, Swap(((0, 0), (1, 1))))
    assert accepted.ok and accepted.state.to_move == "B"
    assert state.board == validate_board(START)  # states are never mutated


def test_a_swap_moves_the_two_coins_and_reports_it():
    state = new_game(START, START2)
    result = apply(state, Swap(((0, 0), (3, 5))))  # corner to corner through the wrap
    assert result.ok
    assert result.state.board[0][0] == 5 and result.state.board[3][5] == 0
    assert result.events == (CoinsSwapped("A", "Space", ((0, 0), (3, 5)), (0, 5)),)
    assert result.state.last_swap == frozenset({(0, 0), (3, 5)})


# --------------------------------------------------------------------------- molecules and trophies


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        ([(0, 0), (0, 1), (0, 2), (0, 3)], True),  # straight line
        ([(0, 0), (0, 1), (1, 0), (1, 1)], True),  # square
        ([(0, 0), (1, 0), (2, 0), (2, 1)], True),  # L
        ([(0, 1), (1, 0), (1, 1), (1, 2)], True),  # T
        ([(0, 0), (0, 1), (1, 1), (1, 2)], True),  # Z
        ([(0, 0), (0, 1), (1, 2), (1, 3)], False),  # two dominoes touching at a corner only
        ([(0, 4), (0, 5), (0, 0), (0, 1)], False),  # joined only across the wrapped edge
        ([(0, 0), (3, 0), (2, 0), (1, 5)], False),  # top-bottom wrap does not join either
        ([(0, 0), (1, 1), (2, 2), (3, 3)], False),  # diagonal
    ],
)
def test_molecule_shapes(cells, expected):
    flat = [9] * 24
    for r, c in cells:
        flat[r * 6 + c] = 7
    assert is_molecule(flat, 7) is expected


def test_completing_a_molecule_takes_its_trophy():
    result = apply(position(MID), Swap(((0, 3), (1, 3))))
    assert result.ok
    assert TrophyTaken("A", 1, 1) in result.events
    assert result.state.trophies[0][1] == "A"
    assert result.state.trophy_count("A") == 1 and result.state.trophy_count("B") == 0


def test_time_can_complete_a_molecule_too():
    result = apply(position(MID, to_move="B"), Swap(((1, 3), (0, 3))))
    assert [e for e in result.events if isinstance(e, TrophyTaken)] == [TrophyTaken("B", 1, 1)]


def test_two_molecules_in_one_swap_take_both_trophies():
    result = apply(position(DOUBLE), Swap(((0, 3), (1, 3))))
    taken = [e.rank for e in result.events if isinstance(e, TrophyTaken)]
    assert taken == [1, 2]
    assert result.state.trophy_count("A") == 2


def test_a_trophy_already_taken_this_round_is_not_taken_again():
    state = position(DOUBLE, trophies=with_trophies("-B"))
    result = apply(state, Swap(((0, 3), (1, 3))))
    assert [e.rank for e in result.events if isinstance(e, TrophyTaken)] == [2]
    assert result.state.trophies[0][1] == "B"


def test_the_same_rank_can_be_won_again_in_round_two():
    state = position(MID, round_=2, to_move="B", trophies=with_trophies("-A"))
    result = apply(state, Swap(((0, 3), (1, 3))))  # B is Space by Day
    assert TrophyTaken("B", 2, 1) in result.events
    assert result.state.trophies == with_trophies("-A", "-B")


def test_ranks_that_did_not_move_score_nothing():
    # Aces already form a molecule, but the swap moves a 3 and a 4.
    board = ((1, 1, 1, 1, 3, 4), (0, 5, 0, 2, 2, 3), (4, 5, 0, 2, 3, 4), (5, 0, 2, 3, 4, 5))
    result = apply(position(board), Swap(((0, 4), (0, 5))))
    assert result.ok and not [e for e in result.events if isinstance(e, TrophyTaken)]


def test_molecule_completing_moves_lists_the_scoring_swaps():
    found = dict(molecule_completing_moves(position(MID)))
    assert found[((0, 3), (1, 3))] == (1,)
    for move, ranks in found.items():
        result = apply(position(MID), Swap(move))
        assert [e.rank for e in result.events if isinstance(e, TrophyTaken)] == list(ranks)
    # With the ace trophy gone, that swap no longer completes anything worth a trophy.
    gone = dict(molecule_completing_moves(position(MID, trophies=with_trophies("-B"))))
    assert ((0, 3), (1, 3)) not in gone


# --------------------------------------------------------------------------- rounds and end of game


def test_fifth_trophy_ends_round_one_and_starts_round_two():
    state = position(MID, trophies=with_trophies("A-BAB"))
    result = apply(state, Swap(((0, 3), (1, 3))))
    assert RoundEnded(1, (5,)) in result.events
    after = result.state
    assert after.round == 2 and after.to_move == "B" and after.role_to_move == "Space"
    assert after.board == validate_board(START2)
    assert after.last_swap is None
    assert not after.is_over and after.trophy_count("A") == 3 and after.trophy_count("B") == 2


def test_round_two_has_no_previous_move_to_reverse():
    state = position(MID, trophies=with_trophies("A-BAB"))
    after = apply(state, Swap(((0, 3), (1, 3)))).state
    # B (Space) may swap the very cells A just swapped: (0, 3) is 2 and (1, 3) is 5 on START2.
    assert apply(after, Swap(((1, 3), (0, 3)))).ok


def test_two_trophies_at_once_when_four_are_gone_are_both_taken():
    state = position(DOUBLE, trophies=with_trophies("A--BAB"))
    result = apply(state, Swap(((0, 3), (1, 3))))
    assert RoundEnded(1, ()) in result.events
    assert result.state.trophy_count("A") == 4 and result.state.round == 2


def test_fifth_trophy_of_round_two_ends_the_game_and_the_tie_goes_to_a():
    # A: 3 at Night + 1 by Day = 4; A (Time by Day) takes the fifth trophy of the day: 5 each.
    state = position(MID, round_=2, to_move="A", trophies=with_trophies("AAABB", "B-BBA"))
    result = apply(state, Swap(((1, 3), (0, 3))))
    assert result.ok
    assert result.events[-1] == GameEnded("A", (5, 5))
    assert RoundEnded(2, (5,)) in result.events
    assert result.state.winner == "A" and result.state.is_over


def test_more_trophies_wins():
    state = position(MID, round_=2, to_move="B", trophies=with_trophies("AABBB", "B-BA"))
    result = apply(state, Swap(((0, 3), (1, 3))))
    assert result.events[-1] == GameEnded("B", (3, 6))


def test_six_trophies_end_the_game_before_the_round_ends():
    state = position(DOUBLE, round_=2, to_move="A", trophies=with_trophies("AAAAA", "--B"))
    result = apply(state, Swap(((1, 3), (0, 3))))  # A is Time by Day: ace and 2
    assert result.events[-1] == GameEnded("A", (6, 1))
    assert result.state.winner == "A"


def test_six_trophies_in_round_one_end_the_game_at_once():
    state = position(DOUBLE, trophies=with_trophies("A--AAA"))
    result = apply(state, Swap(((0, 3), (1, 3))))
    assert result.events[-1] == GameEnded("A", (6, 0))
    assert result.state.round == 1


def test_no_move_after_the_end():
    state = position(MID, round_=2, to_move="A", trophies=with_trophies("AAABB", "B-BBA"))
    over = apply(state, Swap(((1, 3), (0, 3)))).state
    refused = apply(over, Swap(((0, 0), (0, 1))))
    assert isinstance(refused, Rejected)
    assert str(refused.reason) == "The game is over and player A has won; no more swaps can be made."
    assert legal_moves(over) == [] and molecule_completing_moves(over) == []
    assert not is_legal(over, ((0, 0), (0, 1)))


def test_check_move_returns_the_cells_as_tuples():
    assert check_move(position(MID), [[0, 3], [1, 3]]) == ((0, 3), (1, 3))


def test_legal_moves_are_exactly_the_accepted_swaps():
    for state in (position(MID), position(MID, to_move="B", last=((0, 3), (1, 3))), new_game(START, START2)):
        listed = {frozenset(m) for m in legal_moves(state)}
        cells = [(r, c) for r in range(4) for c in range(6)]
        accepted = {
            frozenset((a, b))
            for i, a in enumerate(cells)
            for b in cells[i + 1 :]
            if apply(state, Swap((a, b))).ok
        }
        assert listed == accepted
        assert len(listed) == len(legal_moves(state))


# --------------------------------------------------------------------------- referee_record


def test_referee_record_reports_each_move():
    record = {
        "boards": [START, START2],
        "moves": [
            [[0, 1], [0, 2]],  # A (Space): ace and 2, side by side
            [[0, 2], [0, 1]],  # B: swapping them straight back
            [[0, 1], [0, 0]],  # B (Time): 2 and null are not consecutive
            [[0, 0], [0, 2]],  # B (Time): null and ace
        ],
    }
    out = referee_record(record)
    assert out["results"][0] == {"ok": True, "player": "A", "trophies": []}
    assert out["results"][1] == {
        "ok": False,
        "reason": "Player B may not swap back the two coins player A has just swapped, (0, 2) and (0, 1).",
    }
    assert out["results"][2] == {
        "ok": False,
        "reason": "Player B plays Time and may only swap coins whose ranks follow each other "
        "(null, ace, 2, 3, 4, 5, then null again); 2 and null do not.",
    }
    assert out["results"][3] == {"ok": True, "player": "B", "trophies": []}
    assert out["trophies"] == {"A": 0, "B": 0} and out["winner"] is None


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([], "must be a JSON object"),
        ({"moves": []}, 'the record has no "boards" list'),
        ({"boards": [START, START2]}, 'the record has no "moves" list'),
        ({"boards": [START, START2, START], "moves": []}, '"boards" must list the starting boards as dealt'),
        (
            {"boards": [], "moves": []},
            '"boards" must list the starting boards as dealt: the Night board, then',
        ),
        ({"boards": [START, START2], "moves": {}}, '"moves" must be a list'),
        ({"boards": [START, START2], "moves": [[[0, 0]]]}, "move 1 is [[0, 0]], not a pair of cells"),
        ({"boards": [START, START2], "moves": [[[0, 0], [1, 1]], [[0, "a"], [1, 1]]]}, "move 2 is"),
        ({"boards": [START, START2], "moves": [[[0, 0], [1, True]]]}, "move 1 is"),
        ({"boards": [START, START2], "moves": [], "move": []}, "unknown key 'move' in the record"),
        ({"boards": [START, CENTRE_ALL_FIVES], "moves": []}, "the round 2 board's four central coins"),
    ],
)
def test_malformed_records_raise_one_sentence(record, message):
    with pytest.raises(InvalidRecordError) as info:
        referee_record(record)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_comment_keys_are_ignored():
    out = referee_record({"_comment": "a note", "boards": [START, START2], "moves": []})
    assert out == {"results": [], "trophies": {"A": 0, "B": 0}, "winner": None}


def test_off_board_cells_are_refused_moves_not_broken_files():
    out = referee_record({"boards": [START, START2], "moves": [[[0, 0], [0, 6]], [[0, 0], [0, 5]]]})
    assert out["results"][0]["ok"] is False and "not on the board" in out["results"][0]["reason"]
    assert out["results"][1]["player"] == "A"


def test_flat_board_reading_order():
    assert flatten(validate_board(START))[:7] == (0, 1, 2, 0, 1, 2, 3)


# --------------------------------------------------------------------------- dashboard view


def test_snapshot_is_plain_json_and_shows_molecules_only_on_request():
    import json

    from companion.games.space_and_time.pages import snapshot

    state = position(MID, to_move="B", last=((2, 0), (3, 0)), trophies=with_trophies("A"))
    view = snapshot(state)
    assert json.loads(json.dumps(view)) == view
    assert view["board"][0] == [1, 1, 1, 2, 3, 4]
    assert (view["round"], view["round_name"], view["to_move"]) == (1, "Night", "B")
    assert view["roles"] == {"A": "Space", "B": "Time"}
    assert view["last_swap"] == [[2, 0], [3, 0]]
    assert view["trophies"][0][0] == {"rank": 0, "name": "null", "holder": "A"}
    assert view["trophies"][0][1] == {"rank": 1, "name": "ace", "holder": None}
    assert view["totals"] == {"A": 1, "B": 0} and view["winner"] is None
    assert "molecule_moves" not in view
    hinted = snapshot(state, show_molecules=True)["molecule_moves"]
    assert {"cells": [[0, 3], [1, 3]], "ranks": [1]} in hinted
    assert len(hinted) == len(molecule_completing_moves(state))


# --------------------------------------------------------------------------- the table's own actions


def test_the_hint_switch_changes_only_the_hints_and_other_values_are_refused():
    state = position(MID, to_move="B", last=((2, 0), (3, 0)))
    shown = apply(state, ShowHints(True))
    assert shown.ok and shown.events == () and shown.state == replace(state, hints=True)
    assert apply(shown.state, ShowHints(False)).state == state
    refused = apply(state, "swap")
    assert isinstance(refused, Rejected) and "swap two coins" in str(refused.reason)


def test_a_swap_counts_the_swaps_and_says_who_made_it():
    state = new_game(START, START2)
    first = apply(state, Swap(((0, 0), (1, 1)))).state
    assert (first.swaps, first.last_swap_by) == (1, "A")
    second = apply(first, Swap(((0, 1), (1, 1)))).state  # B (Time): ace and null
    assert (second.swaps, second.last_swap_by) == (2, "B")
