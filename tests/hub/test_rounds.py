"""companion.hub.rounds: one thread for many tables' timed work (a club's tickers and cue threads)."""

from __future__ import annotations

import threading

import pytest

from companion.clock import ScaledClock
from companion.hub import create_app, start_services, stop_services
from companion.hub.rounds import Rounds
from companion.table import events as ev
from companion.table import messages as msg
from tests.conftest import wait_until


class Counting:
    """A job that counts its runs and asks to run again after ``wait`` (None: only when woken)."""

    def __init__(self, wait: float | None = None, fail: bool = False) -> None:
        self.wait = wait
        self.fail = fail
        self.runs = 0
        self.ran = threading.Event()

    def run_once(self) -> float | None:
        self.runs += 1
        self.ran.set()
        if self.fail:
            raise RuntimeError("this table's work is broken")
        return self.wait


def test_a_job_runs_when_added_when_woken_and_when_its_own_time_comes():
    rounds = Rounds("test-rounds").start()
    try:
        woken, timed = Counting(), Counting(wait=0.01)
        rounds.add(woken)
        rounds.add(timed)
        wait_until(lambda: woken.runs == 1, message="the first run")
        wait_until(lambda: timed.runs >= 5, message="the job's own deadlines")
        assert woken.runs == 1  # asked for no deadline: it runs again only when woken
        rounds.wake(woken)
        wait_until(lambda: woken.runs == 2, message="the woken run")
    finally:
        rounds.stop()


def test_a_removed_job_never_runs_again_and_a_failing_one_stops_no_other():
    rounds = Rounds("test-rounds").start()
    try:
        removed, broken, sentinel = Counting(), Counting(fail=True), Counting()
        for job in (removed, broken):
            rounds.add(job)
        wait_until(lambda: removed.runs == 1 and broken.runs == 1, message="the first runs")
        rounds.remove(removed)
        rounds.wake(removed)  # ignored: it is no job any more
        rounds.wake(broken)
        rounds.add(sentinel)  # queued after the wakes above: once it ran, they were looked at
        wait_until(lambda: sentinel.runs == 1 and broken.runs == 2, message="the later runs")
        assert removed.runs == 1
    finally:
        rounds.stop()


def test_tables_on_shared_rounds_tick_and_cue_without_threads_of_their_own(tmp_path):
    """Hubs built with a club's rounds: the ticker still ends a master clock on time, and building a
    hundred of them starts no ticker or cue thread."""
    rounds = Rounds("club-rounds").start()
    apps = []
    try:
        for i in range(100):
            app = create_app(
                {
                    "table": f"r{i}",
                    "players": 2,
                    "timers": 1,
                    "clock_minutes": 0.05,
                    "audio": {"speech": False},
                },
                clock=ScaledClock(1.0),
                rounds=rounds,
            )
            app.extensions["companion.ticker"].start()
            app.extensions["companion.cue_worker"].start()
            apps.append(app)
        own = [t.name for t in threading.enumerate() if t.name in ("table-ticker", "cue-worker")]
        assert own == [] and len(rounds) == 200  # (their sounds are built on threads that end)
        session = apps[0].extensions["companion.session"]
        outcome = session.handle(msg.ClockCommand("start"))  # a 3 s master clock
        started = next(e for e in outcome.events if isinstance(e, ev.ClockStarted))
        wait_until(lambda: session.state.clock.phase == "expired", timeout_s=10, message="the clock ran out")
        assert session.state.clock.ended_at_s == pytest.approx(started.at_s + 3.0)  # stamped at the expiry
    finally:
        for app in apps:
            app.extensions["companion.ticker"].stop()
            app.extensions["companion.cue_worker"].stop()
        rounds.stop()


def test_start_services_with_rounds_runs_no_own_ticker_thread():
    rounds = Rounds("club-rounds").start()
    app = create_app({"table": "one", "players": 2, "timers": 1}, clock=ScaledClock(1.0), rounds=rounds)
    try:
        names = {t.name for t in threading.enumerate()}
        start_services(app)
        started = {t.name for t in threading.enumerate()} - names
        assert "table-ticker" not in started and "cue-worker" not in started
        assert len(rounds) == 2
    finally:
        stop_services(app)
        rounds.stop()
    assert len(rounds) == 0
