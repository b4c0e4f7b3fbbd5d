"""The Pi node through network faults: its GPIO loop never waits on the network, paho's thread never dies.

The node's sand, lights and tilt run in ``PiNode.step`` (the service's main loop); paho runs the
connection in its own thread (``loop_start``). These tests break the network in the ways a
table sees (a broker that is killed, refuses the login, or accepts and then says nothing, and
messages that make the node's handler fail) and check, on gpiozero mock pins and the fake
clock, that every pass of the loop stays short, a flip is still debounced and kept, paho backs
off between attempts, and the node is still listening afterwards.
"""

from __future__ import annotations

import logging
import socket
import threading
import time

import pytest
from companion_node_pi import PiNode, PiNodeConfig

from companion.core import protocol
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.client import RECONNECT_MIN_S
from tests.conftest import wait_until
from tests.firmware.conftest import Recorder

TILT = 17
BAR = (5, 6, 13, 19, 26, 16, 20, 21)
BOOT = "0a1b2c3d"
SLOW_STEP_S = 0.75
"""A pass takes well under a millisecond; one that waited for the link would wait for paho's retry
(1 s at least) or a socket timeout (seconds). A loaded machine's scheduling alone has delayed a
pass by 370 ms."""


class FakeServer:
    """A TCP listener on loopback that answers each MQTT CONNECT with ``answer`` (or never answers)."""

    def __init__(self, answer: bytes | None) -> None:
        self.answer = answer
        self.accepted: list[float] = []
        self._conns: list[socket.socket] = []
        self._stop = threading.Event()
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(8)
        self._sock.settimeout(0.05)
        self.port = self._sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted.append(time.monotonic())
            self._conns.append(conn)
            conn.settimeout(2)
            try:
                conn.recv(1024)  # the CONNECT
                if self.answer is not None:
                    conn.sendall(self.answer)
                    conn.close()  # a broker hangs up after refusing
            except OSError:
                pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        for conn in [self._sock, *self._conns]:
            conn.close()


def _node(port: int, ms, **kw) -> PiNode:
    config = PiNodeConfig(
        node_id="pi-1", table="t1", broker=BrokerAddress("127.0.0.1", port), sand_s=60.0, **kw
    )
    return PiNode(config, clock=ms, boot_id=BOOT)


def _bar(pins) -> list[float]:
    return [round(pins.pin(p).state, 4) for p in BAR]


def _run_for(node: PiNode, ms, seconds: float, until=None) -> float:
    """Step the node every 10 ms of its clock for ``seconds`` of real time (or until ``until()``);
    return the longest pass in seconds."""
    longest = 0.0
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (until and until()):
        ms.t += 10
        started = time.perf_counter()
        node.step()
        longest = max(longest, time.perf_counter() - started)
        time.sleep(0.001)  # let paho's thread run, as the service's wait does
    return longest


def _turn_over(node: PiNode, pins, ms) -> None:
    pins.pin(TILT).drive_low() if node.tilt.value == 0 else pins.pin(TILT).drive_high()
    for _ in range(20):  # 200 ms of passes: the flip is counted after 150 ms at rest
        ms.t += 10
        node.step()


def test_a_refused_login_neither_stops_the_loop_nor_retries_at_once(mock_pins, ms, caplog):
    server = FakeServer(b"\x20\x02\x00\x05")  # CONNACK: not authorised
    caplog.set_level(logging.INFO)
    node = _node(server.port, ms).start()
    try:
        before = _bar(mock_pins)
        _turn_over(node, mock_pins, ms)
        longest = _run_for(node, ms, 3.6)
        assert longest < SLOW_STEP_S, longest
        assert node.core.seq == 1 and [k for _, k, _ in node.core.outbox] == ["flip"]
        assert node.pattern == "offline" and _bar(mock_pins) != before  # the sand runs on the bar
        assert not node.connected.is_set()
        # paho waits, doubling the wait after each refusal (companion.mqtt.client sets the range):
        # a handful of attempts in 3.6 s, not hundreds
        assert 2 <= len(server.accepted) <= 6, server.accepted
        gaps = [b - a for a, b in zip(server.accepted, server.accepted[1:], strict=False)]
        # each retry waits at least the doubled back-off (0.25, 0.5, 1 s...): a loaded machine can
        # lengthen a wait (0.69 s for the second was seen), never shorten it
        assert all(g >= 0.8 * RECONNECT_MIN_S * 2**i for i, g in enumerate(gaps)), gaps
        assert "refused node pi-1" in caplog.text
    finally:
        node.close()
        server.close()


