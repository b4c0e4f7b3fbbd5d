"""Checks of the MicroPython node program (firmware/micropython) with fake machine/network/neopixel/umqtt.

Run under real MicroPython by tests/firmware/test_micropython_node.py (via
tests/micropython/run.mjs) and under CPython by the same test file. Plain
functions and plain asserts only.
"""

import json
import sys

if sys.implementation.name == "micropython":
    sys.path.insert(0, "/lib/tests/firmware/fakes")
    sys.path.insert(0, "/lib/firmware/micropython")

import board  # noqa: E402
import machine  # noqa: E402
import neopixel  # noqa: E402
import network  # noqa: E402
import nodeapp  # noqa: E402
from umqtt import robust, simple  # noqa: E402

from companion.core import leds, protocol, serial_lines  # noqa: E402

BOOT = "0a1b2c3d"
TILT = 14  # pico-w tilt pin (pins.csv)
STATUS = (18, 19, 20)


def _cfg(**kw):
    raw = {
        "node_id": "blue-2",
        "table": "t1",
        "board": "pico-w",
        "wifi_ssid": "net",
        "wifi_password": "pw",
        "broker_host": "10.0.0.1",
        "sand_ms": 8000,
    }
    raw.update(kw)
    return nodeapp.check_config(raw)


class Ms:
    def __init__(self, t=1000):
        self.t = t

    def __call__(self):
        return self.t


def _fresh(ms=None):
    machine.reset_fakes()
    simple.reset_fakes()
    simple.broker["clock"] = ms  # socket timeouts and umqtt.robust's sleeps pass on the test's clock
    network.state["reachable"] = False
    del neopixel.strips[:]


class Log:
    def __init__(self):
        self.lines = []

    def __call__(self, line):
        self.lines.append(line)

    def has(self, text):
        return [line for line in self.lines if text in line]


def _wifi_app(ms, make_client=None, log=None, **kw):
    _fresh(ms)
    cfg = _cfg(**kw)
    b = board.Board(cfg["board"], cfg["pins"], cfg["n_leds"], cfg["brightness"])
    sta = board.wlan()
    log = log or Log()

    def link_factory(core):
        return nodeapp.MqttLink(core, cfg, sta, make_client or board.mqtt_client, lambda: 1.0, log)

    return nodeapp.App(cfg, b, link_factory, ms, BOOT, log), sta


def _run(app, ms, until, every=10):
    while ms.t < until:
        ms.t += every
        app.step()


def _loop(app, ms, until):
    """The real main loop (``nodeapp.run``), one pass at a time, its idle passing on the fake clock,
    until ``until``; returns the time each pass began."""
    starts = []
    real_step = app.step

    def step():
        starts.append(ms.t)
        return real_step()

    def idle(wait, deep=False):
        ms.t += wait

    app.step = step
    app.board.idle = idle
    while ms.t < until:
        nodeapp.run(app, max_steps=1)
    app.step = real_step
    return starts


def _gaps(starts):
    return [starts[i + 1] - starts[i] for i in range(len(starts) - 1)]


def _connected(ms, **kw):
    app, sta = _wifi_app(ms, **kw)
    network.state["reachable"] = True
    simple.broker["up"] = True
    _loop(app, ms, ms.t + 100)
    assert app.link.is_up(), app.link.last_error
    return app, sta


def _frames():
    """(bar writes, status LED colour) now: what a player can see change."""
    return neopixel.strips[-1].writes, _status_rgb()


def _backoffs(first, tries, base, cap):
    """The waits between ``tries`` attempts, the first of them being failure number ``first``."""
    return [nodeapp.backoff_ms(n, base, cap, 1.0) for n in range(first, first + tries - 1)]


def _connects_since(t):
    return [c for c in simple.broker["connects"] if c >= t]


def _published(kind=None):
    out = []
    for topic, msg, retain, qos in simple.broker["published"]:
        data = json.loads(msg)
        if kind is None or data["kind"] == kind:
            out.append((topic.split("/")[-1], data["kind"], retain, qos))
    return out


