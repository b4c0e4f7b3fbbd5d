"""A game log that cannot be written: the table pauses, says so, holds every report back and goes on.

The disk here is the log's own file with a switch (``Disk``): while ``full`` every write puts half
its bytes down and fails with ENOSPC, as a full file system does; the probe the hub tries is the
same switch. tests/faults/test_full_disk.py does it all again on a real small file system.
"""

from __future__ import annotations

import errno
import logging
from pathlib import Path

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.rules.outcome import Rejected
from companion.rules.setup import default_setup
from companion.table import commands as cmd
from companion.table import events as ev
from companion.table import messages as m
from companion.table.log import EventLog, read_log
from companion.table.session import Changed, News, TableSession, next_deadline_s
from companion.table.storage import FULL, PAUSE_AFTER_S, PROBE_EVERY_S, STORAGE_RULE, StorageGuard
from tests.conftest import replays

BOOT = "0a1b2c3d"


def tick(session: TableSession) -> float | None:
    """What the ticker does: a Tick, then the game seconds to the next deadline."""
    outcome = session.handle(m.Tick())
    return next_deadline_s(outcome.table, now_s=session.clock.now_s())


class Disk:
    """The log file behind a switch: full, every write fails (after putting half its bytes down)."""

    def __init__(self, fh) -> None:
        self.fh = fh
        self.full = False
        self.refused = 0

    def write(self, data) -> int:
        if self.full:
            self.refused += 1
            self.fh.write(bytes(data)[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.fh.write(data)

    def probe(self, folder: Path) -> None:
        if self.full:
            raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self.fh, name)


class Monotonic:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class Heard:
    """Every command the session published, in order."""

    def __init__(self, session: TableSession) -> None:
        self.commands: list[cmd.Command] = []
        session.add_listener(self)

    def __call__(self, news: News) -> None:
        if isinstance(news, Changed):
            self.commands.extend(news.commands)

    def acks(self, node: str) -> list[tuple[int, str]]:
        return [(c.seq, c.verdict) for c in self.commands if isinstance(c, cmd.Ack) and c.node == node]


def report(kind: str, **fields) -> m.Report:
    return m.report_of(p.validate("event", dict({"v": 1, "kind": kind, "boot": BOOT}, **fields)))


def flip(seq: int, t_ms: int) -> m.Report:
    return report("flip", seq=seq, t_ms=t_ms, upper_ms=60000, lower_ms=0)


@pytest.fixture
def table(tmp_path):
    clock = FakeClock(start_s=100.0)
    setup = default_setup("t1", players=2, timers=2, clock_length_s=720)
    session = TableSession(setup, clock=clock, log=EventLog.for_new_game(setup, tmp_path / "game.jsonl"))
    disk = Disk(session.log._fh)
    session.log._fh = disk
    monotonic = Monotonic()
    session.storage = StorageGuard(monotonic=monotonic, probe=disk.probe)
    for node in ("red-1", "red-2"):  # node time = hub time - 90 s
        session.handle(
            m.NodeReport(node, report("hello", t_ms=10_000, sand_ms=60000, node_kind="sim", firmware="x"))
        )
    return session, clock, disk, monotonic


def test_a_full_disk_pauses_the_table_holds_every_report_and_goes_on_when_space_returns(table, caplog):
    session, clock, disk, monotonic = table
    heard = Heard(session)
    session.handle(m.ClockCommand("start"))
    clock.advance(30)
    session.handle(m.NodeReport("red-1", flip(1, 40_000)))
    assert heard.acks("red-1") == [(1, "accepted")]
    logged = len(session.log)
    caplog.set_level(logging.WARNING)

    disk.full = True
    clock.advance(5)
    failed_at = clock.now_s()
    first = session.handle(m.NodeReport("red-2", flip(1, 44_900)))  # flipped 0.1 s before it arrived
    assert [(c.seq, c.verdict, c.reason) for c in first.commands] == [(1, "retry", str(FULL))]
    storage = session.snapshot()["storage"]
    assert storage["ok"] is False and storage["message"] == FULL.to_json()
    assert storage["detail"] == "No space left on device" and storage["since_s"] == failed_at
    assert session.state.clock.phase == "paused", "the master clock pauses at once"
    paused = [c for c in heard.commands if isinstance(c, cmd.PublishTableState)]
    assert paused and paused[-1].clock == "paused", "the nodes are told: their sand stands still"

    for _ in range(40):  # a busy table keeps going at the hub while the disk stays full
        clock.advance(0.25)
        monotonic.t += 0.25
        tick(session)
        beat = report("heartbeat", t_ms=int((clock.now_s() - 90) * 1000), upper_ms=0, lower_ms=0, queued=1)
        session.handle(m.NodeReport("red-2", beat))
        session.handle(m.NodeReport("red-2", flip(1, 44_900)))  # the node sends it again
    assert set(heard.acks("red-2")) == {(1, "retry")}
    for action in ("resume", "abort"):
        refused = session.handle(m.ClockCommand(action)).refusal
        assert isinstance(refused, Rejected) and refused.rule == STORAGE_RULE
    assert len(session.log) == logged and read_log(session.log.path).events == session.log.events()
    assert session.stats.counts["held_for_storage"] >= 41
    warned = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 1 and "storage full" in warned[0].getMessage(), "said once, then counted"
    assert session.storage.failures > 10

    disk.full = False  # space returns: within a probe interval the table goes on, no restart
    monotonic.t += PROBE_EVERY_S
    tick(session)
    assert session.snapshot()["storage"]["ok"] is True
    assert isinstance(heard.commands[-1], cmd.CallForReports), "the nodes are called to send what they kept"
    paused_at = failed_at + PAUSE_AFTER_S
    assert session.log.events()[-1] == ev.ClockPaused(paused_at), (
        "the pause is logged, dated when it happened"
    )
    assert session.state.clock.phase == "paused", "the host resumes it"
    again = session.handle(m.NodeReport("red-2", flip(1, 44_900)))
    assert [(c.seq, c.verdict) for c in again.commands if isinstance(c, cmd.Ack)] == [(1, "accepted")]
    flipped = [e for e in session.log.events() if isinstance(e, ev.TimerFlipped) and e.node == "red-2"]
    assert [e.at_s for e in flipped] == [pytest.approx(failed_at - 0.1)], "dated when it happened on the node"
    session.handle(m.NodeReport("red-2", flip(1, 44_900)))  # a late copy: the same verdict, logged once
    assert len([e for e in session.log.events() if isinstance(e, ev.TimerFlipped) and e.node == "red-2"]) == 1
    assert session.handle(m.ClockCommand("resume")).refusal is None
    assert read_log(session.log.path).events == session.log.events()
    replays(session)
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 2 and "written again" in warned[1]


def test_a_report_made_during_the_storage_pause_is_decided_as_in_any_pause(table):
    session, clock, disk, monotonic = table
    session.handle(m.ClockCommand("start"))
    clock.advance(10)
    disk.full = True
    session.handle(m.NodeReport("red-1", flip(1, 20_000)))
    failed_at = clock.now_s()
    clock.advance(3)
    session.handle(m.NodeReport("red-2", flip(1, 23_000)))  # made 3 s into the pause
    disk.full = False
    monotonic.t += PROBE_EVERY_S
    tick(session)
    verdicts = [
        session.handle(m.NodeReport(node, flip(1, t_ms))).commands[0]
        for node, t_ms in (("red-1", 20_000), ("red-2", 23_000))
    ]
    assert [(c.node, c.verdict) for c in verdicts] == [("red-1", "accepted"), ("red-2", "rejected")]
    assert "paused" in verdicts[1].reason
    kinds = [(type(e).__name__, e.at_s) for e in session.log.events()[-3:]]
    assert kinds == [
        ("ClockPaused", failed_at + PAUSE_AFTER_S),
        ("TimerFlipped", pytest.approx(failed_at)),
        ("FlipRefused", pytest.approx(failed_at + 3)),
    ]


def test_without_a_running_clock_the_probe_decides_when_it_is_back(table):
    session, clock, disk, monotonic = table
    disk.full = True
    session.handle(m.NodeReport("red-1", flip(1, 11_000)))
    assert not session.table.storage.ok and session.state.clock.phase == "ready"
    assert session.storage.owed == []
    monotonic.t += PROBE_EVERY_S
    tick(session)
    assert not session.table.storage.ok, "the probe failed: still held"
    disk.full = False
    monotonic.t += PROBE_EVERY_S / 2
    tick(session)
    assert not session.table.storage.ok, "at most one try a probe interval"
    monotonic.t += PROBE_EVERY_S / 2
    outcome = session.handle(m.NodeReport("red-1", flip(1, 11_000)))
    assert session.table.storage.ok and outcome.commands[0].verdict == "accepted"  # type: ignore[union-attr]


def test_a_new_game_while_the_disk_is_full_is_refused_and_the_game_stays(table, tmp_path):
    session, clock, disk, monotonic = table
    opened = []

    def new_log(setup, game, rules):
        opened.append(setup)
        raise OSError(errno.ENOSPC, "No space left on device")

    session._log_factory = new_log
    before = session.log
    refused = session.handle(m.NewGame(default_setup("t1", players=3, timers=1))).refusal
    assert opened and refused is not None and refused.rule == STORAGE_RULE
    assert session.log is before and not before._fh.closed, "the old log stays open for its game"
    assert len(session.setup.players) == 2 and not session.table.storage.ok


def test_a_held_refusal_waits_for_the_disk_without_spinning_the_ticker(tmp_path):
    from dataclasses import replace

    from tests.table.test_decide import Strict, early_flip

    clock = FakeClock(start_s=100.0)
    setup = replace(default_setup("t1", players=2, timers=1), grace_s=2.0)
    log = EventLog(setup, tmp_path / "game.jsonl", start=0)
    session = TableSession(setup, clock=clock, log=log, referee=Strict(setup))
    disk = Disk(log._fh)
    log._fh = disk
    session.storage = StorageGuard(monotonic=(monotonic := Monotonic()), probe=disk.probe)
    session.handle(early_flip("red-1", 1))  # refused by the rules: held for the grace window
    assert "red-1" in session.table.held
    disk.full = True
    clock.advance(3)
    session.handle(m.ClockCommand("start"))  # meets the full disk
    assert tick(session) is None, "its refusal cannot be logged: no deadline that is always due"
    assert "red-1" in session.table.held and not session.table.storage.ok
    disk.full = False
    monotonic.t += PROBE_EVERY_S
    tick(session)
    assert "red-1" not in session.table.held and session.table.storage.ok
    assert isinstance(session.log.events()[-1], ev.FlipRefused)
