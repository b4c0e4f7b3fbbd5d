"""`companion referee time-splicers`: recorded games, the documented example, malformed records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.errors import InvalidRecordError
from companion.games import find_game
from companion.games.time_splicers import load_deck, new_game, referee_record

DATA = Path(__file__).parent / "data" / "time_splicers"
DOC = Path(__file__).resolve().parents[2] / "docs" / "games" / "time-splicers.md"


def run_cli(source: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "referee", "time-splicers", source],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def load(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_registry_finds_the_referee():
    assert find_game("time-splicers").referee_record is referee_record
    assert find_game("ts").referee_record is referee_record


def test_recorded_game_through_the_cli():
    done = run_cli(str(DATA / "example_game.json"))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    oks = [r["ok"] for r in out["results"]]
    assert oks == [True, False, True, True, True, True, True, False, True, True, True, True, True, True]
    # the refused moves say why and name the rulebook section
    assert out["results"][1]["rule"] == "Placing Cards in the Same Timeline"
    assert "lower than the next card red 6" in out["results"][1]["reason"]
    assert out["results"][7]["rule"] == "b. Partial Timeline Collapse"
    # Bob's red-4 made 4-5-6: the only Timeline collapsed, a new one was flipped, Bob found a crystal
    events = [e["event"] for e in out["results"][2]["events"]]
    assert events[:4] == ["CardPlaced", "MeepleMoved", "TimelineCollapsed", "TimelineFlipped"]
    # Ann's Time Freeze kept blue alive when Bob tunnelled away from it
    assert [e["event"] for e in out["results"][10]["events"]] == ["SpecialCardPlayed", "MeepleMoved"]
    assert out["crystals"] == {"Ann": 0, "Bob": 2}
    assert out["timelines"] == {"blue": ["blue-5"], "green": ["green-2", "green-3"]}
    assert out["positions"] == {"Ann": "green-3", "Bob": "blue-5"}
    assert out["winner"] is None and out["next_player"] == "Ann"
    # the saved output predates the refusals' new wording (card names, "red 6", instead of ids): the
    # two refusal sentences are checked above and here, everything else must match it exactly
    assert "several 3-card sequences (5-6-7 and 6-7-8)" in out["results"][7]["reason"]
    saved = json.loads((DATA / "example_game.out.json").read_text(encoding="utf-8"))
    for result in (saved, out):
        for i in (1, 7):
            result["results"][i].pop("reason")
    assert out == saved


def test_the_documented_example_is_the_data_file_and_its_real_output():
    doc = DOC.read_text(encoding="utf-8")
    record = (DATA / "example_game.json").read_text(encoding="utf-8").strip()
    assert record in doc
    done = run_cli(str(DATA / "example_game.json"))
    assert done.stdout.strip() in doc


def test_seventh_crystal_wins_through_stdin():
    record = {
        "players": ["Ann", "Bob"],
        "layout": {
            "timelines": [["red-4", "red-6", "red-9"]],
            "positions": {"Ann": "red-4", "Bob": "red-9"},
            "hands": {"Ann": ["red-5"], "Bob": ["blue-1"]},
            "crystals": {"Ann": 6, "Bob": 2},
        },
        "actions": [
            {"player": "Ann", "action": "place", "card": "red-5"},
            {"player": "Bob", "action": "move", "to": "red-9"},
        ],
    }
    done = run_cli("-", json.dumps(record))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["winner"] == "Ann" and out["crystals"] == {"Ann": 7, "Bob": 2}
    assert out["results"][0]["events"][-1] == {
        "event": "GameWon",
        "player": "Ann",
        "reason": "found Time Crystal number 7",
    }
    assert out["results"][1]["ok"] is False and out["results"][1]["rule"] == "Game End"
    assert out["next_player"] is None


def test_elimination_through_a_record():
    seven = ["green-1", "green-2", "green-3", "green-4", "green-6", "green-7", "green-9"]
    out = referee_record(
        {
            "players": ["Ann", "Bob", "Cy"],
            "layout": {
                "timelines": [["red-3", "red-5", "red-8"]],
                "positions": {"Ann": "red-5", "Bob": "red-3", "Cy": "red-3"},
                "hands": {"Ann": seven, "Bob": [], "Cy": []},
                "tokens": {"Ann": 0},
            },
            "actions": [
                {"player": "Ann", "action": "move", "to": "red-8"},
                {"player": "Ann", "action": "portal"},
            ],
        }
    )
    assert out["eliminated"] == ["Ann"] and out["positions"]["Ann"] is None
    assert out["results"][1]["ok"] is False and "eliminated" in out["results"][1]["reason"]
    assert out["winner"] is None and out["next_player"] == "Bob"


def test_seeded_records_replay_identically():
    record = {"players": ["Ann", "Bob"], "seed": 42, "actions": [{"player": "Ann", "action": "portal"}]}
    assert referee_record(record) == referee_record(json.loads(json.dumps(record)))
    out = referee_record(record)
    assert out["results"][0]["ok"] is True
    dealt = new_game(["Ann", "Bob"], seed=42, config=load_deck())
    assert out["setup"] == {
        "start": dealt.players[0].position,
        "hands": {p.name: list(p.hand) for p in dealt.players},
    }


def test_a_deck_file_override_is_used(tmp_path):
    deck = json.loads(
        (Path(__file__).resolve().parents[2] / "companion/games/time_splicers/deck.json").read_text()
    )
    deck["colours"]["value"] = ["red", "blue", "green", "yellow", "purple"]
    deck["total_cards"]["value"] = 65 + 13
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(deck))
    out = referee_record(
        {
            "players": ["Ann", "Bob"],
            "deck_file": str(path),
            "layout": {"start": "purple-5", "hands": {"Ann": ["purple-6"], "Bob": []}},
            "actions": [{"player": "Ann", "action": "place", "card": "purple-6"}],
        }
    )
    assert out["timelines"] == {"purple": ["purple-5", "purple-6"]}


BAD = [
    ("[1, 2]", "must be a JSON object"),
    ('{"players": ["Ann", "Bob"]', "not valid JSON"),
    ('{"actions": []}', "'players' must be a list"),
    ('{"players": ["Ann", "Bob"], "actions": {}}', "'actions' must be a list"),
    ('{"players": ["Ann", "Bob"], "actions": [], "colour": "red"}', "unknown field 'colour'"),
    ('{"players": ["Ann", "Bob"], "seed": true, "actions": []}', "'seed' must be"),
    ('{"players": ["Ann"], "actions": []}', "needs 2 to 6 players"),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": "fly"}]}',
        "action 0 has action 'fly'",
    ),
    ('{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": "move"}]}', "needs 'to'"),
    ('{"players": ["Ann", "Bob"], "actions": [{"action": "portal"}]}', "needs 'player'"),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": "portal", "to": "x"}]}',
        "unknown field 'to'",
    ),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": "time_jump", "to": "red-1", '
        '"use": "wish"}]}',
        "'use' must be",
    ),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": "place", "card": "red-1", '
        '"sequence": "4"}]}',
        "'sequence' must be",
    ),
    ('{"players": ["Ann", "Bob"], "layout": {"hands": {}}, "actions": []}', "needs 'start'"),
    (
        '{"players": ["Ann", "Bob"], "layout": {"start": "red-5", "hands": {"Ann": ["red-5"], "Bob": []}}, '
        '"actions": []}',
        "red-5 is both",
    ),
    (
        '{"players": ["Ann", "Bob"], "layout": {"start": "red-5", "hands": {"Ann": []}}, "actions": []}',
        "no hand for 'Bob'",
    ),
    (
        '{"players": ["Ann", "Bob"], "deck_file": "/nonexistent/deck.json", "actions": []}',
        "cannot read deck file",
    ),
]


@pytest.mark.parametrize("text, message", BAD)
def test_malformed_records_exit_2_with_one_line(text, message):
    done = run_cli("-", text)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr


@pytest.mark.parametrize("text, message", [b for b in BAD if b[0].startswith("{") and b[0].endswith("}")])
def test_malformed_records_raise_invalid_record_error(text, message):
    with pytest.raises(InvalidRecordError, match="."):
        referee_record(json.loads(text))


def test_missing_file_exits_2():
    done = run_cli(str(DATA / "no-such-record.json"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
