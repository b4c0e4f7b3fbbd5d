"""Fixtures for the locked broker: a table's credential store, mosquitto with it (and with TLS), paho logins."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.mqtt.auth import BrokerAuth
from companion.mqtt.broker import (
    BrokerAddress,
    MosquittoBroker,
    TlsFiles,
    find_mosquitto,
    start_embedded_broker,
)
from companion.mqtt.client import use_tls
from tests.conftest import wait_until
from tests.mqtt.certs import make_ca, make_tls_files

NODES = ("red-1", "yellow-1")


@dataclass
class Locked:
    """A running mosquitto locked to one table's users."""

    broker: MosquittoBroker
    auth: BrokerAuth
    table: str

    @property
    def hub(self) -> BrokerAddress:
        return self.auth.hub_address(self.broker.address)

    def node(self, node: str, address: BrokerAddress | None = None) -> BrokerAddress:
        return self.auth.node_address(address or self.broker.address, node)


def start_locked(folder: Path, table: str, tls: TlsFiles | None = None) -> Locked:
    """mosquitto as ``companion run --lan`` starts it, with a store in ``folder`` where the hub and
    two nodes (``red-1``, ``yellow-1``) may log in; with ``tls``, a TLS listener on a free port too."""
    if find_mosquitto() is None:
        pytest.fail("mosquitto is not installed: apt-get install -y mosquitto (.ci/run does this)")
    auth = BrokerAuth.for_table(folder / "data", table)
    for node in NODES:
        auth.add_node(node)
    broker = start_embedded_broker(
        "127.0.0.1", None, auth=auth, tls=tls, tls_port=None, persistence_dir=folder / "persist"
    )
    assert isinstance(broker, MosquittoBroker)
    return Locked(broker, auth, table)


@pytest.fixture
def locked(tmp_path, table_id) -> Iterator[Locked]:
    """mosquitto with the table's store: the hub and two nodes (``red-1``, ``yellow-1``) may log in."""
    found = start_locked(tmp_path, table_id)
    yield found
    found.broker.close()


@pytest.fixture(scope="session")
def table_tls(tmp_path_factory) -> TlsFiles:
    """A CA and a broker certificate for ``localhost`` and ``127.0.0.1``."""
    return make_tls_files(tmp_path_factory.mktemp("tls"), ["localhost", "127.0.0.1"])


@pytest.fixture(scope="session")
def other_ca(tmp_path_factory) -> Path:
    """A CA that signed nothing of ours."""
    return make_ca(tmp_path_factory.mktemp("other-ca"), "someone else's CA")[0]


@pytest.fixture
def locked_tls(tmp_path, table_id, table_tls) -> Iterator[Locked]:
    """Like ``locked``, with a TLS listener on a free port and the plain one on loopback."""
    found = start_locked(tmp_path, table_id, table_tls)
    yield found
    found.broker.close()


@dataclass
class Login:
    """One paho client that connected (or tried to): what the broker answered, what it received."""

    client: mqtt.Client
    reason: str | None = None
    messages: list[tuple[str, bytes, bool]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    answered: threading.Event = field(default_factory=threading.Event)
    subscribed: threading.Event = field(default_factory=threading.Event)

    @property
    def ok(self) -> bool:
        return self.reason == "Success"

    def topics(self) -> list[str]:
        with self.lock:
            return [t for t, _, _ in self.messages]

    def payloads(self, topic: str) -> list[bytes]:
        with self.lock:
            return [p for t, p, _ in self.messages if t == topic]

    def subscribe(self, topic_filter: str) -> Login:
        self.subscribed.clear()
        self.client.subscribe(topic_filter, qos=1)
        assert self.subscribed.wait(5), f"no SUBACK for {topic_filter}"
        return self

    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def wait_for(self, topic: str, count: int = 1, timeout_s: float = 5.0) -> list[bytes]:
        wait_until(
            lambda: len(self.payloads(topic)) >= count, timeout_s=timeout_s, message=f"{count} on {topic}"
        )
        return self.payloads(topic)

    def die(self) -> None:
        """Vanish without DISCONNECT, so the broker publishes the last will."""
        self.client.loop_stop()
        sock = self.client.socket()
        if sock is not None:
            sock.close()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def login(
    address: BrokerAddress,
    client_id: str,
    *,
    will: tuple[str, bytes] | None = None,
    username: str | None = None,
    password: str | None = None,
) -> Login:
    """Connect once (no retries) and wait for the broker's answer. A TLS failure raises ``ssl.SSLError``."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True)
    user = username if username is not None else address.username
    if user is not None:
        client.username_pw_set(user, password if password is not None else address.password)
    if address.tls:
        use_tls(client, address.ca_file)
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    result = Login(client)

    def on_connect(c, userdata, flags, reason, props):
        result.reason = str(reason)
        result.answered.set()

    def on_message(c, userdata, msg):
        with result.lock:
            result.messages.append((msg.topic, msg.payload, msg.retain))

    client.on_connect = on_connect
    client.on_message = on_message
    client.on_subscribe = lambda *a: result.subscribed.set()
    client.connect(address.host, address.port, keepalive=15)
    client.loop_start()
    if not result.answered.wait(5):
        client.loop_stop()
        raise AssertionError(f"no CONNACK from {address}")
    if not result.ok:
        client.loop_stop()
    return result


def flip(seq: int, boot: str = "0a1b2c3d") -> bytes:
    return json.dumps(
        {"v": 1, "kind": "flip", "boot": boot, "seq": seq, "t_ms": 5, "upper_ms": 60000, "lower_ms": 0}
    ).encode()
