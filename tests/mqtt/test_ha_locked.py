"""Home Assistant on a locked table broker (``companion run --lan``): a real mosquitto with the ACL
the credential store generates, the hub logged in as ``hub``, simulated nodes with their own
passwords, and a client logged in as Home Assistant's user. It sees every discovery config and every
state, and whatever it publishes outside its rules is dropped by mosquitto without a word, which
only a subscriber can prove: the hub's own user, subscribed to the whole table, never sees it."""

from __future__ import annotations

import json

import pytest

from companion.clock import ScaledClock
from companion.core import protocol
from companion.mqtt.auth import HA_USER, BrokerAuth
from companion.mqtt.bridge import HubBridge
from companion.mqtt.broker import MosquittoBroker, start_embedded_broker
from companion.mqtt.ha_discovery import command_topic, device_id, hub_device_id, hub_state_topic
from companion.node.sim import SimFleet
from companion.rules.setup import default_setup
from companion.table.session import TableSession
from tests.conftest import wait_until
from tests.mqtt.conftest import flip, login

pytestmark = pytest.mark.broker


@pytest.fixture
def locked_table(tmp_path, table_id):
    """A locked mosquitto for the table, its hub with discovery on, two nodes (red-1 with a fuel gauge)."""
    auth = BrokerAuth.for_table(tmp_path / "data", table_id)
    for node in ("red-1", "yellow-1"):
        auth.add_node(node)
    ha = auth.add_home_assistant()  # what `companion ha add` does
    broker = start_embedded_broker("127.0.0.1", None, auth=auth, persistence_dir=tmp_path / "persist")
    assert isinstance(broker, MosquittoBroker)
    session = TableSession(default_setup(table_id, players=2, timers=1), clock=ScaledClock(1.0))
    bridge = HubBridge(session, auth.hub_address(broker.address), ha_discovery=ha.prefix).start()
    fleet = SimFleet(
        table_id,
        ["red-1", "yellow-1"],
        broker.address,
        ScaledClock(1.0),
        heartbeat_s=0.1,
        address_for=lambda node: auth.node_address(broker.address, node),
    )
    fleet.nodes["red-1"].core.battery_mv = 4000
    try:
        assert bridge.wait_listening(10)
        fleet.start()
        assert fleet.wait_connected(10)
        yield auth, broker, session, bridge, fleet, ha
    finally:
        fleet.stop()
        bridge.stop()
        broker.close()


def test_home_assistant_reads_everything_and_writes_only_under_its_prefix(locked_table, table_id):
    auth, broker, session, bridge, fleet, ha = locked_table
    root = protocol.table_prefix(table_id)
    acl = auth.acl_file.read_text()
    assert f"user {HA_USER}\ntopic read {root}/#\ntopic readwrite homeassistant/#\n" in acl
    assert f"user hub\ntopic readwrite {root}/#\ntopic readwrite homeassistant/#\n" in acl

    home = login(ha.address(broker.address), f"ha-{table_id}")
    assert home.ok, home.reason
    home.subscribe("homeassistant/#").subscribe(f"{root}/#")
    hub_eye = login(auth.hub_address(broker.address), f"hub-eye-{table_id}")
    assert hub_eye.ok
    hub_eye.subscribe(f"{root}/#")
    try:
        # every discovery config: the table's five, red's five (with its battery), yellow's four
        def configs() -> set[str]:
            return {t for t in home.topics() if t.endswith("/config") and home.payloads(t)[-1]}

        wait_until(lambda: len(configs()) == 14, timeout_s=10, message="every discovery config")
        devices = {t.split("/")[2] for t in configs()}
        assert devices == {
            hub_device_id(table_id),
            device_id(table_id, "red-1"),
            device_id(table_id, "yellow-1"),
        }
        # and every state those configs read
        for topic in (
            hub_state_topic(table_id),
            protocol.table_state_topic(table_id),
            protocol.hub_status_topic(table_id),
            protocol.node_topic(table_id, "red-1", "status"),
            protocol.node_topic(table_id, "red-1", "event"),
            protocol.node_topic(table_id, "yellow-1", "event"),
        ):
            home.wait_for(topic)
        for topic in configs():
            config = json.loads(home.payloads(topic)[-1])
            for named in [config.get("state_topic")] + [a["topic"] for a in config.get("availability", [])]:
                if named is not None:
                    assert home.payloads(named), f"{topic} reads {named}, which Home Assistant never got"

        # outside its rules: a forged flip, table state, command, hub status, another table
        forged = {
            protocol.node_topic(table_id, "red-1", "event"): flip(1, boot="0badf00d"),
            protocol.table_state_topic(table_id): b'{"forged": "state"}',
            protocol.node_topic(table_id, "red-1", "cmd"): b'{"forged": "cmd"}',
            protocol.hub_status_topic(table_id): b'{"forged": "hub"}',
            protocol.node_topic("elsewhere", "red-1", "event"): b'{"forged": "elsewhere"}',
        }
        for topic, payload in forged.items():
            home.publish(topic, payload, retain=True)
        # inside its rules: a button press, which reaches the hub and the node
        home.publish(command_topic(table_id, "red-1", "identify"), b"PRESS")
        cmd = protocol.node_topic(table_id, "red-1", "cmd")
        wait_until(
            lambda: any(json.loads(p).get("pattern") == "identify" for p in hub_eye.payloads(cmd)),
            message="the identify command the press caused",
        )
        # mosquitto handles one client's messages in order: every forgery came before the press
        seen = [p for t, p, _ in hub_eye.messages]
        assert not any(b"forged" in p or b"0badf00d" in p for p in seen)
        assert not any(
            b"0badf00d" in p for p in home.payloads(protocol.node_topic(table_id, "red-1", "event"))
        )
        assert session.stats.to_dict()["counts"].get("flip", 0) == 0
        assert bridge.ha.presses == 1
    finally:
        home.close()
        hub_eye.close()


