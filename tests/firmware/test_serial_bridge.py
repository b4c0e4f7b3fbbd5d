"""The USB-serial bridge: pseudo-terminals standing in for USB nodes, real JSON lines, a real mosquitto."""

from __future__ import annotations

import json
import sys
import time

import pytest
from click.testing import CliRunner

from companion.core import protocol
from companion.core.node import NodeCore
from companion.errors import ConfigError
from companion.serial_bridge import (
    SerialBridge,
    SerialLineError,
    find_ports,
    parse_node_line,
    parse_usb_id,
    serial_bridge,
)
from tests.conftest import wait_until
from tests.firmware.conftest import REPO
from tests.firmware.ptys import FakeUsbNode, PtyPort


def _msg(kind: str, **fields) -> dict:
    return {"v": 1, "kind": kind, **fields}


def _line(ch: str, msg: dict, node: str = "ser-1") -> dict:
    return {"ch": ch, "node": node, "msg": msg}


HELLO_LINK = {"link": "hello", "node": "ser-1"}
ONLINE = _line("status", _msg("online"))
HELLO = _line(
    "event",
    _msg("hello", boot="0a1b2c3d", t_ms=5, sand_ms=60000, node_kind="serial", firmware="companion-mpy/1"),
)
FLIP = _line("event", _msg("flip", boot="0a1b2c3d", seq=1, t_ms=900, upper_ms=60000, lower_ms=0))


@pytest.fixture
def usb(tmp_path):
    node = FakeUsbNode(tmp_path / "usb-MicroPython_Board_e6614103e7")
    yield node
    if node.master is not None:
        node.unplug()


@pytest.fixture
def bridge(mosquitto, table_id, usb):
    b = SerialBridge(
        table_id, mosquitto.address, ports=[str(usb.link)], reopen_s=0.05, scan_s=0.1, link_every_s=0.2
    ).start()
    yield b
    b.stop()


