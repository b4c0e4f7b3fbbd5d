"""Ctrl+C at any moment after "Press Ctrl+C to stop.", once or twice, on a busy machine: a clean stop, exit 0.

Real ``companion run`` processes, while busy loops keep both cores loaded. Each one gets SIGINT
at a seeded random moment after it printed the line (at once: inside the settling of its heap;
or a little later), and every other time a second SIGINT a moment after the first (while it
stops). Each must stop its table, say "Table stopped." and exit 0: never click's "Aborted!",
never a traceback.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from companion.mqtt.broker import free_port
from tests.faults.sizes import SEED, report, sized_int

SIGNALS = sized_int("FAULT_SIGINTS", ci=6, full=20)
"""Hubs interrupted (each gets one or two SIGINTs)."""
LOAD_LOOPS = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2
"""Busy loops beside the hubs: one on each core, or one where other pytest-xdist workers load the
machine too (two would take two cores' worth of CPU from the rest of the run)."""

pytestmark = [pytest.mark.broker, pytest.mark.timeout(60 + 15 * SIGNALS)]


@pytest.fixture
def cpu_load() -> Iterator[None]:
    """Busy shell loops on every core for the test's length, stopped by their PIDs."""
    loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(LOAD_LOOPS)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait(10)


def _interrupt(broker: str, table: str, rng: random.Random) -> dict:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "run",
            "--broker",
            broker,
            "--no-sim",
            "--memory",
            "--table",
            table,
            "--port",
            str(free_port()),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        for line in proc.stdout:
            if line.startswith("Press Ctrl+C to stop."):
                break
            assert time.monotonic() < deadline, "the hub did not print its last line in time"
        else:
            pytest.fail(f"the hub ended before it was ready: {proc.communicate()[1][-2000:]}")
        first_s = 0.0 if rng.random() < 0.4 else rng.uniform(0.0, 0.3)
        second_s = rng.uniform(0.0, 0.3) if rng.random() < 0.5 else None
        time.sleep(first_s)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        if second_s is not None:
            time.sleep(second_s)
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        return {
            "code": proc.returncode,
            "out": out,
            "err": err,
            "first_s": first_s,
            "second_s": second_s,
            "stop_s": time.monotonic() - sent,
        }
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_ctrl_c_at_random_moments_under_load_stops_cleanly(fault_broker, cpu_load):
    rng = random.Random(SEED)
    began = time.monotonic()
    results = [_interrupt(str(fault_broker.address), f"ctrlc{n}", rng) for n in range(SIGNALS)]
    bad = [
        r
        for r in results
        if r["code"] != 0
        or "Aborted" in r["err"]
        or "Traceback" in r["err"]
        or "Table stopped." not in r["out"]
    ]
    report(
        "ctrl_c",
        {
            "hubs": SIGNALS,
            "signals": SIGNALS + sum(1 for r in results if r["second_s"] is not None),
            "at_once": sum(1 for r in results if r["first_s"] == 0.0),
            "twice": sum(1 for r in results if r["second_s"] is not None),
            "clean_exits": len(results) - len(bad),
            "stop_s_max": max(r["stop_s"] for r in results),
            "stop_s_mean": sum(r["stop_s"] for r in results) / len(results),
            "load_loops": LOAD_LOOPS,
            "wall_s": time.monotonic() - began,
        },
    )
    assert not bad, [(r["code"], r["first_s"], r["second_s"], r["err"][-500:]) for r in bad[:3]]
