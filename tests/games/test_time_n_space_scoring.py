"""Final scoring of Time 'n' Space: worked examples, void colours, bonus counters, tie-break, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.errors import InvalidRecordError
from companion.games import find_game
from companion.games.time_n_space.scoring import score_record

DATA = Path(__file__).parent / "data" / "time_n_space"
REPO = Path(__file__).resolve().parents[2]


def counter(color: str, value: int, source: str) -> dict:
    return {"color": color, "value": value, "from": source}


def sheet(**players: dict) -> dict:
    """A 3-player sheet (red, green, blue) with the given players' entries filled in."""
    base = {name: {"collected": [], "bonus": [], "above": []} for name in ("red", "green", "blue")}
    for name, entry in players.items():
        base.setdefault(name, {"collected": [], "bonus": [], "above": []}).update(entry)
    return {"players": base}


def test_registry_loads_the_scorer() -> None:
    assert find_game("time-n-space").score_record is score_record
    assert find_game("tns").score_record is score_record


def test_object_of_the_game_example_2_plus_1_plus_2_from_two_players_is_10() -> None:
    """Rulebook, Object of the Game: 2 + 1 + 2 = 5 from 2 different players scores 5 x 2 = 10."""
    record = sheet(
        red={
            "collected": [
                counter("gray", 2, "green"),
                counter("gray", 1, "blue"),
                counter("gray", 2, "green"),
            ]
        }
    )
    result = score_record(record)
    row = result["players"]["red"]["rows"]["gray"]
    assert row == {"value": 5, "players": 2, "bonus": 0, "points": 10, "void": False}
    assert result["players"]["red"]["total"] == 10
    assert result["players"]["red"]["counters"] == 3
    assert result["winners"] == ["red"]


def test_rows_are_scored_separately_per_colour() -> None:
    record = sheet(
        red={
            "collected": [
                counter("gray", 2, "green"),
                counter("yellow", 3, "green"),
                counter("yellow", 1, "blue"),
                counter("blue", 1, "blue"),
                counter("brown", 2, "blue"),
                counter("brown", 2, "blue"),
            ]
        }
    )
    rows = score_record(record)["players"]["red"]["rows"]
    assert [rows[c]["points"] for c in ("gray", "yellow", "blue", "brown")] == [2, 8, 1, 4]
    assert score_record(record)["players"]["red"]["total"] == 15


def test_void_colour_scores_nothing_and_its_counters_do_not_count() -> None:
    """Final Scoring step 1: a colour left above the control center removes its collected counters."""
    record = sheet(
        red={
            "collected": [
                counter("brown", 3, "green"),
                counter("brown", 2, "blue"),
                counter("gray", 1, "green"),
            ],
            "above": [{"color": "brown", "value": 1}],
        }
    )
    result = score_record(record)["players"]["red"]
    assert result["rows"]["brown"] == {"value": 0, "players": 0, "bonus": 0, "points": 0, "void": True}
    assert result["total"] == 1
    assert result["counters"] == 1


def test_counters_placed_on_the_control_center_do_no_harm() -> None:
    """Only counters *above* the control center void a colour; the sheet lists only those."""
    record = sheet(red={"collected": [counter("blue", 2, "green")], "above": [{"color": "gray", "value": 3}]})
    rows = score_record(record)["players"]["red"]["rows"]
    assert rows["blue"]["points"] == 2 and not rows["blue"]["void"]
    assert rows["gray"]["void"]


def test_bonus_goes_to_the_row_with_most_players_and_not_to_the_player_count() -> None:
    """Bonus counters raise a row's value, never its player count; the engine picks the best row."""
    record = sheet(
        red={
            "collected": [
                counter("gray", 3, "green"),
                counter("gray", 3, "green"),
                counter("blue", 1, "green"),
                counter("blue", 1, "blue"),
            ],
            "bonus": [2],
        }
    )
    result = score_record(record)["players"]["red"]
    # gray: (6 + 2) x 1 = 8 would add 2; blue: (2 + 2) x 2 = 8 adds 4 -> blue is best.
    assert result["rows"]["blue"] == {"value": 2, "players": 2, "bonus": 2, "points": 8, "void": False}
    assert result["rows"]["gray"]["bonus"] == 0
    assert result["total"] == 6 + 8
    assert result["counters"] == 5


