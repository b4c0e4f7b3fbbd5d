"""A torn last line after kill -9, then two resumes: both start, and the log reads back as the live state.

The hub is killed in the middle of play and its log's last line is cut short, as a
crash in the middle of a write leaves it: somewhere inside the line (``mid-line``), or
just before its newline (``newline``: the JSON is complete but the line is not). The
hub resumes (``--resume latest``); once the reports queued for it are answered, the
log file read back must fold to exactly what the resumed hub shows. Play goes on, the
hub is killed again and resumes again. At the end the log reads back without repairs,
folds to the last hub's state, and every accepted report is in it once (the report
whose line was cut on purpose may be missing, never doubled).
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from companion.clock import ScaledClock
from tests.faults.checks import assert_log_is_live_state, audit, fold_log
from tests.faults.hub import HubProcess, sandtimer_table, wait_for
from tests.faults.sizes import SEED, report, sized_int

SCALE = 5.0
SAND_S = 3.0
TEARS = sized_int("FAULT_TEARS", ci=1, full=6)
"""Torn lines per kind of tear; each is followed by a resume, and the run ends with one more."""

pytestmark = [pytest.mark.broker, pytest.mark.timeout(90 + 30 * TEARS)]


def _tear(path: Path, kind: str, rng: random.Random) -> tuple[dict, int]:
    """Cut the log's last line short; returns the record that line held and the bytes cut off."""
    raw = path.read_bytes()
    assert raw.endswith(b"\n"), "the log ended without a newline before the tear"
    start = raw.rfind(b"\n", 0, len(raw) - 1) + 1
    line = raw[start:-1]
    assert start > 0, "only the header is in the log"
    keep = start + (rng.randint(1, len(line) - 1) if kind == "mid-line" else len(line))
    with open(path, "r+b") as fh:
        fh.truncate(keep)
    return json.loads(line), len(raw) - keep


def _settle_and_compare(hub: HubProcess, fleet, path: Path, when: str) -> None:
    """Let the resumed hub answer what was queued for it, then compare its state with its log file."""
    fleet.playing.clear()
    wait_for(fleet.is_quiet, timeout_s=30, what="the queued reports to be answered")
    assert_log_is_live_state(path, hub.state(), when=when)


@pytest.mark.parametrize("kind", ["mid-line", "newline"])
def test_torn_last_line_then_two_resumes(kind, fault_broker, procs, tmp_path):
    rng = random.Random(f"{SEED}-{kind}")
    began = time.monotonic()
    table = f"torn-{kind.replace('-', '')}"
    launcher = procs.launcher(
        broker=fault_broker.address,
        table=table,
        work_dir=tmp_path,
        time_scale=SCALE,
        game_args=sandtimer_table(2, 2, SAND_S),
    )
    hub = launcher.start()
    node_ids = hub.node_ids()
    fleet = procs.fleet(
        table,
        node_ids,
        fault_broker.address,
        ScaledClock(SCALE),
        sand_ms=int(SAND_S * 1000),
        rng=random.Random(rng.random()),
        heartbeat_s=0.5,
    ).start()
    fleet.wait_connected()
    wait_for(lambda: all(n["online"] for n in hub.state()["nodes"]), timeout_s=15, what="every node online")
    hub.post("/api/clock/start")
    fleet.playing.set()

    torn: list[tuple[str, str, int]] = []
    torn_types: list[str] = []
    resumes = 0
    for _ in range(TEARS):
        time.sleep(rng.uniform(0.5, 1.5))
        hub.kill()
        path = launcher.log_path
        record, cut = _tear(path, kind, rng)
        torn_types.append(record.get("type", "?"))
        if record.get("boot"):
            torn.append((record["node"], record["boot"], record["seq"]))
        hub = launcher.start(resume=True)
        resumes += 1
        assert path.read_bytes().endswith(b"\n"), "the resumed hub appended to a torn line"
        _settle_and_compare(hub, fleet, path, f"after resuming a log whose last line was torn ({kind})")
        hub.resume_clock()
        fleet.playing.set()

    time.sleep(rng.uniform(0.5, 1.5))
    hub.kill()
    hub = launcher.start(resume=True)
    resumes += 1
    path = launcher.log_path
    _settle_and_compare(hub, fleet, path, "after the second resume")
    hub.resume_clock()
    fleet.playing.set()
    time.sleep(1.0)
    fleet.playing.clear()
    wait_for(fleet.is_quiet, timeout_s=30, what="every node's outbox to be answered")
    fleet.check()
    hub.post("/api/clock/pause")
    live = hub.state()
    assert_log_is_live_state(path, live)
    _, events, notes = fold_log(path)
    result = audit(fleet.nodes.values(), events)
    hub.stop()
    report(
        f"torn_log_{kind.replace('-', '_')}",
        {
            "tears": TEARS,
            "resumes": resumes,
            "torn_lines": torn_types,
            **result.figures(),
            "torn_reports_missing": sum(1 for key in torn if key in result.lost),
            "lost_other_than_torn": sum(1 for key in result.lost if key not in torn),
            "wall_s": time.monotonic() - began,
        },
    )
    assert not notes, f"the log still needed repairs after the resumes: {notes}"
    result.assert_nothing_lost_or_forged(exempt=torn)
    assert not result.unanswered, f"reports never answered: {result.unanswered[:10]}"
