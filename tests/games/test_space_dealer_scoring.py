"""Space Dealer final scoring: the score_record function and `companion score space-dealer`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InvalidRecordError
from companion.games.space_dealer.scoring import SatisfiedOrder, score_orders, score_record

DATA = Path(__file__).parent / "data" / "space_dealer"
ROOT = Path(__file__).resolve().parents[2]

EXAMPLE = {
    "players": ["red", "green", "blue"],
    "orders": [
        {"order": "green-metropolis-1", "by": "red", "owner": "green", "points": [3, 1]},
        {"order": "gizzi-7", "by": "blue", "points": [2]},
    ],
}
EXAMPLE_OUTPUT = {
    "players": {
        "red": {"total": 3, "markers": 1},
        "green": {"total": 1, "markers": 0},
        "blue": {"total": 2, "markers": 0},
    },
    "ranking": ["red", "blue", "green"],
    "winners": ["red"],
}


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "score", "space-dealer", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def order(name: str, by: str, points: list[int], owner: str | None = None) -> dict:
    o: dict = {"order": name, "by": by, "points": points}
    if owner is not None:
        o["owner"] = owner
    return o


def test_issue_example() -> None:
    assert score_record(EXAMPLE) == EXAMPLE_OUTPUT


def test_example_file_matches_issue() -> None:
    assert json.loads((DATA / "example.json").read_text()) == EXAMPLE


def test_owner_gains_second_number_and_deliverer_uses_marker() -> None:
    record = {
        "players": ["a", "b", "c"],
        "orders": [order("b-mine-1", "a", [4, 2], owner="b"), order("a-depot", "b", [1, 5], owner="a")],
    }
    out = score_record(record)
    assert out["players"]["a"] == {"total": 4 + 5, "markers": 1}
    assert out["players"]["b"] == {"total": 2 + 1, "markers": 1}
    assert out["players"]["c"] == {"total": 0, "markers": 0}


def test_neutral_order_uses_no_marker() -> None:
    out = score_record({"players": ["a", "b", "c"], "orders": [order("gizzi-1", "c", [6])]})
    assert out["players"]["c"] == {"total": 6, "markers": 0}


def test_tie_broken_by_markers_used() -> None:
    # a: 4 points with two markers; b: 4 points from one neutral order, no marker.
    record = {
        "players": ["b", "a", "c"],
        "orders": [
            order("c-1", "a", [2, 0], owner="c"),
            order("c-2", "a", [2, 0], owner="c"),
            order("gizzi-1", "b", [4]),
        ],
    }
    out = score_record(record)
    assert out["ranking"][:2] == ["a", "b"]
    assert out["winners"] == ["a"]


def test_full_tie_is_shared_win() -> None:
    record = {
        "players": ["a", "b", "c"],
        "orders": [order("c-1", "a", [3, 0], owner="c"), order("c-2", "b", [3, 0], owner="c")],
    }
    out = score_record(record)
    assert out["winners"] == ["a", "b"]
    assert out["ranking"] == ["a", "b", "c"]


def test_no_orders_everyone_shares() -> None:
    out = score_record({"players": ["a", "b", "c"], "orders": []})
    assert out["winners"] == ["a", "b", "c"]


def test_ten_markers_allowed() -> None:
    orders = [order(f"b-{i}", "a", [1, 1], owner="b") for i in range(10)]
    out = score_record({"players": ["a", "b", "c"], "orders": orders})
    assert out["players"]["a"] == {"total": 10, "markers": 10}
    assert out["players"]["b"] == {"total": 10, "markers": 0}
    assert out["winners"] == ["a"]


def _eleven_markers() -> dict:
    return {
        "players": ["a", "b", "c"],
        "orders": [order(f"b-{i}", "a", [1, 1], owner="b") for i in range(11)],
    }


BROKEN = [
    pytest.param(
        {
            "players": ["a", "b", "c"],
            "orders": [order("x", "a", [1, 1], owner="b"), order("x", "c", [1, 1], owner="b")],
        },
        "satisfied twice",
        id="order-twice",
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [order("x", "a", [1, 1], owner="a")]},
        "own planet",
        id="own-planet",
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [order("x", "zed", [1])]},
        "unknown player 'zed'",
        id="unknown-deliverer",
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [order("x", "a", [1, 1], owner="zed")]},
        "unknown player 'zed'",
        id="unknown-owner",
    ),
    pytest.param(_eleven_markers(), "more than 10 orders", id="eleven-markers"),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [order("x", "a", [1], owner="b")]},
        "must have 2 point",
        id="owner-arity",
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [order("x", "a", [1, 2])]},
        "must have 1 point",
        id="neutral-arity",
    ),
    pytest.param({"players": ["a", "b", "c"], "orders": [order("x", "a", [-1])]}, "negative", id="negative"),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [order("x", "a", ["3"])]}, "whole numbers", id="points-str"
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [order("x", "a", [True])]}, "whole numbers", id="points-bool"
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [{"order": "x", "by": "a"}]},
        "missing the field 'points'",
        id="no-points",
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [{"by": "a", "points": [1]}]},
        "missing the field 'order'",
        id="no-id",
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [{"order": "x", "points": [1]}]},
        "missing the field 'by'",
        id="no-by",
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [{"order": "x", "by": "a", "onwer": "b", "points": [1, 1]}]},
        "unknown field 'onwer'",
        id="typo-field",
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [order("x", "a", [1, 1], owner=3)]}, "owner", id="owner-type"
    ),
    pytest.param({"players": ["a", "b", "c"], "orders": [order("x", 5, [1])]}, '"by" must be', id="by-type"),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [order("", "a", [1])]}, "non-empty string", id="empty-id"
    ),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": ["x"]}, "must be a JSON object", id="order-not-object"
    ),
    pytest.param({"players": ["a", "b", "c"], "orders": {}}, '"orders" must be a list', id="orders-type"),
    pytest.param({"players": ["a", "b", "c"]}, "missing the field 'orders'", id="no-orders"),
    pytest.param({"orders": []}, "missing the field 'players'", id="no-players"),
    pytest.param({"players": "abc", "orders": []}, "list of non-empty player names", id="players-type"),
    pytest.param({"players": ["a", "a", "b"], "orders": []}, "listed twice", id="duplicate-player"),
    pytest.param({"players": ["a", "b"], "orders": []}, "3 to 8 players", id="two-players"),
    pytest.param({"players": [str(i) for i in range(9)], "orders": []}, "3 to 8 players", id="nine-players"),
    pytest.param(
        {"players": ["a", "b", "c"], "orders": [], "bonus": 1}, "unknown field 'bonus'", id="extra-top"
    ),
    pytest.param([1, 2], "JSON object", id="not-object"),
]


@pytest.mark.parametrize(("record", "message"), BROKEN)
def test_broken_records_are_rejected(record: object, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message.replace("(", r"\(")) as info:
        score_record(record)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from("abcd"),
            st.sampled_from(["a", "b", "c", "d", None]),
            st.integers(0, 9),
            st.integers(0, 9),
        ),
        max_size=30,
    )
)
def test_points_are_conserved_and_ranking_consistent(raw: list[tuple[str, str | None, int, int]]) -> None:
    players = ["a", "b", "c", "d"]
    orders = []
    used = dict.fromkeys(players, 0)
    for i, (by, owner, p0, p1) in enumerate(raw):
        if owner == by or (owner is not None and used[by] >= 10):
            continue
        if owner is not None:
            used[by] += 1
        orders.append(SatisfiedOrder(f"o{i}", by, owner, (p0, p1) if owner else (p0,)))
    result = score_orders(players, orders)
    printed = sum(sum(o.points) for o in orders)
    assert sum(s.total for s in result.players.values()) == printed
    assert sum(s.markers for s in result.players.values()) == sum(1 for o in orders if o.owner)
    keys = [(result.players[n].total, result.players[n].markers) for n in result.ranking]
    assert keys == sorted(keys, reverse=True)
    assert set(result.winners) == {
        n for n in players if (result.players[n].total, result.players[n].markers) == keys[0]
    }


# --- the command line ------------------------------------------------------------------


def test_cli_scores_a_file() -> None:
    proc = run_cli(str(DATA / "example.json"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == EXAMPLE_OUTPUT


def test_cli_reads_stdin() -> None:
    proc = run_cli("-", stdin=json.dumps(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == EXAMPLE_OUTPUT


@pytest.mark.parametrize(
    ("record", "message"),
    [
        pytest.param(
            {
                "players": ["a", "b", "c"],
                "orders": [order("x", "a", [1, 1], owner="b"), order("x", "c", [1, 1], owner="a")],
            },
            "satisfied twice",
            id="twice",
        ),
        pytest.param(
            {"players": ["a", "b", "c"], "orders": [order("x", "b", [1, 1], owner="b")]},
            "own planet",
            id="own",
        ),
        pytest.param(
            {"players": ["a", "b", "c"], "orders": [order("x", "q", [1])]}, "unknown player", id="unknown"
        ),
        pytest.param(_eleven_markers(), "victory-point markers", id="markers"),
        pytest.param(
            {"players": ["a", "b", "c"], "orders": [order("x", "a", [1, 2, 3], owner="b")]},
            "point value",
            id="arity",
        ),
        pytest.param({"players": ["a", "b", "c"]}, "missing the field", id="missing"),
    ],
)
def test_cli_broken_input_exits_2_with_one_line(tmp_path: Path, record: dict, message: str) -> None:
    path = tmp_path / "sheet.json"
    path.write_text(json.dumps(record))
    proc = run_cli(str(path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_cli_broken_json_exits_2() -> None:
    proc = run_cli("-", stdin='{"players": ["a", "b", "c"], "orders": [')
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "not valid JSON" in lines[0]


def test_cli_missing_file_exits_2(tmp_path: Path) -> None:
    proc = run_cli(str(tmp_path / "nope.json"))
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1


def test_documented_example_output_is_exact() -> None:
    doc = (ROOT / "docs" / "games" / "space-dealer.md").read_text(encoding="utf-8")
    after = doc.split("prints exactly:", 1)[1]
    block = after.split("```json", 1)[1].split("```", 1)[0].strip()
    proc = run_cli(str(DATA / "example.json"))
    assert proc.stdout.strip() == block
