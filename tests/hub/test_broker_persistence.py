"""The embedded mosquitto keeps what it holds across a restart: retained messages and the QoS 1
node events queued for the hub's persistent session while the hub was away."""

from __future__ import annotations

import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.clock import FakeClock
from companion.core import protocol
from companion.core.node import NodeCore
from companion.hub import HubConfig
from companion.mqtt.bridge import HubBridge
from companion.mqtt.broker import MosquittoBroker
from companion.rules.setup import default_setup
from companion.runtime import RunOptions, Table
from companion.table import events as ev
from companion.table.session import TableSession
from tests.conftest import wait_until

pytestmark = pytest.mark.broker


def test_the_generated_config_turns_persistence_on(tmp_path):
    broker = MosquittoBroker(persistence_dir=tmp_path / "kept")
    try:
        config = broker.config_text()
        assert "persistence true" in config and "persistence false" not in config
        assert f"persistence_location {tmp_path / 'kept'}/" in config
        assert "autosave_interval 30" in config and "max_queued_messages 10000" in config
    finally:
        broker.close()
    memory = MosquittoBroker()  # no folder given: a temporary one, still persistent
    try:
        assert "persistence true" in memory.config_text()
        assert memory.persistence_dir.is_dir()
    finally:
        memory.close()


def test_the_table_keeps_the_broker_under_its_data_directory_or_in_a_temporary_folder(tmp_path, table_id):
    def persistence(data_dir: Path | None) -> Path:
        options = RunOptions(
            hub=HubConfig(table=table_id, players=2, timers=1, data_dir=data_dir),
            embedded="mosquitto",
            mqtt_port=None,
            http_port=None,
            simulate=False,
        )
        with Table(options) as table:
            assert isinstance(table.broker, MosquittoBroker)
            return table.broker.persistence_dir

    assert persistence(tmp_path) == tmp_path / "broker" / table_id
    memory = persistence(None)  # --memory
    assert not memory.is_relative_to(tmp_path) and memory.name == "persistence"
    assert (tmp_path / "broker" / table_id / "mosquitto.db").exists(), "saved when the table stopped"


def test_node_events_queued_for_the_absent_hub_survive_a_broker_restart(restartable_mosquitto, table_id):
    broker = restartable_mosquitto
    session = TableSession(default_setup(table_id, players=2, timers=1), clock=FakeClock())
    hub = HubBridge(session, broker.address).start()  # subscribes: its persistent session exists now
    assert hub.wait_listening(5)
    hub.stop()  # the hub goes away; the broker keeps its session and queues for it

    core = NodeCore(table_id, "red-1", lambda: int(time.monotonic() * 1000), "0badcafe")
    node = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"node-{table_id}")
    node.connect(broker.address.host, broker.address.port)
    node.loop_start()
    sent = [*core.on_connect(), *core.flip(), *core.flip(), *core.flip()]
    for topic, payload, retain in sent:
        node.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)
    node.disconnect()  # gone too: the flips are only in the broker now
    node.loop_stop()
    assert core.seq == 3

    broker.stop()  # in order (SIGTERM): mosquitto saves its persistence file
    broker.start()  # same port, same folder

    hub = HubBridge(session, broker.address).start()
    try:
        wait_until(
            lambda: len([e for e in session.log.events() if isinstance(e, ev.NODE_REPORTS)]) == 3,
            message="the flips the broker kept for the hub",
        )
        reports = [(e.node, e.boot, e.seq) for e in session.log.events() if isinstance(e, ev.NODE_REPORTS)]
        assert reports == [("red-1", "0badcafe", n) for n in (1, 2, 3)]
        assert session.table.link("red-1").online, "the node's retained status survived too"
    finally:
        hub.stop()


def test_retained_messages_survive_a_restart_of_the_embedded_broker(tmp_path, table_id):
    broker = MosquittoBroker(persistence_dir=tmp_path / "broker").start()
    try:
        writer = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"w-{table_id}")
        writer.connect(broker.address.host, broker.address.port)
        writer.loop_start()
        topic = protocol.node_topic(table_id, "red-1", "status")
        writer.publish(topic, protocol.status_payload(True), qos=1, retain=True).wait_for_publish(5)
        writer.disconnect()
        writer.loop_stop()
        broker.stop()
        broker.start()
        got: list[bytes] = []
        reader = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"r-{table_id}")
        reader.on_message = lambda c, u, m: got.append(m.payload)
        reader.connect(broker.address.host, broker.address.port)
        reader.subscribe(topic, qos=1)
        reader.loop_start()
        wait_until(lambda: got, message="the retained status after the restart")
        assert got == [protocol.status_payload(True)]
        reader.disconnect()
        reader.loop_stop()
    finally:
        broker.close()
