"""`companion referee timeline`: whole recorded games, the documented example and malformed records."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.errors import InvalidRecordError
from companion.games import find_game
from companion.games.timeline.record import referee_record

DATA = Path(__file__).parent / "data" / "timeline"
DOC = Path(__file__).resolve().parents[2] / "docs" / "games" / "timeline.md"


def load(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def run_cli(source: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "referee", "timeline", source],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_registry_finds_the_referee() -> None:
    assert find_game("timeline").referee_record is referee_record


def test_seeded_game_through_the_cli() -> None:
    done = run_cli(str(DATA / "seeded_game.json"))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [r["correct"] for r in out["results"]] == [True, True, True, False, True, True, True, True]
    assert out["results"][3]["drew"] == "cordoba-cristiana"
    assert out["results"][-1]["round_ended"] == 4 and out["results"][-1]["winner"] == "ana"
    assert out["winner"] == "ana" and out["next_player"] is None
    assert out["hands"] == {"ana": [], "ben": ["cordoba-cristiana"]}
    assert [c["year"] for c in out["timeline"]] == [589, 711, 1218, 1248, 1713, 1805, 1931, 1956]
    # A seeded record shows the deal it made, so a table can lay out the same cards.
    assert out["deal"]["reference"] == "trafalgar"
    assert out["deal"]["hands"]["ana"] == ["rae", "juan-ramon-jimenez", "segunda-republica", "sevilla"]
    assert len(out["deal"]["draw_pile"]) == 79 - 9
    assert out["deck_left"] == 79 - 9 - 1


def test_playoff_game_from_stdin() -> None:
    done = run_cli("-", stdin=(DATA / "playoff_game.json").read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    results = out["results"]
    assert [r["ok"] for r in results] == [True, True, True, True, False, True, True, True, True, False]
    assert results[4]["reason"] == "It is ben's turn, not carla's"
    assert results[6]["playoff"] == ["ana", "ben"] and results[6]["eliminated"] == ["carla"]
    assert results[6]["playoff_draws"] == {"ana": "guernica", "ben": "trafalgar"}
    assert results[8]["winner"] == "ana"
    assert results[9]["reason"] == "The game is over: ana has already won"
    assert out["winner"] == "ana" and out["eliminated"] == ["carla"] and out["playoff"]
    assert "deal" not in out


def documented(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record of docs/games/timeline.md that is the fixture ``name``, and the output printed after it."""
    text = DOC.read_text(encoding="utf-8")
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, flags=re.S)]
    index = blocks.index(load(name))
    return blocks[index], blocks[index + 1]


@pytest.mark.parametrize("name", ["playoff_game.json", "table_game.json"])
def test_documented_example_and_its_output_match_the_referee(name: str) -> None:
    """The records and outputs printed in docs/games/timeline.md are the real ones."""
    record, output = documented(name)
    assert referee_record(record) == output


def test_record_with_its_own_deck() -> None:
    record = {
        "players": ["ana", "ben"],
        "deck": [
            {"id": "a", "year": 1, "title": "A"},
            {"id": "b", "year": 2, "title": "B"},
            {"id": "c", "year": 3, "title": "C"},
            {"id": "d", "year": 3, "title": "D"},
        ],
        "deal": {"hands": {"ana": ["a"], "ben": ["d"]}, "reference": "c", "draw_pile": ["b"]},
        "moves": [{"player": "ana", "card": "a", "gap": 1}, {"player": "ben", "card": "d", "gap": 0}],
    }
    out = referee_record(record)
    assert out["results"][0]["correct"] is False and out["results"][0]["drew"] == "b"
    assert out["results"][1]["correct"] is True
    assert out["winner"] == "ben"
    assert [c["id"] for c in out["timeline"]] == ["d", "c"]


def test_reshuffle_is_reported() -> None:
    record = {
        "players": ["ana", "ben"],
        "deck": [
            {"id": "a", "year": 1, "title": "A"},
            {"id": "b", "year": 2, "title": "B"},
            {"id": "c", "year": 3, "title": "C"},
        ],
        "deal": {"hands": {"ana": ["a"], "ben": ["b"]}, "reference": "c"},
        "moves": [{"player": "ana", "card": "a", "gap": 1}],
    }
    result = referee_record(record)["results"][0]
    assert result["reshuffled"] is True and result["drew"] == "a"


