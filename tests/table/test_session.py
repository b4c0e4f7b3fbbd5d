"""The table session on a fake clock: master clock, flips, duplicates, time mapping, the log."""

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.rules.outcome import Rejected
from companion.rules.setup import default_setup
from companion.table import events as ev
from companion.table import messages as tm
from companion.table.log import EventLog, read_log
from companion.table.session import TableSession, next_deadline_s
from companion.testing import deliver
from tests.conftest import replays

BOOT = "0a1b2c3d"


@pytest.fixture
def clock():
    return FakeClock(start_s=100.0)


@pytest.fixture
def session(clock):
    return TableSession(default_setup("t1", players=2, timers=2, clock_length_s=720), clock=clock)


def msg(kind, **fields):
    return p.validate("event", dict({"v": 1, "kind": kind, "boot": BOOT}, **fields))


def hello(t_ms):
    return msg("hello", t_ms=t_ms, sand_ms=60000, node_kind="sim", firmware="x")


def flip(seq, t_ms, upper=60000, lower=0):
    return msg("flip", seq=seq, t_ms=t_ms, upper_ms=upper, lower_ms=lower)


def test_master_clock_runs_pauses_resumes_and_expires_on_time(session, clock):
    assert isinstance(session.handle(tm.ClockCommand("start")).events[0], ev.ClockStarted)
    clock.advance(100)
    session.handle(tm.ClockCommand("pause"))
    clock.advance(1000)
    assert session.state.clock.remaining_s(clock.now_s()) == pytest.approx(620)
    session.handle(tm.ClockCommand("resume"))
    clock.advance(619.9)
    assert next_deadline_s(session.handle(tm.Tick()).table, now_s=clock.now_s()) == pytest.approx(0.1)
    assert session.state.clock.phase == "running"
    clock.advance(0.5)
    session.handle(tm.Tick())
    state = session.state
    assert state.clock.phase == "expired"
    expired = session.log.events()[-1]
    assert isinstance(expired, ev.ClockExpired) and expired.at_s == pytest.approx(100 + 100 + 1000 + 620)


@pytest.mark.parametrize(
    "first, action, reason",
    [
        (None, "pause", "Only a running master clock can be paused; it is ready"),
        (None, "resume", "Only a paused master clock can be resumed; it is ready"),
        ("start", "start", "already running"),
        ("abort", "abort", "already over (ended early)"),
    ],
)
def test_clock_commands_out_of_turn_are_rejected(session, first, action, reason):
    if first:
        session.handle(tm.ClockCommand(first))
    before = len(session.log)
    result = session.handle(tm.ClockCommand(action)).refusal
    assert isinstance(result, Rejected) and reason in str(result.reason)
    assert len(session.log) == before


def test_flip_is_acked_and_folded(session, clock):
    deliver(session, "red-1", hello(5000))
    session.handle(tm.ClockCommand("start"))
    [reply] = deliver(session, "red-1", flip(1, 5000)).commands
    assert reply.kind == "ack" and reply.fields == {"boot": BOOT, "seq": 1, "verdict": "accepted"}
    clock.advance(20)
    timer = session.snapshot()["players"][0]["timers"][0]
    assert timer["phase"] == "running" and timer["upper_s"] == pytest.approx(40)


def test_duplicate_delivery_is_applied_once_and_answered_the_same(session):
    deliver(session, "red-1", hello(5000))
    deliver(session, "red-1", flip(1, 5000))
    [again] = deliver(session, "red-1", flip(1, 5000)).commands
    assert again.fields["verdict"] == "accepted"
    assert session.state.timers["red-1"].flips == 1
    assert session.stats.counts["duplicate"] == 1


def test_a_new_boot_restarts_the_sequence(session):
    deliver(session, "red-1", flip(1, 5000))
    rebooted = p.validate(
        "event",
        {"v": 1, "kind": "flip", "boot": "ffffffff", "seq": 1, "t_ms": 10, "upper_ms": 60000, "lower_ms": 0},
    )
    deliver(session, "red-1", rebooted)
    assert session.state.timers["red-1"].flips == 2


