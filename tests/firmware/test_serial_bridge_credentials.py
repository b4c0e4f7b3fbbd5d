"""The USB-serial bridge on a locked broker: each node logs in as itself, from the table's credential store."""

from __future__ import annotations

import json
import time

import pytest
from click.testing import CliRunner

from companion.core import protocol
from companion.serial_bridge import SerialBridge, serial_bridge
from tests.firmware.ptys import FakeUsbNode
from tests.mqtt.conftest import Locked, login, start_locked


def _msg(kind: str, **fields) -> dict:
    return {"v": 1, "kind": kind, **fields}


def _line(node: str, ch: str, msg: dict) -> dict:
    return {"ch": ch, "node": node, "msg": msg}


def _hello(node: str) -> dict:
    return _line(
        node,
        "event",
        _msg("hello", boot="0a1b2c3d", t_ms=5, sand_ms=60000, node_kind="serial", firmware="companion-mpy/1"),
    )


@pytest.fixture
def locked(tmp_path, table_id):
    found = start_locked(tmp_path, table_id)
    yield found
    found.broker.close()


def _bridge(locked: Locked, usb: FakeUsbNode) -> SerialBridge:
    def address_for(node: str):
        creds = locked.auth.credentials(node)
        return creds.address(locked.broker.address) if creds is not None else None

    return SerialBridge(
        locked.table,
        locked.broker.address,
        ports=[str(usb.link)],
        reopen_s=0.05,
        scan_s=0.1,
        link_every_s=0.2,
        address_for=address_for,
    ).start()


def _link(usb: FakeUsbNode, node: str, timeout_s: float = 5.0) -> bool:
    """Say hello as the node does until the bridge reports the link up; False if it never does."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        usb.send({"link": "hello", "node": node})
        if any(line == {"link": "up"} for line in usb.lines(0.2)):
            return True
    return False


def test_a_node_logs_in_with_its_own_credentials(locked: Locked, tmp_path):
    usb = FakeUsbNode(tmp_path / "usb-red")
    hub = login(locked.hub, "hub-listener").subscribe(protocol.table_prefix(locked.table) + "/#")
    bridge = _bridge(locked, usb)
    try:
        assert _link(usb, "red-1")
        usb.send(_hello("red-1"))
        event = protocol.node_topic(locked.table, "red-1", "event")
        assert json.loads(hub.wait_for(event)[0])["kind"] == "hello"
        ack = protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="accepted")
        hub.publish(protocol.node_topic(locked.table, "red-1", "cmd"), ack)
        assert usb.wait_line(lambda line: line.get("ch") == "cmd")["msg"]["kind"] == "ack"
    finally:
        bridge.stop()
        hub.close()
        usb.unplug()


def test_a_node_without_credentials_stays_offline_until_added(locked: Locked, tmp_path, caplog):
    usb = FakeUsbNode(tmp_path / "usb-green")
    bridge = _bridge(locked, usb)
    try:
        assert not _link(usb, "green-1", timeout_s=1.0)
        usb.send(_hello("green-1"))
        deadline = time.monotonic() + 2
        while bridge.stats["no_credentials"] < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert bridge.stats["no_credentials"] == 1  # the event was not published anonymously
        assert sum("green-1 has no credentials" in r.getMessage() for r in caplog.records) == 1
        locked.auth.add_node("green-1")
        assert locked.broker.reload()
        assert _link(usb, "green-1")  # tried again at its next hello
    finally:
        bridge.stop()
        usb.unplug()


def test_the_command_reads_the_store_and_the_ca_option(tmp_path):
    result = CliRunner().invoke(
        serial_bridge,
        ["--table", "Bad Table", "--data-dir", str(tmp_path), "--port", "/dev/null"],
    )
    assert result.exit_code == 2 and "table id 'Bad Table'" in result.output
    result = CliRunner().invoke(
        serial_bridge,
        [
            "--broker",
            "mqtt://127.0.0.1:1",
            "--table",
            "t1",
            "--ca-file",
            str(tmp_path / "missing.crt"),
            "--port",
            "/dev/null",
        ],
    )
    assert result.exit_code == 2 and "cannot use the CA file" in result.output