def _link_up(usb: FakeUsbNode, hello: dict = HELLO_LINK) -> None:
    """Say hello until the link is up, as a node does (opening a port flushes what was sent before)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        usb.send(hello)
        if any(line == {"link": "up"} for line in usb.lines(0.2)):
            return
    pytest.fail("the bridge never reported the link up")


def test_node_lines_reach_mqtt_and_hub_messages_reach_the_node(bridge, usb, table_id, recorder_factory):
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/ser-1/#")
    _link_up(usb)
    for line in (ONLINE, HELLO, FLIP):
        usb.send(line)
    events = rec.wait_for(2)
    assert events == [HELLO["msg"], FLIP["msg"]]
    status = [(t, json.loads(p), r) for t, p, r in rec.messages if t.endswith("/status")]
    assert status[0][1] == {"v": 1, "kind": "online"}
    # the hub answers: the ack and the retained table state arrive at the node as lines
    ack = protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="accepted")
    rec.publish(protocol.node_topic(table_id, "ser-1", "cmd"), ack)
    line = usb.wait_line(lambda line: line.get("ch") == "cmd")
    assert line == {"ch": "cmd", "msg": json.loads(ack)}
    state = protocol.encode(
        "state", "table", clock="paused", remaining_ms=5, length_ms=9, game="g", time_scale=1
    )
    rec.publish(protocol.table_state_topic(table_id), state, retain=True)
    assert usb.wait_line(lambda line: line.get("ch") == "state")["msg"]["clock"] == "paused"
    assert bridge.node_on(str(usb.link)) == "ser-1"
    assert bridge.stats["bad_lines"] == 0 and bridge.stats["published"] == 3


@pytest.mark.parametrize(
    "raw, reason",
    [
        (b"not json\n", "line is not valid JSON"),
        (b"[1, 2]\n", "must be a JSON object"),
        (b'{"ch": "event", "msg": {}}\n', "names no valid node id"),
        (
            b'{"ch": "cmd", "node": "ser-1", "msg": {"v": 1, "kind": "show", "pattern": "identify"}}\n',
            "cannot send on channel 'cmd'",
        ),
        (
            json.dumps(_line("event", _msg("flip", boot="0a1b2c3d", t_ms=1, upper_ms=1, lower_ms=1))).encode()
            + b"\n",
            "flip payload lacks field 'seq'",
        ),
        (
            json.dumps(
                _line("event", _msg("flip", boot="0a1b2c3d", seq=1, t_ms=True, upper_ms=1, lower_ms=1))
            ).encode()
            + b"\n",
            "'t_ms' must be a non-negative integer",
        ),
        (json.dumps({**FLIP, "extra": 1}).encode() + b"\n", "exactly ch, node and msg"),
        (json.dumps({"link": "bye", "node": "ser-1"}).encode() + b"\n", "a link line must be"),
        (b'{"ch": "event", "node": "ser-1", "msg": "' + b"x" * 5000 + b'"}\n', "line longer than"),
        (b"\xff\xfe\n", "line is not valid JSON"),
    ],
)
def test_bad_lines_are_counted_and_logged_never_fatal(
    bridge, usb, table_id, recorder_factory, raw, reason, caplog
):
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/ser-1/event")
    _link_up(usb)
    usb.send(raw)
    wait_until(lambda: bridge.stats["bad_lines"] == 1, message="the bad line to be counted")
    assert any(reason in r for r in bridge.bad_reasons), list(bridge.bad_reasons)
    assert any("bad line from" in r.getMessage() for r in caplog.records)
    usb.send(FLIP)  # the bridge goes on
    assert rec.wait_for(1) == [FLIP["msg"]]


def test_unplug_mid_line_marks_node_offline_and_replug_resumes(bridge, usb, table_id, recorder_factory):
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/ser-1/#")
    _link_up(usb)
    usb.send(ONLINE)
    usb.send(HELLO)
    rec.wait_for(1, kind="hello")
    flip = json.dumps(FLIP).encode() + b"\n"
    usb.send(flip[:40])  # half a line ...
    time.sleep(0.1)
    usb.unplug()  # ... and the cable is pulled
    wait_until(lambda: bridge.stats["offline_published"] == 1, message="the node to be published offline")
    rec.wait_for(2, suffix="/status")
    assert [m["kind"] for m in rec.payloads("/status")] == ["online", "offline"]
    assert bridge.stats["truncated"] == 1 and bridge.stats["bad_lines"] == 0
    assert rec.payloads(kind="flip") == []  # the half line was never published
    assert bridge.node_on(str(usb.link)) is None
    # plugged in again (a USB-powered node has rebooted): link, online, and the flip from its outbox
    usb.plug()
    _link_up(usb)
    usb.send(ONLINE)
    usb.send(flip)
    assert rec.wait_for(1, kind="flip") == [FLIP["msg"]]
    rec.wait_for(3, suffix="/status")
    assert [m["kind"] for m in rec.payloads("/status")] == ["online", "offline", "online"]
    assert bridge.stats["opened"] == 2 and bridge.stats["vanished"] == 1


def test_firmware_serial_link_talks_to_the_bridge(bridge, usb, table_id, recorder_factory):
    """The MicroPython node's own serial link and node core (run here under CPython) through the real bridge."""
    sys.path.insert(0, str(REPO / "firmware" / "micropython"))
    try:
        import nodeapp
    finally:
        sys.path.remove(str(REPO / "firmware" / "micropython"))
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/ser-1/#")
    clock = {"t": 1000}
    core = NodeCore(
        "usb-table",
        "ser-1",
        lambda: clock["t"],
        "0a1b2c3d",
        sand_ms=8000,
        node_kind="serial",
        firmware=nodeapp.FIRMWARE,
    )
    link = nodeapp.SerialLink(core, PtyPort(usb.master))

    def spin(until) -> None:
        deadline = time.monotonic() + 5
        while not until():
            assert time.monotonic() < deadline, "the serial link did not get there"
            clock["t"] += 10
            link.service(clock["t"])
            time.sleep(0.005)

    link.publish(core.flip())  # flipped before the link is up: kept in the outbox
    spin(lambda: core.connected)
    events = rec.wait_for(2)
    assert [e["kind"] for e in events] == ["hello", "flip"] and events[0]["node_kind"] == "serial"
    assert rec.payloads("/status")[0]["kind"] == "online"
    rec.publish(
        protocol.node_topic(table_id, "ser-1", "cmd"),
        protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="accepted"),
    )
    spin(lambda: not core.outbox)
    assert core.last_verdict == "accepted" and core.show() == "accepted" and link.bad_lines == 0