def test_flip_after_the_master_clock_ran_out_is_refused(session, clock):
    deliver(session, "red-1", hello(0))
    session.handle(tm.ClockCommand("start"))
    clock.advance(720)
    session.handle(tm.Tick())
    [reply] = deliver(session, "red-1", flip(1, 720_000)).commands
    assert reply.fields["verdict"] == "rejected"
    assert "master clock has run out" in reply.fields["reason"]
    assert session.state.timers["red-1"].refused
    assert session.state.refused_flips == 1


def test_flip_while_paused_is_refused(session):
    session.handle(tm.ClockCommand("start"))
    session.handle(tm.ClockCommand("pause"))
    [reply] = deliver(session, "red-1", flip(1, 1000)).commands
    assert reply.fields == {
        "boot": BOOT,
        "seq": 1,
        "verdict": "rejected",
        "reason": "The master clock is paused: wait until it is resumed",
    }


def test_buffered_events_are_mapped_onto_hub_time(session, clock):
    # node clock 5000 ms == hub 100 s; the node flips offline at node 8000 ms
    deliver(session, "red-1", hello(5000))
    session.handle(tm.ClockCommand("start"))
    clock.advance(30)  # delivered 30 s later, after a reconnect
    deliver(session, "red-1", hello(35000))
    deliver(session, "red-1", flip(1, 8000))
    timer = session.state.timers["red-1"]
    assert timer.at_s == pytest.approx(103.0)
    assert session.snapshot()["players"][0]["timers"][0]["upper_s"] == pytest.approx(33.0)


def test_a_flip_that_happened_before_expiry_counts_even_if_delivered_after(session, clock):
    deliver(session, "red-1", hello(0))
    session.handle(tm.ClockCommand("start"))
    clock.advance(725)
    session.handle(tm.Tick())
    [reply] = deliver(session, "red-1", flip(1, 719_000)).commands
    assert reply.fields["verdict"] == "accepted"


def test_unknown_node_is_rejected_and_counted_without_changing_state(session):
    before = session.state
    [reply] = deliver(session, "ghost", flip(1, 0)).commands
    assert reply.fields["verdict"] == "rejected" and "not paired" in reply.fields["reason"]
    assert session.state == before
    assert session.stats.counts["rejected_unknown_node"] == 1


def test_availability_follows_status(session):
    session.handle(tm.NodeStatus("red-2", online=True))
    assert session.table.link("red-2").online
    session.handle(tm.NodeStatus("red-2", online=False))
    assert not session.snapshot()["nodes"][1]["online"]


def test_replaying_the_log_gives_the_live_state(session, clock):
    deliver(session, "red-1", hello(0))
    session.handle(tm.ClockCommand("start"))
    deliver(session, "red-1", flip(1, 1000))
    clock.advance(61)
    deliver(session, "red-1", msg("empty", seq=2, t_ms=61_000))
    session.handle(tm.ClockCommand("pause"))
    session.handle(tm.ClockCommand("resume"))
    assert replays(session)


def test_log_on_disk_survives_a_torn_last_line(tmp_path, clock):
    path = tmp_path / "game.jsonl"
    setup = default_setup("t1", players=2, timers=1)
    session = TableSession(setup, clock=clock, log=EventLog.for_new_game(setup, path, fsync=False))
    session.handle(tm.ClockCommand("start"))
    deliver(session, "red-1", flip(1, 0))
    session.log.close()
    with open(path, "a") as fh:
        fh.write('{"type": "TimerEmp')
    saved = read_log(path)
    assert saved.setup == setup and len(saved.events) == 2 and "cut short" in saved.notes[0]
    resumed = TableSession(saved.setup, clock=clock, log=EventLog.open_existing(path, fsync=False))
    assert resumed.state.timers["red-1"].flips == 1 and resumed.state.clock.phase == "running"
    # the resumed game appends after the cut, so the next resume reads every line
    deliver(resumed, "red-1", flip(2, 1000))
    resumed.log.close()
    again = TableSession(saved.setup, clock=clock, log=EventLog.open_existing(path, fsync=False))
    assert again.state == resumed.state and again.state.timers["red-1"].flips == 2


