"""A game begun while the wall clock was hours behind (a Pi without a real-time clock, before NTP)
is still the one ``--resume latest`` goes on with: real ``companion run`` processes, one of them
with its wall clock set 3 hours back.

The step is injected into that hub's interpreter (a ``sitecustomize`` module on its
``PYTHONPATH`` shifts ``time.time`` and what reads it), not with libfaketime: Debian's
libfaketime 0.9.10 makes Python 3.11's ``time.sleep`` fail with EINVAL when the monotonic clock
is left alone, and hangs timed waits when it is faked too, and the hub's web server rests with
``time.sleep``. What a clock without a battery gets wrong is the date, not the time since boot,
which is what the injection changes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from companion.table.log import latest_log, table_logs
from tests.faults.hub import wait_for
from tests.faults.sizes import report

pytestmark = [pytest.mark.broker, pytest.mark.timeout(120)]

BEHIND_S = -3 * 3600.0

WALL_CLOCK_BEHIND = """
import time

_STEP = float(__import__("os").environ["COMPANION_TEST_WALL_STEP_S"])
_time, _time_ns, _localtime, _gmtime = time.time, time.time_ns, time.localtime, time.gmtime
_strftime, _ctime = time.strftime, time.ctime
time.time = lambda: _time() + _STEP
time.time_ns = lambda: _time_ns() + int(_STEP * 1e9)
time.localtime = lambda secs=None: _localtime(time.time() if secs is None else secs)
time.gmtime = lambda secs=None: _gmtime(time.time() if secs is None else secs)
time.ctime = lambda secs=None: _ctime(time.time() if secs is None else secs)
time.strftime = lambda fmt, t=None: _strftime(fmt, time.localtime() if t is None else t)
"""


def behind_env(folder: Path) -> dict[str, str]:
    """The environment of a hub whose wall clock is ``BEHIND_S`` off (its monotonic clock is not)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(WALL_CLOCK_BEHIND)
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, "COMPANION_TEST_WALL_STEP_S": repr(BEHIND_S)}


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
    behind = launcher.start(env=behind_env(tmp_path / "wall-clock-behind"))
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
            "step_s": BEHIND_S,
            "logs": [older.name, newer.name],
            "resumed": newer.name,
            "history": history,
            "wall_s": time.monotonic() - began,
        },
    )
    assert history[:2] == [newer.stem, older.stem], "the history lists the newest game first"
