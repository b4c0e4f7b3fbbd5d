"""The in-process amqtt broker (the fallback when mosquitto is not installed) delivers the table's
retained messages only to the subscriptions that match them, and many clients connecting at once
leave no "dictionary changed size during iteration" in the log (both were amqtt 0.12 bugs that
``companion.mqtt.broker`` works around; see docs/architecture.md#the-embedded-broker)."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.clock import ScaledClock
from companion.core import protocol
from companion.mqtt.bridge import HubBridge
from companion.mqtt.broker import AmqttBroker
from companion.node.sim import SimFleet
from companion.rules.setup import default_setup
from companion.table.session import TableSession
from tests.conftest import wait_seated_online, wait_until
from tests.mqtt.packets import CONNACK_ACCEPTED, connect_packet
from tests.mqtt.test_ha_discovery import Collector

pytest.importorskip("amqtt")


@pytest.fixture
def amqtt_broker():
    broker = AmqttBroker("127.0.0.1").start()
    yield broker
    broker.stop()


def test_a_foreign_subscriber_gets_none_of_the_tables_retained_messages(amqtt_broker, table_id):
    session = TableSession(default_setup(table_id, players=2, timers=1), clock=ScaledClock(1.0))
    bridge = HubBridge(session, amqtt_broker.address).start()  # retains state and hub/status, subscribes
    fleet = SimFleet(table_id, ["red-1", "yellow-1"], amqtt_broker.address, ScaledClock(1.0))
    try:
        assert bridge.wait_listening(10)
        fleet.start()
        assert fleet.wait_connected(10)
        table = Collector(amqtt_broker.address, f"{protocol.table_prefix(table_id)}/#")
        try:  # a subscriber of the table gets its retained messages (the control)
            wait_until(lambda: table.latest(protocol.table_state_topic(table_id)), message="the table state")
        finally:
            table.close()
        foreign = Collector(amqtt_broker.address, "x/+/a", "zzz")
        try:
            marker = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"marker-{table_id}")
            marker.connect(amqtt_broker.address.host, amqtt_broker.address.port)
            marker.loop_start()
            marker.publish("zzz", b"marker", qos=1).wait_for_publish(5)
            marker.disconnect()
            marker.loop_stop()
            # what amqtt sent at connect and subscribe came before this live message
            wait_until(lambda: foreign.count("zzz"), message="the marker")
            with foreign.lock:
                assert [t for t, _, _ in foreign.messages] == ["zzz"]
        finally:
            foreign.close()
    finally:
        fleet.stop()
        bridge.stop()


def test_many_nodes_connecting_at_once_log_no_iteration_errors(amqtt_broker, table_id, caplog):
    caplog.set_level(logging.WARNING)
    session = TableSession(default_setup(table_id, players=8, timers=2), clock=ScaledClock(1.0))
    bridge = HubBridge(session, amqtt_broker.address).start()
    nodes = [seat.node for seat in session.setup.seats]
    fleet = SimFleet(table_id, nodes, amqtt_broker.address, ScaledClock(1.0))
    try:
        assert bridge.wait_listening(10)
        fleet.start()
        assert fleet.wait_connected(15)
        wait_seated_online(session, timeout_s=15)
    finally:
        fleet.stop()
        bridge.stop()
    problems = [r.getMessage() for r in caplog.records if "changed size during iteration" in r.getMessage()]
    assert problems == []


def test_a_dying_amqtt_lets_no_client_back_in_once_it_drops_its_clients(amqtt_broker):
    """The port closes before amqtt drops its sessions, so a client that reconnects at once is
    refused until a broker that stays listens again (it used to be let in by the dying broker and
    dropped a moment later: the table showed the broker lost twice)."""

    def connect(client_id: bytes) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", amqtt_broker.port), timeout=5)
        sock.sendall(connect_packet(client_id))
        assert sock.recv(4) == CONNACK_ACCEPTED
        return sock

    client = connect(b"first")
    others = [connect(b"node-%d" % n) for n in range(20)]  # amqtt drops them one by one after the first
    with client, contextlib.ExitStack() as stack:
        for other in others:
            stack.enter_context(other)
        killer = threading.Thread(target=amqtt_broker.kill)
        killer.start()
        assert client.recv(1) == b"", "the dying broker drops its client"
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", amqtt_broker.port), timeout=5).close()
        killer.join(10)
    amqtt_broker.start()
    connect(b"first").close()  # the restarted broker lets it in
