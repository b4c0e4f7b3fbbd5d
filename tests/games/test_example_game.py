"""The example game of docs/adding-a-game.md is one package and one registry line, and it plays.

``docs/example/race21`` is registered for these tests only (the hub does not ship it): a game is
played on a table through the product's own way in, its log reads back without asking the rules,
its words are in the Spanish and German catalogs of its package, and the registry knows it by name.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from companion import i18n
from companion.games import find_game, game_names, register, unregister
from companion.rules.text import Text
from companion.table.log import read_log
from companion.table.state import fold
from companion.testing import SimulatedTable, play_randomly, verdict

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "example"


@pytest.fixture
def race():
    sys.path.insert(0, str(EXAMPLE))
    register("race-21", "race21")
    i18n.reload()
    try:
        yield find_game("race-21")
    finally:
        unregister("race-21")
        sys.path.remove(str(EXAMPLE))
        i18n.reload()


def test_the_registry_finds_the_example_by_its_one_line(race):
    assert race.name == "race-21" and "race-21" in game_names()


def test_a_game_of_race_to_21_is_won_and_reads_back_from_its_log(race, tmp_path):
    table = SimulatedTable(game="race-21", players=("ana", "ben"), log_path=tmp_path / "race.jsonl")
    table.start()
    for _ in range(40):
        if table.state.ended_by:
            break
        player = table.referee.player_to_move(table.game)
        assert verdict(table.flip(f"{player}-1")) == "accepted"
        [*_, most] = table.menu(player)  # the largest amount the rules accept now
        assert table.tap(player, most.action).refusal is None
    assert table.game.count == 21 and table.state.ended_by == "rules"
    assert table.state.clock.phase == "expired"  # the rules ended the game: the clock stops
    scores = table.referee.scores(table.game, table.ctx)
    assert scores["winners"] == [table.game.winner]
    table.close()
    saved = read_log(tmp_path / "race.jsonl")
    assert fold(saved.setup, saved.events, saved.start) == table.state


def test_an_illegal_move_is_refused_with_its_reason_and_changes_nothing(race):
    table = SimulatedTable(game="race-21", players=("ana", "ben"))
    table.start()
    table.flip("ana-1")
    before = table.state
    refused = table.tap("ana", race.codec.read({"@": "Add", "amount": 5}, race.moves)).refusal
    assert str(refused.reason) == "Add 1, 2 or 3" and table.state.game == before.game
    wrong = table.tap("ben", race.codec.read({"@": "Add", "amount": 1}, race.moves)).refusal
    assert "ana's turn" in str(wrong.reason)


def test_random_games_replay_from_their_logs(race, tmp_path):
    for seed in range(3):
        path = tmp_path / f"race-{seed}.jsonl"
        table = SimulatedTable(game="race-21", players=("ana", "ben", "eva"), seed=seed, log_path=path)
        table.start()
        play_randomly(table, random.Random(seed), steps=150)
        table.close()
        saved = read_log(path)
        assert fold(saved.setup, saved.events, saved.start) == table.state


def test_every_word_of_the_example_is_in_its_catalogs(race):
    root = EXAMPLE / "race21"
    ids = set()
    for path in root.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        ids |= {m for m in _text_ids(source)}
    for lang in ("es", "de"):
        catalog = json.loads((root / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
        entries = i18n.catalog_entries(lang)
        missing = sorted(i for i in ids if i not in catalog and i not in entries)
        assert missing == [], f"{lang}: {missing}"
        assert i18n.render(Text("Race to 21"), lang) != "Race to 21"


def _text_ids(source: str) -> list[str]:
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "text" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append(first.value)
    return found
