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


# --- hostile payloads: only ProtocolError may come out ------------------------------------------


@pytest.mark.parametrize("channel", sorted(p.SCHEMA))
@pytest.mark.parametrize("opener, closer", [(b"[", b"]"), (b'{"a":', b"}")])
def test_deep_nesting_is_refused_before_parsing(channel, opener, closer):
    """Under the size limit, 4000 brackets made CPython's json raise RecursionError (a traceback in
    the hub, a dead paho thread in a node); the depth is now checked before json sees the text."""
    n = (p.MAX_PAYLOAD_BYTES - 10) // (len(opener) + len(closer))
    payload = opener * n + b"1" + closer * n
    assert len(payload) <= p.MAX_PAYLOAD_BYTES
    with pytest.raises(p.MalformedPayloadError, match="nests arrays or objects more than 8 deep"):
        p.decode(channel, payload)


def test_depth_limit_is_exact_and_counts_only_brackets_outside_strings():
    at_limit = b"[" * p.MAX_DEPTH + b"]" * p.MAX_DEPTH
    with pytest.raises(p.ProtocolError, match="JSON object"):  # parsed, then refused by the schema
        p.decode("event", at_limit)
    with pytest.raises(p.MalformedPayloadError, match="more than 8 deep"):
        p.decode("event", b"[" + at_limit + b"]")
    # brackets and escaped quotes inside a string are text, not nesting
    reason = '[[[[{{{{ "quoted \\" [[[[ ]]]] ' + "{" * 20
    ack = p.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="rejected", reason=reason)
    assert p.decode("cmd", ack).reason == reason
    with pytest.raises(p.MalformedPayloadError, match="never opened"):
        p.decode("event", b"]" + b"[" * 20)


@pytest.mark.parametrize(
    "payload",
    [
        b"null",
        b"true",
        b"1",
        b'"text"',
        b"[]",
        b"1" * 4000,  # a 4000-digit integer
        b'{"v": 1, "kind": "flip", "seq": ' + b"9" * 4000 + b"}",
        b"NaN",
        b"-Infinity",
        b'{"v": NaN}',
        b"\xff\xfe",
        b"\xc3",  # a cut multi-byte character
        b"\x00",
        b"",
        b"   ",
        b'{"v": 1, "kind": "flip"',
        b'{"v": 1, "kind": {"a": [1, 2, {"b": null}]}}',
        b'{"v": 1, "kind": "online", "\\ud800": 1}',
    ],
)
def test_any_bytes_give_a_protocol_error_and_nothing_else(payload):
    for channel in p.SCHEMA:
        with pytest.raises(p.ProtocolError):
            p.decode(channel, payload)


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"1e999", b"-1", b"0", b"true", b"1e300"])
def test_time_scale_must_be_a_positive_finite_number(number):
    """NaN and Infinity parse in CPython but cannot be written back as JSON (nor read on a board)."""
    payload = (
        b'{"v": 1, "kind": "table", "clock": "running", "remaining_ms": 1, "length_ms": 2, '
        b'"game": "g", "time_scale": ' + number + b"}"
    )
    with pytest.raises(p.ProtocolError, match="positive finite number"):
        p.decode("state", payload)


def test_str_and_bytearray_payloads_are_read_like_bytes():
    raw = p.encode("status", "online")
    assert p.decode("status", raw.decode()) == p.decode("status", bytearray(raw)) == p.decode("status", raw)
    with pytest.raises(p.MalformedPayloadError, match="larger"):
        p.decode("status", "é" * 2100)  # 2100 characters, 4200 bytes
    with pytest.raises(p.MalformedPayloadError, match="not UTF-8"):
        p.decode("status", '{"v": 1, "kind": "online", "x": "\ud800"}')


def test_refusals_quote_at_most_a_little_of_the_payload():
    huge_kind = json.dumps({"v": 1, "kind": "k" * 3000}).encode()
    with pytest.raises(p.ProtocolError) as caught:
        p.decode("event", huge_kind)
    assert len(str(caught.value)) < 150


def test_dropped_is_an_optional_count_in_hello_and_heartbeat():
    hello = {"boot": "0a1b2c3d", "t_ms": 1, "sand_ms": 60000, "node_kind": "mcu", "firmware": "f"}
    assert p.decode("event", p.encode("event", "hello", **hello)).get("dropped") is None
    assert p.decode("event", p.encode("event", "hello", dropped=3, **hello)).dropped == 3
    beat = {"boot": "0a1b2c3d", "t_ms": 1, "upper_ms": 0, "lower_ms": 0, "queued": 64}
    assert p.decode("event", p.encode("event", "heartbeat", dropped=236, **beat)).dropped == 236
    for bad in (-1, True, 1.5, None, "3"):
        with pytest.raises(p.ProtocolError, match="'dropped' must be a non-negative integer"):
            p.encode("event", "heartbeat", dropped=bad, **beat)
    with pytest.raises(p.ProtocolError, match="unexpected field 'dropped'"):
        p.encode("event", "flip", boot="0a1b2c3d", seq=1, t_ms=1, upper_ms=1, lower_ms=0, dropped=1)
