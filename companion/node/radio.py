"""The radio a node talks through, and its one paho implementation.

``NodeCore`` never touches a socket: it returns ``(topic, payload, retain)`` messages and is
told when the link comes and goes and what arrived. This module is the other side of that
contract for every node that runs under CPython:

* :class:`Radio` is what node code may use of a link: ``publish``, ``connected`` and a
  ``listener`` (a :class:`RadioListener`) that hears ``on_connect``, ``on_disconnect`` and
  ``on_message``.
* :class:`MqttRadio` is that link over paho: it connects in the background with the node's
  last will, subscribes again in every ``on_connect``, keeps retrying while the broker is away,
  says a refused login once, keeps a failing listener from ending paho's thread, leaves cleanly
  (``leave``) or vanishes (``kill``), and follows a broker that moved (``move``).
* :class:`RadioNode` puts a ``NodeCore`` on a radio under one lock: the link's events go into
  the core and whatever the core answers goes out. The simulated node (``companion.node.sim``)
  and the Raspberry Pi node (``companion_node_pi``) are radio nodes; the USB-serial bridge
  (``companion.serial_bridge``) gives each serial node an ``MqttRadio`` of its own and is the
  listener itself, since that node's core runs on the far side of the cable.

The MicroPython firmware cannot run paho; its ``nodeapp.MqttLink`` (umqtt) and ``SerialLink``
have the same shape (``publish``, ``is_up``, ``on_connect``/``on_disconnect``/``on_message``),
see firmware/README.md.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

import paho.mqtt.client as mqtt

from companion.core import protocol
from companion.core.node import NodeCore
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.client import connect_in_background, make_client

log = logging.getLogger(__name__)

Message = tuple[str, bytes, bool]
"""(topic, payload, retain), as ``NodeCore`` returns what to publish."""

LEAVE_WAIT_S = 2.0
"""How long ``leave`` waits for the broker to acknowledge each goodbye message."""

_Handler = TypeVar("_Handler", bound=Callable[..., None])


def never_raises(handler: _Handler) -> _Handler:
    """Log an exception from a callback instead of raising it.

    paho re-raises an exception from ``on_connect``/``on_message``/``on_disconnect`` in its
    network thread, which ends that thread: the node would stay "connected" with nobody reading
    or writing its socket, never reconnect, and pile its heartbeats up in memory. A gpiozero edge
    callback runs on the pin library's thread, with the same risk.
    """

    @functools.wraps(handler)
    def guarded(*args: Any) -> None:
        try:
            handler(*args)
        except Exception:
            log.exception("%s failed; the node carries on", handler.__name__)

    return guarded  # type: ignore[return-value]


class RadioListener(Protocol):
    """What a radio tells the node code above it (called on the radio's own thread)."""

    def on_connect(self) -> None:
        """The link is up and the node's subscriptions are made: announce, resend."""

    def on_disconnect(self) -> None:
        """The link is gone (lost, left or refused); the radio is already trying again."""

    def on_message(self, topic: str, payload: bytes) -> None:
        """A message arrived on one of the node's subscriptions."""


class Radio(Protocol):
    """A node's link to the broker, as node code sees it."""

    connected: threading.Event
    """Set while the link is up (after the listener's ``on_connect`` has run)."""
    listener: RadioListener | None

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        """Send one message at the protocol's QoS; while the link is down it may be queued or dropped,
        so anything that must arrive stays in the caller's outbox until acknowledged."""


class MqttRadio:
    """One paho connection for one node, set up the same way for every kind of node.

    ``will`` is what the broker publishes if the node vanishes (its ``offline`` status);
    ``subscriptions`` are (topic filter, QoS) pairs made again at every connect (a broker that
    restarted without persistence has forgotten them); ``name`` ("node red-1") starts the log
    lines. ``address`` may be None until the broker is found (``move`` then starts the radio).
    """

    def __init__(
        self,
        client_id: str,
        address: BrokerAddress | None,
        *,
        will: Message,
        subscriptions: Sequence[tuple[str, int]],
        name: str,
        listener: RadioListener | None = None,
    ) -> None:
        self.client_id = client_id
        self.address = address
        """Where the radio connects (or will connect: the newest address ``move`` was given)."""
        self.will = will
        self.subscriptions = list(subscriptions)
        self.name = name
        self.listener = listener
        self.connected = threading.Event()
        self.client: mqtt.Client | None = None
        """The paho client, None until the radio starts."""
        self._dialled: BrokerAddress | None = None
        """The address (host, port, login) ``client`` was made for."""
        self.refusals = 0
        """Connection attempts the broker refused (a wrong password, a revoked node) since the last success."""
        self._client_lock = threading.Lock()

    # --- what node code uses ---------------------------------------------------------------------
    def start(self) -> MqttRadio:
        """Connect in paho's thread and keep reconnecting, even while the broker is down.

        After :meth:`kill` it comes back the same way: a node back in range."""
        with self._client_lock:
            if self.address is None:
                raise ValueError(f"{self.name}: no broker address to connect to")
            if self.client is None:
                self.client = self._new_client(self.address)
            connect_in_background(self.client, self.address)
        return self

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        """Send at QoS 1. Never retried here on a non-zero rc: paho queues a message published while
        disconnected and sends it after the reconnect. Before ``start`` nothing is sent."""
        client = self.client
        if client is not None:
            client.publish(topic, payload, qos=protocol.QOS, retain=retain)

    def leave(self, goodbye: Iterable[Message] = (), *, wait_s: float = LEAVE_WAIT_S) -> None:
        """Go cleanly: while connected publish ``goodbye`` and wait (at most ``wait_s`` each) for the
        broker to take it, then DISCONNECT (which cancels the last will) and stop paho's thread.

        Not from paho's thread, nor while holding a lock the listener takes: stopping joins that thread."""
        client = self.client
        if client is None:
            return
        if self.connected.is_set():
            infos = [
                client.publish(topic, payload, qos=protocol.QOS, retain=retain)
                for topic, payload, retain in goodbye
            ]
            for info in infos:
                try:
                    info.wait_for_publish(wait_s)
                except (RuntimeError, ValueError):  # lost meanwhile, or paho's queue was full
                    pass
        client.disconnect()
        client.loop_stop()
        self.connected.clear()

    def kill(self) -> None:
        """Vanish like a node whose battery fell out: no DISCONNECT, so the broker sends the last will."""
        client = self.client
        if client is None:
            return
        client.loop_stop()
        sock = client.socket()
        if sock is not None:
            sock.close()
        self.connected.clear()
        if self.listener is not None:
            self.listener.on_disconnect()

    def reconnect(self) -> None:
        """Drop the connection and connect again at once (a node that restarted says hello anew)."""
        self.connected.clear()
        if self.client is not None:
            self.client.reconnect()

    def move(self, address: BrokerAddress) -> None:
        """The broker is at ``address`` now (found again on the network, or a new login): connect
        there, at once if the radio has not started, else as soon as the current connection is lost
        (a connected link stays where it is). Never call it on paho's thread."""
        with self._client_lock:
            self.address = address
            if self.client is None:
                self.client = self._new_client(address)
                connect_in_background(self.client, address)
                return
        self._follow()

    # --- paho ----------------------------------------------------------------------------------
    def _new_client(self, address: BrokerAddress) -> mqtt.Client:
        self._dialled = address
        client = make_client(self.client_id, address, clean_session=True, will=self.will)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        return client

    def _follow(self) -> None:
        """While disconnected, start again at ``address`` if paho still retries another one.

        paho cannot change the address of a client that is retrying, so a new client replaces it."""
        with self._client_lock:
            old, address = self.client, self.address
            if old is None or address is None or address == self._dialled or self.connected.is_set():
                return
            old.loop_stop()
            log.info("%s: the broker moved to %s", self.name, address)
            self.client = self._new_client(address)
            connect_in_background(self.client, address)

    @never_raises
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if client is not self.client:
            return  # a replaced client's last word
        if reason.is_failure:
            if not self.refusals:  # paho retries with a growing wait; say it once, not at every try
                log.error("broker refused %s: %s (retrying quietly)", self.name, reason)
            else:
                log.debug("broker refused %s again: %s", self.name, reason)
            self.refusals += 1  # counted after it is said: a reader that sees the count finds the words
            return
        if self.refusals:
            log.warning("%s logged in after %d refusals", self.name, self.refusals)
        self.refusals = 0
        client.subscribe(self.subscriptions)
        if self.listener is not None:
            self.listener.on_connect()
        self.connected.set()
        log.info("%s connected to %s", self.name, self.address)

    @never_raises
    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if client is not self.client:
            return
        self.connected.clear()
        if self.listener is not None:
            self.listener.on_disconnect()
        if self.address != self._dialled:
            # it moved while this connection was up: replace the client, but not on its own thread
            threading.Thread(target=self._follow, name=f"{self.client_id}-follow", daemon=True).start()

    @never_raises
    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if client is self.client and self.listener is not None:
            self.listener.on_message(msg.topic, bytes(msg.payload))


def core_radio(core: NodeCore, client_id: str, address: BrokerAddress | None, *, name: str) -> MqttRadio:
    """The radio of a node whose core runs here: its last will and subscriptions come from the core."""
    return MqttRadio(client_id, address, will=core.last_will(), subscriptions=core.subscriptions(), name=name)


class RadioNode:
    """A ``NodeCore`` on a :class:`Radio`: the link's events go into the core and whatever the core
    answers goes out, under one lock (the radio calls in on its own thread, the node's loop on another).

    Subclasses (the simulated and the Pi node) add the node's inputs: ``send(self.core.flip())``
    under ``self._lock``.
    """

    def __init__(self, core: NodeCore, radio: Radio, *, lock: threading.RLock | None = None) -> None:
        self.core = core
        self.radio = radio
        self._lock = lock if lock is not None else threading.RLock()
        radio.listener = self

    @property
    def connected(self) -> threading.Event:
        """Set while the radio is connected and the core has said hello."""
        return self.radio.connected

    def send(self, messages: Iterable[Message]) -> None:
        """Publish what the core returned, in order (call with ``self._lock`` held)."""
        for topic, payload, retain in messages:
            self.radio.publish(topic, payload, retain)

    def on_connect(self) -> None:
        with self._lock:
            self.send(self.core.on_connect())

    def on_disconnect(self) -> None:
        with self._lock:
            self.core.on_disconnect()

    def on_message(self, topic: str, payload: bytes) -> None:
        with self._lock:
            self.send(self.core.on_message(topic, payload))
