"""Tie-break explanations and the CSV export of final scores."""

import csv
import io

import pytest

from companion.table.results import explain, scores_csv, tie_break_key

TNS = {
    "players": {
        "red": {"total": 10, "counters": 3, "rows": {"gray": {"value": 5, "players": 2, "points": 10}}},
        "green": {"total": 10, "counters": 2, "rows": {"gray": {"value": 10, "players": 1, "points": 10}}},
        "blue": {"total": 4, "counters": 1, "rows": {}},
    },
    "ranking": ["red", "green", "blue"],
    "winners": ["red"],
}


@pytest.mark.parametrize(
    "scores, sentence",
    [
        (TNS, "red wins: tied on 10 points with green, and ahead on scored counters (3 against green 2)."),
        (
            {
                "players": {"a": {"total": 7, "markers": 2}, "b": {"total": 7, "markers": 2}},
                "ranking": ["a", "b"],
                "winners": ["a", "b"],
            },
            "Shared victory: a and b, tied on 7 points and on victory-point markers used.",
        ),
        (
            {"players": {"a": {"total": 9}, "b": {"total": 3}}, "ranking": ["a", "b"], "winners": ["a"]},
            "a wins with 9 points.",
        ),
        ({"players": {}, "winners": []}, "No winner."),
    ],
)
def test_explanations(scores, sentence):
    assert str(explain(scores)) == sentence


def test_tie_break_key_is_the_number_beside_the_total():
    assert tie_break_key(TNS) == "counters"
    assert tie_break_key({"players": {"a": {"total": 1}}}) is None


def test_csv_has_a_line_per_player_in_rank_order_and_flattens_rows():
    rows = list(csv.DictReader(io.StringIO(scores_csv(TNS))))
    assert [r["player"] for r in rows] == ["red", "green", "blue"]
    assert rows[0]["winner"] == "yes" and rows[1]["winner"] == ""
    assert rows[0]["gray_points"] == "10" and rows[1]["gray_value"] == "10" and rows[2]["gray_points"] == ""
    assert rows[0]["counters"] == "3" and rows[0]["rank"] == "1"