def test_a_broker_that_never_answers_does_not_hold_up_the_loop(mock_pins, ms):
    server = FakeServer(None)  # accepts the connection, then silence (a half-open link)
    node = _node(server.port, ms).start()
    try:
        wait_until(lambda: server.accepted, message="the node to try to connect")
        _turn_over(node, mock_pins, ms)
        assert _run_for(node, ms, 1.5) < SLOW_STEP_S
        assert node.core.seq == 1 and len(node.core.outbox) == 1 and node.pattern == "offline"
    finally:
        started = time.monotonic()
        node.close()
        server.close()
    assert time.monotonic() - started < 5  # leaving does not wait on the dead link for long


def test_a_killed_broker_keeps_the_loop_going_and_the_flip_goes_out_after(fresh_mosquitto, mock_pins, ms):
    node = _node(fresh_mosquitto.port, ms).start()
    try:
        assert node.connected.wait(5)
        fresh_mosquitto.kill()
        assert _run_for(node, ms, 5, until=lambda: not node.core.connected) < SLOW_STEP_S
        assert not node.core.connected
        _turn_over(node, mock_pins, ms)
        assert _run_for(node, ms, 0.5) < SLOW_STEP_S
        assert node.core.seq == 1 and len(node.core.outbox) == 1 and node.pattern == "offline"
        fresh_mosquitto.start()  # same port
        rec = Recorder(fresh_mosquitto, protocol.table_prefix("t1") + "/node/pi-1/event")
        longest = _run_for(node, ms, 15, until=lambda: rec.payloads(kind="flip"))
        assert longest < SLOW_STEP_S
        kinds = [e["kind"] for e in rec.payloads()]
        assert "flip" in kinds and kinds.index("hello") < kinds.index("flip"), kinds
        rec.close()
    finally:
        node.close()


@pytest.fixture
def connected(mosquitto, table_id, mock_pins, ms, recorder_factory):
    rec = recorder_factory(protocol.table_prefix(table_id) + "/node/pi-1/#")
    config = PiNodeConfig(node_id="pi-1", table=table_id, broker=mosquitto.address, sand_s=60.0)
    node = PiNode(config, clock=ms, boot_id=BOOT).start()
    assert node.connected.wait(5)
    rec.wait_for(1, kind="hello")
    yield node, rec
    node.close()


def test_a_message_that_breaks_the_handler_does_not_end_paho_s_thread(connected, mock_pins, ms, caplog):
    """paho re-raises a callback's exception in its thread, which ends it: the node went deaf."""
    node, rec = connected
    cmd = protocol.node_topic(node.config.table, "pi-1", "cmd")
    real = node.core.on_message
    calls = []

    def broken_once(topic, payload):
        calls.append(topic)
        if len(calls) == 1:
            raise RuntimeError("a bug in the handler")
        return real(topic, payload)

    node.core.on_message = broken_once
    rec.publish(cmd, protocol.encode("cmd", "show", pattern="identify"))
    wait_until(lambda: calls, message="the first command")
    # deeper than the protocol allows: json.loads used to raise RecursionError here
    rec.publish(cmd, b"[" * 3000 + b"]" * 3000)
    wait_until(lambda: node.core.rejected_messages == 1, message="the nested payload to be refused")
    _turn_over(node, mock_pins, ms)
    rec.publish(cmd, protocol.encode("cmd", "ack", boot=BOOT, seq=1, verdict="accepted"))
    wait_until(lambda: node.core.last_verdict == "accepted", message="the ack after the failures")
    client = node.radio.client
    assert client is not None and client._thread is not None and client._thread.is_alive()
    assert "_on_message failed; the node carries on" in caplog.text


def test_a_full_outbox_is_logged(connected, ms, caplog):
    node, rec = connected
    node.core.on_disconnect()
    for _ in range(node.core.outbox_limit + 2):
        ms.t += 10
        node.core.flip()
    node.step()
    assert "outbox full (64 events): 2 flips/run-outs dropped since boot" in caplog.text
