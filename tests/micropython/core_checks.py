"""Checks of the node core that run under both CPython (via pytest) and MicroPython (via node run.mjs).

Plain functions with plain asserts, no pytest and nothing MicroPython lacks, so
the very same checks prove that ``companion.core`` behaves the same on a
microcontroller as on the hub.
"""

import json

from companion.core import protocol, serial_lines
from companion.core.node import NodeCore
from companion.core.sand import Sandtimer


class Ms:
    def __init__(self):
        self.t = 1000

    def __call__(self):
        return self.t


def _events(messages):
    return [json.loads(payload) for topic, payload, retain in messages if topic.endswith("/event")]


def check_sand_full_run():
    ms = Ms()
    timer = Sandtimer(ms, 60000)
    assert timer.flip() == (60000, 0)
    ms.t += 59999
    assert timer.upper_ms() == 1 and not timer.poll_emptied()
    ms.t += 1
    assert timer.poll_emptied() and not timer.poll_emptied()


def check_sand_mid_run_flip():
    ms = Ms()
    timer = Sandtimer(ms, 60000)
    timer.flip()
    ms.t += 20000
    assert timer.flip() == (20000, 40000)
    ms.t += 20000
    assert timer.is_empty()


def check_sand_double_flip():
    ms = Ms()
    timer = Sandtimer(ms, 60000)
    timer.flip()
    ms.t += 10000
    timer.flip()
    timer.flip()
    assert timer.upper_ms() == 50000


def check_sand_pause():
    ms = Ms()
    timer = Sandtimer(ms, 60000)
    timer.flip()
    ms.t += 10000
    timer.pause()
    ms.t += 100000
    assert timer.upper_ms() == 50000
    timer.resume()
    ms.t += 50000
    assert timer.poll_emptied()


def check_sand_fraction():
    ms = Ms()
    timer = Sandtimer(ms, 60000)
    timer.flip()
    ms.t += 15000
    assert abs(timer.fraction_left() - 0.75) < 1e-9


def check_protocol_round_trip():
    raw = protocol.encode("event", "flip", boot="0a1b2c3d", seq=2, t_ms=5, upper_ms=7, lower_ms=3)
    msg = protocol.decode("event", raw)
    assert msg.kind == "flip" and msg.seq == 2 and msg.upper_ms == 7


def check_protocol_rejects_bool_as_int():
    bad = (
        b'{"v": 1, "kind": "flip", "boot": "0a1b2c3d", "seq": true, "t_ms": 5, "upper_ms": 7, "lower_ms": 3}'
    )
    try:
        protocol.decode("event", bad)
    except protocol.ProtocolError as exc:
        assert "seq" in str(exc)
    else:
        raise AssertionError("a boolean sequence number was accepted")


def check_protocol_rejects_unknown_field_and_bad_json():
    for payload in (b'{"v": 1, "kind": "online", "x": 1}', b"{nope", b"\xff"):
        try:
            protocol.decode("status", payload)
        except protocol.ProtocolError:
            continue
        raise AssertionError("accepted %r" % (payload,))


def check_protocol_topics():
    assert protocol.node_topic("t1", "red-1", "cmd") == "companion/v1/t1/node/red-1/cmd"
    parsed = protocol.parse_topic("companion/v1/t1/node/red-1/event")
    assert parsed.kind == "event" and parsed.node == "red-1"
    assert not protocol.is_valid_id("red+1")


def check_node_buffers_offline_and_resends_in_order():
    ms = Ms()
    node = NodeCore("t1", "red-1", ms, "0a1b2c3d")
    node.on_connect()
    node.on_disconnect()
    assert node.flip() == []
    ms.t += 61000
    node.poll()
    node.flip()
    kinds = [(e["kind"], e.get("seq")) for e in _events(node.on_connect())]
    assert kinds == [("hello", None), ("flip", 1), ("empty", 2), ("flip", 3)], kinds


def check_node_ack_clears_outbox_and_shows_verdict():
    ms = Ms()
    node = NodeCore("t1", "red-1", ms, "0a1b2c3d")
    node.on_connect()
    node.flip()
    ack = protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="rejected", reason="no")
    node.on_message(protocol.node_topic("t1", "red-1", "cmd"), ack)
    assert node.outbox == [] and node.show() == "rejected" and node.last_reason == "no"