def test_a_report_logged_before_a_crash_is_answered_from_the_log_when_the_node_resends_it(tmp_path, clock):
    """The verdicts of logged reports are rebuilt on resume: a resent flip is not applied twice."""
    path = tmp_path / "game.jsonl"
    setup = default_setup("t1", players=2, timers=1)
    session = TableSession(setup, clock=clock, log=EventLog.for_new_game(setup, path, fsync=False))
    session.handle(tm.ClockCommand("start"))
    deliver(session, "red-1", flip(1, 0))
    session.handle(tm.ClockCommand("pause"))
    deliver(session, "yellow-1", flip(1, 0))  # refused: the clock is paused
    session.log.close()  # the hub dies before the acks reach the nodes
    resumed = TableSession(setup, clock=clock, log=EventLog.open_existing(path, fsync=False))
    events = len(resumed.log)
    [again] = deliver(resumed, "red-1", flip(1, 0)).commands
    [refused] = deliver(resumed, "yellow-1", flip(1, 0)).commands
    assert again.verdict == "accepted" and refused.verdict == "rejected" and "paused" in refused.reason
    assert len(resumed.log) == events and resumed.state.timers["red-1"].flips == 1
    assert resumed.stats.counts["duplicate"] == 2


def test_after_a_resume_the_next_report_is_no_gap_and_the_clock_goes_on_from_the_last_checkpoint(
    tmp_path, clock
):
    path = tmp_path / "game.jsonl"
    setup = default_setup("t1", players=2, timers=1)
    session = TableSession(setup, clock=clock, log=EventLog.for_new_game(setup, path, fsync=False))
    deliver(session, "red-1", hello(0))
    session.handle(tm.ClockCommand("start"))
    deliver(session, "red-1", flip(1, 1000))
    for _ in range(12):  # a minute with nothing happening
        clock.advance(5.0)
        session.handle(tm.Tick())
    session.log.close()  # the hub dies here, a minute after the last flip
    saved = read_log(path)
    checkpoints = [e for e in saved.events if isinstance(e, ev.ClockCheckpoint)]
    assert len(checkpoints) == 12 and checkpoints[-1].at_s == clock.now_s()
    resumed = TableSession(setup, clock=clock, log=EventLog.open_existing(path, fsync=False))
    assert resumed.state.last_at_s == clock.now_s()  # nothing of that minute is given back
    deliver(resumed, "red-1", flip(2, 70_000))
    assert resumed.stats.counts["sequence_gap"] == 0 and resumed.state.timers["red-1"].flips == 2


def test_a_last_line_cut_just_before_its_newline_was_never_acknowledged_and_is_left_out(tmp_path, clock):
    path = tmp_path / "game.jsonl"
    setup = default_setup("t1", players=2, timers=1)
    session = TableSession(setup, clock=clock, log=EventLog.for_new_game(setup, path, fsync=False))
    session.handle(tm.ClockCommand("start"))
    deliver(session, "red-1", flip(1, 0))
    session.log.close()
    path.write_bytes(path.read_bytes()[:-1])  # the crash came between the line and its newline
    saved = read_log(path)
    assert [type(e).__name__ for e in saved.events] == ["ClockStarted"] and "cut short" in saved.notes[0]
    resumed = TableSession(setup, clock=clock, log=EventLog.open_existing(path, fsync=False))
    assert len(resumed.log) == 1 and resumed.state.timers["red-1"].flips == 0
    [ack] = deliver(resumed, "red-1", flip(1, 0)).commands  # the node sends it again: now it counts
    resumed.log.close()
    assert ack.verdict == "accepted" and read_log(path).events == resumed.log.events()
