"""Fixtures of the fault tests: a mosquitto of their own, hubs and fleets that never outlive a test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.mqtt.broker import MosquittoBroker, find_mosquitto
from tests.faults.hub import Processes


@pytest.fixture(scope="module")
def fault_broker() -> Iterator[MosquittoBroker]:
    """A real mosquitto on a free loopback port, for this module's tables only."""
    if find_mosquitto() is None:
        pytest.fail("mosquitto is not installed: apt-get install -y mosquitto (.ci/run does this)")
    broker = MosquittoBroker("127.0.0.1").start()
    yield broker
    broker.close()


@pytest.fixture
def procs() -> Iterator[Processes]:
    """Hub processes and node fleets of one test, all stopped when it ends (even after a failure)."""
    with Processes() as started:
        yield started
