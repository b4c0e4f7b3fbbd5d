"""NodeCore without a radio: outbox, acks, table state and LED patterns on a fake clock."""

import json

import pytest

from companion.core import protocol as p
from companion.core.node import NodeCore


class FakeMs:
    def __init__(self):
        self.t = 10_000

    def __call__(self):
        return self.t


@pytest.fixture
def ms():
    return FakeMs()


@pytest.fixture
def node(ms):
    return NodeCore("t1", "red-1", ms, "0a1b2c3d", sand_ms=60000, heartbeat_ms=5000)


def events(messages):
    return [json.loads(payload) for topic, payload, retain in messages if topic.endswith("/event")]


def ack(seq, verdict="accepted", boot="0a1b2c3d", **extra):
    return p.node_topic("t1", "red-1", "cmd"), p.encode(
        "cmd", "ack", boot=boot, seq=seq, verdict=verdict, **extra
    )


def test_connect_announces_online_and_hello(node):
    out = node.on_connect()
    assert out[0] == (p.node_topic("t1", "red-1", "status"), p.status_payload(True), True)
    hello = events(out)[0]
    assert hello["kind"] == "hello" and hello["sand_ms"] == 60000
    assert node.last_will() == (p.node_topic("t1", "red-1", "status"), p.status_payload(False), True)


def test_flip_is_published_and_kept_until_acked(node, ms):
    node.on_connect()
    [flip] = events(node.flip())
    assert flip["kind"] == "flip" and flip["seq"] == 1 and flip["upper_ms"] == 60000 and flip["t_ms"] == ms.t
    assert len(node.outbox) == 1
    node.on_message(*ack(1))
    assert node.outbox == []
    assert node.show() == "accepted"
    ms.t += 2000
    assert node.show() == "running"


def test_offline_events_are_buffered_and_resent_in_order(node, ms):
    node.on_connect()
    node.on_disconnect()
    assert node.flip() == []
    ms.t += 60_000
    assert node.poll() == [], "nothing is sent while offline"
    ms.t += 1000
    node.flip()
    assert node.show() == "offline"
    resent = events(node.on_connect())
    kinds = [(e["kind"], e.get("seq")) for e in resent]
    assert kinds == [("hello", None), ("flip", 1), ("empty", 2), ("flip", 3)]
    assert resent[2]["t_ms"] == 10_000 + 60_000, "the run-out carries the moment it happened"


def test_hub_coming_back_triggers_a_resend(node):
    node.on_connect()
    node.flip()
    out = node.on_message(p.hub_status_topic("t1"), p.status_payload(True))
    assert [e["seq"] for e in events(out)] == [1]


def test_rejected_flip_shows_red_and_repeated_ack_is_ignored(node, ms):
    node.on_connect()
    node.flip()
    node.on_message(*ack(1, "rejected", reason="The master clock has run out"))
    assert node.show() == "rejected" and node.last_reason == "The master clock has run out"
    ms.t += 5000
    node.on_message(*ack(1, "accepted"))
    assert node.last_verdict == "rejected"


def test_ack_of_another_boot_is_ignored(node):
    node.on_connect()
    node.flip()
    node.on_message(*ack(1, boot="ffffffff"))
    assert len(node.outbox) == 1


def test_invalid_commands_are_counted_not_applied(node):
    node.on_connect()
    node.on_message(p.node_topic("t1", "red-1", "cmd"), b"{nope")
    node.on_message(p.node_topic("t1", "blue-1", "cmd"), p.encode("cmd", "config", sand_ms=5))
    node.on_message("elsewhere/x", b"{}")
    assert node.rejected_messages == 3
    assert node.sand.duration_ms == 60000


def test_table_state_pauses_sand_and_marks_game_over(node, ms):
    node.on_connect()
    node.flip()
    ms.t += 10_000

    def state(clock: str) -> tuple[str, bytes]:
        payload = p.encode(
            "state", "table", clock=clock, remaining_ms=0, length_ms=720000, game="x", time_scale=1
        )
        return p.table_state_topic("t1"), payload

    node.on_message(*state("paused"))
    ms.t += 100_000
    assert node.sand.upper_ms() == 50_000 and node.show() == "paused"
    node.on_message(*state("running"))
    ms.t += 50_000
    node.on_message(*state("expired"))
    assert node.show() == "over"


def test_heartbeats_follow_their_interval_and_report_the_outbox(node, ms):
    node.on_connect()
    assert node.poll() == []
    ms.t += 5000
    [beat] = events(node.poll())
    assert beat["kind"] == "heartbeat" and beat["queued"] == 0 and "battery_mv" not in beat
    node.battery_mv = 3700
    ms.t += 5000
    assert events(node.poll())[0]["battery_mv"] == 3700


def test_config_changes_the_sand_duration(node):
    node.on_connect()
    node.on_message(p.node_topic("t1", "red-1", "cmd"), p.encode("cmd", "config", sand_ms=30000))
    assert node.sand.duration_ms == 30000
    [flip] = events(node.flip())
    assert flip["upper_ms"] == 30000


def test_identify_blinks_then_clears(node, ms):
    node.on_connect()
    node.on_message(p.node_topic("t1", "red-1", "cmd"), p.encode("cmd", "show", pattern="identify"))
    assert node.show() == "identify"
    node.on_message(p.node_topic("t1", "red-1", "cmd"), p.encode("cmd", "show", pattern="clear"))
    assert node.show() == "empty"


def test_outbox_is_bounded(ms):
    node = NodeCore("t1", "red-1", ms, "0a1b2c3d", outbox_limit=3)
    for _ in range(5):
        node.flip()
    assert [item[0] for item in node.outbox] == [3, 4, 5] and node.dropped == 2


def test_a_full_outbox_says_how_many_events_it_dropped(ms):
    node = NodeCore("t1", "red-1", ms, "0a1b2c3d", heartbeat_ms=5000, outbox_limit=3)
    node.on_connect()
    ms.t += 5000
    [beat] = events(node.poll())
    assert "dropped" not in beat  # nothing lost: the field is left out, as older nodes do
    node.on_disconnect()
    for _ in range(5):
        node.flip()
    hello, *resent = events(node.on_connect())
    assert hello["kind"] == "hello" and hello["dropped"] == 2
    assert [e["seq"] for e in resent] == [3, 4, 5]
    ms.t += 5000
    beat, *again = events(node.poll())
    assert beat["kind"] == "heartbeat" and beat["dropped"] == 2 and beat["queued"] == 3
    assert [e["seq"] for e in again] == [3, 4, 5], "unanswered for 5 s: sent again"
    for topic, payload, _ in node.on_connect():
        if topic.endswith("/event"):
            p.decode("event", payload)  # what the hub reads: the schema knows the field
