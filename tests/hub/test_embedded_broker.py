"""The embedded broker choices: amqtt in-process when mosquitto is absent, mosquitto otherwise."""

from __future__ import annotations

import pytest

from companion.errors import ConfigError
from companion.hub import HubConfig
from companion.mqtt.broker import AmqttBroker, BrokerAddress, MosquittoBroker, start_embedded_broker
from companion.runtime import RunOptions, Table
from tests.conftest import wait_seated_online, wait_until


@pytest.mark.parametrize(
    "url, expected",
    [
        ("mqtt://127.0.0.1:1884", BrokerAddress("127.0.0.1", 1884)),
        ("mqtt://node:s%40cret@broker.local", BrokerAddress("broker.local", 1883, "node", "s@cret")),
        ("localhost:1999", BrokerAddress("localhost", 1999)),
        ("mqtt://[::1]:1883", BrokerAddress("::1", 1883)),
    ],
)
def test_broker_urls(url, expected):
    assert BrokerAddress.parse(url) == expected


@pytest.mark.parametrize(
    "url, reason",
    [
        ("mqtts://host", "must start with mqtt://"),
        ("mqtt://", "names no host"),
        ("mqtt://host:99999", "invalid port"),
        ("mqtt://host/path", "must not have a path"),
    ],
)
def test_bad_broker_urls(url, reason):
    with pytest.raises(ConfigError, match=reason):
        BrokerAddress.parse(url)


def test_credentials_are_not_printed():
    assert str(BrokerAddress("h", 1, "user", "secret")) == "mqtt://user@h:1"


def test_table_over_the_in_process_amqtt_broker(table_id):
    options = RunOptions(
        hub=HubConfig(table=table_id, players=2, timers=1),
        embedded="amqtt",
        mqtt_port=None,
        http_port=None,
        heartbeat_s=0.5,
    )
    with Table(options) as table:
        assert isinstance(table.broker, AmqttBroker)
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        node = table.fleet.nodes["red-1"]
        node.flip()
        wait_until(lambda: node.core.last_verdict == "accepted", message="verdict via amqtt")
        assert session.state.timers["red-1"].flips == 1
        table.fleet.nodes["yellow-1"].kill()
        wait_until(lambda: not session.table.link("yellow-1").online, message="last will via amqtt")


@pytest.mark.broker
def test_auto_prefers_mosquitto_and_moves_off_a_busy_port(mosquitto):
    broker = start_embedded_broker("127.0.0.1", mosquitto.port)
    try:
        assert isinstance(broker, MosquittoBroker)
        assert broker.port != mosquitto.port
    finally:
        broker.close()