def test_no_moves_is_a_game_not_yet_played() -> None:
    out = referee_record({"players": ["ana", "ben"], "seed": 1})
    assert out["results"] == [] and out["next_player"] == "ana" and out["winner"] is None
    assert [len(h) for h in out["hands"].values()] == [4, 4]


BASE = {"players": ["ana", "ben"], "seed": 1, "moves": []}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"players": "ana"}, 'the record needs "players": a list of player names in seating order'),
        ({"players": ["ana"]}, "Timeline needs 2 to 8 players, not 1"),
        ({"seed": "x"}, "the seed must be a whole number, not 'x'"),
        ({"hand_size": 0}, "hand_size must be a whole number of at least 1, not 0"),
        (
            {"hand_size": 40},
            "deck: 79 cards are too few for 2 players with 40 cards each (the deal and the reference card need 81)",
        ),
        ({"deck": "francia"}, "unknown deck 'francia'; shipped decks: espana"),
        (
            {"deck": [{"id": "a", "year": "x", "title": "A"}]},
            "the record's deck, card 1: year 'x' is not a whole number",
        ),
        ({"moves": {}}, '"moves" must be a list of {player, card, gap} objects'),
        ({"moves": [3]}, "move 1 must be an object with player, card and gap"),
        ({"moves": [{"player": "ana", "card": "rae"}]}, "move 1 is missing gap"),
        (
            {"moves": [{"player": "ana", "card": "rae", "gap": "1"}]},
            'move 1: PlaceCard.gap must be int, not "1"',
        ),
        (
            {"moves": [{"player": "ana", "card": "rae", "gap": 1.0}]},
            "move 1: PlaceCard.gap must be int, not 1.0",
        ),
        ({"moves": [{"player": 1, "card": "rae", "gap": 1}]}, "move 1: PlaceCard.player must be str, not 1"),
        ({"moves": [{"player": "ana", "card": 5, "gap": 1}]}, "move 1: PlaceCard.card must be str, not 5"),
        (
            {"moves": [{"player": "ana", "card": "x", "gap": 1, "year": 5}]},
            "move 1 has an unknown field 'year'; known fields: player, card, gap",
        ),
        (
            {"players_": []},
            "the record has an unknown field 'players_'; known fields: players, seed, hand_size, deck, deal, moves",
        ),
        ({"deal": []}, '"deal" must be an object with hands, reference and draw_pile'),
        (
            {"deal": {"hands": {"ana": ["rae"], "ben": ["cela"]}}},
            'the deal needs "reference": the id of the face-up starting card',
        ),
        (
            {"deal": {"hands": {"ana": "rae"}, "reference": "cela"}},
            "deal.hands must map each player to a list of card ids",
        ),
        (
            {"deal": {"hands": {"ana": ["rae"], "ben": ["cela"]}, "reference": "euro", "draw_pile": "x"}},
            "deal.draw_pile must be a list of card ids, top card first",
        ),
        (
            {"deal": {"hands": {"ana": ["rae"], "ben": ["rae"]}, "reference": "euro"}},
            "the deal puts card 'rae' both in ana's hand and in ben's hand",
        ),
        (
            {"deal": {"hands": {"ana": ["rae"], "ben": ["cela"]}, "reference": "euro"}, "hand_size": 1},
            "give either hand_size or an explicit deal, not both",
        ),
    ],
)
def test_malformed_records_raise_one_sentence(change: dict[str, Any], message: str) -> None:
    record = {**copy.deepcopy(BASE), **change}
    with pytest.raises(InvalidRecordError) as info:
        referee_record(record)
    assert str(info.value) == message


def test_record_must_be_an_object() -> None:
    with pytest.raises(InvalidRecordError, match="a Timeline record must be a JSON object"):
        referee_record([])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("{not json", "companion: standard input is not valid JSON"),
        (
            '{"players": ["ana", "ben"], "moves": [{"player": "ana"}]}',
            "companion: move 1 is missing card, gap",
        ),
        ('{"players": ["ana", "ben"], "deck": "francia"}', "companion: unknown deck 'francia'"),
    ],
)
def test_cli_malformed_record_exits_2_with_one_line(stdin: str, message: str) -> None:
    done = run_cli("-", stdin=stdin)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), done.stderr


