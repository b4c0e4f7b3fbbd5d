"""Group commit: reports that arrive together share one fsync, and no ack leaves before its line is synced.

An injected fsync hook records "synced up to event N" and a listener (or the bridge's publish)
records "ack sent for seq K", in the order they happen.
"""

from __future__ import annotations

import errno
import os
import threading
import time

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.mqtt.bridge import HubBridge
from companion.node.sim import SimFleet
from companion.rules.setup import default_setup
from companion.table import commands as cmd
from companion.table import events as ev
from companion.table import messages as m
from companion.table import messages as tm
from companion.table.log import EventLog, read_log
from companion.table.session import Changed, News, TableSession
from companion.table.storage import FAILING, PROBE_EVERY_S, StorageGuard
from tests.conftest import wait_until

BOOT = "0a1b2c3d"
NODES = ["red-1", "red-2", "yellow-1", "yellow-2"]


def flip(seq: int, t_ms: int = 0, boot: str = BOOT) -> p.Message:
    return p.validate(
        "event",
        {"v": 1, "kind": "flip", "boot": boot, "seq": seq, "t_ms": t_ms, "upper_ms": 60000, "lower_ms": 0},
    )


class Recorder:
    """The order of syncs ("synced", events on disk) and acks ("ack", node, seq) as they happen."""

    def __init__(self, session: TableSession) -> None:
        self.order: list[tuple] = []
        self.versions: list[int] = []
        self.session = session
        session.log.fsync_fn = self.fsync
        session.add_listener(self.heard)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)
        log = self.session.log
        self.order.append(("synced", len(log) + log.pending))

    def heard(self, news: News) -> None:
        if isinstance(news, Changed):
            self.versions.append(news.version)
            for command in news.commands:
                if isinstance(command, cmd.Ack):
                    self.order.append(("ack", command.node, command.seq))


def position(session: TableSession, node: str, seq: int) -> int:
    """1-based position in the log of the event that recorded ``node``'s report ``seq``."""
    for i, event in enumerate(session.log.events(), start=1):
        if getattr(event, "node", None) == node and getattr(event, "seq", None) == seq:
            return i
    raise AssertionError(f"report {seq} of {node} is not in the log")


def assert_acks_after_their_sync(session: TableSession, order: list[tuple]) -> None:
    synced = 0
    for entry in order:
        if entry[0] == "synced":
            synced = entry[1]
        else:
            _, node, seq = entry
            assert position(session, node, seq) <= synced, (
                f"ack of {node} #{seq} left before its line was synced"
            )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start_s=100.0)


def make_session(tmp_path, clock, name: str = "game.jsonl") -> TableSession:
    setup = default_setup("t1", players=2, timers=2)
    return TableSession(setup, clock=clock, log=EventLog.for_new_game(setup, tmp_path / name, fsync=True))


def test_reports_that_arrive_together_share_one_fsync_and_each_ack_follows_it(tmp_path, clock):
    session = make_session(tmp_path, clock)
    seen = Recorder(session)
    syncs = session.log.syncs
    outcomes = session.handle_batch([m.NodeReport(node, m.report_of(flip(1))) for node in NODES])
    assert session.log.syncs == syncs + 1
    assert [o.commands[0].node for o in outcomes] == NODES  # type: ignore[union-attr]
    assert seen.order[0] == ("synced", 4)
    assert [e[1:] for e in seen.order[1:]] == [(node, 1) for node in NODES]
    assert_acks_after_their_sync(session, seen.order)
    assert seen.versions == sorted(seen.versions)
    assert read_log(tmp_path / "game.jsonl").events == session.log.events()


def test_a_batch_decides_exactly_what_one_message_at_a_time_decides(tmp_path, clock):
    messages: list[m.Message] = [
        m.NodeReport(
            "red-1",
            m.report_of(
                p.validate(
                    "event",
                    {
                        "v": 1,
                        "kind": "hello",
                        "boot": BOOT,
                        "t_ms": 0,
                        "sand_ms": 60000,
                        "node_kind": "sim",
                        "firmware": "x",
                    },
                )
            ),
        )
    ]
    messages += [m.ClockCommand("start", None)]
    messages += [m.NodeReport(node, m.report_of(flip(seq, 1000 * seq))) for seq in (1, 2) for node in NODES]
    messages += [
        m.NodeReport("red-1", m.report_of(flip(1))),
        m.ClockCommand("pause", None),
        m.NodeReport("red-2", m.report_of(flip(3))),
    ]
    one = make_session(tmp_path, clock, "one.jsonl")
    singles = [one.handle(message) for message in messages]
    batched = make_session(tmp_path, clock, "batch.jsonl")
    together = batched.handle_batch(messages)
    assert batched.state == one.state
    assert batched.log.events() == one.log.events()
    assert [o.commands for o in together] == [o.commands for o in singles]  # type: ignore[union-attr]
    assert batched.stats.counts == one.stats.counts


