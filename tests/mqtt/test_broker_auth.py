"""A table's broker locked to its users, against a real mosquitto: who may log in, and what each may say.

The broker is the embedded mosquitto as ``start_embedded_broker(auth=...)`` runs it, with the
password and ACL files made by ``companion.mqtt.auth`` from the table's credential store.
"""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
from dataclasses import replace

import pytest

from companion.clock import FakeClock, ScaledClock
from companion.core import protocol
from companion.errors import ConfigError
from companion.mqtt import broker as broker_module
from companion.mqtt.auth import BrokerAuth
from companion.mqtt.bridge import HubBridge
from companion.mqtt.broker import (
    LAN_NEEDS_MOSQUITTO,
    BrokerAddress,
    MosquittoBroker,
    require_mosquitto_for_lan,
    start_embedded_broker,
)
from companion.mqtt.supervisor import BrokerSupervisor
from companion.node.sim import SimFleet, SimNode
from companion.rules.setup import default_setup
from companion.table.session import TableSession
from tests.conftest import wait_seated_online, wait_until
from tests.mqtt.certs import make_tls_files
from tests.mqtt.conftest import Locked, flip, login
from tests.mqtt.packets import connect_packet


def _topic(table: str, node: str, channel: str) -> str:
    return protocol.node_topic(table, node, channel)


# --- who may log in ------------------------------------------------------------------------
def test_anonymous_unknown_and_wrong_password_clients_are_refused(locked: Locked):
    address = locked.broker.address
    assert login(address, "anon").reason == "Not authorized"
    assert login(address, "wrong", username="red-1", password="not-its-password").reason == "Not authorized"
    assert login(address, "stranger", username="laptop", password="guess").reason == "Not authorized"
    assert login(address, "hub-as-node", username="hub", password="red").reason == "Not authorized"
    assert login(locked.node("red-1"), "red").ok
    assert login(locked.hub, "hub").ok


def test_without_auth_the_embedded_broker_stays_anonymous(tmp_path):
    broker = MosquittoBroker("127.0.0.1", persistence_dir=tmp_path / "p")
    text = broker.config_text()
    assert "allow_anonymous true" in text and "password_file" not in text and "acl_file" not in text
    assert text.count("listener ") == 1
    broker.close()


# --- what each may say -------------------------------------------------------------------------
def test_a_node_publishing_on_another_nodes_topics_is_dropped(locked: Locked):
    table = locked.table
    hub = login(locked.hub, "hub-listener").subscribe(protocol.table_prefix(table) + "/#")
    red = login(locked.node("red-1"), "red-raw")
    red.publish(_topic(table, "yellow-1", "event"), flip(1))  # accepted at QoS 1, then dropped
    red.publish(_topic(table, "yellow-1", "status"), protocol.status_payload(False), retain=True)
    red.publish(protocol.table_state_topic(table), b'{"v": 1, "kind": "table"}', retain=True)
    red.publish(protocol.hub_status_topic(table), protocol.status_payload(False), retain=True)
    red.publish(_topic(table, "yellow-1", "cmd"), b"{}")
    red.publish(_topic("another-table", "red-1", "event"), flip(1))
    red.publish(_topic(table, "red-1", "event"), flip(1))  # its own: after the others on one connection
    hub.wait_for(_topic(table, "red-1", "event"))
    assert hub.topics() == [_topic(table, "red-1", "event")]
    for client in (hub, red):
        client.close()


def test_a_node_reads_only_its_commands_the_state_and_the_hubs_status(locked: Locked):
    table = locked.table
    hub = login(locked.hub, "hub-sender")
    red = login(locked.node("red-1"), "red-reader")
    for topic_filter in (
        _topic(table, "yellow-1", "cmd"),  # granted by mosquitto 2.0, but nothing is delivered
        _topic(table, "yellow-1", "event"),
        _topic(table, "red-1", "cmd"),
        protocol.table_state_topic(table),
        protocol.hub_status_topic(table),
    ):
        red.subscribe(topic_filter)
    hub.publish(_topic(table, "yellow-1", "cmd"), b"for yellow")
    hub.publish(_topic(table, "yellow-1", "event"), b"yellow's event")
    hub.publish(protocol.table_state_topic(table), b"state", retain=True)
    hub.publish(protocol.hub_status_topic(table), protocol.status_payload(True), retain=True)
    hub.publish(_topic(table, "red-1", "cmd"), b"for red")
    red.wait_for(_topic(table, "red-1", "cmd"))
    assert red.topics() == [
        protocol.table_state_topic(table),
        protocol.hub_status_topic(table),
        _topic(table, "red-1", "cmd"),
    ]
    for client in (hub, red):
        client.close()


