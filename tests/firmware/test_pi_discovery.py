"""The Pi node without a broker URL finds its table's broker by mDNS: real python-zeroconf on loopback,
a real mosquitto, the unmodified node on gpiozero mock pins."""

from __future__ import annotations

import logging

from companion_node_pi import PiNode, load_config, parse_config
from companion_node_pi.__main__ import main

from companion.core import protocol
from companion.net.discovery import TableAnnouncer
from tests.conftest import wait_until

LOOPBACK = ["127.0.0.1"]


def _config(table_id: str, **broker):
    return parse_config({"node": {"id": "pi-1", "table": table_id, "sand_s": 8}, "broker": broker})


def _announce(table: str, port: int, **kw) -> TableAnnouncer:
    announcer = TableAnnouncer(
        table=table, address="127.0.0.1", http_port=None, mqtt_port=port, interfaces=LOOPBACK, **kw
    ).start()
    assert announcer.wait(5), announcer.problem
    return announcer


def test_broker_table_without_url_means_discovery(tmp_path, capsys):
    cfg = _config("kitchen", username="pi-1", password="secret")
    assert cfg.discovers_broker and cfg.broker.username == "pi-1" and cfg.broker.password == "secret"
    assert not _config("kitchen", url="mqtt://hub.local").discovers_broker
    path = tmp_path / "node.toml"
    path.write_text('[node]\nid = "pi-1"\ntable = "kitchen"\n[broker]\n')
    assert load_config(path).discovers_broker
    assert main(["--config", str(path), "--check-config"]) == 0
    assert "broker found on the network (mDNS, table kitchen)" in capsys.readouterr().out


def test_node_finds_the_announced_broker(mosquitto, table_id, mock_pins, ms, recorder_factory):
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/pi-1/#")
    other = _announce(table_id + "-other", 1)  # another table in the same café: never joined
    hub = _announce(table_id, mosquitto.port)
    node = PiNode(_config(table_id), clock=ms, boot_id="0a1b2c3d", mdns_interfaces=LOOPBACK).start()
    try:
        assert node.connected.wait(8), "the node did not find and join the announced broker"
        assert node.broker is not None and (node.broker.host, node.broker.port) == (
            "127.0.0.1",
            mosquitto.port,
        )
        rec.wait_for(1, kind="hello", suffix="/event")
        assert node.step() in ("empty", "running")
    finally:
        node.close()
        hub.stop()
        other.stop()


def test_node_waits_for_a_hub_that_starts_later(mosquitto, table_id, mock_pins, ms, recorder_factory):
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/pi-1/#")
    node = PiNode(_config(table_id), clock=ms, boot_id="0a1b2c3d", mdns_interfaces=LOOPBACK).start()
    hub = None
    try:
        assert not node.connected.wait(1.0)
        for _ in range(20):  # the GPIO loop runs on while nothing is found
            ms.t += 10
            assert node.step() == "offline"
        hub = _announce(table_id, mosquitto.port)  # the hub's own announcement wakes the node
        assert node.connected.wait(8)
        rec.wait_for(1, kind="hello", suffix="/event")
    finally:
        node.close()
        if hub is not None:
            hub.stop()


def test_node_follows_a_hub_that_comes_back_elsewhere(
    mosquitto, fresh_mosquitto, table_id, mock_pins, ms, recorder_factory
):
    """The hub restarts on another address (here another port): the node reconnects there."""
    first = _announce(table_id, fresh_mosquitto.port)
    node = PiNode(_config(table_id), clock=ms, boot_id="0a1b2c3d", mdns_interfaces=LOOPBACK).start()
    second = None
    try:
        assert node.connected.wait(8)
        first.stop()  # goodbye, and the hub's broker goes away
        fresh_mosquitto.close()
        wait_until(lambda: not node.connected.is_set(), timeout_s=10, message="the node to notice")
        rec = recorder_factory(protocol.table_prefix(table_id) + "/node/pi-1/#")
        second = _announce(table_id, mosquitto.port)
        wait_until(
            lambda: node.connected.is_set(), timeout_s=15, message="the node to reconnect at the new address"
        )
        assert node.broker is not None and node.broker.port == mosquitto.port
        rec.wait_for(1, kind="hello", suffix="/event")
    finally:
        node.close()
        if second is not None:
            second.stop()


def test_node_keeps_its_credentials(mosquitto, table_id, mock_pins, ms):
    hub = _announce(table_id, mosquitto.port, auth=True)
    node = PiNode(
        _config(table_id, username="pi-1", password="secret"), clock=ms, mdns_interfaces=LOOPBACK
    ).start()
    try:
        assert node.connected.wait(8)
        assert node.broker is not None
        assert (node.broker.username, node.broker.password, node.broker.tls) == ("pi-1", "secret", False)
    finally:
        node.close()
        hub.stop()


def test_node_refuses_a_tls_mismatch(table_id, mock_pins, ms, caplog):
    hub = _announce(table_id, 8883, tls=True)
    node = PiNode(_config(table_id), clock=ms, mdns_interfaces=LOOPBACK)
    try:
        with caplog.at_level(logging.ERROR, logger="companion_node_pi.node"):
            node.start()
            wait_until(lambda: "wants TLS" in caplog.text, timeout_s=8, message="the TLS refusal")
        assert node.radio.client is None  # never connected in the clear to a TLS port
    finally:
        node.close()
        hub.stop()