def _status_rgb():
    return tuple(round(machine.pwm(p).duty_u16() / 65535, 2) for p in STATUS)


def check_config_defaults():
    cfg = _cfg()
    assert cfg["tilt_rest_ms"] == 150 and cfg["link"] == "wifi" and cfg["broker_port"] == 1883
    assert (
        nodeapp.check_config({"node_id": "u1", "table": "t", "board": "pico-usb", "link": "serial"})[
            "sand_ms"
        ]
        == 60000
    )


def check_config_errors():
    bad = [
        ({"colour": 1}, "unknown setting 'colour'"),
        ({"node_id": "Blue 2"}, "node_id must be 1-32 characters"),
        ({"board": "uno"}, "board must be one of esp32, pico-w, pico-usb"),
        ({"link": "lora"}, "link must be 'wifi' or 'serial'"),
        ({"board": "pico-usb"}, "a pico-usb board has no Wi-Fi"),
        ({"wifi_ssid": ""}, "link 'wifi' needs wifi_ssid"),
        ({"broker_port": 0}, "broker_port must be a whole number from 1 to 65535"),
        ({"tilt_rest_ms": 250}, "tilt_rest_ms must be a whole number from 1 to 190"),
        ({"tilt_debounce_ms": 100, "tilt_rest_ms": 50}, "must not be longer than tilt_rest_ms"),
        ({"accel_axis": "z"}, "accel_axis must be None"),
        ({"brightness": 2}, "brightness must be a number from 0.0 to 1.0"),
        ({"sand_ms": True}, "sand_ms must be a whole number"),
        ({"pins": [1]}, "pins must be a dict"),
    ]
    for change, reason in bad:
        try:
            _cfg(**change)
        except nodeapp.ConfigError as exc:
            assert reason in str(exc), (reason, str(exc))
            continue
        raise AssertionError("accepted " + repr(change))


def check_backoff_doubles_up_to_the_cap():
    waits = [nodeapp.backoff_ms(n, 1000, 30000) for n in range(0, 8)]
    assert waits == [0, 1000, 2000, 4000, 8000, 16000, 30000, 30000], waits
    assert nodeapp.backoff_ms(3, 1000, 30000, rand=0.0) == 2000  # jitter spreads over the upper half
    assert nodeapp.backoff_ms(3, 1000, 30000, rand=0.5) == 3000
    assert nodeapp.backoff_ms(60, 1000, 30000) == 30000  # no overflow after a long night


