"""The hub's MQTT side bounds what a flood can cost: the broker's own limits, a rate per node id
decided before anything else, a flooding node moved off the main connection, and warnings said
once (the full-sized floods with latencies are in tests/faults/test_mqtt_flood.py); and which
connection takes a node's messages as the seats change."""

from __future__ import annotations

import logging
import threading
import time

import paho.mqtt.client as mqtt
import pytest

from companion.clock import ScaledClock
from companion.core import protocol
from companion.hub import HubConfig
from companion.mqtt.bridge import NODE_BURST, QUARANTINE_S, STRANGERS, HubBridge, NodeRateLimit
from companion.mqtt.broker import MESSAGE_SIZE_LIMIT, MosquittoBroker
from companion.mqtt.client import connect_in_background, make_client
from companion.table import messages as tm
from companion.table.session import RepeatedWarnings, TableSession
from tests.conftest import wait_until


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_node_may_send_its_burst_at_once_then_its_rate_and_the_rest_is_dropped_and_counted(caplog):
    clock = Clock()
    limit = NodeRateLimit(rate_per_s=20, burst=200, monotonic=clock)
    caplog.set_level(logging.WARNING, logger="companion.mqtt.bridge")
    assert all(limit.allow("red-1") for _ in range(200))  # an outbox of 64 and more, with its hello
    assert not any(limit.allow("red-1") for _ in range(1000))
    assert limit.dropped["red-1"] == 1000
    clock.now += 1.0
    assert sum(limit.allow("red-1") for _ in range(100)) == 20  # 20 more a second
    assert limit.allow("yellow-1")  # another node has its own allowance
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "node red-1" in lines[0] and "dropped" in lines[0]
    clock.now += 61
    assert sum(limit.allow("red-1") for _ in range(300)) == 200  # full again after a quiet minute
    assert len(caplog.records) == 2  # said again a minute later, not once per message
    assert limit.to_dict()["by_node"]["red-1"] == limit.dropped["red-1"]


def test_node_ids_the_table_has_not_seated_share_one_allowance():
    clock = Clock()
    limit = NodeRateLimit(rate_per_s=20, burst=10, strangers_rate_per_s=5, monotonic=clock)
    assert sum(limit.allow(STRANGERS) for _ in range(50)) == 10
    clock.now += 2.0
    assert sum(limit.allow(STRANGERS) for _ in range(50)) == 10  # 5 a second, refilled to 10
    assert limit.to_dict()["by_node"] == {"(not seated)": 80}


def flood_message(table: str, node: str, seq: int) -> mqtt.MQTTMessage:
    message = mqtt.MQTTMessage(topic=protocol.node_topic(table, node, "event").encode())
    message.payload = protocol.encode(
        "event", "flip", boot="0a1b2c3d", seq=seq, t_ms=seq, upper_ms=60000, lower_ms=0
    )
    return message


def test_a_seated_node_beyond_its_rate_is_dropped_before_it_is_decided_and_moved_aside():
    session = TableSession(HubConfig(table="rate").setup(), clock=ScaledClock(1.0))
    clock = Clock()
    bridge = HubBridge(session, _nowhere(), monotonic=clock)  # driven by hand: paho's callbacks
    decided: list[object] = []
    handle_batch = session.handle_batch
    session.handle_batch = lambda batch: (decided.extend(batch), handle_batch(batch))[1]  # type: ignore[method-assign]
    node = session.setup.seats[0].node
    for seq in range(1, NODE_BURST + 301):  # the broker delivers to both connections
        message = flood_message("rate", node, seq)
        bridge._on_message(bridge.client, None, message)
        bridge._on_side_message(bridge.side, None, message)
    # (the message that tipped it over reaches both connections: it is counted twice)
    assert len(decided) == NODE_BURST and bridge.rate_limit.dropped[node] == 301
    assert node in bridge._quarantine and node not in bridge._subscribed  # moved to the side connection
    other = session.setup.seats[1].node
    bridge._on_message(bridge.client, None, flood_message("rate", other, 1))
    assert len(decided) == NODE_BURST + 1  # the other nodes go on as before
    clock.now += QUARANTINE_S + 1  # calm again: its next report is decided and it goes back
    bridge._on_side_message(bridge.side, None, flood_message("rate", node, 1000))
    assert len(decided) == NODE_BURST + 2 and node not in bridge._quarantine and node in bridge._subscribed
    bridge._on_message(bridge.client, None, flood_message("rate", node, 1001))
    assert len(decided) == NODE_BURST + 3