def check_node_follows_table_state():
    ms = Ms()
    node = NodeCore("t1", "red-1", ms, "0a1b2c3d")
    node.on_connect()
    node.flip()
    state = protocol.encode(
        "state", "table", clock="paused", remaining_ms=1, length_ms=2, game="g", time_scale=1
    )
    node.on_message(protocol.table_state_topic("t1"), state)
    ms.t += 30000
    assert node.sand.upper_ms() == 60000 and node.show() == "paused"


def check_node_stays_red_while_sabotaged():
    ms = Ms()
    node = NodeCore("t1", "red-1", ms, "0a1b2c3d")
    node.on_connect()
    node.flip()
    ms.t += 5000
    node.on_message(
        protocol.node_topic("t1", "red-1", "cmd"), protocol.encode("cmd", "show", pattern="sabotaged")
    )
    ms.t += 30000
    assert node.show() == "sabotaged"
    ms.t += 25000
    node.poll()
    assert node.show() == "empty" and not node.sabotaged


def check_node_counts_bad_commands():
    node = NodeCore("t1", "red-1", Ms(), "0a1b2c3d")
    node.on_message(protocol.node_topic("t1", "red-1", "cmd"), b"[]")
    node.on_message("nowhere", b"{}")
    assert node.rejected_messages == 2


def check_protocol_refuses_deep_nesting_before_parsing():
    # 2000 nested lists fit in 4 KB; a board would spend its heap on them (CPython: RecursionError)
    for payload in (b"[" * 2000 + b"]" * 2000, b'{"a":' * 600 + b"1" + b"}" * 600):
        try:
            protocol.decode("cmd", payload)
        except protocol.MalformedPayloadError as exc:
            assert "more than 8 deep" in str(exc), str(exc)
            continue
        raise AssertionError("accepted a deeply nested payload")
    reason = '[[[[[[[[[[ {{{{{{{{{{ " ]]'
    ack = protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="rejected", reason=reason)
    assert protocol.decode("cmd", ack).reason == reason  # brackets inside a string are text


def check_protocol_gives_only_protocol_errors():
    payloads = (b"null", b"[]", b"NaN", b"-Infinity", b"\xff", b"", b'{"v": 1, "kind": [[[]]]}', b"]" * 10)
    for payload in payloads:
        for channel in ("event", "status", "cmd", "state", "hub-status"):
            try:
                protocol.decode(channel, payload)
            except protocol.ProtocolError:
                continue
            raise AssertionError("accepted %r on %s" % (payload, channel))
    state = (
        b'{"v": 1, "kind": "table", "clock": "running", "remaining_ms": 1, "length_ms": 2, '
        b'"game": "g", "time_scale": 1e999}'
    )
    try:
        protocol.decode("state", state)
    except protocol.ProtocolError as exc:
        assert "finite" in str(exc)
    else:
        raise AssertionError("accepted an infinite time scale")


def check_serial_line_refuses_deep_nesting():
    try:
        serial_lines.parse_hub_line(b'{"ch": "cmd", "msg": ' + b"[" * 100 + b"]" * 100 + b"}", "t1", "u1")
    except serial_lines.SerialLineError as exc:
        assert "line nests" in str(exc), str(exc)
    else:
        raise AssertionError("accepted a deeply nested line")


def check_node_reports_dropped_events():
    ms = Ms()
    node = NodeCore("t1", "red-1", ms, "0a1b2c3d", outbox_limit=2)
    for _ in range(5):
        node.flip()
    hello = _events(node.on_connect())[0]
    assert hello["kind"] == "hello" and hello["dropped"] == 3 and node.dropped == 3
    ms.t += 5000
    beat = _events(node.poll())[0]
    assert beat["dropped"] == 3 and beat["queued"] == 2


def _sent_seqs(messages):
    return [e["seq"] for e in _events(messages) if "seq" in e]