def test_bonus_skips_void_rows() -> None:
    record = sheet(
        red={
            "collected": [
                counter("gray", 1, "green"),
                counter("gray", 1, "blue"),
                counter("yellow", 1, "green"),
            ],
            "bonus": [3],
            "above": [{"color": "gray", "value": 2}],
        }
    )
    result = score_record(record)["players"]["red"]
    assert result["rows"]["yellow"]["bonus"] == 3
    assert result["rows"]["yellow"]["points"] == 4
    assert result["rows"]["gray"]["bonus"] == 0


def test_bonus_counts_for_nothing_when_every_colour_is_void() -> None:
    """Our documented reading: with no row to join, a bonus counter scores nothing and is not counted."""
    above = [{"color": c, "value": 1} for c in ("gray", "yellow", "blue", "brown")]
    record = sheet(red={"collected": [counter("gray", 2, "green")], "bonus": [2], "above": above})
    result = score_record(record)["players"]["red"]
    assert result["total"] == 0
    assert result["counters"] == 0
    assert all(row["bonus"] == 0 for row in result["rows"].values())


def test_bonus_on_a_player_without_collected_counters_scores_zero_but_counts_for_the_tie_break() -> None:
    record = sheet(red={"bonus": [2]})
    result = score_record(record)["players"]["red"]
    assert result["total"] == 0
    assert result["counters"] == 1
    assert result["rows"]["gray"]["bonus"] == 2


def test_two_bonus_counters_both_join_the_best_row() -> None:
    record = sheet(
        red={"collected": [counter("brown", 1, "green"), counter("brown", 1, "blue")], "bonus": [2, 1]},
    )
    result = score_record(record)["players"]["red"]
    assert result["rows"]["brown"] == {"value": 2, "players": 2, "bonus": 3, "points": 10, "void": False}
    assert result["counters"] == 4


@pytest.mark.parametrize(
    ("red", "green", "ranking", "winners"),
    [
        # clear winner on points
        ([counter("gray", 3, "green")], [counter("gray", 1, "red")], ["red", "green", "blue"], ["red"]),
        # equal points: more scored counters wins (1+1+1 vs 3)
        (
            [counter("gray", 1, "green"), counter("gray", 1, "green"), counter("gray", 1, "green")],
            [counter("yellow", 3, "red")],
            ["red", "green", "blue"],
            ["red"],
        ),
        (
            [counter("yellow", 3, "green")],
            [counter("gray", 1, "red"), counter("gray", 1, "red"), counter("gray", 1, "red")],
            ["green", "red", "blue"],
            ["green"],
        ),
        # equal points and equal counters: shared victory
        (
            [counter("gray", 2, "green")],
            [counter("blue", 2, "red")],
            ["red", "green", "blue"],
            ["red", "green"],
        ),
        # nobody scored: all three share
        ([], [], ["red", "green", "blue"], ["red", "green", "blue"]),
    ],
    ids=["points", "counters-red", "counters-green", "shared", "all-zero"],
)
def test_tie_break(red: list, green: list, ranking: list, winners: list) -> None:
    result = score_record(sheet(red={"collected": red}, green={"collected": green}))
    assert result["ranking"] == ranking
    assert result["winners"] == winners


def test_void_counters_do_not_count_in_the_tie_break_but_bonus_counters_do() -> None:
    record = sheet(
        red={
            "collected": [
                counter("gray", 2, "green"),
                counter("brown", 1, "green"),
                counter("brown", 1, "blue"),
            ],
            "above": [{"color": "brown", "value": 2}],
        },
        green={"collected": [counter("gray", 1, "red")], "bonus": [1]},
    )
    result = score_record(record)
    assert result["players"]["red"]["total"] == 2 and result["players"]["red"]["counters"] == 1
    assert result["players"]["green"]["total"] == 2 and result["players"]["green"]["counters"] == 2
    assert result["winners"] == ["green"]


def test_four_players_and_output_shape() -> None:
    record = sheet(
        purple={
            "collected": [counter("blue", 2, "red"), counter("blue", 2, "green"), counter("blue", 1, "blue")]
        }
    )
    result = score_record(record)
    assert set(result) == {"players", "ranking", "winners"}
    assert list(result["players"]) == ["red", "green", "blue", "purple"]
    assert result["players"]["purple"]["total"] == 15
    for entry in result["players"].values():
        assert set(entry) == {"total", "counters", "rows"}
        assert list(entry["rows"]) == ["gray", "yellow", "blue", "brown"]
        for row in entry["rows"].values():
            assert set(row) == {"value", "players", "bonus", "points", "void"}


