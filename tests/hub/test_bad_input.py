"""Bad messages are refused with a logged reason and counted; the table does not change."""

from __future__ import annotations

import json
import logging

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.hub import create_app
from companion.mqtt.bridge import HubBridge
from companion.mqtt.broker import BrokerAddress
from companion.rules.setup import default_setup
from companion.table.session import TableSession
from tests.conftest import wait_until

GOOD = {"v": 1, "kind": "flip", "boot": "0a1b2c3d", "seq": 1, "t_ms": 5, "upper_ms": 60000, "lower_ms": 0}


def topic(node="red-1", channel="event", table="t1"):
    return f"companion/v1/{table}/node/{node}/{channel}"


CASES = [
    ("malformed JSON", topic(), b"{not json", "malformed", "not valid JSON"),
    ("binary junk", topic(), b"\xff\x00\xfe", "malformed", "not valid JSON"),
    ("JSON array", topic(), b"[1,2,3]", "schema", "JSON object"),
    ("wrong type", topic(), json.dumps(dict(GOOD, seq="one")).encode(), "schema", "'seq' must be"),
    ("bool for int", topic(), json.dumps(dict(GOOD, upper_ms=True)).encode(), "schema", "'upper_ms' must be"),
    (
        "missing field",
        topic(),
        json.dumps({k: v for k, v in GOOD.items() if k != "t_ms"}).encode(),
        "schema",
        "lacks field 't_ms'",
    ),
    ("unknown kind", topic(), json.dumps(dict(GOOD, kind="explode")).encode(), "schema", "unknown"),
    ("old version", topic(), json.dumps(dict(GOOD, v=0)).encode(), "schema", '"v": 1'),
    ("unknown node", topic(node="ghost"), json.dumps(GOOD).encode(), "unknown_node", "not paired"),
    ("topic outside schema", "companion/v1/t1/node/red-1/telemetry", b"{}", "unknown_topic", "not part of"),
    ("another table", topic(table="t2"), json.dumps(GOOD).encode(), "wrong_table", "table 't2'"),
    ("bad status", topic(channel="status"), b'{"v":1,"kind":"sleeping"}', "schema", "unknown"),
]


@pytest.fixture
def bridge():
    session = TableSession(default_setup("t1", players=2, timers=2), clock=FakeClock())
    return HubBridge(session, BrokerAddress("127.0.0.1", 1))  # never connected: handle() is called directly


@pytest.mark.parametrize("label, topic, payload, category, reason", CASES, ids=[c[0] for c in CASES])
def test_bad_message_is_counted_with_its_reason_and_changes_nothing(
    bridge, caplog, label, topic, payload, category, reason
):
    session = bridge.session
    before = session.state
    with caplog.at_level(logging.WARNING):
        bridge.handle(topic, payload)
    assert session.state == before
    assert session.stats.counts[f"rejected_{category}"] == 1
    recent = session.stats.recent[-1] if session.stats.recent else None
    assert recent is not None and reason in recent["reason"]
    assert any(reason in r.getMessage() or category in r.getMessage() for r in caplog.records)
    assert all(not info.online for info in session.table.seated_links())


def test_the_hub_keeps_working_after_bad_messages(bridge):
    for _, t, payload, _, _ in CASES:
        bridge.handle(t, payload)
    sent = []
    bridge.send = sent.append
    bridge.handle(topic(), json.dumps(GOOD).encode())
    assert bridge.session.state.timers["red-1"].flips == 1
    assert sent[0].fields["verdict"] == "accepted"


@pytest.mark.broker
def test_bad_messages_over_a_real_broker_are_visible_in_the_api(mosquitto, table_id):
    from companion.hub import start_services, stop_services

    address = mosquitto.address
    app = create_app({"table": table_id, "players": 2, "timers": 1}, broker=address)
    start_services(app)
    try:
        bridge = app.extensions["companion.bridge"]
        assert bridge.wait_listening(5)
        client = app.test_client()
        before = client.get("/api/state").get_json()
        raw = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bad-{table_id}")
        raw.connect(address.host, address.port)
        raw.loop_start()
        for payload in (b"garbage", b'{"v":1,"kind":"flip"}'):
            raw.publish(p.node_topic(table_id, "red-1", "event"), payload, qos=1).wait_for_publish(5)
        raw.publish(
            p.node_topic(table_id, "nobody", "event"), json.dumps(GOOD).encode(), qos=1
        ).wait_for_publish(5)
        raw.publish(f"companion/v1/{table_id}/whatever", b"{}", qos=1).wait_for_publish(5)
        wait_until(
            lambda: client.get("/api/stats").get_json()["counts"].get("rejected") == 4,
            message="four rejections counted",
        )
        stats = client.get("/api/stats").get_json()
        assert stats["counts"]["rejected_malformed"] == 1
        assert stats["counts"]["rejected_schema"] == 1
        assert stats["counts"]["rejected_unknown_node"] == 1
        assert stats["counts"]["rejected_unknown_topic"] == 1
        after = client.get("/api/state").get_json()
        assert after["players"] == before["players"] and after["events"] == before["events"] == 0
        raw.loop_stop()
        raw.disconnect()
    finally:
        stop_services(app)