def check_node_resends_unacknowledged_reports_while_connected():
    ms = Ms()
    node = NodeCore(
        "t1",
        "red-1",
        ms,
        "0a1b2c3d",
        sand_ms=600000,
        heartbeat_ms=600000,
        resend_ms=5000,
        resend_cap_ms=20000,
    )
    node.on_connect()
    assert _sent_seqs(node.flip()) == [1]
    ms.t += 4999
    assert _sent_seqs(node.poll()) == [], "the hub gets its first interval to answer"
    ms.t += 1
    assert _sent_seqs(node.poll()) == [1] and node.resent == 1
    waits = []
    for _ in range(4):
        start = ms.t
        while not _sent_seqs(node.poll()):
            ms.t += 100
        waits.append(ms.t - start)
    assert waits == [10000, 20000, 20000, 20000], waits  # doubling, up to the cap
    node.on_message(
        protocol.node_topic("t1", "red-1", "cmd"),
        protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="accepted"),
    )
    assert node.outbox == []
    ms.t += 100000
    assert _sent_seqs(node.poll()) == [], "nothing waits for an ack: nothing is resent"
    node.flip()
    ms.t += 5000
    assert _sent_seqs(node.poll()) == [2], "an answer starts the waits afresh"


def check_node_keeps_a_report_the_hub_asks_to_send_again():
    ms = Ms()
    node = NodeCore("t1", "red-1", ms, "0a1b2c3d", heartbeat_ms=600000, resend_ms=5000)
    node.on_connect()
    node.flip()
    node.flip()
    cmd = protocol.node_topic("t1", "red-1", "cmd")
    retry = protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="retry", reason="storage full")
    assert node.on_message(cmd, retry) == []
    assert [item[0] for item in node.outbox] == [1, 2] and node.retry_reason == "storage full"
    assert node.show() not in ("accepted", "rejected"), "no verdict is shown for a report not yet decided"
    node.on_message(cmd, protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=2, verdict="accepted"))
    ms.t += 5000
    assert _sent_seqs(node.poll()) == [1], "the kept report goes again"
    resent = node.on_message(protocol.hub_status_topic("t1"), protocol.status_payload(True))
    assert _sent_seqs(resent) == [1], "and at once when the hub says it is back"


def check_node_keeps_new_reports_behind_the_ones_the_hub_asked_for_later():
    ms = Ms()
    node = NodeCore("t1", "red-1", ms, "0a1b2c3d", sand_ms=600000, heartbeat_ms=600000, resend_ms=5000)
    node.on_connect()
    node.flip()
    cmd = protocol.node_topic("t1", "red-1", "cmd")
    node.on_message(cmd, protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="retry"))
    ms.t += 1000
    assert node.flip() == [] and node.deferred, "a new report waits behind the kept one"
    ms.t += 1000
    assert node.poll() == [] and len(node.outbox) == 3, "the second flip's sand ran out: kept too"
    ms.t += 3000
    assert _sent_seqs(node.poll()) == [1, 2, 3], "then all go, oldest first"
    node.on_message(cmd, protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="accepted"))
    assert not node.deferred
    ms.t += 1000
    assert _sent_seqs(node.flip()) == [4], "the hub decides again: new reports go at once"


def check_node_does_not_resend_while_offline():
    ms = Ms()
    node = NodeCore("t1", "red-1", ms, "0a1b2c3d", sand_ms=600000, heartbeat_ms=600000, resend_ms=5000)
    node.on_connect()
    node.flip()
    node.on_disconnect()
    ms.t += 60000
    assert node.poll() == [] and node.resent == 0
    assert _sent_seqs(node.on_connect()) == [1]
    ms.t += 5000
    assert _sent_seqs(node.poll()) == [1]


def checks():
    """(name, function) of every check, in a stable order."""
    found = []
    for name, value in sorted(globals().items()):
        if name.startswith("check_") and callable(value):
            found.append((name, value))
    return found


def main():
    failed = 0
    for name, check in checks():
        try:
            check()
            print("PASS " + name)
        except Exception as exc:  # report every failure, then fail the run
            failed += 1
            print("FAIL %s: %r" % (name, exc))
    print("checks: %d passed, %d failed" % (len(checks()) - failed, failed))
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