def test_a_last_will_on_someone_elses_topic_is_not_published(locked: Locked):
    table = locked.table
    hub = login(locked.hub, "hub-listener").subscribe(protocol.table_prefix(table) + "/#")
    forged = login(locked.node("red-1"), "red-forger", will=(protocol.table_state_topic(table), b"forged"))
    own = login(locked.node("red-1"), "red-own", will=(_topic(table, "red-1", "status"), b"own will"))
    forged.die()
    own.die()
    hub.wait_for(_topic(table, "red-1", "status"))
    assert hub.topics() == [_topic(table, "red-1", "status")]
    hub.close()


def _hub(locked: Locked, players: int = 2) -> tuple[TableSession, HubBridge]:
    session = TableSession(default_setup(locked.table, players=players, timers=1), clock=FakeClock())
    bridge = HubBridge(session, locked.hub).start()
    assert bridge.wait_listening(5), "the hub could not log in"
    return session, bridge


def test_the_hub_with_its_credentials_hears_nodes_and_answers_them(locked: Locked):
    session, bridge = _hub(locked)
    fleet = SimFleet(
        locked.table,
        ["red-1", "yellow-1"],
        locked.broker.address,
        ScaledClock(1.0),
        address_for=lambda node: locked.auth.node_address(locked.broker.address, node),
    ).start()
    try:
        assert fleet.wait_connected(5)
        wait_seated_online(session)
        fleet.flip("red-1")
        wait_until(lambda: session.state.timers["red-1"].flips == 1, message="the hub counts red-1's flip")
        wait_until(lambda: fleet.nodes["red-1"].show() == "accepted", message="red-1 gets the hub's ack")
        assert fleet.nodes["red-1"].core.outbox == []
    finally:
        fleet.stop()
        bridge.stop()


def test_a_forged_flip_never_reaches_the_hub(locked: Locked):
    """red-1's password cannot flip yellow-1's timer: the broker drops it before the hub."""
    session, bridge = _hub(locked)
    forger = login(locked.node("red-1"), "red-forger")
    try:
        forger.publish(_topic(locked.table, "yellow-1", "event"), flip(1))
        forger.publish(_topic(locked.table, "red-1", "event"), b"sync")  # its own topic, after the forgery
        wait_until(lambda: session.stats.counts["rejected_malformed"] == 1, message="the hub saw the sync")
        assert session.state.timers["yellow-1"].flips == 0
        assert session.stats.counts["rejected"] == 1  # only the sync, which is not JSON
    finally:
        forger.close()
        bridge.stop()


def test_on_an_open_broker_anyone_speaks_for_any_node(mosquitto, table_id):
    """Why the ACL matters: the hub knows a node only by the topic (MQTT 3.1.1 does not say who
    published), so on an anonymous broker a client logged in as "red-1" counts as yellow-1."""
    session = TableSession(default_setup(table_id, players=2, timers=1), clock=FakeClock())
    bridge = HubBridge(session, mosquitto.address).start()
    assert bridge.wait_listening(5)
    stranger = login(mosquitto.address, "laptop", username="red-1", password="anything")
    try:
        assert stranger.ok  # an anonymous broker lets any user name in
        stranger.publish(_topic(table_id, "yellow-1", "event"), flip(1))
        wait_until(lambda: session.state.timers["yellow-1"].flips == 1, message="yellow-1's timer flipped")
        assert session.state.timers["red-1"].flips == 0  # the user name played no part
    finally:
        stranger.close()
        bridge.stop()


def test_the_hub_still_refuses_what_no_seated_node_could_say(locked: Locked):
    """Even from a node with valid credentials, the hub refuses what is not a seated node's report."""
    locked.auth.add_node("green-9")  # has a password, but no seat at this table
    assert locked.auth.reload_broker() is not None
    session, bridge = _hub(locked)
    green = login(locked.node("green-9"), "green")
    try:
        green.publish(_topic(locked.table, "green-9", "event"), flip(1))
        wait_until(lambda: session.stats.counts["rejected_unknown_node"] == 1, message="unknown node refused")
        assert all(timer.flips == 0 for timer in session.state.timers.values())
    finally:
        green.close()
        bridge.stop()


