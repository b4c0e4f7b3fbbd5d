"""`companion referee time-splicers`: recorded games, the documented example, malformed records."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.errors import InvalidRecordError
from companion.games import find_game
from companion.games.time_splicers.components import load_components
from companion.games.time_splicers.record import referee_record
from companion.games.time_splicers.setup import new_game

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
    events = [e["@"] for e in out["results"][2]["events"]]
    assert events[:4] == ["CardPlaced", "MeepleMoved", "TimelineCollapsed", "TimelineFlipped"]
    # Ann's Time Freeze kept blue alive when Bob tunnelled away from it
    assert [e["@"] for e in out["results"][10]["events"]] == ["SpecialCardPlayed", "MeepleMoved"]
    assert out["crystals"] == {"Ann": 0, "Bob": 2}
    assert out["timelines"] == {"blue": ["blue-5"], "green": ["green-2", "green-3"]}
    assert out["positions"] == {"Ann": "green-3", "Bob": "blue-5"}
    assert out["winner"] is None and out["next_player"] == "Ann"
    assert "several 3-card sequences (5-6-7 and 6-7-8)" in out["results"][7]["reason"]
    saved = json.loads((DATA / "example_game.out.json").read_text(encoding="utf-8"))
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
            {"player": "Ann", "action": {"@": "PlaceCard", "card": "red-5"}},
            {"player": "Bob", "action": {"@": "Move", "to": "red-9"}},
        ],
    }
    done = run_cli("-", json.dumps(record))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["winner"] == "Ann" and out["crystals"] == {"Ann": 7, "Bob": 2}
    assert out["results"][0]["events"][-1] == {
        "@": "GameWon",
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
                {"player": "Ann", "action": {"@": "Move", "to": "red-8"}},
                {"player": "Ann", "action": {"@": "EnterPortal"}},
            ],
        }
    )
    assert out["eliminated"] == ["Ann"] and out["positions"]["Ann"] is None
    assert out["results"][1]["ok"] is False and "eliminated" in out["results"][1]["reason"]
    assert out["winner"] is None and out["next_player"] == "Bob"


def test_seeded_records_replay_identically():
    record = {
        "players": ["Ann", "Bob"],
        "seed": 42,
        "actions": [{"player": "Ann", "action": {"@": "EnterPortal"}}],
    }
    assert referee_record(record) == referee_record(json.loads(json.dumps(record)))
    out = referee_record(record)
    assert out["results"][0]["ok"] is True
    dealt = new_game(["Ann", "Bob"], seed=42, config=load_components())
    assert out["setup"] == {
        "start": dealt.players[0].position,
        "hands": {p.name: list(p.hand) for p in dealt.players},
    }


def test_a_deck_file_override_is_used(tmp_path):
    shipped = (
        Path(__file__).resolve().parents[2] / "companion/games/time_splicers/data/deck.csv"
    ).read_text()
    lines = [
        "colours,red blue green yellow purple,counted in my box"
        if line.startswith("colours,")
        else "total_cards,78,counted in my box"
        if line.startswith("total_cards,")
        else line
        for line in shipped.splitlines()
    ]
    path = tmp_path / "deck.csv"
    path.write_text("\n".join(lines))
    out = referee_record(
        {
            "players": ["Ann", "Bob"],
            "deck_file": str(path),
            "layout": {"start": "purple-5", "hands": {"Ann": ["purple-6"], "Bob": []}},
            "actions": [{"player": "Ann", "action": {"@": "PlaceCard", "card": "purple-6"}}],
        }
    )
    assert out["timelines"] == {"purple": ["purple-5", "purple-6"]}


def test_a_json_deck_file_of_earlier_versions_still_reads(tmp_path):
    path = tmp_path / "deck.json"
    entries = {"colours": {"value": ["red", "blue", "green", "yellow", "purple"], "source": "my box"}}
    shipped = load_components()
    for name in ("total_cards", "lowest_number", "highest_number", "copies_of_each_number_card"):
        entries[name] = {"value": getattr(shipped, name)}
    entries["total_cards"] = {"value": 78}
    for field in dataclasses.fields(shipped):
        entries.setdefault(field.name, {"value": getattr(shipped, field.name)})
    entries["colours"]["value"] = ["red", "blue", "green", "yellow", "purple"]
    path.write_text(json.dumps(entries))
    out = referee_record(
        {
            "players": ["Ann", "Bob"],
            "deck_file": str(path),
            "layout": {"start": "purple-5", "hands": {"Ann": ["purple-6"], "Bob": []}},
            "actions": [{"player": "Ann", "action": {"@": "PlaceCard", "card": "purple-6"}}],
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
    ('{"players": ["Ann", "Bob"], "deck": "box", "actions": []}', "'deck' is"),
    ('{"players": ["Ann"], "actions": []}', "needs 2 to 6 players"),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": {"@": "Fly"}}]}',
        'action 0: {"@": "Fly"} is not one of: ',
    ),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": "portal"}]}',
        "action 0 needs 'action', a move",
    ),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": {"@": "Move"}}]}',
        "action 0: Move needs 'to'",
    ),
    ('{"players": ["Ann", "Bob"], "actions": [{"action": {"@": "EnterPortal"}}]}', "needs 'player'"),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": {"@": "EnterPortal", "to": "x"}}]}',
        "action 0: EnterPortal has no field 'to'",
    ),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": {"@": "EnterPortal"}, "to": "x"}]}',
        "action 0 has an unknown field 'to'",
    ),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": {"@": "UseTimeJump", "to": "red-1", '
        '"token": "wish"}}]}',
        "UseTimeJump.token must be bool",
    ),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": {"@": "PlaceCard", "card": "red-1", '
        '"sequence": "4"}}]}',
        "PlaceCard.sequence must be",
    ),
    (
        '{"players": ["Ann", "Bob"], "actions": [{"player": "Ann", "action": {"@": "CardToTurnUp", "why": "start"}}]}',
        "is not one of",
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
        '{"players": ["Ann", "Bob"], "deck_file": "/nonexistent/deck.csv", "actions": []}',
        "cannot read component file",
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
