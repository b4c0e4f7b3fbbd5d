"""Tables sharing one pair of MQTT connections (companion.mqtt.link and HubLinks), as a club's do:
routed by the table id in the topic, batched per table, and no thread more for more tables."""

from __future__ import annotations

import socket
import threading
import time

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.clock import ScaledClock
from companion.mqtt.bridge import HubBridge, HubLinks
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.link import SYNC_THREADS, MqttLink
from companion.node.sim import SimFleet
from companion.rules.setup import default_setup
from companion.table import events as ev
from companion.table import messages as msg
from companion.table.log import EventLog
from companion.table.session import TableSession
from tests.conftest import wait_until
from tests.mqtt.packets import CONNACK_ACCEPTED, read_packet

pytestmark = pytest.mark.broker

NODES = ["red-1", "yellow-1"]


def _table(name: str, links: HubLinks, address, tmp_path) -> tuple[TableSession, HubBridge]:
    setup = default_setup(name, players=2, timers=1)
    log = EventLog.for_new_game(setup, tmp_path / f"{name}.jsonl", fsync=True)
    session = TableSession(setup, clock=ScaledClock(1.0), log=log)
    return session, HubBridge(session, address, links=links).start()


def _flipped(session: TableSession) -> list[tuple[str, int]]:
    return [(e.node, e.seq) for e in session.log.events() if isinstance(e, ev.TimerFlipped)]


def test_tables_on_shared_links_hear_only_their_own_nodes_and_more_tables_start_no_thread(
    mosquitto, table_id, tmp_path
):
    links = HubLinks.for_club(table_id, mosquitto.address).start()
    tables: dict[str, tuple[TableSession, HubBridge]] = {}
    fleets: list[SimFleet] = []
    try:
        for i in range(2):
            name = f"{table_id}-{i}"
            tables[name] = _table(name, links, mosquitto.address, tmp_path)
        before = {t.ident for t in threading.enumerate()}
        for i in range(2, 20):
            name = f"{table_id}-{i}"
            tables[name] = _table(name, links, mosquitto.address, tmp_path)
        started = [t.name for t in threading.enumerate() if t.ident not in before]
        assert not [n for n in started if n.startswith(("paho", "hub-", "mqtt"))], started  # no thread more
        for session, bridge in tables.values():
            assert bridge.connected.wait(10), f"table {session.setup.table} never subscribed"
        for name in list(tables)[:3]:  # the same node ids at three tables
            fleet = SimFleet(name, NODES, mosquitto.address, ScaledClock(1.0))
            fleets.append(fleet.start())
            assert fleet.wait_connected(10)
        for fleet in fleets:
            for node in NODES:
                fleet.flip(node)
        for fleet in fleets:
            wait_until(
                lambda fleet=fleet: all(not n.core.outbox for n in fleet.nodes.values()),
                message="every flip acknowledged",
            )
        for i, (name, (session, _)) in enumerate(tables.items()):
            expected = [(node, 1) for node in NODES] if i < 3 else []
            assert sorted(_flipped(session)) == sorted(expected), name  # its own nodes' flips, once
        pool = [t for t in threading.enumerate() if t.name.startswith("mqtt-club-sync")]
        assert len(pool) <= SYNC_THREADS
    finally:
        for fleet in fleets:
            fleet.stop()
        for session, bridge in tables.values():
            bridge.stop()
            session.log.close()
        links.stop()


def test_a_table_that_ends_leaves_the_others_connected_and_its_nodes_unheard(mosquitto, table_id, tmp_path):
    links = HubLinks.for_club(table_id, mosquitto.address).start()
    kept, kept_bridge = _table(f"{table_id}-kept", links, mosquitto.address, tmp_path)
    ended, ended_bridge = _table(f"{table_id}-ended", links, mosquitto.address, tmp_path)
    fleets = [
        SimFleet(f"{table_id}-kept", NODES, mosquitto.address, ScaledClock(1.0)).start(),
        SimFleet(f"{table_id}-ended", NODES, mosquitto.address, ScaledClock(1.0)).start(),
    ]
    try:
        assert kept_bridge.connected.wait(10) and ended_bridge.connected.wait(10)
        assert all(f.wait_connected(10) for f in fleets)
        ended_bridge.stop()
        assert links.main.connected.is_set() and kept_bridge.connected.is_set()
        fleets[1].flip("red-1")  # nobody answers it any more
        fleets[0].flip("red-1")
        wait_until(lambda: not fleets[0].nodes["red-1"].core.outbox, message="the kept table's ack")
        assert _flipped(kept) == [("red-1", 1)] and _flipped(ended) == []
        assert fleets[1].nodes["red-1"].core.outbox  # still waiting for a hub
    finally:
        for fleet in fleets:
            fleet.stop()
        kept_bridge.stop()
        for session in (kept, ended):
            session.log.close()
        links.stop()


