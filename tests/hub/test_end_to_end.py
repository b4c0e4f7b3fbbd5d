"""The whole table for real: mosquitto, the hub over HTTP, 8 simulated nodes over MQTT."""

from __future__ import annotations

import json
import urllib.request

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.core import protocol as p
from companion.hub import HubConfig
from companion.rules.text import from_json
from companion.runtime import RunOptions, Table
from companion.sse_client import SSEReader
from tests.conftest import wait_until

pytestmark = pytest.mark.broker


def api(table: Table, path: str, method: str = "GET"):
    req = urllib.request.Request(table.url.rstrip("/") + path, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def timer_of(state, node):
    for player in state["players"]:
        for timer in player["timers"]:
            if timer["node"] == node:
                return timer
    raise KeyError(node)


def start_table(mosquitto, table_id, **hub):
    options = RunOptions(
        hub=HubConfig(table=table_id, **hub),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    table = Table(options).start()
    wait_until(
        lambda: all(n["online"] for n in api(table, "/api/state")[1]["nodes"]),
        message="all simulated nodes online",
    )
    return table


@pytest.fixture
def table(mosquitto, table_id):
    table = start_table(mosquitto, table_id, time_scale=1.0)
    yield table
    table.stop()


def test_flips_reach_the_api_and_the_live_stream_once(table, mosquitto, table_id):
    status, state = api(table, "/api/state")
    assert status == 200 and len(state["nodes"]) == 8
    assert [p["name"] for p in state["players"]] == ["red", "yellow", "green", "blue"]
    reader = SSEReader("127.0.0.1", table.server.server_port)
    assert reader.status == 200 and reader.content_type.startswith("text/event-stream")
    assert api(table, "/api/clock/start", "POST")[0] == 200

    node = table.fleet.nodes["red-1"]
    node.flip()
    wait_until(lambda: node.core.last_verdict == "accepted", message="the node's verdict")
    assert node.core.outbox == []
    _, frame = reader.wait_for(lambda f: timer_of(f, "red-1")["flips"] == 1)
    assert timer_of(frame, "red-1")["phase"] == "running"

    # the broker delivers the same flip again (QoS 1 is at-least-once)
    raw = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"dup-{table_id}")
    raw.connect(mosquitto.address.host, mosquitto.address.port)
    raw.loop_start()
    payload = p.encode("event", "flip", boot=node.core.boot_id, seq=1, t_ms=0, upper_ms=60000, lower_ms=0)
    raw.publish(p.node_topic(table_id, "red-1", "event"), payload, qos=1).wait_for_publish(5)
    wait_until(
        lambda: api(table, "/api/stats")[1]["counts"].get("duplicate") == 1, message="duplicate counted"
    )
    state = api(table, "/api/state")[1]
    assert timer_of(state, "red-1")["flips"] == 1
    assert state["events"] == 2  # clock start + one flip
    raw.loop_stop()
    raw.disconnect()
    reader.close()


def test_acks_reach_a_node_at_qos_0_and_its_other_commands_at_qos_1(table, mosquitto, table_id):
    """Acks are sent at ``ACK_QOS`` (``protocol.command_qos``; the node's outbox already resends an unanswered report, and a
    repeated report is answered again); ``show`` and ``config`` stay at QoS 1."""
    got: list[tuple[str, int]] = []
    listener = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"listener-{table_id}")
    listener.on_message = lambda c, u, m: got.append((json.loads(m.payload)["kind"], m.qos))
    listener.connect(mosquitto.address.host, mosquitto.address.port)
    listener.subscribe(p.node_topic(table_id, "red-1", "cmd"), qos=1)
    listener.loop_start()
    try:
        wait_until(lambda: api(table, "/api/nodes/red-1/identify", "POST")[0] == 200 and got)
        assert ("show", 1) in got  # (subscribed by now: its show came through)
        node = table.fleet.nodes["red-1"]
        node.flip()
        wait_until(lambda: ("ack", 0) in got, message="the ack, at QoS 0")
        assert all(qos == p.command_qos(kind) for kind, qos in got) and p.command_qos("ack") == 0
        wait_until(lambda: node.core.last_verdict == "accepted" and node.core.outbox == [])
    finally:
        listener.loop_stop()
        listener.disconnect()


def test_a_node_killed_without_disconnect_shows_offline(table):
    table.fleet.nodes["yellow-1"].kill()
    wait_until(
        lambda: not timer_of(api(table, "/api/state")[1], "yellow-1")["online"],
        message="last will marks yellow-1 offline",
    )
    state = api(table, "/api/state")[1]
    assert timer_of(state, "yellow-2")["online"]


def test_retained_table_state_reaches_a_late_subscriber(table, mosquitto, table_id):
    def listen(name):
        got = []
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{name}-{table_id}")
        client.on_message = lambda c, u, m: got.append((m.retain, p.decode("state", m.payload)))
        client.connect(mosquitto.address.host, mosquitto.address.port)
        client.subscribe(p.table_state_topic(table_id), qos=1)
        client.loop_start()
        return client, got

    early, seen = listen("early")
    api(table, "/api/clock/start", "POST")
    wait_until(lambda: any(m.clock == "running" for _, m in seen), message="the hub publishes the new state")
    late, got = listen("late")
    wait_until(lambda: got, message="retained table state")
    retained, msg = got[0]
    assert retained and msg.clock == "running" and msg.length_ms == 720_000
    for client in (early, late):
        client.loop_stop()
        client.disconnect()


def test_at_high_time_scale_a_12_minute_game_ends_and_starts_are_refused(mosquitto, table_id):
    table = start_table(mosquitto, table_id, time_scale=720.0)  # 12 game minutes in one real second
    try:
        node = table.fleet.nodes["blue-2"]
        api(table, "/api/clock/start", "POST")
        node.flip()
        wait_until(lambda: node.core.last_verdict == "accepted", message="flip accepted while running")
        wait_until(
            lambda: api(table, "/api/state")[1]["clock"]["phase"] == "expired",
            timeout_s=5,
            message="the master clock to run out",
        )
        wait_until(lambda: node.core.game_over, message="nodes learn the game is over")
        node.flip()
        wait_until(lambda: node.core.last_verdict == "rejected", message="the late flip's verdict")
        assert "master clock has run out" in node.core.last_reason
        state = api(table, "/api/state")[1]
        assert state["refused_flips"] == 1
        refused = timer_of(state, "blue-2")
        assert str(from_json(refused["refused"])).startswith("The master clock has run out")
        assert refused["refused_at_s"] is not None and refused["counting"] is False, "lifted after the end"
        assert state["clock"]["remaining_s"] == 0
        status, body = api(table, "/api/clock/start", "POST")
        assert status == 409 and "already expired" in body["error"]
    finally:
        table.stop()


def test_dashboard_page_is_served(table):
    with urllib.request.urlopen(table.url, timeout=5) as res:
        html = res.read().decode()
    assert "dashboard.js" in html and 'data-simulated="true"' in html
    assert "/static/pictures.js" in html, "the games' pictures are included"
    assert api(table, "/api/nope")[0] == 404