def test_two_nodes_on_two_ports(mosquitto, table_id, tmp_path, recorder_factory):
    a, b = FakeUsbNode(tmp_path / "usb-a"), FakeUsbNode(tmp_path / "usb-b")
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/+/event")
    br = SerialBridge(
        table_id, mosquitto.address, ports=[str(tmp_path / "usb-*")], scan_s=0.1, link_every_s=0.2
    ).start()
    try:
        for usb, node in ((a, "ser-a"), (b, "ser-b")):
            _link_up(usb, {"link": "hello", "node": node})
            usb.send(_line("event", FLIP["msg"], node=node))
        rec.wait_for(2)
        topics = sorted(t for t, _, _ in rec.messages)
        assert topics == [protocol.node_topic(table_id, n, "event") for n in ("ser-a", "ser-b")]
        # a payload naming another node is refused; a hello from a new node takes the port over
        a.send(_line("event", FLIP["msg"], node="ser-b"))
        wait_until(lambda: br.stats["bad_lines"] == 1, message="the foreign line to be refused")
        assert "line from node 'ser-b' on the port of node 'ser-a'" in br.bad_reasons[-1]
        _link_up(a)
        assert br.node_on(str(tmp_path / "usb-a")) == "ser-1" and br.stats["offline_published"] == 1
        assert len(rec.payloads()) == 2
    finally:
        br.stop()
        a.unplug()
        b.unplug()


def test_parse_node_line_needs_hello_and_the_same_node():
    assert parse_node_line(json.dumps(HELLO_LINK).encode(), "ser-9") == ("hello", "ser-1", None)
    with pytest.raises(SerialLineError, match="on the port of node 'ser-2'"):
        parse_node_line(json.dumps(FLIP).encode(), "ser-2")
    with pytest.raises(SerialLineError, match="before its link hello"):
        parse_node_line(json.dumps(FLIP).encode(), None)
    channel, node, msg = parse_node_line(json.dumps(FLIP).encode(), "ser-1")
    assert (channel, node, msg.kind, msg.seq) == ("event", "ser-1", "flip", 1)


def test_usb_ids_and_port_discovery(monkeypatch, tmp_path):
    assert parse_usb_id("2e8a:0005") == (0x2E8A, 0x0005)
    for bad in ("2e8a", "zz:01", "12345:1", ""):
        with pytest.raises(ConfigError, match="must be VID:PID in hex"):
            parse_usb_id(bad)

    class Port:
        def __init__(self, device, vid, pid):
            self.device, self.vid, self.pid = device, vid, pid

    dev = tmp_path / "ttyACM0"
    dev.touch()
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    (by_id / "usb-MicroPython_Board_in_FS_mode_e6614103-if00").symlink_to(dev)
    ports = [
        Port(str(dev), 0x2E8A, 0x0005),
        Port(str(tmp_path / "ttyUSB0"), 0x10C4, 0xEA60),
        Port("/dev/ttyS0", None, None),
    ]
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: ports)
    assert find_ports([(0x2E8A, 0x0005)], str(by_id)) == [
        str(by_id / "usb-MicroPython_Board_in_FS_mode_e6614103-if00")
    ]
    assert find_ports([(0x10C4, 0xEA60)], str(by_id)) == [str(tmp_path / "ttyUSB0")]
    assert find_ports([(1, 2)], str(by_id)) == []


def test_command_help_and_usage_errors():
    runner = CliRunner()
    result = runner.invoke(serial_bridge, ["--help"])
    assert result.exit_code == 0
    for option in ("--broker", "--table", "--port", "--usb-id"):
        assert option in result.output
    result = runner.invoke(serial_bridge, ["--table", "t1"])
    assert result.exit_code == 2 and "give at least one --port or --usb-id" in result.output
    result = runner.invoke(serial_bridge, ["--table", "t1", "--usb-id", "pico"])
    assert result.exit_code == 2 and "must be VID:PID in hex" in result.output
    result = runner.invoke(serial_bridge, ["--table", "Bad Table", "--port", "/dev/null"])
    assert result.exit_code == 2 and "table id 'Bad Table'" in result.output


def test_an_unexpected_failure_on_one_line_is_counted(bridge, usb, table_id, recorder_factory, monkeypatch):
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/ser-1/event")
    _link_up(usb)
    link = bridge.links[str(usb.link)]
    real = link.radio.publish
    calls = {"n": 0}

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("boom")
        return real(*args, **kwargs)

    monkeypatch.setattr(link.radio, "publish", flaky)
    usb.send(FLIP)
    wait_until(lambda: bridge.stats["bad_lines"] == 1, message="the failure to be counted")
    assert "could not be handled: RuntimeError('boom')" in bridge.bad_reasons[-1]
    usb.send(FLIP)
    assert rec.wait_for(1) == [FLIP["msg"]] and bridge.node_on(str(usb.link)) == "ser-1"