BAD_RECORDS = [
    ([], "JSON object"),
    ({}, "missing the field 'players'"),
    ({"players": {}, "extra": 1}, "unknown field 'extra'"),
    ({"players": []}, "'players' must be an object"),
    ({"players": {"red": {"collected": [], "bonus": [], "above": []}}}, "3 or 4 players"),
    (sheet(red={"collected": [counter("pink", 1, "green")]}), "unknown color 'pink'"),
    (sheet(red={"collected": [counter("gray", 1, "red")]}), "itself"),
    (sheet(red={"collected": [counter("gray", 1, "orange")]}), "'orange', who is not a player"),
    (sheet(red={"collected": [{"color": "gray", "value": 1}]}), "missing the field 'from'"),
    (sheet(red={"collected": [{"color": "gray", "from": "green"}]}), "missing the field 'value'"),
    (sheet(red={"collected": [{"value": 1, "from": "green"}]}), "missing the field 'color'"),
    (sheet(red={"collected": [counter("gray", "2", "green")]}), "whole number"),
    (sheet(red={"collected": [counter("gray", True, "green")]}), "whole number"),
    (sheet(red={"collected": [counter("gray", 4, "green")]}), "not printed"),
    (sheet(red={"collected": [counter(3, 1, "green")]}), "color must be a string"),
    (sheet(red={"collected": [counter("gray", 1, 7)]}), "'from' must be the name"),
    (sheet(red={"collected": ["gray"]}), "must be an object"),
    (sheet(red={"collected": {}}), "'collected' must be a list"),
    (sheet(red={"bonus": ["2"]}), "bonus counter 1"),
    (sheet(red={"bonus": [0]}), "positive whole number"),
    (sheet(red={"above": [{"color": "red", "value": 1}]}), "unknown color 'red'"),
    (sheet(red={"above": [{"color": "gray"}]}), "missing the field 'value'"),
    (
        {"players": {"red": {"collected": [], "bonus": []}, "green": {}, "blue": {}}},
        "missing the field 'above'",
    ),
    ({"players": {"red": 3, "green": {}, "blue": {}}}, "must be an object"),
    (sheet(red={"bonus": [1, 1]}, green={"bonus": [1, 1]}), "one per planet"),
]


@pytest.mark.parametrize(("record", "message"), BAD_RECORDS)
def test_invalid_records_are_rejected_with_one_sentence(record: object, message: str) -> None:
    with pytest.raises(InvalidRecordError) as info:
        score_record(record)
    text = str(info.value)
    assert message in text
    assert "\n" not in text


# --- command line -------------------------------------------------------------------


def run_cli(arg: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "score", "time-n-space", arg],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


def test_cli_scores_the_example_file_exactly() -> None:
    proc = run_cli(str(DATA / "example.json"))
    assert proc.returncode == 0, proc.stderr
    expected = json.loads((DATA / "example.expected.json").read_text(encoding="utf-8"))
    assert json.loads(proc.stdout) == expected
    assert proc.stderr == ""


def test_cli_reads_stdin() -> None:
    record = sheet(
        red={
            "collected": [
                counter("gray", 2, "green"),
                counter("gray", 1, "blue"),
                counter("gray", 2, "green"),
            ]
        }
    )
    proc = run_cli("-", json.dumps(record))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == score_record(record)


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ('{"players": ', "not valid JSON"),
        (json.dumps(sheet(red={"collected": [counter("violet", 1, "green")]})), "unknown color 'violet'"),
        (json.dumps(sheet(red={"collected": [counter("gray", 1, "red")]})), "itself"),
        (json.dumps({"players": {"red": {}, "green": {}, "blue": {}}}), "missing the field"),
    ],
    ids=["broken-json", "unknown-colour", "from-oneself", "missing-fields"],
)
def test_cli_bad_input_exits_2_with_one_line(stdin: str, message: str) -> None:
    proc = run_cli("-", stdin)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert message in lines[0]


def test_cli_missing_file_exits_2(tmp_path: Path) -> None:
    proc = run_cli(str(tmp_path / "nope.json"))
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1


def test_the_guide_shows_the_exact_cli_output_of_its_example() -> None:
    guide = (REPO / "docs" / "games" / "time-n-space.md").read_text(encoding="utf-8")
    example = DATA / "docs_example.json"
    assert example.read_text(encoding="utf-8") in guide
    proc = run_cli(str(example))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout in guide