def test_home_assistants_birth_message_gets_the_configs_again(locked_table, table_id):
    auth, broker, session, bridge, fleet, ha = locked_table
    home = login(ha.address(broker.address), f"ha-birth-{table_id}")
    try:
        home.subscribe("homeassistant/#")
        topic = f"homeassistant/sensor/{hub_device_id(table_id)}/game/config"
        home.wait_for(topic)
        home.publish("homeassistant/status", b"online")
        assert len(home.wait_for(topic, 2)) >= 2
    finally:
        home.close()


def test_without_its_user_home_assistant_is_refused(locked_table, table_id):
    auth, broker, session, bridge, fleet, ha = locked_table
    assert auth.remove_home_assistant() and auth.reload_broker() is not None
    refused = login(ha.address(broker.address), f"ha-gone-{table_id}")
    assert not refused.ok and "authorized" in (refused.reason or "").lower()


def test_ha_add_then_a_networked_table_publishes_discovery_home_assistant_can_read(tmp_path, table_id):
    """`companion ha add` is the one step: the next `companion run --lan` publishes discovery, with the
    dashboard as the table device's link, and Home Assistant's printed login reads it."""
    from click.testing import CliRunner

    from companion.cli_node import ha as ha_command
    from companion.hub import HubConfig
    from companion.net.addresses import lan_addresses
    from companion.runtime import RunOptions, Table

    assert lan_addresses(), "this machine has no network address besides loopback"
    added = CliRunner().invoke(
        ha_command, ["add", "--table", table_id, "--data-dir", str(tmp_path), "--broker-host", "10.9.8.7"]
    )
    assert added.exit_code == 0, added.stderr
    printed = dict(line.split(": ", 1) for line in added.stdout.splitlines() if not line.startswith("#"))
    assert printed["broker"] == "10.9.8.7" and printed["port"] == "1883"
    assert printed["username"] == HA_USER and printed["discovery prefix"] == "homeassistant"
    again = CliRunner().invoke(ha_command, ["add", "--table", table_id, "--data-dir", str(tmp_path)])
    assert f"password: {printed['password']}" in again.stdout  # an existing user keeps its password

    hub = HubConfig(table=table_id, players=1, timers=1, data_dir=tmp_path, fsync=False)
    with Table(RunOptions(hub=hub, lan=True, mqtt_port=None, http_port=None, heartbeat_s=0.2)) as table:
        address = BrokerAuth.for_table(tmp_path, table_id).home_assistant()
        assert address is not None and address.password == printed["password"]
        home = login(address.address(table.broker.address), f"ha-run-{table_id}")
        assert home.ok, home.reason
        try:
            home.subscribe("homeassistant/#")
            topic = f"homeassistant/sensor/{hub_device_id(table_id)}/game/config"
            wait_until(
                lambda: any(
                    json.loads(p).get("device", {}).get("configuration_url") == table.url
                    for p in home.payloads(topic)
                    if p
                ),
                message="the table device with the dashboard's network address",
            )
            home.wait_for(f"homeassistant/button/{device_id(table_id, 'red-1')}/identify/config")
        finally:
            home.close()
    removed = CliRunner().invoke(ha_command, ["remove", "--table", table_id, "--data-dir", str(tmp_path)])
    assert removed.exit_code == 0 and "removed" in removed.stdout
    gone = CliRunner().invoke(ha_command, ["remove", "--table", table_id, "--data-dir", str(tmp_path)])
    assert gone.exit_code == 2 and "has no Home Assistant user" in gone.stderr