# --- changes while the broker runs -------------------------------------------------------------
def test_a_revoked_node_is_dropped_and_refused_after_the_reload(locked: Locked):
    red = SimNode(locked.table, "red-1", locked.node("red-1"), ScaledClock(1.0)).start()
    yellow = SimNode(locked.table, "yellow-1", locked.node("yellow-1"), ScaledClock(1.0)).start()
    try:
        assert red.connected.wait(5) and yellow.connected.wait(5)
        old = locked.node("red-1")
        entry = locked.auth.revoke("red-1")
        assert entry.is_revoked and login(old, "red-again").ok  # nothing changes before the reload
        done = locked.auth.reload_broker()  # what `companion node revoke` does, through broker.json
        assert done is not None and str(locked.broker.pid) in done
        wait_until(lambda: not red.connected.is_set(), message="red-1 dropped at the reload")
        wait_until(lambda: login(old, "red-again").reason == "Not authorized", message="red-1 refused")
        assert yellow.connected.is_set()  # the others stay connected
        assert not red.connected.is_set()  # and red-1's own retries are refused
    finally:
        red.stop()
        yellow.stop()


def test_a_node_added_while_the_broker_runs_logs_in_after_the_reload(locked: Locked):
    before = login(locked.broker.address, "green", username="green-1", password="x")
    assert before.reason == "Not authorized"
    creds = locked.auth.add_node("green-1")
    assert locked.broker.reload()
    wait_until(lambda: login(creds.address(locked.broker.address), "green").ok, message="green-1 logs in")


def test_a_new_password_replaces_the_old_one(locked: Locked):
    old = locked.node("red-1")
    new = locked.auth.add_node("red-1", new_password=True).address(locked.broker.address)
    assert new.password != old.password
    assert locked.broker.reload()
    wait_until(lambda: login(new, "red-new").ok, message="the new password works")
    assert login(old, "red-old").reason == "Not authorized"


def test_a_restarted_broker_uses_the_same_files(locked: Locked):
    locked.auth.revoke("yellow-1")
    assert locked.broker.reload()
    supervisor = BrokerSupervisor(locked.broker).start()
    try:
        first_pid = locked.broker.pid
        locked.broker.kill()
        wait_until(lambda: supervisor.restarts == 1 and locked.broker.is_running(), message="restarted")
        assert locked.broker.pid != first_pid
        assert login(locked.broker.address, "anon").reason == "Not authorized"
        assert login(locked.node("red-1"), "red").ok and login(locked.hub, "hub").ok
        yellow = login(locked.broker.address, "yellow", username="yellow-1", password="x")
        assert yellow.reason == "Not authorized"
        assert locked.auth.running_broker_pid() == locked.broker.pid  # the record follows the restart
    finally:
        supervisor.stop()


def test_a_stale_broker_record_is_never_signalled(tmp_path, table_id):
    auth = BrokerAuth.for_table(tmp_path, table_id)
    other = subprocess.Popen(["sleep", "30"])
    try:
        auth.record_broker(other.pid, ["/usr/sbin/mosquitto", "-c", "/tmp/gone/mosquitto.conf"])
        assert auth.running_broker_pid() is None
        assert auth.reload_broker() is None
        assert other.poll() is None  # SIGHUP would have ended it
    finally:
        other.kill()
        other.wait()


def test_stopping_the_broker_forgets_its_record(locked: Locked):
    assert locked.auth.running_broker_pid() == locked.broker.pid
    locked.broker.stop()
    assert not locked.auth.broker_record.exists()
    assert locked.auth.reload_broker() is None


# --- TLS ---------------------------------------------------------------------------------------
def test_tls_connects_with_the_tables_ca(locked_tls: Locked):
    tls = locked_tls.broker.tls_address
    assert tls is not None and tls.tls and tls.ca_file
    hub = login(locked_tls.hub, "hub-plain-loopback").subscribe(
        protocol.table_prefix(locked_tls.table) + "/#"
    )
    node = login(locked_tls.node("red-1", tls), "red-tls")
    assert node.ok
    node.publish(_topic(locked_tls.table, "red-1", "event"), flip(1))
    hub.wait_for(_topic(locked_tls.table, "red-1", "event"))
    assert login(replace(tls, username="red-1", password="wrong"), "red-bad").reason == "Not authorized"
    assert login(replace(tls, username=None, password=None), "anon-tls").reason == "Not authorized"
    for client in (hub, node):
        client.close()


def test_tls_fails_without_the_ca_or_with_another(locked_tls: Locked, other_ca):
    tls = locked_tls.node("red-1", locked_tls.broker.tls_address)
    with pytest.raises(ssl.SSLCertVerificationError):
        login(replace(tls, ca_file=None), "red-system-cas")  # the system's CAs never signed it
    with pytest.raises(ssl.SSLCertVerificationError):
        login(replace(tls, ca_file=str(other_ca)), "red-other-ca")


