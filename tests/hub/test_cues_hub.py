"""Audio cues on the hub follow the master clock: each fires once, on time, pauses with the clock."""

from __future__ import annotations

import time

import pytest

from companion.clock import FakeClock, ScaledClock
from companion.hub import create_app, start_services, stop_services
from companion.hub.cues import cue_step
from companion.table import events as ev
from companion.table import messages as tm
from companion.table.session import CuePlayed
from companion.testing import deliver
from tests.conftest import wait_until

SCALE = 30.0


@pytest.fixture
def hub(tmp_path):
    clock = ScaledClock(SCALE)
    app = create_app(
        {
            "table": "cues",
            "players": 2,
            "timers": 1,
            "clock_minutes": 1.0,
            "sounds_dir": tmp_path,
            "audio": {"speech": False},
        },
        clock=clock,
    )
    app.extensions["companion.cues"].prepare(60.0)
    heard: list[tuple[str, float]] = []
    session = app.extensions["companion.session"]
    session.add_listener(
        lambda news: (
            heard.append((news.payload["name"], clock.now_s())) if isinstance(news, CuePlayed) else None
        )
    )
    start_services(app)
    yield app, session, clock, heard
    stop_services(app)


def test_clock_cues_fire_once_each_in_order_and_on_time(hub):
    """Each cue once, in schedule order, never early; the 50 ms target itself is measured by companion bench."""
    app, session, clock, heard = hub
    started = session.handle(tm.ClockCommand("start"))
    started = started.events[0]
    assert isinstance(started, ev.ClockStarted)
    wait_until(lambda: any(name == "end" for name, _ in heard), timeout_s=10, message="the end cue")
    schedule = app.extensions["companion.cues"].settings.schedule(60.0)
    expected = [c.name for c in schedule]
    assert [name for name, _ in heard] == expected
    for cue, (name, at) in zip(schedule, heard, strict=True):
        late_real_s = (at - (started.at_s + cue.at_elapsed_s)) / SCALE
        assert -0.001 <= late_real_s <= 0.5, f"{name} was {late_real_s * 1000:.1f} ms off"


def test_events_chime_and_buzz_after_a_pause(hub):
    app, session, clock, heard = hub
    session.handle(tm.ClockCommand("start"))
    wait_until(lambda: heard, message="the start cue")
    session.handle(tm.ClockCommand("pause"))
    session.handle(tm.ClockCommand("resume"))
    wait_until(lambda: any(n == "end" for n, _ in heard), timeout_s=10, message="the end after resuming")
    session.handle(tm.PlayerAction("red", {"type": "anything"}))  # refused by the timers-only table: a buzz
    wait_until(lambda: heard[-1][0] == "buzz", message="the buzz")


def test_a_paused_clock_sounds_nothing_until_it_is_resumed(tmp_path):
    """Proven on the fake clock, step by step as the cue thread steps: 18 paused seconds in which the
    10-second countdown would have started sound nothing; resumed, the rest of the cues come."""
    clock = FakeClock()
    app = create_app(
        {
            "table": "cues",
            "players": 2,
            "timers": 1,
            "clock_minutes": 1.0,
            "sounds_dir": tmp_path,
            "audio": {"speech": False},
        },
        clock=clock,
    )
    service = app.extensions["companion.cues"]
    service.prepare(60.0)
    session = app.extensions["companion.session"]
    heard: list[str] = []
    session.add_listener(
        lambda news: heard.append(news.payload["name"]) if isinstance(news, CuePlayed) else None
    )
    session.handle(tm.ClockCommand("start"))
    cue_step(service, session)
    assert heard == ["start"]
    clock.advance(40)
    cue_step(service, session)
    session.handle(tm.ClockCommand("pause"))
    before = list(heard)
    for _ in range(18):
        clock.advance(1.0)
        cue_step(service, session)
    assert heard == before
    session.handle(tm.ClockCommand("resume"))
    for _ in range(30):
        clock.advance(1.0)
        cue_step(service, session)
    assert heard[: len(before)] == before and heard[-1] == "end" and len(heard) > len(before)


def test_sounds_and_switches_are_served(hub):
    app, session, clock, heard = hub
    client = app.test_client()
    info = client.get("/api/audio").get_json()
    assert "start" in info["sounds"] and info["speech"] is False
    wav = client.get("/sounds/start.wav")
    assert wav.status_code == 200 and wav.data[:4] == b"RIFF" and wav.mimetype == "audio/wav"
    assert client.get("/sounds/nope.wav").status_code == 404
    assert client.post("/api/audio", json={"disabled": ["chime"]}).get_json()["disabled"] == ["chime"]
    bad = client.post("/api/audio", json={"disabled": ["moo"]})
    assert bad.status_code == 400 and "unknown cue 'moo'" in bad.get_json()["error"]


def test_turn_timer_warns_once_before_it_runs_out(tmp_path):
    from companion.core import protocol as p

    clock = ScaledClock(SCALE)
    app = create_app(
        {
            "table": "turns",
            "game": "timeline",
            "players": 2,
            "timers": 1,
            "sand_s": 20.0,
            "sounds_dir": tmp_path,
            "audio": {"speech": False, "turn_warning_s": 10},
        },
        clock=clock,
    )
    app.extensions["companion.cues"].prepare(60.0)
    session = app.extensions["companion.session"]
    heard: list[tuple[str, float]] = []
    session.add_listener(
        lambda news: (
            heard.append((news.payload["name"], clock.now_s())) if isinstance(news, CuePlayed) else None
        )
    )
    start_services(app)
    try:
        to_move = session.referee.player_to_move(session.state.game)
        node = session.setup.seats[session.setup.players.index(to_move)].node
        hello = p.validate(
            "event",
            {
                "v": 1,
                "kind": "hello",
                "boot": "0a1b2c3d",
                "t_ms": clock.now_ms(),
                "sand_ms": 20000,
                "node_kind": "sim",
                "firmware": "x",
            },
        )
        deliver(session, node, hello)
        # The flip happened between these two readings (its t_ms is read after the first, and the
        # hub decides it before deliver returns): a loaded machine spreads them apart.
        before_flip = clock.now_s()
        flip = p.validate(
            "event",
            {
                "v": 1,
                "kind": "flip",
                "boot": "0a1b2c3d",
                "seq": 1,
                "t_ms": clock.now_ms(),
                "upper_ms": 20000,
                "lower_ms": 0,
            },
        )
        [ack] = deliver(session, node, flip).commands
        assert ack.fields["verdict"] == "accepted", ack.fields
        after_flip = clock.now_s()
        wait_until(lambda: any(n == "hurry" for n, _ in heard), timeout_s=5, message="the hurry cue")
        [(_, at)] = [h for h in heard if h[0] == "hurry"]
        # not before 10 s of sand are left, and at most half a real second after
        assert before_flip + 10 - 0.001 <= at <= after_flip + 10 + 0.5 * SCALE, (
            f"the warning sounds when 10 s of sand are left: at {at:.3f}, "
            f"the flip between {before_flip:.3f} and {after_flip:.3f}"
        )
        time.sleep(0.5)  # the rest of the turn's sand: no second warning
        assert [n for n, _ in heard].count("hurry") == 1
    finally:
        stop_services(app)
