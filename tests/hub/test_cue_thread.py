"""Audio never holds up a node: the session hands events to the cue thread and never waits for it.

Before the cue thread, the session's listener called the cue engine inside the session lock,
while building the sounds of a long clock held the engine's lock: flips waited ~10 s at start.
"""

from __future__ import annotations

import gc
import statistics
import threading
import time
from collections import Counter

import pytest

from companion import heap
from companion.clock import FakeClock, ScaledClock
from companion.core import protocol as p
from companion.hub import create_app, start_services, stop_services
from companion.hub.cues import prepare_in_background
from companion.table import messages as tm
from companion.table.session import CuePlayed
from companion.testing import deliver
from tests.conftest import wait_until

SCALE = 30.0


def report(kind: str, seq: int) -> p.Message:
    fields = {"v": 1, "kind": kind, "boot": "0a1b2c3d", "seq": seq, "t_ms": seq}
    if kind == "flip":
        fields.update(upper_ms=60000, lower_ms=0)
    return p.validate("event", fields)


def node_traffic(session, timings: list[float]) -> None:
    """What the MQTT bridge's thread does: flips and empty reports of two nodes, each timed."""
    seq = 0
    for _ in range(10):
        for node in ("red-1", "yellow-1"):
            for kind in ("flip", "empty"):
                seq += 1
                start = time.perf_counter()
                [ack] = deliver(session, node, report(kind, seq)).commands
                timings.append(time.perf_counter() - start)
                assert ack.fields["verdict"] == "accepted"


def cue_hub(tmp_path, clock):
    """A one-minute table whose cue thread writes sounds to ``tmp_path``; the cue names it played."""
    app = create_app(
        {
            "table": "cue-thread",
            "players": 2,
            "timers": 1,
            "clock_minutes": 1.0,
            "sounds_dir": tmp_path,
            "audio": {"speech": False},
        },
        clock=clock,
    )
    session = app.extensions["companion.session"]
    heard: list[str] = []
    session.add_listener(
        lambda news: heard.append(news.payload["name"]) if isinstance(news, CuePlayed) else None
    )
    return app, session, heard


@pytest.fixture
def hub(tmp_path):
    app, session, heard = cue_hub(tmp_path, ScaledClock(SCALE))
    # As a started hub does (companion/heap.py): a full collection of the whole test run's heap
    # would be a pause the hub itself never has.
    heap.settle()
    try:
        yield app, session, app.extensions["companion.cues"], heard
    finally:
        gc.unfreeze()
        stop_services(app)


def run_while_audio_is_busy(session, hold: threading.Lock | threading.RLock) -> list[float]:
    """Node traffic on its own thread while ``hold`` is held here; the durations of its messages."""
    timings: list[float] = []
    failed: list[BaseException] = []

    def node_thread() -> None:
        try:
            node_traffic(session, timings)
        except BaseException as exc:  # reported below
            failed.append(exc)

    with hold:
        thread = threading.Thread(target=node_thread, daemon=True)
        thread.start()
        thread.join(5)
        assert not thread.is_alive(), "node messages waited for the audio"
    assert not failed, failed
    return timings


def assert_prompt(timings: list[float]) -> None:
    ms = sorted(t * 1000 for t in timings)
    assert len(ms) == 40
    # Waiting for the audio would take the whole hold (seconds, see run_while_audio_is_busy); what a
    # loaded machine adds is a few scheduling delays of tens of milliseconds (12, 75 and 135 ms of 40
    # messages at a load average of 16, the other 37 under 1 ms).
    assert statistics.median(ms) < 5 and ms[35] < 50 and ms[-1] < 1000, (
        f"node messages took {[round(x, 1) for x in ms]} ms"
    )


def test_node_messages_never_wait_for_the_cue_engine_and_every_cue_fires_once(hub):
    app, session, cues, heard = hub
    start_services(app)
    session.handle(tm.ClockCommand("start"))
    # the cue engine busy (as while its schedule's sounds are built) during a burst of node traffic
    timings = run_while_audio_is_busy(session, cues.engine._lock)
    assert_prompt(timings)
    session.handle(tm.PlayerAction("red", {"type": "anything"}))  # refused: a buzz, also without waiting
    wait_until(lambda: "end" in heard, timeout_s=10, message="the end cue")
    app.extensions["companion.cue_worker"].stop()  # it fires everything queued before it stops
    counts = Counter(heard)
    assert counts["chime"] == 20 and counts["buzz"] == 1  # one chime per empty report
    clock_cues = [name for name in heard if name not in ("chime", "buzz", "hurry")]
    assert clock_cues == [cue.name for cue in cues.settings.schedule(60.0)]


def test_a_start_before_the_cue_threads_first_look_still_sounds_the_start(tmp_path):
    """Found on a loaded machine: the clock started, and five game seconds passed, before the cue
    thread first looked; it took the running clock for a resumed game and skipped the start cue."""
    clock = FakeClock()
    app, session, heard = cue_hub(tmp_path, clock)
    engine = app.extensions["companion.cues"].engine
    try:
        with engine._lock:  # the cue thread cannot look at the clock until this ends
            start_services(app)
            session.handle(tm.ClockCommand("start"))
            clock.advance(5.0)
        wait_until(lambda: "start" in heard, message="the start cue")
        assert heard.count("start") == 1
    finally:
        stop_services(app)


def test_building_the_sounds_of_a_long_clock_holds_up_no_flip(hub):
    app, session, cues, heard = hub
    # The hub starts while the sounds of a long game are being built: the build holds the build
    # lock throughout, and the engine needs this clock's sounds, which nobody built yet. Neither
    # the node path nor the cues wait for the build.
    with cues._build_lock:
        builder = prepare_in_background(cues, 600 * 60)
        start_services(app)
        session.handle(tm.ClockCommand("start"))
        timings = run_while_audio_is_busy(session, threading.Lock())
        wait_until(lambda: "start" in heard, timeout_s=2, message="the start cue, on time")
    assert_prompt(timings)
    builder.join(30)
    assert cues.library is not None and "minutes_left-595" in cues.library.paths
    wait_until(lambda: "end" in heard, timeout_s=10, message="the end cue")
    app.extensions["companion.cue_worker"].stop()  # it fires everything queued before it stops
    assert Counter(heard)["chime"] == 20
    clock_cues = [name for name in heard if name not in ("chime", "buzz", "hurry")]
    assert clock_cues == [cue.name for cue in cues.settings.schedule(60.0)]
    wait_until(lambda: (cues.sounds_dir / "end.wav").exists(), message="this clock's sounds, built after")


def test_a_report_that_moves_no_deadline_leaves_the_cue_thread_asleep(hub):
    """The cue thread looks at its deadlines again only when the master clock changed or something
    sounds: at 640 flips a second, waking it for each flip took the interpreter from the next one."""
    import queue

    from companion.hub import cues

    app, session, _, _ = hub
    worker = app.extensions["companion.cue_worker"]
    queued: list[object] = []

    class Watched(queue.SimpleQueue):  # type: ignore[type-arg]
        def put(self, item: object, block: bool = True, timeout: float | None = None) -> None:
            queued.append(item)
            super().put(item, block, timeout)

    worker._queue = Watched()
    start_services(app)
    session.handle(tm.ClockCommand("start"))
    assert queued.count(cues._WAKE) == 1, queued  # the clock started: its cues are due now
    queued.clear()
    for seq in range(1, 21):
        deliver(session, "red-1" if seq % 2 else "yellow-1", report("flip", seq))
    assert queued == []
    session.handle(tm.ClockCommand("pause"))
    assert queued.count(cues._WAKE) == 1, queued
