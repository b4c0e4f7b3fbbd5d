"""The hub's MQTT side: node messages in, acknowledgements and table state out.

Every raw topic and payload goes through ``companion.core.protocol``; what does
not validate is counted in the session's statistics with its reason and
otherwise ignored, so a misbehaving node can never change the table.

The bridge also tells the session whether it reaches its broker
(``TableSession.broker_status``): offline as soon as paho loses the connection or
cannot make one, online again on the next CONNACK. It clears retained messages it
finds under the table that nobody owns (see :func:`owns_retained`), so junk left in
a persistent broker does not come back at every start.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import paho.mqtt.client as mqtt

from companion.core import protocol
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.client import connect_in_background, make_client
from companion.table import commands as cmd
from companion.table.session import TableSession

log = logging.getLogger(__name__)

# Why the hub has no broker, as the dashboard shows it (dashboard.js lists them for translation).
LOST = "lost the connection to the broker at {address}"
UNREACHABLE = "cannot reach the broker at {address}"
REFUSED = "the broker at {address} refused the hub: {reason}"


def owns_retained(table: str, topic: str) -> bool:
    """Whether a retained message on ``topic`` belongs under ``table``: a node's own availability
    (``node/<id>/status``), or the hub's ``state`` and ``hub/status``. Nothing else is retained
    by anyone following the protocol."""
    try:
        parsed = protocol.parse_topic(topic)
    except protocol.ProtocolError:
        return False
    return parsed.table == table and parsed.kind in ("status", "state", "hub-status")


class HubBridge:
    """Connects a :class:`TableSession` to a broker."""

    def __init__(
        self, session: TableSession, address: BrokerAddress, *, client_id: str | None = None
    ) -> None:
        self.session = session
        self.address = address
        self.table = session.setup.table
        self.connected = threading.Event()
        self._stopping = False
        self.retained_cleared = 0
        """Retained messages under the table the hub did not own and cleared."""
        self._clearing: set[str] = set()
        """Topics the hub cleared whose (empty, live) echo it has not seen yet."""
        will = (protocol.hub_status_topic(self.table), protocol.status_payload(False), True)
        # A persistent session: QoS 1 node events sent while the hub is away wait in the broker.
        self.client = make_client(
            client_id or f"companion-hub-{self.table}", address, clean_session=False, will=will
        )
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_message = self._on_message
        session.add_listener(self._on_session_change)

    def start(self) -> HubBridge:
        connect_in_background(self.client, self.address)
        return self

    def stop(self) -> None:
        self._stopping = True
        self.session.remove_listener(self._on_session_change)
        if self.connected.is_set():
            info = self.client.publish(
                protocol.hub_status_topic(self.table), protocol.status_payload(False), qos=1, retain=True
            )
            try:
                info.wait_for_publish(2)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    # --- paho callbacks (paho's network thread) --------------------------------------------
    def _broker_status(self, online: bool, detail: str) -> None:
        """Tell the session (a short transaction under its lock; no I/O, nothing waited for)."""
        try:
            self.session.broker_status(online=online, detail=detail)
        except Exception:  # never let it kill paho's thread
            log.exception("could not record the broker's status")

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            log.error("broker %s refused the hub: %s", self.address, reason)
            self._broker_status(False, REFUSED.format(address=self.address, reason=reason))
            return
        self._broker_status(True, str(self.address))
        # Subscribing again also replays the retained statuses, so nodes come back online.
        client.subscribe(protocol.hub_subscriptions(self.table))
        client.publish(
            protocol.hub_status_topic(self.table), protocol.status_payload(True), qos=1, retain=True
        )
        self.publish_table_state()
        self.connected.set()
        log.info("hub connected to %s", self.address)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()
        if not self._stopping:
            log.warning("hub lost the broker %s (%s); reconnecting", self.address, reason)
            self._broker_status(False, LOST.format(address=self.address))

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        if not self._stopping:
            log.info("hub cannot reach the broker %s; trying again", self.address)
            self._broker_status(False, UNREACHABLE.format(address=self.address))

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            if msg.retain and not owns_retained(self.table, msg.topic):
                self._clear_retained(msg.topic)
                return
            if not msg.payload and msg.topic in self._clearing:
                self._clearing.discard(msg.topic)  # the echo of our own clearing
                return
            self.handle(msg.topic, msg.payload)
        except Exception:  # never let one message kill paho's thread
            log.exception("unexpected error handling %s", msg.topic)
            self.session.reject_message("malformed", "the hub could not handle this message", topic=msg.topic)

    def _clear_retained(self, topic: str) -> None:
        """Remove a retained message nobody owns (an empty retained payload), count it and log it."""
        self._clearing.add(topic)
        self.client.publish(topic, b"", qos=protocol.QOS, retain=True)
        self.retained_cleared += 1
        self.session.reject_message(
            "retained", f"cleared a retained message the hub does not own on {topic}", topic=topic
        )

    # --- message handling (also callable from tests without a broker) ---------------------
    def handle(self, topic: str, payload: bytes | bytearray) -> None:
        try:
            parsed = protocol.parse_topic(topic)
        except protocol.ProtocolError as exc:
            self.session.reject_message("unknown_topic", str(exc), topic=topic)
            return
        if parsed.table != self.table:
            self.session.reject_message("wrong_table", f"message for table {parsed.table!r}", topic=topic)
            return
        if parsed.kind in ("cmd", "state", "hub-status") or parsed.node is None:
            return  # the hub's own publications, seen through its subscription to the whole table
        try:
            msg = protocol.decode(parsed.kind, payload)
        except protocol.ProtocolError as exc:
            category = "malformed" if isinstance(exc, protocol.MalformedPayloadError) else "schema"
            self.session.reject_message(category, str(exc), topic=topic)
            return
        if parsed.kind == "status":
            self.session.node_status(parsed.node, online=msg.kind == "online")
            return
        self.session.node_message(parsed.node, msg)  # its commands come back through the listener, in order

    def send(self, command: cmd.Command) -> None:
        """Publish one command: to its node, or the retained table state."""
        if isinstance(command, cmd.PublishTableState):
            payload = protocol.encode("state", "table", **command.fields)
            self.client.publish(
                protocol.table_state_topic(self.table), payload, qos=protocol.QOS, retain=True
            )
            return
        payload = protocol.encode("cmd", command.kind, **command.fields)
        self.client.publish(protocol.node_topic(self.table, command.node, "cmd"), payload, qos=protocol.QOS)

    def publish_table_state(self) -> None:
        self.send(self.session.table_state_command())

    def _on_session_change(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "change":  # called inside the session's lock: commands leave in decision order
            for command in data["commands"]:
                self.send(command)