def check_ticks_clock_survives_wrap():
    period = 1 << 30
    now = {"t": period - 5}

    def ticks_diff(a, b):
        return ((a - b + period // 2) % period) - period // 2

    clock = nodeapp.TicksClock(lambda: now["t"], ticks_diff)
    assert clock() == 0
    now["t"] = (period - 5 + 20) % period  # wrapped to 15
    assert clock() == 20
    now["t"] = 515
    assert clock() == 520


def check_board_pins_and_battery():
    _fresh()
    b = board.Board("esp32")
    assert b.pins["tilt"] == 27 and b.pins["neopixel"] == 18 and b.pins["status"] == (25, 26, 33)
    machine.set_adc(34, 1900000)  # 1.9 V at the divider
    assert b.battery_mv() == 3800
    _fresh()
    b = board.Board("pico-w", {"tilt": 13})
    assert b.pins["tilt"] == 13 and b.pins["buzzer"] == 15
    machine.set_adc(3, 26000)
    assert b.battery_mv() == 3927  # VSYS/3 on ADC3
    assert board.Board("pico-usb").battery_mv() is None
    machine.set_adc(3, 100)
    assert b.battery_mv() is None  # under 1 V: no cell on the divider
    assert board.esp32_battery_mv(2100000) == 4200 and board.picow_battery_mv(65535) == 9900
    machine.drive(13, 0)
    assert b.tilt() == 1  # the ball closes the switch: input pulled low
    machine.drive(13, 1)
    assert b.tilt() == 0
    assert len(board.boot_id()) == 8


def check_flip_offline_is_buffered_then_delivered_in_order():
    ms = Ms()
    app, sta = _wifi_app(ms)
    _run(app, ms, 1100)
    assert app.pattern == "offline" and sta.connects == ["net"]
    machine.drive(TILT, 0)  # turned over
    _run(app, ms, 1300)
    assert app.core.seq == 1 and len(app.core.outbox) == 1 and simple.broker["published"] == []
    strip = neopixel.strips[-1]
    assert strip.shown[7] != (0, 0, 0)  # the sand runs on the node while offline
    network.state["reachable"] = True
    simple.broker["up"] = True
    _run(app, ms, 1400)  # Wi-Fi is back: MQTT connects on the next pass
    assert app.link.is_up(), (app.link.attempts, app.link.next_try_ms)
    kinds = [(ch, kind) for ch, kind, retain, qos in _published()]
    assert kinds[:3] == [("status", "online"), ("event", "hello"), ("event", "flip")], kinds
    assert _published("online")[0][2] is True and all(q == 1 for _, _, _, q in _published())
    client = simple.broker["clients"][-1]
    assert client.will[0].endswith("/node/blue-2/status") and client.will[2] is True
    assert [t for t, q in client.subscriptions] == [
        protocol.node_topic("t1", "blue-2", "cmd"),
        protocol.table_state_topic("t1"),
        protocol.hub_status_topic("t1"),
    ]


def check_wifi_retries_back_off():
    ms = Ms()
    app, sta = _wifi_app(ms, backoff_base_ms=1000, backoff_cap_ms=4000)
    _run(app, ms, 80000, every=50)
    # each attempt waits 15 s for Wi-Fi, then 1 s, 2 s, 4 s, 4 s ... before the next
    assert len(sta.connects) == 5, len(sta.connects)
    assert app.link.attempts == 4 and not app.link.is_up()
    assert sta.disconnects == 4  # each timed-out attempt is stopped before the next


def check_broker_drop_reconnects_and_resends():
    ms = Ms()
    network.state["reachable"] = True
    app, sta = _wifi_app(ms)
    network.state["reachable"] = True
    simple.broker["up"] = True
    _run(app, ms, 1100)
    assert app.link.is_up() and app.pattern == "empty"
    simple.broker["up"] = False  # the broker restarts
    machine.drive(TILT, 0)
    _run(app, ms, 1400)
    assert not app.link.is_up() and app.pattern == "offline" and len(app.core.outbox) == 1
    simple.broker["up"] = True
    simple.broker["published"] = []
    _run(app, ms, 3000)
    assert app.link.is_up()
    assert [k for _, k, _, _ in _published()][:3] == ["online", "hello", "flip"]


def check_ack_from_hub_shows_accepted():
    ms = Ms()
    app, sta = _wifi_app(ms)
    network.state["reachable"] = True
    simple.broker["up"] = True
    _run(app, ms, 1100)
    machine.drive(TILT, 0)
    _run(app, ms, 1300)
    ack = protocol.encode("cmd", "ack", boot=BOOT, seq=1, verdict="accepted")
    simple.broker["inbox"].append((protocol.node_topic("t1", "blue-2", "cmd").encode(), ack))
    _run(app, ms, 1310)
    assert app.core.outbox == [] and app.pattern == "accepted"
    assert _status_rgb() == (0.0, 1.0, 0.0)
    assert machine.pwm(15).duty_u16() == 32768 and machine.pwm(15).freq() == 2000  # the accept beep
    _run(app, ms, 1400)
    assert machine.pwm(15).duty_u16() == 0
    _run(app, ms, 2900)
    assert app.pattern == "running" and _status_rgb() == (0.0, 0.15, 0.0)


def check_bar_pixels_drain():
    ms = Ms()
    app, sta = _wifi_app(ms, brightness=1.0)
    _run(app, ms, 1010)
    strip = neopixel.strips[-1]
    writes = strip.writes
    _run(app, ms, 1050)
    assert strip.writes == writes  # an unchanged frame is not sent again
    machine.drive(TILT, 0)
    _run(app, ms, 1210)  # the change is seen at 1060, the flip counts at 1210
    assert app.core.seq == 1
    # the sand runs from the turn at 1060: seven LEDs full, the top one a little dimmer
    assert strip.shown[:7] == [(255, 120, 0)] * 7 and (0, 0, 0) < strip.shown[7] < (255, 120, 0)
    _run(app, ms, 1060 + 1500)  # 6.5 of 8 LEDs of sand left
    assert (
        strip.shown[:6] == [(255, 120, 0)] * 6
        and strip.shown[6] == (128, 60, 0)
        and strip.shown[7] == (0, 0, 0)
    )


def check_low_battery_and_heartbeat_voltage():
    ms = Ms()
    app, sta = _wifi_app(ms, heartbeat_ms=1000)
    machine.set_adc(3, 22000)  # 3.3 V
    app._next_battery = 0
    network.state["reachable"] = True
    simple.broker["up"] = True
    _run(app, ms, 3000)
    assert app.core.battery_mv == 3323 and app.pattern == leds.LOW_BATTERY
    beats = [json.loads(m) for t, m, r, q in simple.broker["published"] if b'"heartbeat"' in m]
    assert beats and beats[-1]["battery_mv"] == 3323


def check_lightsleep_only_offline_when_allowed():
    ms = Ms()
    app, sta = _wifi_app(ms, lightsleep=True)
    assert app.step() == (nodeapp.LIGHTSLEEP_MS, True)
    machine.drive(TILT, 0)
    ms.t += 10
    assert app.step() == (nodeapp.POLL_MS, False)  # a flip is pending: keep sampling fast
    ms2 = Ms()
    app2, sta2 = _wifi_app(ms2)
    assert app2.step() == (nodeapp.POLL_MS, False)  # not allowed by config
    app2.board.idle(5, True)
    assert machine.sleeps == [5]


def check_main_loop_survives_a_failing_pass():
    ms = Ms()
    app, sta = _wifi_app(ms)
    real_tilt = app.board.tilt
    calls = {"n": 0}

    def flaky_tilt():
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(5)  # EIO from a loose wire, once
        return real_tilt()

    app.board.tilt = flaky_tilt
    idles = []
    app.board.idle = lambda ms_, deep: idles.append(ms_)
    nodeapp.run(app, max_steps=5)
    assert app.errors == 1 and len(idles) == 5 and calls["n"] == 5


def _flip_during(app, ms, start, until):
    """Turn the node over at ``start`` and keep the loop running to ``until``; return the pass start times."""
    starts = _loop(app, ms, start)
    machine.drive(TILT, 1 - machine.Pin(TILT).value())
    return starts + _loop(app, ms, until)


def check_broker_gone_the_node_keeps_ticking_and_backs_off():
    ms = Ms()
    app, sta = _connected(ms, backoff_base_ms=1000, backoff_cap_ms=8000, sand_ms=60000)
    simple.broker["up"] = False  # the broker stops: the connection is reset, new ones are refused
    lost_at = ms.t
    before = _frames()
    starts = _flip_during(app, ms, lost_at + 500, lost_at + 40000)
    assert app.errors == 0 and not app.link.is_up() and app.pattern == "offline"
    assert max(_gaps(starts)) == nodeapp.POLL_MS  # not one pass held up
    assert app.core.seq == 1 and [k for _, k, _ in app.core.outbox] == ["flip"]  # debounced and kept
    assert app.core.sand.upper_ms() == 60000 - (ms.t - (lost_at + 500))  # the sand ran on from the turn
    assert _frames() != before and neopixel.strips[-1].writes > before[0] + 20  # the lights kept changing
    tries = _connects_since(lost_at)
    assert _gaps(tries) == _backoffs(2, len(tries), 1000, 8000), tries  # doubling, then capped
    assert "network error 111" in app.link.last_error
    simple.broker["up"] = True
    simple.broker["published"] = []
    _loop(app, ms, ms.t + 8100)
    assert app.link.is_up()
    assert [k for _, k, _, _ in _published()][:3] == ["online", "hello", "flip"]


def check_refused_login_is_caught_and_backs_off():
    ms = Ms()
    app, sta = _wifi_app(ms, backoff_base_ms=1000, backoff_cap_ms=16000, sand_ms=60000)
    network.state["reachable"] = True
    simple.broker["up"] = True
    simple.broker["refuse"] = 5  # the broker answers, but CONNACK says "not authorised"
    starts = _flip_during(app, ms, 2000, 45000)
    assert app.errors == 0  # MQTTException is not an OSError, and used to escape the step
    assert max(_gaps(starts)) == nodeapp.POLL_MS and not app.link.is_up()
    tries = simple.broker["connects"]
    assert 4 <= len(tries) <= 6, tries  # not one every 10 ms
    assert _gaps(tries) == _backoffs(1, len(tries), 1000, 16000), tries
    assert "refused the connection (code 5: not authorised)" in app.link.last_error
    assert app.core.seq == 1 and len(app.core.outbox) == 1 and app.core.show() == "offline"
    simple.broker["refuse"] = 0  # the password is fixed on the broker
    _loop(app, ms, ms.t + 16100)
    assert app.link.is_up() and [k for _, k, _, _ in _published()][:3] == ["online", "hello", "flip"]


def check_dead_socket_never_freezes_the_loop():
    """The broker's host vanishes without closing anything: reads and connects only time out."""
    ms = Ms()
    app, sta = _connected(ms, backoff_base_ms=1000, backoff_cap_ms=8000, heartbeat_ms=5000, sand_ms=120000)
    simple.broker["silent"] = True
    gone_at = ms.t
    before = _frames()
    starts = _flip_during(app, ms, gone_at + 7000, gone_at + 60000)
    gaps = _gaps(starts)
    limit = nodeapp.SOCKET_TIMEOUT_S * 1000 + nodeapp.POLL_MS
    assert max(gaps) <= limit, max(gaps)  # at worst one socket timeout, never "for ever"
    tries = _connects_since(gone_at)
    stalls = [g for g in gaps if g > nodeapp.POLL_MS]
    assert len(stalls) <= len(tries) + 1, (stalls, tries)  # the heartbeat's PUBACK, then one per attempt
    assert app.errors == 0 and not app.link.is_up()
    # each attempt waits out its connect timeout (2 s), then backs off 1, 2, 4, 8, 8 s
    assert _gaps(tries) == [2000 + b for b in _backoffs(2, len(tries), 1000, 8000)], tries
    assert app.core.seq == 1 and len(app.core.outbox) == 1  # the flip was debounced and kept
    assert _frames() != before and app.core.sand.upper_ms() == 120000 - (ms.t - (gone_at + 7000))
    simple.broker["silent"] = False
    simple.broker["published"] = []
    _loop(app, ms, ms.t + 12100)
    assert app.link.is_up()
    assert [k for _, k, _, _ in _published()][:3] == ["online", "hello", "flip"]


def check_socket_keeps_its_timeout_after_check_msg():
    """umqtt's wait_msg() calls setblocking(True) (no timeout) after every read; the link puts it back."""
    ms = Ms()
    app, sta = _connected(ms)
    _loop(app, ms, ms.t + 50)  # some check_msg() calls
    raw = simple.broker["clients"][-1].sock_raw
    assert raw.timeout == nodeapp.SOCKET_TIMEOUT_S, raw.timeout


def check_answer_during_a_publish_is_handled_after_it():
    """The hub answers a flip before the broker's PUBACK: no publish from inside a publish."""
    ms = Ms()
    app, sta = _connected(ms)
    hub = protocol.hub_status_topic("t1").encode()
    answered = []

    def fast_hub(topic, payload):
        data = json.loads(payload)
        if data.get("kind") != "flip" or data["seq"] in answered:
            return []
        answered.append(data["seq"])
        ack = protocol.encode("cmd", "ack", boot=BOOT, seq=data["seq"], verdict="accepted")
        return [
            (hub, protocol.status_payload(True)),
            (protocol.node_topic("t1", "blue-2", "cmd").encode(), ack),
        ]

    simple.broker["hub"] = fast_hub
    starts = _flip_during(app, ms, ms.t + 10, ms.t + 400)
    assert app.link.is_up() and app.link.failures == 0 and app.errors == 0
    assert max(_gaps(starts)) == nodeapp.POLL_MS
    assert app.core.outbox == [] and app.pattern == "accepted"
    sent = [json.loads(msg) for _, msg, _, _ in simple.broker["published"]]
    seqs = [data["seq"] for data in sent if data["kind"] == "flip"]
    # The hub came online once more before its ack: the outbox, still holding the flip, was sent
    # again, harmlessly (the same report; the hub answers a repeat with the verdict it gave).
    assert seqs == [answered[0], answered[0]] and answered == [1], (seqs, answered)


def check_unanswered_flip_is_sent_again_while_connected():
    """No ack within the core's resend wait (an ack lost, a hub asking for it later): the node sends
    the flip again without reconnecting, and stops once the hub has decided it."""
    ms = Ms()
    app, sta = _connected(ms, sand_ms=600000)
    connects = len(simple.broker["connects"])
    simple.broker["published"] = []
    machine.drive(TILT, 0)
    _loop(app, ms, ms.t + 300)
    flips = lambda: [json.loads(m)["seq"] for _, m, _, _ in simple.broker["published"] if b'"flip"' in m]  # noqa: E731
    assert flips() == [1]
    _loop(app, ms, ms.t + 5000)
    assert flips() == [1, 1] and app.core.resent == 1
    cmd = protocol.node_topic("t1", "blue-2", "cmd").encode()
    retry = protocol.encode("cmd", "ack", boot=BOOT, seq=1, verdict="retry", reason="storage full")
    simple.broker["inbox"].append((cmd, retry))
    _loop(app, ms, ms.t + 9000)
    assert flips() == [1, 1] and len(app.core.outbox) == 1, "kept, and the wait doubled"
    _loop(app, ms, ms.t + 1500)
    assert flips() == [1, 1, 1]
    simple.broker["inbox"].append((cmd, protocol.encode("cmd", "ack", boot=BOOT, seq=1, verdict="accepted")))
    _loop(app, ms, ms.t + 60000)
    assert flips() == [1, 1, 1] and app.core.outbox == []
    assert len(simple.broker["connects"]) == connects and app.link.is_up(), "never reconnected"


def check_umqtt_robust_is_never_used():
    client = board.mqtt_client("c", "10.0.0.1", 1883, None, None, 15)
    assert isinstance(client, simple.MQTTClient) and not isinstance(client, robust.MQTTClient)
    # what it would do: with the broker away, robust's check_msg() does not come back
    ms = Ms()
    app, sta = _connected(ms, make_client=robust.MQTTClient)
    simple.broker["up"] = False
    try:
        _loop(app, ms, ms.t + 100)
    except simple.Frozen:
        return
    raise AssertionError("umqtt.robust came back while the broker was away")


def check_old_umqtt_simple_without_connect_timeout_still_connects():
    class OldClient(simple.MQTTClient):
        def connect(self, clean_session=True):  # umqtt.simple before 1.5
            return simple.MQTTClient.connect(self, clean_session, 2)

    ms = Ms()
    log = Log()
    app, sta = _connected(ms, make_client=OldClient, log=log)
    assert not app.link.connect_has_timeout and log.has("older than 1.5")


def check_full_outbox_is_logged_and_reported_as_dropped():
    ms = Ms()
    log = Log()
    app, sta = _wifi_app(ms, log=log)
    for _ in range(app.core.outbox_limit + 3):
        ms.t += 10
        app.core.flip()
    _loop(app, ms, ms.t + 20)
    assert log.has("outbox full (64 events): 3 flips/run-outs dropped since boot")
    network.state["reachable"] = True
    simple.broker["up"] = True
    _loop(app, ms, ms.t + 1000)
    hello = [json.loads(m) for t, m, r, q in simple.broker["published"] if b'"hello"' in m][0]
    assert hello["dropped"] == 3


class FakePort:
    def __init__(self):
        self.incoming = []
        self.written = []

    def read_line(self):
        return self.incoming.pop(0) if self.incoming else None

    def write(self, data):
        self.written.append(data)

    def lines(self):
        out = [json.loads(w) for w in self.written]
        self.written = []
        return out


def check_serial_link_round_trip():
    _fresh()
    ms = Ms()
    port = FakePort()
    cfg = nodeapp.check_config(
        {"node_id": "u1", "table": "t1", "board": "pico-usb", "link": "serial", "sand_ms": 8000}
    )
    b = board.Board("pico-usb")
    app = nodeapp.App(cfg, b, lambda core: nodeapp.SerialLink(core, port), ms, BOOT)
    _run(app, ms, 2500)
    assert port.lines() == [{"link": "hello", "node": "u1"}] * 2  # once a second while the link is down
    machine.drive(TILT, 0)
    _run(app, ms, 2700)  # flipped while the link is down: kept in the outbox
    port.incoming.append(b'{"link": "up"}')
    _run(app, ms, 2710)
    lines = port.lines()
    assert [(x["ch"], x["node"], x["msg"]["kind"]) for x in lines] == [
        ("status", "u1", "online"),
        ("event", "u1", "hello"),
        ("event", "u1", "flip"),
    ]
    assert lines[1]["msg"]["node_kind"] == "serial"
    port.incoming.append(
        (
            '{"ch": "cmd", "msg": '
            + protocol.encode("cmd", "ack", boot=BOOT, seq=1, verdict="rejected").decode()
            + "}"
        ).encode()
    )
    port.incoming.append(b"garbage")
    _run(app, ms, 2720)
    assert app.core.outbox == [] and app.pattern == "rejected" and app.link.bad_lines == 1
    state = protocol.encode(
        "state", "table", clock="paused", remaining_ms=1, length_ms=2, game="g", time_scale=1
    )
    port.incoming.append(b'{"ch": "state", "msg": ' + state + b"}")
    _run(app, ms, 2730)
    assert app.core.sand.is_paused()
    # the bridge goes quiet: after 6 s the node counts itself offline and says hello again
    _run(app, ms, 2730 + nodeapp.LINK_TIMEOUT_MS + 20)
    assert app.pattern == "offline"
    assert {"link": "hello", "node": "u1"} in port.lines()


def check_serial_node_line_format():
    line = serial_lines.node_line(
        "u1", protocol.node_topic("t1", "u1", "status"), protocol.status_payload(True)
    )
    assert json.loads(line) == {"ch": "status", "node": "u1", "msg": {"v": 1, "kind": "online"}}
    assert line.endswith(b"\n") and line.count(b"\n") == 1


def check_serial_hub_lines_become_topics():
    kind, up, _ = serial_lines.parse_hub_line(b'{"link": "up"}', "t1", "u1")
    assert (kind, up) == ("link", True)
    ack = protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="accepted")
    kind, topic, payload = serial_lines.parse_hub_line(serial_lines.hub_line("cmd", ack), "t1", "u1")
    assert kind == "message" and topic == protocol.node_topic("t1", "u1", "cmd")
    assert json.loads(payload) == json.loads(ack)
    for bad in (b"nope", b"[1]", b'{"ch": "event", "msg": {}}', b'{"link": "sideways"}'):
        try:
            serial_lines.parse_hub_line(bad, "t1", "u1")
        except serial_lines.SerialLineError:
            continue
        raise AssertionError("accepted " + repr(bad))


def checks():
    """(name, function) of every check, in a stable order."""
    found = []
    for name, value in sorted(globals().items()):
        if name.startswith("check_") and callable(value):
            found.append((name, value))
    return found


def main():
    failed = 0
    for name, check in checks():
        try:
            check()
            print("PASS " + name)
        except (Exception, simple.Frozen) as exc:  # report every failure (a frozen node too), then fail
            failed += 1
            print("FAIL " + name + ": " + repr(exc))
    print("checks: " + str(len(checks()) - failed) + " passed, " + str(failed) + " failed")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
