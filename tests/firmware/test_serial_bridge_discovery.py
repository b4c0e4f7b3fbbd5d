"""``companion serial-bridge`` without ``--broker`` joins the broker its table announces (mDNS on loopback)."""

from __future__ import annotations

import functools
import time

import pytest
from click.testing import CliRunner

from companion import serial_bridge as bridge_module
from companion.net import discovery
from companion.net.discovery import TableAnnouncer

LOOPBACK = ["127.0.0.1"]


@pytest.fixture
def loopback_only(monkeypatch):
    """Browse loopback only (not this machine's real network), and stop the command once it runs."""
    monkeypatch.setattr(
        discovery, "find_broker", functools.partial(discovery.find_broker, interfaces=LOOPBACK)
    )

    class StopAtTheFirstSleep:  # the command's own `time` only: zeroconf's and paho's threads keep theirs
        def __getattr__(self, name):
            return getattr(time, name)

        def sleep(self, seconds):
            raise KeyboardInterrupt

    monkeypatch.setattr(bridge_module, "time", StopAtTheFirstSleep())


def test_bridge_finds_the_announced_broker(loopback_only, mosquitto, table_id, tmp_path):
    hub = TableAnnouncer(
        table=table_id, address="127.0.0.1", http_port=None, mqtt_port=mosquitto.port, interfaces=LOOPBACK
    ).start()
    try:
        assert hub.wait(5), hub.problem
        result = CliRunner().invoke(
            bridge_module.serial_bridge, ["--table", table_id, "--port", str(tmp_path / "ttyACM9")]
        )
    finally:
        hub.stop()
    assert result.exit_code == 0, result.output
    assert f"Found table {table_id!r} on the network (mDNS)." in result.output
    assert f"to mqtt://127.0.0.1:{mosquitto.port};" in result.output


def test_bridge_falls_back_to_this_machine(loopback_only, monkeypatch, tmp_path):
    monkeypatch.setattr(bridge_module, "DISCOVERY_S", 0.3)
    result = CliRunner().invoke(
        bridge_module.serial_bridge, ["--table", "nobody-here", "--port", str(tmp_path / "ttyACM9")]
    )
    assert result.exit_code == 0, result.output
    assert "Found table" not in result.output and "to mqtt://127.0.0.1:1883;" in result.output


def test_usage_errors_come_before_any_search(monkeypatch):
    def no_search(*args, **kwargs):
        raise AssertionError("searched the network for a command that was wrong anyway")

    monkeypatch.setattr(discovery, "find_broker", no_search)
    result = CliRunner().invoke(bridge_module.serial_bridge, ["--table", "t1"])
    assert result.exit_code == 2 and "give at least one --port or --usb-id" in result.output