class FailingFile:
    """A log file whose ``fail``-th write puts half its bytes on disk and then fails (disk full)."""

    def __init__(self, fh, fail: int) -> None:
        self.fh, self.fail, self.writes = fh, fail, 0

    def write(self, data) -> int:
        self.writes += 1
        if self.writes == self.fail:
            self.fh.write(bytes(data)[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.fh.write(data)

    def __getattr__(self, name):
        return getattr(self.fh, name)


class Monotonic:
    """The storage guard's real-time clock, moved by the test."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def verdicts(results) -> list[tuple[str, str]]:
    return [(c.node, c.verdict) for r in results for c in r.commands if isinstance(c, cmd.Ack)]


def test_a_write_that_fails_takes_no_effect_and_leaves_nothing_half_on_disk(tmp_path, clock):
    session = make_session(tmp_path, clock)
    session.storage = StorageGuard(monotonic=(monotonic := Monotonic()))
    Recorder(session)
    disk = session.log._fh
    session.log._fh = FailingFile(disk, fail=2)
    results = session.handle_batch([m.NodeReport(node, m.report_of(flip(1))) for node in NODES[:3]])
    # the first is synced before the table holds back; the one whose write failed and the next wait
    assert verdicts(results) == [("red-1", "accepted"), ("red-2", "retry"), ("yellow-1", "retry")]
    assert [session.state.timers[n].flips for n in NODES[:3]] == [1, 0, 0]
    assert not session.table.storage.ok
    saved = read_log(tmp_path / "game.jsonl")
    assert saved.notes == [] and saved.events == session.log.events()
    # the disk takes writes again: the node sends it again and now it counts
    session.log._fh = disk
    monotonic.t += PROBE_EVERY_S
    [again] = session.handle_batch([m.NodeReport("red-2", m.report_of(flip(1)))])
    assert verdicts([again]) == [("red-2", "accepted")] and session.table.storage.ok
    assert read_log(tmp_path / "game.jsonl").events == session.log.events()


def test_a_sync_that_fails_takes_back_the_whole_group(tmp_path, clock):
    session = make_session(tmp_path, clock)
    session.storage = StorageGuard(monotonic=(monotonic := Monotonic()))
    seen = Recorder(session)
    before_state, before_size = session.state, (tmp_path / "game.jsonl").stat().st_size

    def broken(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    session.log.fsync_fn = broken
    results = session.handle_batch([m.NodeReport(node, m.report_of(flip(1))) for node in NODES])
    assert verdicts(results) == [(node, "retry") for node in NODES]
    assert session.state == before_state and len(session.log) == 0
    assert not [e for e in seen.order if e[0] == "synced"]
    assert (tmp_path / "game.jsonl").stat().st_size == before_size
    assert session.table.storage.message == FAILING and session.table.storage.detail == "Input/output error"
    session.log.fsync_fn = seen.fsync
    monotonic.t += PROBE_EVERY_S
    [again] = session.handle_batch([m.NodeReport("red-1", m.report_of(flip(1)))])
    assert verdicts([again]) == [("red-1", "accepted")]
    assert read_log(tmp_path / "game.jsonl").events == session.log.events()
    assert session.state.timers["red-1"].flips == 1


def test_phone_and_clock_calls_keep_their_own_fsync(tmp_path, clock):
    session = make_session(tmp_path, clock)
    syncs = session.log.syncs
    session.handle(tm.ClockCommand("start"))
    session.handle(tm.ClockCommand("pause"))
    assert session.log.syncs == syncs + 2 and session.log.pending == 0


@pytest.mark.broker
def test_over_a_real_broker_acks_leave_only_after_their_report_is_synced(mosquitto, table_id, tmp_path):
    """Nodes flipping together against a hub whose fsync is slow: the bridge's worker groups their
    reports, and every ack it publishes comes after the sync that covered its report."""
    from companion.clock import ScaledClock

    setup = default_setup(table_id, players=4, timers=2)
    session = TableSession(
        setup, clock=ScaledClock(1.0), log=EventLog.for_new_game(setup, tmp_path / "game.jsonl", fsync=True)
    )
    order: list[tuple] = []
    lock = threading.Lock()

    def slow_fsync(fd: int) -> None:
        time.sleep(0.02)  # a slow disk: reports pile up meanwhile
        os.fsync(fd)
        with lock:
            order.append(("synced", len(session.log) + session.log.pending))

    session.log.fsync_fn = slow_fsync
    bridge = HubBridge(session, mosquitto.address)
    publish = bridge.client.publish

    def recording_publish(topic, payload=None, *args, **kw):
        if topic.endswith("/cmd"):
            data = p.decode("cmd", payload)
            if data.kind == "ack":
                with lock:
                    order.append(("ack", p.parse_topic(topic).node, data.seq))
        return publish(topic, payload, *args, **kw)

    bridge.client.publish = recording_publish  # type: ignore[method-assign]
    bridge.start()
    fleet = SimFleet(table_id, [s.node for s in setup.seats], mosquitto.address, ScaledClock(1.0))
    fleet.start()
    try:
        assert fleet.wait_connected(10) and bridge.connected.wait(10)
        for _ in range(3):
            for node in fleet.nodes.values():
                node.flip()
        wait_until(
            lambda: all(not n.core.outbox for n in fleet.nodes.values()),
            timeout_s=15,
            message="every flip acknowledged",
        )
    finally:
        fleet.stop()
        bridge.stop()
        session.log.close()
    with lock:
        seen = list(order)
    acked = {(e[1], e[2]) for e in seen if e[0] == "ack"}  # a report sent again gets the same ack
    assert_acks_after_their_sync(session, seen)
    assert bridge.batched > bridge.batches, "no two reports shared an fsync"
    flipped = {(e.node, e.seq) for e in session.log.events() if isinstance(e, ev.TimerFlipped)}
    assert len(flipped) == 3 * len(setup.seats)
    # Every flip was acknowledged. The second flip leaves a node 3-4 ms of sand, which may run out before
    # the third: that node then reports "empty" too, and that report is acknowledged as well.
    emptied = {(e.node, e.seq) for e in session.log.events() if isinstance(e, ev.TimerEmptied)}
    assert acked == flipped | emptied


def test_what_one_pass_of_the_link_read_is_one_batch_with_one_fsync_and_a_lone_report_is_its_own(
    tmp_path, clock
):
    """The main link hands the bridge each message of a pass (``on_message``), then asks it to handle
    them (``flush``): one batch, one fsync; a report read alone in its pass is a batch of one. Messages
    the bridge does not keep (another table's, the hub's own commands) cost no batch."""
    import paho.mqtt.client as mqtt

    from companion.mqtt.broker import BrokerAddress

    session = make_session(tmp_path, clock)
    bridge = HubBridge(session, BrokerAddress("127.0.0.1", 1))  # no broker: the link's calls are made by hand

    def message(node: str, seq: int) -> mqtt.MQTTMessage:
        msg = mqtt.MQTTMessage(topic=p.node_topic("t1", node, "event").encode())
        msg.payload = p.encode("event", "flip", boot=BOOT, seq=seq, t_ms=seq, upper_ms=60000, lower_ms=0)
        return msg

    syncs = session.log.syncs
    kept = [bridge.on_message(bridge.main, message(node, 1)) for node in NODES]
    own = mqtt.MQTTMessage(topic=p.node_topic("t1", "red-1", "cmd").encode())
    assert kept == [True] * len(NODES) and not bridge.on_message(bridge.main, own)
    assert session.log.syncs == syncs and len(session.log) == 0  # nothing decided before the flush
    bridge.flush()
    assert session.log.syncs == syncs + 1 and bridge.batches == 1 and bridge.batched == len(NODES)
    assert [e.node for e in session.log.events() if isinstance(e, ev.TimerFlipped)] == NODES
    assert bridge.on_message(bridge.main, message("red-1", 2))
    bridge.flush()
    assert session.log.syncs == syncs + 2 and bridge.batches == 2 and bridge.batched == len(NODES) + 1
    bridge.flush()  # nothing kept: no batch, no sync
    assert session.log.syncs == syncs + 2 and bridge.batches == 2
