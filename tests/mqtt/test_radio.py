"""The nodes' one radio (companion/node/radio.py) against a real mosquitto: it connects with the
node's last will, subscribes again after a broker restart, queues what is published while the
broker is away, says a refused login once, and a NodeCore on it says hello at every connect."""

from __future__ import annotations

import dataclasses
import itertools
import logging
import threading

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.core import protocol
from companion.core.node import NodeCore
from companion.mqtt.broker import BrokerAddress, MosquittoBroker
from companion.node.radio import MqttRadio, RadioNode, core_radio
from tests.conftest import wait_until
from tests.mqtt.conftest import Locked, login

pytestmark = pytest.mark.broker

_ids = itertools.count(1)


class Heard:
    """A radio listener that notes what the radio told it."""

    def __init__(self) -> None:
        self.connects = 0
        self.disconnects = 0
        self.messages: list[tuple[str, bytes]] = []
        self.lock = threading.Lock()

    def on_connect(self) -> None:
        with self.lock:
            self.connects += 1

    def on_disconnect(self) -> None:
        with self.lock:
            self.disconnects += 1

    def on_message(self, topic: str, payload: bytes) -> None:
        with self.lock:
            self.messages.append((topic, payload))

    def payloads(self) -> list[bytes]:
        with self.lock:
            return [p for _, p in self.messages]


class Watcher:
    """A client with a persistent session (clean_session off) that keeps everything under one filter and
    reconnects by itself: a broker restarted with its persistence keeps queueing for it meanwhile."""

    def __init__(self, address: BrokerAddress, topic_filter: str) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.subscribed = threading.Event()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"watcher-{next(_ids)}", clean_session=False
        )
        self.client.reconnect_delay_set(min_delay=0.1, max_delay=0.5)  # type: ignore[arg-type]
        self.client.on_connect = lambda c, u, f, r, p: c.subscribe(topic_filter, qos=1)
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.on_message = lambda c, u, m: self.got.append((m.topic, m.payload))
        self.client.connect_async(address.host, address.port)
        self.client.loop_start()
        assert self.subscribed.wait(5), "the watcher could not subscribe"

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _radio(address: BrokerAddress, table: str, node: str = "red-1", **kw) -> tuple[MqttRadio, Heard]:
    heard = Heard()
    radio = MqttRadio(
        f"radio-{table}-{node}",
        address,
        will=protocol.node_last_will(table, node),
        subscriptions=protocol.node_subscriptions(table, node),
        name=f"node {node}",
        listener=heard,
        **kw,
    )
    return radio, heard


def _cmd(table: str, node: str = "red-1") -> str:
    return protocol.node_topic(table, node, "cmd")


def test_connects_subscribes_and_hears_the_node_s_topics(mosquitto: MosquittoBroker, table_id):
    radio, heard = _radio(mosquitto.address, table_id)
    hub = login(mosquitto.address, f"hub-{table_id}")
    try:
        assert radio.client is None and not radio.connected.is_set()
        radio.publish(_cmd(table_id), b"before start")  # nothing to send it with: dropped, no error
        radio.start()
        assert radio.connected.wait(5) and heard.connects == 1
        show = protocol.encode("cmd", "show", pattern="identify")
        wait_until(  # the SUBACK may still be on its way: send until it is heard
            lambda: hub.publish(_cmd(table_id), show) or heard.messages,
            interval_s=0.05,
            message="a command on the node's topic",
        )
        hub.publish(_cmd(table_id, "blue-1"), show)  # another node's: not subscribed
        hub.publish(protocol.hub_status_topic(table_id), protocol.status_payload(True))
        wait_until(
            lambda: (protocol.hub_status_topic(table_id), protocol.status_payload(True)) in heard.messages,
            message="the hub's status",
        )
        assert {topic for topic, _ in heard.messages} == {_cmd(table_id), protocol.hub_status_topic(table_id)}
        assert set(heard.payloads()) == {show, protocol.status_payload(True)}
    finally:
        radio.leave()
        hub.close()
    assert not radio.connected.is_set() and heard.disconnects == 1


def test_the_last_will_marks_a_vanished_node_offline_and_leaving_says_goodbye(mosquitto, table_id):
    status = protocol.node_topic(table_id, "red-1", "status")
    radio, heard = _radio(mosquitto.address, table_id)
    radio.start()
    assert radio.connected.wait(5)
    radio.publish(status, protocol.status_payload(True), retain=True)
    look = login(mosquitto.address, f"look-{table_id}").subscribe(status)
    try:
        assert look.wait_for(status) == [protocol.status_payload(True)]
        radio.kill()  # no DISCONNECT: the broker publishes the will
        assert not radio.connected.is_set() and heard.disconnects == 1
        assert look.wait_for(status, 2)[1] == protocol.status_payload(False)
    finally:
        look.close()
    later = login(mosquitto.address, f"later-{table_id}").subscribe(status)
    try:
        assert later.wait_for(status) == [protocol.status_payload(False)]  # kept for whoever comes later
    finally:
        later.close()

    radio.start()  # back in range: the same radio connects again
    assert radio.connected.wait(5) and heard.connects == 2
    watch = login(mosquitto.address, f"watch-{table_id}").subscribe(status)
    try:
        radio.leave([(status, b"goodbye", True)])
        # the retained will first (it was there when the watcher subscribed), then the goodbye,
        # which the broker acknowledged before leave returned
        assert watch.wait_for(status, 2) == [protocol.status_payload(False), b"goodbye"]
    finally:
        watch.close()