def test_a_command_from_another_thread_leaves_at_once(mosquitto, table_id, tmp_path):
    """A phone's tap (here: identify a node) is handled in a web thread; the link's loop, asleep in its
    selector, is woken to write the command."""
    links = HubLinks.for_club(table_id, mosquitto.address).start()
    session, bridge = _table(table_id, links, mosquitto.address, tmp_path)
    fleet = SimFleet(table_id, NODES, mosquitto.address, ScaledClock(1.0)).start()
    got = threading.Event()
    try:
        assert bridge.connected.wait(10) and fleet.wait_connected(10)
        fleet.nodes["red-1"].on_command = lambda topic: got.set()
        outcome = session.handle(msg.NodeCommand("red-1", "identify"))
        assert outcome.refusal is None
        assert got.wait(5), "the command never reached the node"
    finally:
        fleet.stop()
        bridge.stop()
        session.log.close()
        links.stop()


def test_a_burst_of_acks_leaves_without_waiting_for_the_brokers_pubacks():
    """Acks for a batch of reports go out together even while the broker has answered none of
    them (paho's default holds every publish after the 20th until an older one is answered)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)
    publishes: list[int] = []
    arrived = threading.Event()

    def silent_broker() -> None:
        conn, _ = server.accept()
        with conn, conn.makefile("rb") as stream:
            kind, _ = read_packet(stream) or (0, b"")
            assert kind == 1  # CONNECT
            conn.sendall(CONNACK_ACCEPTED)
            while (packet := read_packet(stream)) is not None:
                if packet[0] == 3:  # PUBLISH, never answered
                    publishes.append(len(packet[1]))
                    if len(publishes) == 50:
                        arrived.set()

    broker = threading.Thread(target=silent_broker, daemon=True)
    broker.start()
    link = MqttLink("burst", BrokerAddress("127.0.0.1", server.getsockname()[1]), name="mqtt-burst")
    link.start()
    try:
        assert link.connected.wait(10)
        for seq in range(50):
            link.publish("companion/v1/t/node/red-1/cmd", f'{{"seq":{seq}}}', qos=1)
        assert arrived.wait(10), f"only {len(publishes)} of 50 publishes left before any PUBACK"
    finally:
        link.stop()
        server.close()


class _Counting:
    """A route that subscribes to its table and counts what it is given."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.messages = 0

    def on_connect(self, link: MqttLink) -> None:
        link.subscribe([(f"companion/v1/{self.table}/#", 0)])

    def on_disconnect(self, link: MqttLink, reason: str) -> None: ...

    def on_connect_fail(self, link: MqttLink, reason: str, *, refused: bool) -> None: ...

    def on_message(self, link: MqttLink, msg) -> bool:
        self.messages += 1
        return False

    def flush(self) -> None: ...


def test_a_gathering_link_reads_at_most_once_a_gather_however_fast_messages_come(mosquitto, table_id):
    """The side connection (``gather_s``) lets what arrives during a gather wait in its socket and
    reads it in one pass: 200 messages sent over about 2 s are all read, in no more passes than
    gathers fit in the time (one pass each without it)."""
    gather_s = 0.5
    link = MqttLink("gather", mosquitto.address, name="mqtt-gather", gather_s=gather_s)
    route = _Counting(table_id)
    link.add_route(table_id, route)
    link.start()
    sender = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{table_id}-sender")
    sender.connect(mosquitto.address.host, mosquitto.address.port)
    sender.loop_start()
    try:
        assert link.connected.wait(10)
        assert link.wait_subscribed(10)
        began, reads = time.monotonic(), link.reads
        for _ in range(200):
            sender.publish(f"companion/v1/{table_id}/node/red-1/event", b"{}", qos=0).wait_for_publish(5)
            time.sleep(0.01)
        wait_until(lambda: route.messages == 200, timeout_s=10, message="every message read")
        passes = link.reads - reads
        # each pass that read came at least gather_s after the one before, all of them since began
        most = int((time.monotonic() - began) / gather_s) + 1
        assert passes <= most, f"{passes} passes for 200 messages (at most {most} with a {gather_s} s gather)"
    finally:
        sender.loop_stop()
        sender.disconnect()
        link.stop()
