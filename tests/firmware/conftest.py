"""Fixtures for the firmware tests: gpiozero mock pins, a fake clock, an MQTT recorder."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from paho.mqtt.enums import CallbackAPIVersion

from tests.conftest import wait_until

REPO = Path(__file__).resolve().parents[2]
# The Pi node is installed on a Pi from firmware/pi; here it is imported from the source tree.
if str(REPO / "firmware" / "pi") not in sys.path:
    sys.path.insert(0, str(REPO / "firmware" / "pi"))


class Ms:
    """A fake millisecond clock: ``clock()`` reads it, tests move ``t``."""

    def __init__(self, t: int = 1000) -> None:
        self.t = t

    def __call__(self) -> int:
        return self.t


@pytest.fixture
def mock_pins() -> Iterator[MockFactory]:
    """gpiozero's mock pins (PWM-capable) as the default factory, reset after the test."""
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = None


@pytest.fixture
def ms() -> Ms:
    return Ms()


class Recorder:
    """A paho client that keeps every message under a topic filter, in arrival order."""

    def __init__(self, broker, topic_filter: str) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="", clean_session=True)
        self.client.on_connect = lambda c, u, f, r, p: c.subscribe(topic_filter, qos=1)
        self.client.on_subscribe = lambda *a: self._ready.set()
        self.client.on_message = self._on_message
        self.client.connect(broker.address.host, broker.address.port)
        self.client.loop_start()
        assert self._ready.wait(5), "recorder could not subscribe"

    def _on_message(self, client, userdata, msg) -> None:
        with self._lock:
            self.messages.append((msg.topic, msg.payload, msg.retain))

    def payloads(self, suffix: str = "/event", kind: str | None = None) -> list[dict]:
        with self._lock:
            out = [json.loads(p) for t, p, _ in self.messages if t.endswith(suffix) and p]
        return [m for m in out if kind is None or m.get("kind") == kind]

    def wait_for(self, count: int, suffix: str = "/event", kind: str | None = None, timeout_s: float = 5.0):
        wait_until(
            lambda: len(self.payloads(suffix, kind)) >= count,
            timeout_s=timeout_s,
            message=f"{count} {kind or 'any'} message(s) on *{suffix}",
        )
        return self.payloads(suffix, kind)

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def recorder_factory(mosquitto):
    made: list[Recorder] = []

    def make(topic_filter: str) -> Recorder:
        rec = Recorder(mosquitto, topic_filter)
        made.append(rec)
        return rec

    yield make
    for rec in made:
        rec.close()
