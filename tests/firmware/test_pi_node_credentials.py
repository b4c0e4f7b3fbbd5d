"""The Pi node program on gpiozero mock pins against a real mosquitto locked to the table's users (and TLS).

The broker is the embedded mosquitto as ``companion run --lan`` starts it (``start_embedded_broker``
with the table's ``BrokerAuth``); the node reads its user, password and CA from its TOML config
the way ``companion node add`` prints them.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest
from companion_node_pi import PiNode, load_config, parse_config

from companion.core import protocol
from companion.errors import ConfigError
from tests.conftest import wait_until
from tests.mqtt.certs import make_ca, make_tls_files
from tests.mqtt.conftest import Locked, login, start_locked


@pytest.fixture
def locked(tmp_path, table_id):
    found = start_locked(tmp_path, table_id)
    yield found
    found.broker.close()


@pytest.fixture(scope="module")
def table_tls(tmp_path_factory):
    return make_tls_files(tmp_path_factory.mktemp("tls"), ["localhost", "127.0.0.1"])


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory):
    return make_ca(tmp_path_factory.mktemp("other-ca"), "someone else's CA")[0]


@pytest.fixture
def locked_tls(tmp_path, table_id, table_tls):
    found = start_locked(tmp_path, table_id, table_tls)
    yield found
    found.broker.close()


TILT = 17


def _toml(table: str, url: str, *, extra: str = "") -> str:
    return f'[node]\nid = "red-1"\ntable = "{table}"\nsand_s = 8\n\n[broker]\nurl = "{url}"\n{extra}'


def _flip(node: PiNode, pins, ms) -> None:
    """Turn the node over and let the ball rest: one flip after 150 ms."""
    ms.t += 10
    pins.pin(TILT).drive_low()
    for _ in range(30):
        ms.t += 10
        node.step()


def _hub_listener(locked: Locked):
    return login(locked.hub, "hub-listener").subscribe(protocol.table_prefix(locked.table) + "/#")


def test_pi_node_logs_in_with_its_config_and_plays(locked, mock_pins, ms, tmp_path):
    creds = locked.auth.credentials("red-1")
    secret = tmp_path / "node.secret"
    secret.write_text(creds.password + "\n")
    path = tmp_path / "node.toml"
    address = locked.broker.address
    path.write_text(
        _toml(
            locked.table,
            f"mqtt://{address.host}:{address.port}",
            extra=f'username = "red-1"\npassword_file = "{secret}"\n',
        )
    )
    hub = _hub_listener(locked)
    node = PiNode(load_config(path), clock=ms, boot_id="0a1b2c3d").start()
    try:
        assert node.connected.wait(5), "the node could not log in"
        event = protocol.node_topic(locked.table, "red-1", "event")
        hello = json.loads(hub.wait_for(event)[0])
        assert hello["kind"] == "hello"
        _flip(node, mock_pins, ms)
        flips = [json.loads(p) for p in hub.wait_for(event, 2)][1:]
        assert flips[0]["kind"] == "flip" and flips[0]["seq"] == 1
        ack = protocol.encode("cmd", "ack", boot="0a1b2c3d", seq=1, verdict="accepted")
        hub.publish(protocol.node_topic(locked.table, "red-1", "cmd"), ack)
        wait_until(lambda: node.core.outbox == [], message="the hub's ack reached the node")
        node.step()
        assert node.pattern == "accepted"
    finally:
        node.close()
        hub.close()


def test_pi_node_with_a_wrong_password_keeps_its_sand_and_its_flips(locked, mock_pins, ms):
    address = replace(locked.node("red-1"), password="not-it")
    cfg = parse_config(
        {
            "node": {"id": "red-1", "table": locked.table, "sand_s": 8},
            "broker": {
                "url": f"mqtt://{address.host}:{address.port}",
                "username": "red-1",
                "password": "not-it",
            },
        }
    )
    node = PiNode(cfg, clock=ms, boot_id="0a1b2c3d").start()
    try:
        # paho keeps trying and being refused meanwhile (again after its 1 s back-off). A step that
        # waited for the login would wait for ever or for that retry; a loaded machine's scheduling
        # delays one by tens, now and then a couple of hundred, milliseconds.
        started, slowest = time.monotonic(), 0.0
        while time.monotonic() - started < 1.5:
            t0 = time.monotonic()
            node.step()
            slowest = max(slowest, time.monotonic() - t0)
            time.sleep(0.01)
        assert slowest < 0.5, f"a step waited {slowest:.2f} s for the radio"
        assert not node.connected.is_set()
        _flip(node, mock_pins, ms)
        assert len(node.core.outbox) == 1  # kept for when the login works
    finally:
        node.close()


def test_pi_node_over_tls_with_the_tables_ca(locked_tls, mock_pins, ms, tmp_path, table_tls):
    creds = locked_tls.auth.credentials("red-1")
    tls = locked_tls.broker.tls_address
    path = tmp_path / "node.toml"
    path.write_text(
        _toml(
            locked_tls.table,
            f"mqtt://localhost:{tls.port}",  # a name in the broker's certificate
            extra=f'username = "red-1"\npassword = "{creds.password}"\nca_file = "{table_tls.cafile}"\n',
        )
    )
    cfg = load_config(path)
    assert cfg.broker.tls and cfg.broker.ca_file == str(table_tls.cafile)
    hub = _hub_listener(locked_tls)
    node = PiNode(cfg, clock=ms, boot_id="0a1b2c3d").start()
    try:
        assert node.connected.wait(5), "the node could not connect over TLS"
        event = protocol.node_topic(locked_tls.table, "red-1", "event")
        assert json.loads(hub.wait_for(event)[0])["kind"] == "hello"
        _flip(node, mock_pins, ms)
        assert [json.loads(p)["kind"] for p in hub.wait_for(event, 2)] == ["hello", "flip"]
    finally:
        node.close()
        hub.close()


def test_pi_node_refuses_a_broker_its_ca_did_not_sign(locked_tls, mock_pins, ms, other_ca):
    tls = locked_tls.node("red-1", locked_tls.broker.tls_address)
    cfg = parse_config(
        {
            "node": {"id": "red-1", "table": locked_tls.table, "sand_s": 8},
            "broker": {
                "url": f"mqtt://localhost:{tls.port}",
                "username": "red-1",
                "password": tls.password,
                "ca_file": str(other_ca),
            },
        }
    )
    node = PiNode(cfg, clock=ms, boot_id="0a1b2c3d").start()
    try:
        time.sleep(0.6)  # a few attempts by paho, each refused in the handshake
        assert not node.connected.is_set()
        node.step()  # the loop goes on
    finally:
        node.close()


@pytest.mark.parametrize(
    "broker, reason",
    [
        (
            {"url": "mqtt://h", "ca_file": "/nonexistent/ca.crt"},
            "ca_file '/nonexistent/ca.crt' cannot be read",
        ),
        ({"url": "mqtt://h", "tls": False, "ca_file": "CA"}, "ca_file is only used with tls = true"),
        ({"url": "mqtt://h", "tls": "yes"}, "[broker] tls must be bool"),
        ({"url": "mqtt://h", "password": "p"}, "a password needs a username"),
        ({"url": "mqtts://h"}, "must start with mqtt://"),
    ],
)
def test_bad_tls_and_login_settings_are_one_sentence(tmp_path, broker, reason):
    if broker.get("ca_file") == "CA":
        ca = tmp_path / "ca.crt"
        ca.write_text("-----BEGIN CERTIFICATE-----\n")
        broker = {**broker, "ca_file": str(ca)}
    with pytest.raises(ConfigError) as caught:
        parse_config({"node": {"id": "red-1", "table": "t"}, "broker": broker}, "node.toml")
    assert reason in str(caught.value)


def test_not_pem_ca_file_is_refused(tmp_path):
    ca = tmp_path / "ca.der"
    ca.write_bytes(b"\x30\x82\x01\x00")
    with pytest.raises(ConfigError, match="is not a PEM certificate"):
        parse_config(
            {"node": {"id": "red-1", "table": "t"}, "broker": {"url": "mqtt://h", "ca_file": str(ca)}}
        )


def test_tls_alone_uses_the_systems_cas():
    cfg = parse_config(
        {"node": {"id": "red-1", "table": "t"}, "broker": {"url": "mqtt://h:8883", "tls": True}}
    )
    assert cfg.broker.tls and cfg.broker.ca_file is None
