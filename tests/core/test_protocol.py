"""The protocol module: topics and strict payload validation."""

import json

import pytest

from companion.core import protocol as p


def test_topics_are_versioned_and_namespaced_by_table():
    assert p.node_topic("t1", "red-1", "event") == "companion/v1/t1/node/red-1/event"
    assert p.table_state_topic("t1") == "companion/v1/t1/state"
    assert p.parse_topic("companion/v1/t1/node/red-1/status") == p.Topic("status", "t1", "red-1")
    assert p.parse_topic("companion/v1/t1/state") == p.Topic("state", "t1")
    assert p.parse_topic("companion/v1/t1/hub/status") == p.Topic("hub-status", "t1")


@pytest.mark.parametrize(
    "topic, reason",
    [
        ("other/v1/t1/state", "outside the companion namespace"),
        ("companion/v2/t1/state", "protocol version"),
        ("companion/v1/T1/state", "invalid table id"),
        ("companion/v1/t1/node/red+1/event", "invalid node id"),
        ("companion/v1/t1/node/red-1/bogus", "not part of the protocol"),
        ("companion/v1/t1/nodes", "not part of the protocol"),
    ],
)
def test_topics_outside_the_schema_are_refused(topic, reason):
    with pytest.raises(p.ProtocolError, match=reason):
        p.parse_topic(topic)


@pytest.mark.parametrize("bad", ["", "a" * 33, "Red", "a/b", "a+", "#", "é"])
def test_ids_cannot_carry_wildcards_or_separators(bad):
    assert not p.is_valid_id(bad)
    with pytest.raises(p.ProtocolError):
        p.node_topic("t", bad, "event")


def test_flip_round_trips():
    raw = p.encode("event", "flip", boot="0a1b2c3d", seq=3, t_ms=1234, upper_ms=60000, lower_ms=0)
    msg = p.decode("event", raw)
    assert (msg.kind, msg.seq, msg.upper_ms, msg.boot) == ("flip", 3, 60000, "0a1b2c3d")


GOOD_FLIP = {"v": 1, "kind": "flip", "boot": "0a1b2c3d", "seq": 1, "t_ms": 5, "upper_ms": 10, "lower_ms": 0}


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"v": 2}, '"v": 1'),
        ({"v": True}, '"v": 1'),
        ({"kind": "flop"}, "kind 'flop' is unknown"),
        ({"seq": "1"}, "'seq' must be a non-negative integer"),
        ({"seq": True}, "'seq' must be a non-negative integer"),
        ({"seq": 0}, "'seq' must be 1 or more"),
        ({"t_ms": -1}, "'t_ms' must be a non-negative integer"),
        ({"upper_ms": 1.5}, "'upper_ms' must be a non-negative integer"),
        ({"boot": "XYZ"}, "'boot' must be 8 hex digits"),
        ({"extra": 1}, "unexpected field 'extra'"),
    ],
)
def test_payloads_are_checked_strictly(change, reason):
    data = dict(GOOD_FLIP, **change)
    with pytest.raises(p.ProtocolError, match=reason):
        p.decode("event", json.dumps(data).encode())


def test_missing_fields_and_non_objects_are_refused():
    data = dict(GOOD_FLIP)
    del data["upper_ms"]
    with pytest.raises(p.ProtocolError, match="lacks field 'upper_ms'"):
        p.validate("event", data)
    with pytest.raises(p.ProtocolError, match="JSON object"):
        p.decode("event", b"[1, 2]")
    with pytest.raises(p.ProtocolError, match="not valid JSON"):
        p.decode("event", b"{flip")
    with pytest.raises(p.ProtocolError, match="not valid JSON"):
        p.decode("event", b"\xff\xfe")
    with pytest.raises(p.ProtocolError, match="larger"):
        p.decode("event", b" " * 5000)


def test_a_message_kind_belongs_to_its_channel():
    ack = p.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="accepted")
    with pytest.raises(p.ProtocolError, match="unknown"):
        p.decode("event", ack)


def test_encode_refuses_what_decode_would_refuse():
    with pytest.raises(p.ProtocolError):
        p.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="maybe")


def test_optional_battery_may_be_null_or_absent():
    base = {"boot": "0a1b2c3d", "t_ms": 1, "upper_ms": 0, "lower_ms": 60000, "queued": 0}
    assert p.decode("event", p.encode("event", "heartbeat", **base)).get("battery_mv") is None
    assert p.decode("event", p.encode("event", "heartbeat", battery_mv=3900, **base)).battery_mv == 3900


def test_status_payload_is_the_last_will():
    assert p.decode("status", p.status_payload(False)).kind == "offline"
    assert p.decode("status", p.status_payload(True)).kind == "online"