def test_cli_missing_file_exits_2(tmp_path: Path) -> None:
    done = run_cli(str(tmp_path / "nope.json"))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "cannot read" in done.stderr


# --- a game played with the box --------------------------------------------------------------------


def test_a_game_played_with_the_box_through_the_cli() -> None:
    done = run_cli(str(DATA / "table_game.json"))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    results = out["results"]
    assert [r["ok"] for r in results] == [True, True, True, True, False, True, True, True, True, True, False]
    assert [r.get("judged_by") for r in results if "gap" in r and r["ok"]] == [
        "hub", "table", "hub", "table", "hub", "hub", "hub", "table",
    ]  # fmt: skip
    assert results[4]["reason"] == "It is ben's turn, not carla's"
    assert results[6] == {"ok": True, "position": 3, "year": 1992}
    assert results[7]["playoff"] == ["ana", "ben"] and results[7]["playoff_draws"] == ["ana", "ben"]
    assert results[9]["winner"] == "ana" and results[10]["reason"] == "The game is over: ana has already won"
    assert out["timeline"] == [-133, 1492, 1812, 1978, 1992, 2004, 2010]
    assert out["hands"] == {"ana": 0, "ben": 1, "carla": 1}
    assert (out["deck_left"], out["discard"]) == (55 - 7 - 1 - 2 - 1, 2)
    assert out["winner"] == "ana" and out["eliminated"] == ["carla"]


def test_a_table_record_replays_as_the_table_that_entered_it() -> None:
    """The same entries on the phones of a hub table end the game as the record says."""
    from companion.games.timeline.model import NameYear, PutIn, TurnOver
    from companion.testing import SimulatedTable

    record = load("table_game.json")
    out = referee_record(record)
    table = SimulatedTable(game="timeline", players=tuple(record["players"]), deck="table", variant="hand-2")
    table.tap("ana", NameYear(0, record["reference"]))
    for move in record["moves"]:
        if "position" in move:
            table.tap("ana", NameYear(move["position"], move["year"]))
            continue
        player = move["player"]
        if table.game.to_move == player:
            table.flip(f"{player}-1")
            table.advance(1)
        table.tap(player, PutIn(move["gap"]))
        table.tap(player, TurnOver(move.get("year"), move.get("right")))
    game = table.game
    assert list(game.years()) == out["timeline"]
    assert {p: game.held(p) for p in game.players} == out["hands"]
    assert (game.piles.deck, game.piles.discard, game.winner, game.round) == (
        out["deck_left"],
        out["discard"],
        out["winner"],
        out["round"],
    )


TABLE_BASE = {"players": ["ana", "ben"], "deck": "table", "moves": []}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"moves": [{"player": "ana", "gap": 0}]},
            "move 1 needs the year the card showed, or whether it was right",
        ),
        ({"moves": [{"player": "ana", "year": 5}]}, "move 1 is missing gap"),
        (
            {"moves": [{"player": "ana", "gap": 0, "year": "1492"}]},
            'move 1: RevealCard.year must be int, not "1492"',
        ),
        (
            {"moves": [{"player": "ana", "gap": 0, "right": "yes"}]},
            'move 1: RevealCard.right must be bool, not "yes"',
        ),
        (
            {"moves": [{"player": "ana", "gap": 0, "card": "granada"}]},
            "move 1 has an unknown field 'card'; known fields: player, gap, year, right",
        ),
        ({"moves": [{"position": 0}]}, "move 1 is missing year"),
        ({"reference": 0}, "the reference card's year cannot be 0: the year before 1 is 1 BCE (-1)"),
        ({"reference": "1978"}, "the reference card's year must be a whole number, not '1978'"),
        (
            {"cards": 4},
            "the box's 4 cards are too few for 2 players with 4 cards each (the deal and the reference card need 9)",
        ),
        (
            {"seed": 3},
            "the record has an unknown field 'seed'; known fields: players, deck, cards, hand_size, reference, moves",
        ),
    ],
)
def test_malformed_table_records_raise_one_sentence(change: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidRecordError) as info:
        referee_record({**copy.deepcopy(TABLE_BASE), **change})
    assert str(info.value) == message