def test_plain_mqtt_on_the_tls_port_gets_nowhere(locked_tls: Locked):
    """A client that does not speak TLS (a password in clear) is cut off at its first bytes."""
    tls = locked_tls.broker.tls_address
    assert tls is not None
    with socket.create_connection((tls.host, tls.port), timeout=5) as sock:
        sock.sendall(connect_packet(keepalive_s=15))
        try:
            answer = sock.recv(4)
        except ConnectionResetError:
            answer = b""
    assert answer == b""  # no CONNACK (0x20): the connection is closed


def test_tls_checks_the_host_name(tmp_path, table_id):
    files = make_tls_files(tmp_path / "tls", ["hub.example"])
    auth = BrokerAuth.for_table(tmp_path / "data", table_id)
    auth.add_node("red-1")
    broker = start_embedded_broker("127.0.0.1", None, auth=auth, tls=files, tls_port=None)
    try:
        assert broker.tls_address is not None
        with pytest.raises(ssl.SSLCertVerificationError, match="127.0.0.1"):
            login(auth.node_address(broker.tls_address, "red-1"), "red")
    finally:
        broker.close()


def test_with_tls_the_plain_listener_is_loopback_only(tmp_path, table_id, table_tls):
    auth = BrokerAuth.for_table(tmp_path / "data", table_id)
    broker = MosquittoBroker("0.0.0.0", 18830, auth=auth, tls=table_tls, tls_port=18883)
    text = broker.config_text()
    assert "listener 18830 127.0.0.1" in text and "listener 18883 0.0.0.0" in text
    assert f"certfile {table_tls.certfile}" in text and f"keyfile {table_tls.keyfile}" in text
    assert "allow_anonymous false" in text and "allow_anonymous true" not in text
    assert broker.address == BrokerAddress("127.0.0.1", 18830)
    assert broker.tls_address == BrokerAddress("127.0.0.1", 18883, tls=True, ca_file=str(table_tls.cafile))
    broker.close()


def test_the_tables_tls_folder_is_found(tmp_path, table_id, table_tls):
    auth = BrokerAuth.for_table(tmp_path, table_id)
    assert auth.tls_files() is None
    auth.tls_dir.mkdir()
    for src, name in ((table_tls.cafile, "ca.crt"), (table_tls.certfile, "broker.crt")):
        (auth.tls_dir / name).write_bytes(src.read_bytes())
    assert auth.tls_files() is None  # the key is missing
    (auth.tls_dir / "broker.key").write_bytes(table_tls.keyfile.read_bytes())
    found = auth.tls_files()
    assert found is not None and found.cafile == auth.tls_dir / "ca.crt"


def test_unreadable_tls_files_are_one_clear_error(tmp_path, table_id, table_tls):
    auth = BrokerAuth.for_table(tmp_path, table_id)
    missing = replace(table_tls, keyfile=tmp_path / "nope.key")
    with pytest.raises(ConfigError, match="the broker's TLS key .*nope.key.* cannot be read"):
        start_embedded_broker("127.0.0.1", None, auth=auth, tls=missing)
    with pytest.raises(ConfigError, match="needs the table's credentials"):
        start_embedded_broker("127.0.0.1", None, tls=table_tls)


# --- amqtt -------------------------------------------------------------------------------------
def test_a_locked_table_refuses_amqtt_and_names_the_package(tmp_path, table_id, monkeypatch):
    auth = BrokerAuth.for_table(tmp_path, table_id)
    with pytest.raises(ConfigError, match="apt-get install mosquitto"):
        start_embedded_broker("127.0.0.1", None, prefer="amqtt", auth=auth)
    monkeypatch.setattr(broker_module, "find_mosquitto", lambda: None)
    with pytest.raises(ConfigError) as caught:
        require_mosquitto_for_lan("auto")
    assert str(caught.value) == LAN_NEEDS_MOSQUITTO and "apt-get install mosquitto" in str(caught.value)
    with pytest.raises(ConfigError, match="apt-get install mosquitto"):
        start_embedded_broker("127.0.0.1", None, auth=auth)
    with pytest.raises(ConfigError, match="unknown embedded broker"):
        require_mosquitto_for_lan("rabbit")


def test_require_mosquitto_for_lan_gives_the_binary():
    assert os.path.basename(require_mosquitto_for_lan()) == "mosquitto"