def test_which_connection_takes_a_node_follows_the_seats_as_they_change():
    from tests.table.test_seats_and_shows import FactoryReferee

    setup = HubConfig(table="seats").setup()
    session = TableSession(setup, clock=ScaledClock(1.0), referee=FactoryReferee(setup))
    bridge = HubBridge(session, _nowhere(), monotonic=Clock())
    decided: list[object] = []
    handle_batch = session.handle_batch
    session.handle_batch = lambda batch: (decided.extend(batch), handle_batch(batch))[1]  # type: ignore[method-assign]

    def both(node: str, seq: int) -> None:  # the broker delivers to both connections, main first
        message = flood_message("seats", node, seq)
        bridge._on_message(bridge.client, None, message)
        bridge._on_side_message(bridge.side, None, message)

    seated = session.setup.seats[0].node
    both(seated, 1)
    assert [m.node for m in decided] == [seated]  # taken once, by the main connection
    both("spare-9", 1)  # not seated: the side connection takes it (and it is refused)
    assert [m.node for m in decided] == [seated, "spare-9"]
    player = session.setup.seats[0].player
    session.handle(tm.PlayerAction(player, {"type": "factory"}))  # a seat waits for a node
    both("spare-9", 2)  # still taken by the side connection, and it takes the seat
    assert session.setup.seat_of("spare-9") is not None and len(decided) == 3
    both("spare-9", 3)  # seated now: the main connection takes it, the side one leaves its copy
    assert len(decided) == 4 and session.state.timers["spare-9"].flips == 1
    assert "spare-9" in bridge._subscribed  # and the main connection subscribed to its topics
    bridge._on_side_message(bridge.side, None, flood_message("seats", "spare-9", 4))
    assert len(decided) == 4  # a seated node's message on the side connection alone is a copy


def _nowhere():  # a broker address nobody listens on: the bridge is driven by hand here
    from companion.mqtt.broker import BrokerAddress

    return BrokerAddress("127.0.0.1", 9)


def test_3000_made_up_node_ids_are_said_in_a_few_lines_then_summed_up(caplog):
    clock = Clock()
    warnings = RepeatedWarnings(every_s=60.0, monotonic=clock)
    caplog.set_level(logging.WARNING, logger="companion.table.session")
    for i in range(3000):
        warnings.warn("unknown_node", f"node 'fake-{i}' is not paired with a seat")
    assert len(caplog.records) == RepeatedWarnings.NEW_PER_WINDOW
    clock.now += 61
    warnings.warn("unknown_node", "node 'fake-9999' is not paired with a seat")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == RepeatedWarnings.NEW_PER_WINDOW + 2
    assert "2995 more from other senders" in lines[-2] and "fake-9999" in lines[-1]
    warnings.warn("malformed", "payload is not valid JSON")  # another category has its own budget
    assert len(caplog.records) == RepeatedWarnings.NEW_PER_WINDOW + 3


@pytest.mark.broker
def test_the_embedded_mosquitto_is_configured_with_its_limits_and_drops_a_message_too_large():
    broker = MosquittoBroker("127.0.0.1").start()
    try:
        config = broker.config_text()
        for line in (
            f"message_size_limit {MESSAGE_SIZE_LIMIT}",
            "max_inflight_messages 20",
            "max_queued_messages 10000",
        ):
            assert line in config.splitlines()
        got: list[int] = []
        ready = threading.Event()
        subscriber = make_client("limits-sub", broker.address)
        subscriber.on_connect = lambda c, u, f, r, p: (c.subscribe("limits/#", 1), ready.set())
        subscriber.on_message = lambda c, u, m: got.append(len(m.payload))
        connect_in_background(subscriber, broker.address)
        publisher = make_client("limits-pub", broker.address)
        connect_in_background(publisher, broker.address)
        assert ready.wait(10)
        time.sleep(0.3)  # the SUBACK
        publisher.publish("limits/big", b"x" * (16 * 1024 * 1024), qos=1)  # 16 MB, as in the report
        publisher.publish("limits/edge", b"x" * MESSAGE_SIZE_LIMIT, qos=1)
        publisher.publish("limits/small", b"x" * 100, qos=1)
        wait_until(lambda: 100 in got, timeout_s=10, message="the small message after the big one")
        assert got == [MESSAGE_SIZE_LIMIT, 100]  # the 16 MB one never reached anyone
        for client in (subscriber, publisher):
            client.disconnect()
            client.loop_stop()
    finally:
        broker.close()
