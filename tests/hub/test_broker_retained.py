"""Retained messages under a table that the hub does not own are cleared when the hub starts.

Only a node's own ``node/<id>/status``, and the hub's ``state`` and ``hub/status``, are
retained by anyone following the protocol. Anything else retained under the table
(a retained event or command, a topic outside the schema) would come back to every
subscriber at every start, so the hub removes it, counts it and logs it.
"""

from __future__ import annotations

import logging

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.clock import FakeClock
from companion.core import protocol
from companion.mqtt.bridge import HubBridge, owns_retained
from companion.rules.setup import default_setup
from companion.table.session import TableSession
from tests.conftest import wait_until

pytestmark = pytest.mark.broker


def test_what_the_hub_leaves_retained():
    t = "kitchen"
    assert owns_retained(t, protocol.node_topic(t, "red-1", "status"))
    assert owns_retained(t, protocol.table_state_topic(t))
    assert owns_retained(t, protocol.hub_status_topic(t))
    assert not owns_retained(t, protocol.node_topic(t, "red-1", "event"))
    assert not owns_retained(t, protocol.node_topic(t, "red-1", "cmd"))
    assert not owns_retained(t, f"companion/v1/{t}/junk/deep")
    assert not owns_retained(t, f"companion/v1/{t}/node/BAD ID/status")
    assert not owns_retained(t, protocol.node_topic("other", "red-1", "status"))


def retained_under(address, table: str) -> dict[str, bytes]:
    """Every retained message under ``table`` right now, as a new subscriber gets them."""
    got: dict[str, bytes] = {}
    done = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"look-{table}")
    client.on_message = lambda c, u, m: got.__setitem__(m.topic, m.payload) if m.retain else None
    client.on_subscribe = lambda *a: done.append(True)
    client.connect(address.host, address.port)
    client.subscribe(protocol.table_prefix(table) + "/#", qos=1)
    client.loop_start()
    wait_until(lambda: done, message="the subscription")
    # a retained delivery follows the SUBACK at once; a ping round trip makes sure it has arrived
    ping = client.publish(f"look/{table}/ping", b"x", qos=1)
    ping.wait_for_publish(5)
    client.disconnect()
    client.loop_stop()
    return got


def test_the_hub_clears_retained_junk_on_start_and_keeps_what_is_owned(mosquitto, table_id, caplog):
    caplog.set_level(logging.WARNING)
    prefix = protocol.table_prefix(table_id)
    flip = protocol.encode("event", "flip", boot="0badcafe", seq=1, t_ms=5, upper_ms=60000, lower_ms=0)
    junk = {
        protocol.node_topic(table_id, "red-1", "event"): flip,
        protocol.node_topic(table_id, "red-1", "cmd"): b'{"v": 1, "kind": "restart"}',
        f"{prefix}/leftover/from/an/old/version": b"hello",
    }
    kept = {
        protocol.node_topic(table_id, "red-1", "status"): protocol.status_payload(True),
        protocol.node_topic(table_id, "stranger", "status"): protocol.status_payload(False),
    }
    writer = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"junk-{table_id}")
    writer.connect(mosquitto.address.host, mosquitto.address.port)
    writer.loop_start()
    for topic, payload in {**junk, **kept}.items():
        writer.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
    writer.disconnect()
    writer.loop_stop()
    assert set(retained_under(mosquitto.address, table_id)) == {*junk, *kept}

    session = TableSession(default_setup(table_id, players=2, timers=1), clock=FakeClock())
    hub = HubBridge(session, mosquitto.address).start()
    try:
        wait_until(lambda: hub.retained_cleared == 3, message="the junk cleared")
        wait_until(lambda: not hub._clearing, message="the echoes of the clearing")
        left = retained_under(mosquitto.address, table_id)
        assert set(left) == {*kept, protocol.table_state_topic(table_id), protocol.hub_status_topic(table_id)}
        counts = session.stats.counts
        assert counts["rejected_retained"] == 3
        assert counts.get("rejected_malformed", 0) == 0, "the empty echoes are not refused messages"
        assert session.state.events == 0, "a retained flip is never applied"
        assert session.table.link("red-1").online
        assert caplog.text.count("cleared a retained message the hub does not own") == 3
        assert f"{prefix}/leftover/from/an/old/version" in caplog.text
    finally:
        hub.stop()

    again = TableSession(default_setup(table_id, players=2, timers=1), clock=FakeClock())
    hub = HubBridge(again, mosquitto.address).start()  # the next start finds nothing to clear
    try:
        assert hub.wait_listening(5)
        wait_until(lambda: again.table.link("red-1").online, message="the retained status replayed")
        assert hub.retained_cleared == 0
    finally:
        hub.stop()
