"""The hub's MQTT side: node messages in, acknowledgements and table state out.

Every raw topic and payload goes through ``companion.core.protocol``; what does
not validate is counted in the session's statistics with its reason and
otherwise ignored, so a misbehaving node can never change the table.
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
        will = (protocol.hub_status_topic(self.table), protocol.status_payload(False), True)
        # A persistent session: QoS 1 node events sent while the hub is away wait in the broker.
        self.client = make_client(
            client_id or f"companion-hub-{self.table}", address, clean_session=False, will=will
        )
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
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
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            log.error("broker %s refused the hub: %s", self.address, reason)
            return
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
            log.warning("hub lost the broker (%s); reconnecting", reason)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self.handle(msg.topic, msg.payload)
        except Exception:  # never let one message kill paho's thread
            log.exception("unexpected error handling %s", msg.topic)
            self.session.reject_message("malformed", "the hub could not handle this message", topic=msg.topic)

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