def test_subscribes_again_after_a_broker_restart(fresh_mosquitto: MosquittoBroker, table_id):
    """The restarted broker has no persistence and forgets every subscription: only one the radio made
    again at its new connect delivers the command."""
    radio, heard = _radio(fresh_mosquitto.address, table_id)
    radio.start()
    try:
        assert radio.connected.wait(5)
        fresh_mosquitto.kill()
        wait_until(lambda: heard.disconnects >= 1, message="the radio to notice")
        assert not radio.connected.is_set()
        fresh_mosquitto.start()  # same port, nothing remembered
        assert radio.connected.wait(10) and heard.connects == 2
        hub = login(fresh_mosquitto.address, f"hub-{table_id}")
        try:
            tries = iter(range(200))
            wait_until(
                lambda: hub.publish(_cmd(table_id), b"%d" % next(tries)) or heard.messages,
                timeout_s=10,
                interval_s=0.05,
                message="a command after the restart",
            )
        finally:
            hub.close()
    finally:
        radio.leave()


def test_a_publish_while_the_broker_is_away_is_sent_after_the_reconnect(restartable_mosquitto, table_id):
    event = protocol.node_topic(table_id, "red-1", "event")
    watcher = Watcher(restartable_mosquitto.address, event)
    radio, heard = _radio(restartable_mosquitto.address, table_id)
    radio.start()
    try:
        assert radio.connected.wait(5)
        restartable_mosquitto.stop()  # in order: the watcher's session is saved
        wait_until(lambda: heard.disconnects >= 1, message="the radio to notice")
        radio.publish(event, b"while away")  # paho keeps it (rc 4) and sends it after the reconnect
        restartable_mosquitto.start()
        assert radio.connected.wait(10)
        wait_until(lambda: watcher.got, timeout_s=10, message="the queued message")
        assert watcher.got == [(event, b"while away")]
    finally:
        radio.leave()
        watcher.close()


def test_a_refused_login_is_said_once_and_a_new_one_is_used_while_disconnected(
    locked: Locked, table_id, caplog
):
    right = locked.node("red-1")
    radio, heard = _radio(dataclasses.replace(right, password="not-the-password"), table_id)
    caplog.set_level(logging.DEBUG, logger="companion.node.radio")
    radio.start()
    try:
        wait_until(lambda: radio.refusals >= 3, timeout_s=10, message="three refused attempts")
        assert not radio.connected.is_set() and heard.connects == 0
        said = [r for r in caplog.records if r.levelno >= logging.WARNING and "refused" in r.getMessage()]
        assert [r.getMessage() for r in said] == [
            "broker refused node red-1: Not authorized (retrying quietly)"
        ]
        radio.move(right)  # the right password (same host and port): a new client logs in with it
        assert radio.connected.wait(10) and heard.connects == 1 and radio.refusals == 0
        assert any("logged in after" in r.getMessage() for r in caplog.records)
    finally:
        radio.leave()


def test_a_node_core_on_the_radio_says_hello_at_every_connect(restartable_mosquitto, table_id):
    """RadioNode: the core's hello goes out at each connect, and a flip made while the broker is away
    waits in the core's outbox and follows the hello."""
    ms = [1000]
    core = NodeCore(table_id, "red-1", lambda: ms[0], "0a1b2c3d")
    radio = core_radio(core, f"core-{table_id}", restartable_mosquitto.address, name="node red-1")
    node = RadioNode(core, radio)
    events = protocol.node_topic(table_id, "red-1", "event")
    watcher = Watcher(restartable_mosquitto.address, events)
    radio.start()
    try:
        assert node.connected.wait(5) and core.connected
        wait_until(lambda: len(watcher.got) == 1, message="the first hello")
        restartable_mosquitto.stop()
        wait_until(lambda: not core.connected, message="the core to hear of the loss")
        with node._lock:
            node.send(core.flip())  # offline: kept in the outbox, nothing sent
        assert [kind for _, kind, _ in core.outbox] == ["flip"]
        restartable_mosquitto.start()
        assert node.connected.wait(10)
        wait_until(lambda: len(watcher.got) >= 3, timeout_s=10, message="hello and flip after the restart")
        kinds = [protocol.decode("event", payload).kind for _, payload in watcher.got]
        assert kinds[:3] == ["hello", "hello", "flip"]
    finally:
        radio.leave()
        watcher.close()
