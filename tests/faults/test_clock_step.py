"""A game begun while the wall clock was hours behind (a Pi without a real-time clock, before NTP)
is still the one ``--resume latest`` goes on with: real ``companion run`` processes, one of them
under libfaketime (preloaded into the hub itself, so that the stop signal reaches the hub and not
the ``faketime`` wrapper)."""

from __future__ import annotations

import glob
import time

import pytest

from companion.table.log import latest_log, table_logs
from tests.faults.hub import wait_for
from tests.faults.sizes import report

pytestmark = [pytest.mark.broker, pytest.mark.timeout(120)]

BEHIND = "-3h"


def behind_env() -> dict[str, str]:
    """The environment that sets the hub's wall clock back: what a Pi without a real-time clock gets
    wrong is the date, not the time since boot (so the monotonic clock is left alone)."""
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketimeMT.so.1"))
    if not found:
        pytest.fail("libfaketime is not installed: apt-get install -y faketime")
    return {"LD_PRELOAD": found[0], "FAKETIME": BEHIND, "FAKETIME_DONT_FAKE_MONOTONIC": "1"}


def play_a_little(hub) -> int:
    hub.post("/api/clock/start")
    wait_for(lambda: hub.state()["clock"]["elapsed_s"] > 0, timeout_s=10, what="the clock to run")
    hub.post("/api/clock/pause")
    return len(hub.get("/api/events")["events"])


def test_resume_latest_goes_on_with_the_game_begun_after_the_clock_stepped_back(
    fault_broker, procs, tmp_path
):
    began = time.monotonic()
    launcher = procs.launcher(
        broker=fault_broker.address, table="clockstep", work_dir=tmp_path, time_scale=1.0
    )
    first = launcher.start()
    play_a_little(first)
    first.stop()
    behind = launcher.start(env=behind_env())
    events = play_a_little(behind)
    behind.stop()
    older, newer = table_logs(launcher.data_dir, "clockstep")
    assert newer.name[-21:-6] < older.name[-21:-6], (
        f"the second game's name is not dated earlier: {newer.name}"
    )
    assert latest_log(launcher.data_dir, "clockstep") == newer
    resumed = launcher.start(resume=True)
    assert resumed.resumed_events == events and any(str(newer) in line for line in resumed.lines)
    history = [game["id"] for game in resumed.get("/api/history")["games"]]
    resumed.stop()
    report(
        "clock_step",
        {
            "step": BEHIND,
            "logs": [older.name, newer.name],
            "resumed": newer.name,
            "history": history,
            "wall_s": time.monotonic() - began,
        },
    )
    assert history[:2] == [newer.stem, older.stem], "the history lists the newest game first"
