"""Live pages get the changes between snapshots; applying them (in Python and in the browser's
script) gives exactly the new snapshot, and a new event costs a small splice, not the whole list."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.table.deltas import json_diff, json_patch

STATIC = Path(__file__).resolve().parents[2] / "companion" / "hub" / "static"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=2), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_applying_the_diff_gives_the_new_value(old, new):
    ops = json_diff(old, new)
    assert as_json(json_patch(old, ops)) == as_json(new)  # as JSON: in Python, True == 1
    assert json.loads(json.dumps(ops)) == ops, "operations are plain JSON"
    assert (ops == []) == (as_json(old) == as_json(new))


def as_json(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def test_a_true_that_becomes_1_is_a_change_though_python_finds_them_equal():
    assert json_diff(True, 1) == [["set", [], 1]]
    assert json_diff([True, 0], [1, 0]) == [["set", [0], 1]]
    assert json_diff({"a": [[0]]}, {"a": [[False]]}) == [["set", ["a", 0, 0], False]]
    old, new = [1, 0], ["newest", True, False]  # looks like one new item at the top, to Python
    assert as_json(json_patch(old, json_diff(old, new))) == as_json(new)
    assert json_diff([1, True], [1, True]) == []


def snapshot(events: list[dict], remaining: float) -> dict:
    return {
        "clock": {"phase": "running", "remaining_s": remaining},
        "players": [{"name": p, "timers": [{"node": f"{p}-1", "upper_s": 60.0, "flips": 3}]} for p in "abcd"],
        "recent": events,
    }


def test_a_new_event_at_the_top_is_a_small_splice():
    events = [{"text": {"msg": "{who} ran out", "args": {"who": f"n{i}"}}, "at_s": i} for i in range(30)]
    old = snapshot(events, 100.0)
    new_events = [{"text": {"msg": "{who} flipped", "args": {"who": "x"}}, "at_s": 31}, *events[:29]]
    new = snapshot(new_events, 99.0)
    new["players"][1]["timers"][0]["flips"] = 4
    ops = json_diff(old, new)
    assert json_patch(old, ops) == new
    assert len(json.dumps(ops)) < 300 < len(json.dumps(new)) // 4


def test_the_browser_applies_deltas_as_python_does():
    rng = random.Random(7)
    cases = []
    for _ in range(60):
        old = {"a": [rng.randint(0, 3) for _ in range(rng.randint(0, 6))], "b": {"c": rng.random() < 0.5}}
        new = {
            "a": [rng.randint(0, 3) for _ in range(rng.randint(0, 6))],
            "d": "x" if rng.random() < 0.5 else None,
        }
        if rng.random() < 0.5:
            new["b"] = {"c": 1}
        cases.append([old, json_diff(old, new), new])
    script = (STATIC / "deltas.js").read_text(encoding="utf-8")
    program = (
        f"{script}\nconsole.log(JSON.stringify({json.dumps(cases)}.map(([o, ops]) => applyDelta(o, ops))));"
    )
    out = subprocess.run(["node", "-e", program], capture_output=True, text=True, timeout=30, check=True)
    assert json.loads(out.stdout) == [new for _, _, new in cases]
