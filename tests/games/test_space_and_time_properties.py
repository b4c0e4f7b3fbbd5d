"""Property tests of Space and Time: coins are never lost or duplicated, trophies stay within the rules."""

from __future__ import annotations

from collections import Counter

from hypothesis import event as note_event
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.space_and_time.ai import choose_move
from companion.games.space_and_time.engine import apply, is_molecule, is_valid_board, legal_moves, new_game
from companion.games.space_and_time.hubdeck import deal_board, deal_boards
from companion.games.space_and_time.model import (
    CoinsSwapped,
    GameEnded,
    RoundEnded,
    Swap,
    TrophyTaken,
    flatten,
)
from companion.rules.outcome import Rejected

CELLS = [(r, c) for r in range(4) for c in range(6)]


@settings(max_examples=200, deadline=None)
@given(st.integers())
def test_dealt_boards_are_always_valid_starting_boards(seed):
    board = deal_board(seed)
    assert is_valid_board(board)
    assert deal_board(seed) == board  # the same seed deals the same board


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=0, max_value=2**64))
def test_dealt_board_pairs_are_valid_and_repeatable(seed):
    b1, b2 = deal_boards(seed)
    assert is_valid_board(b1) and is_valid_board(b2)
    assert deal_boards(seed) == (b1, b2)


def check_invariants(state) -> None:
    counts = Counter(flatten(state.board))
    assert counts == {rank: 4 for rank in range(6)}, "a coin was lost or duplicated"
    taken = [sum(h is not None for h in rnd) for rnd in state.trophies]
    assert all(n <= 6 for n in taken)
    assert state.trophy_count("A") + state.trophy_count("B") == sum(taken) <= 12
    if state.round == 2:
        assert taken[0] >= 5, "round 2 began before five trophies of round 1 were gone"
    else:
        assert taken[1] == 0, "a Day trophy was taken during the Night round"
    if not state.is_over:
        assert max(state.trophy_count("A"), state.trophy_count("B")) < 6
        assert taken[state.round - 1] < 5
        assert state.winner is None
    else:
        a, b = state.trophy_count("A"), state.trophy_count("B")
        assert max(a, b) >= 6 or (state.round == 2 and taken[1] >= 5)
        assert state.winner == ("B" if b > a else "A")


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.data())
def test_random_legal_play_keeps_every_coin_and_the_trophy_rules(seed, data):
    state = new_game(*deal_boards(seed))
    for step in range(120):
        check_invariants(state)
        if state.is_over:
            break
        if data.draw(st.booleans(), label="greedy"):
            move = choose_move(state, difficulty=1, seed=step)  # often takes a molecule: reaches round 2
        else:
            moves = legal_moves(state)
            move = moves[data.draw(st.integers(0, len(moves) - 1), label="move")]
        # An arbitrary pair of cells is either refused (state unchanged) or one of the legal moves.
        a, b = data.draw(st.sampled_from(CELLS)), data.draw(st.sampled_from(CELLS))
        probe = apply(state, Swap((a, b)))
        listed = {frozenset(m) for m in legal_moves(state)}
        assert probe.ok == (frozenset((a, b)) in listed)
        if isinstance(probe, Rejected):
            assert str(probe.reason).endswith(".")

        before = state
        result = apply(state, Swap(move))
        assert result.ok
        state = result.state
        swapped = result.events[0]
        assert isinstance(swapped, CoinsSwapped) and swapped.player == before.to_move
        # Rebuild the board right after the swap (before any round change) to check each trophy.
        flat = list(flatten(before.board))
        (r1, c1), (r2, c2) = swapped.cells
        flat[r1 * 6 + c1], flat[r2 * 6 + c2] = flat[r2 * 6 + c2], flat[r1 * 6 + c1]
        for event in result.events[1:]:
            if isinstance(event, TrophyTaken):
                assert event.rank in swapped.ranks and is_molecule(flat, event.rank)
                assert before.trophies[before.round - 1][event.rank] is None
            else:
                assert isinstance(event, (RoundEnded, GameEnded))
        if not any(isinstance(e, RoundEnded) for e in result.events):
            assert state.to_move != before.to_move and state.round == before.round
    note_event(f"ended in round {state.round}" if state.is_over else f"still in round {state.round}")
    if state.is_over:
        assert legal_moves(state) == []
        assert all(not apply(state, Swap((a, b))).ok for a, b in zip(CELLS, CELLS[1:], strict=False))
