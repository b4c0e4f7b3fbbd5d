"""The Space and Time computer opponent: always legal, takes molecules, seeded, quick, configurable."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import ConfigError
from companion.games.space_and_time.ai import Level, NoMoveError, _Search, choose_move, load_ai_levels
from companion.games.space_and_time.engine import (
    apply,
    legal_moves,
    molecule_completing_moves,
    new_game,
    trophies_for,
)
from companion.games.space_and_time.hubdeck import deal_boards
from companion.games.space_and_time.model import Swap, flatten

from .test_space_and_time import DOUBLE, MID, position, with_trophies


def played(seed: int, steps: int):
    """A game state reached by ``steps`` easy-level moves from boards dealt by ``seed``."""
    state = new_game(*deal_boards(seed))
    for n in range(steps):
        if state.is_over:
            break
        state = apply(state, Swap(choose_move(state, difficulty=1, seed=seed + n))).state
    return state


def test_packaged_levels_go_from_greedy_to_deeper():
    levels = load_ai_levels()
    assert sorted(levels) == [1, 2, 3, 4]
    assert levels[1].depth == 1 and levels[1].random_move_chance > 0
    assert [levels[d].depth for d in (2, 3, 4)] == [2, 3, 4]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 500), st.integers(0, 60), st.sampled_from([1, 2, 3]), st.integers())
def test_the_ai_always_returns_a_legal_move(seed, steps, difficulty, ai_seed):
    state = played(seed, steps)
    if state.is_over:
        with pytest.raises(NoMoveError):
            choose_move(state, difficulty=difficulty, seed=ai_seed)
        return
    move = choose_move(state, difficulty=difficulty, seed=ai_seed)
    assert apply(state, Swap(move)).ok
    assert choose_move(state, difficulty=difficulty, seed=ai_seed) == move  # seeded: repeatable


@pytest.mark.parametrize("difficulty", [2, 3, 4])
@pytest.mark.parametrize(
    ("board", "to_move", "round_", "trophies"),
    [
        (MID, "A", 1, with_trophies("")),  # A is Space
        (MID, "B", 1, with_trophies("")),  # B is Time
        (MID, "B", 2, with_trophies("AABBB")),  # B is Space by Day
        (DOUBLE, "A", 2, with_trophies("ABABA", "--B")),  # A is Time by Day; only the ace is free
    ],
)
def test_higher_levels_take_an_available_molecule(difficulty, board, to_move, round_, trophies):
    state = position(board, round_=round_, to_move=to_move, trophies=trophies)
    assert molecule_completing_moves(state)
    for seed in range(3):
        move = choose_move(state, difficulty=difficulty, seed=seed)
        assert trophies_for(state, move), f"level {difficulty} missed a molecule with seed {seed}"


def test_the_ai_takes_the_winning_trophy():
    # A (Time by Day) needs one trophy to reach six and win.
    state = position(MID, round_=2, to_move="A", trophies=with_trophies("AAAAA"))
    for difficulty in (2, 3, 4):
        move = choose_move(state, difficulty=difficulty, seed=1)
        assert apply(state, Swap(move)).state.winner == "A"


@pytest.mark.parametrize(("seed", "steps"), [(1, 4), (0, 4), (0, 12)])
def test_level_two_does_not_hand_the_opponent_a_molecule(seed, steps):
    # Positions found by search: the mover cannot score, most swaps would leave the opponent
    # a molecule-completing reply, and a few would not.
    state = played(seed, steps)
    assert not molecule_completing_moves(state)
    gives_away = {
        frozenset(m): bool(molecule_completing_moves(apply(state, Swap(m)).state)) for m in legal_moves(state)
    }
    assert any(gives_away.values()) and not all(gives_away.values())
    for difficulty in (2, 3):
        move = choose_move(state, difficulty=difficulty, seed=seed)
        assert not gives_away[frozenset(move)], f"level {difficulty} left the opponent a molecule"


def test_the_highest_level_answers_quickly():
    levels = load_ai_levels()
    top = max(levels)
    worst = 0.0
    for seed, steps in ((1, 0), (2, 10), (3, 25)):
        state = played(seed, steps)
        if state.is_over:
            continue
        started = time.perf_counter()
        choose_move(state, difficulty=top, seed=seed)
        worst = max(worst, time.perf_counter() - started)
    # Target is ~0.5 s; the margin covers a loaded test machine.
    assert worst < 1.5


def test_the_search_sees_the_same_moves_and_molecules_as_the_engine():
    level = load_ai_levels()[2]
    for seed in range(6):
        for steps in (0, 7, 20):
            state = played(seed, steps)
            if state.is_over:
                continue
            search = _Search(state, level)
            pairs = {frozenset((divmod(i, 6), divmod(j, 6))) for i, j in search.moves()}
            assert pairs == {frozenset(m) for m in legal_moves(state)}
            assert search.has_completing_move() == bool(molecule_completing_moves(state))
            before = list(search.flat)
            for pair in search.moves()[:10]:
                undo = search.play(pair)
                search.undo(undo)
            assert search.flat == before == list(flatten(state.board))


def test_a_finished_game_has_no_ai_move():
    state = position(MID, round_=2, to_move="A", trophies=with_trophies("AAAAA"))
    over = apply(state, Swap(((1, 3), (0, 3)))).state
    with pytest.raises(NoMoveError, match="the game is over"):
        choose_move(over, difficulty=1, seed=0)


def test_unknown_difficulty_is_a_config_error():
    with pytest.raises(ConfigError, match="difficulty 9 is not available; choose one of 1, 2, 3, 4"):
        choose_move(position(MID), difficulty=9, seed=0)


def test_levels_can_be_overridden_from_a_file(tmp_path):
    path = tmp_path / "levels.json"
    path.write_text(json.dumps({"levels": {"7": {"depth": 2, "node_budget": 500}}}), encoding="utf-8")
    levels = load_ai_levels(path)
    assert levels == {7: Level(depth=2, random_move_chance=0.0, node_budget=500, threat_bonus=0)}
    move = choose_move(position(MID), difficulty=7, seed=3, levels=levels)
    assert trophies_for(position(MID), move)


def test_a_tiny_node_budget_still_gives_a_legal_move():
    levels = {1: Level(depth=4, random_move_chance=0.0, node_budget=150, threat_bonus=50)}
    state = played(4, 5)
    assert apply(state, Swap(choose_move(state, difficulty=1, seed=0, levels=levels))).ok


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "is not valid JSON"),
        ("[]", 'needs a "levels" object'),
        ('{"levels": {}}', 'needs a "levels" object'),
        ('{"levels": {"hard": {"depth": 2, "node_budget": 5}}}', "level 'hard' must be a whole number"),
        ('{"levels": {"1": {"node_budget": 5}}}', "level 1 needs whole-number depth and node_budget"),
        ('{"levels": {"1": {"depth": 0, "node_budget": 5}}}', "needs depth and node_budget of at least 1"),
        ('{"levels": {"1": {"depth": 1, "node_budget": 5, "random_move_chance": 2}}}', "from 0 to 1"),
    ],
)
def test_broken_level_files_give_one_clear_sentence(tmp_path, content, message):
    path = tmp_path / "levels.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_ai_levels(path)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_missing_level_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_ai_levels(tmp_path / "nope.json")


def test_states_are_untouched_by_the_search():
    state = played(5, 12)
    copy = replace(state)
    choose_move(state, difficulty=3, seed=2)
    assert state == copy
