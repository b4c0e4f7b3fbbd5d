"""The hub's MQTT side: node messages in, acknowledgements and table state out.

Every raw topic and payload goes through ``companion.core.protocol``; what does
not validate is counted in the session's statistics with its reason and
otherwise ignored, so a misbehaving node can never change the table.

Node messages that arrive together are handled off paho's network thread: ``_on_message``
queues them, and one worker thread takes everything queued at once and hands it to
``TableSession.handle_batch``, so they share one fsync of the log (group commit) while paho
goes on reading and sending. A message that arrives alone (nothing queued, the worker idle,
the previous message more than :data:`INLINE_GAP_S` ago) on a disk that syncs fast
(:data:`INLINE_SYNC_S`) is handled at once in paho's thread, which saves two thread switches.
Either way each ack leaves only after its report's line is synced, and in the order the
table decided. (A report queued here when the hub dies was already acknowledged to the
broker, not to the node: the node keeps it in its outbox and sends it again.)

The bridge also tells the session whether it reaches its broker
(``TableSession.broker_status``): offline as soon as paho loses the connection or
cannot make one, online again on the next CONNACK. It clears retained messages it
finds under the table that nobody owns (see :func:`owns_retained`), so junk left in
a persistent broker does not come back at every start.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from companion.core import protocol
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.client import connect_in_background, make_client
from companion.mqtt.ha_discovery import HADiscovery
from companion.rules.text import Text, text
from companion.table import commands as cmd
from companion.table import messages as tm
from companion.table.session import TableSession

log = logging.getLogger(__name__)

INLINE_GAP_S = 0.0005
"""A message that comes this long after the one before, with nothing queued, is handled at once."""
INLINE_SYNC_S = 0.001
"""... if the log's fsync takes less than this; on a slower disk every message goes to the worker."""

SEATS_CHANGED = ("TableReset", "SeatAdded")
"""Events after which the seated nodes may differ (Home Assistant discovery follows them)."""


# Why the hub has no broker, as the dashboard shows it (dashboard.js lists them for translation).
def _lost(address: object) -> Text:
    return text("lost the connection to the broker at {address}", address=str(address))


def _unreachable(address: object) -> Text:
    return text("cannot reach the broker at {address}", address=str(address))


def _refused(address: object, reason: object) -> Text:
    return text("the broker at {address} refused the hub: {reason}", address=str(address), reason=str(reason))


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
        self,
        session: TableSession,
        address: BrokerAddress,
        *,
        client_id: str | None = None,
        ha_discovery: str | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """``ha_discovery``: publish Home Assistant discovery configs for the seated nodes under this
        prefix (``"homeassistant"``); None publishes none (see :mod:`companion.mqtt.ha_discovery`).
        ``monotonic``: the clock that measures the gap between two arrivals (tests inject one)."""
        self._monotonic = monotonic
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
        self._inbox: deque[tuple[str, bytes] | tm.BrokerStatus] = deque()
        """What paho received (and broker status changes), in order, for the worker."""
        self._inbox_changed = threading.Condition()
        self._worker: threading.Thread | None = None
        self._worker_stop = False
        self._worker_busy = False
        self._last_arrival = 0.0
        self.inline = 0
        """Messages handled at once in paho's thread (they came alone, the disk is fast)."""
        self.batches = 0
        """Batches the worker handed to the session (with ``batched``: messages per fsync)."""
        self.batched = 0
        self.ha = HADiscovery(self.table, prefix=ha_discovery) if ha_discovery else None
        self._ha_lock = threading.Lock()
        """Discovery is published from paho's thread (connect, HA's birth) and the worker's (seats)."""
        session.add_listener(self._on_session_change)

    def start(self) -> HubBridge:
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name=f"hub-{self.table}", daemon=True)
            self._worker.start()
        connect_in_background(self.client, self.address)
        return self

    def stop(self) -> None:
        self._stopping = True
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
        self._stop_worker()
        self.session.remove_listener(self._on_session_change)

    # --- the worker: everything queued, one batch, one fsync -------------------------------
    def _queue(self, item: tuple[str, bytes] | tm.BrokerStatus) -> None:
        """Hand ``item`` to the worker, or handle it at once when it came alone on a fast disk (or
        the bridge has no worker). Only paho's thread calls this, so nothing can be queued while it
        handles a message itself: the order stays the order of arrival."""
        now = self._monotonic()
        with self._inbox_changed:
            alone = now - self._last_arrival >= INLINE_GAP_S
            self._last_arrival = now
            if self._worker is not None and not self._worker_stop:
                fast = self.session.log.sync_s < INLINE_SYNC_S
                if self._inbox or self._worker_busy or not (alone and fast):
                    self._inbox.append(item)
                    self._inbox_changed.notify()
                    return
                self.inline += 1
        self._handle_items([item])
        # (Writing the ack at once from here with client.loop_write() was tried: no measurable
        # gain, and a write that fails then calls on_disconnect inside this callback, where paho
        # already holds its callback lock, and the network thread deadlocks.)

    def _work(self) -> None:
        while True:
            with self._inbox_changed:
                self._worker_busy = False
                self._inbox_changed.wait_for(lambda: bool(self._inbox) or self._worker_stop)
                items = list(self._inbox)
                self._inbox.clear()
                if not items:
                    return  # stopping, and everything queued was handled
                self._worker_busy = True
            try:
                self._handle_items(items)
            except Exception:  # never let the worker die: the next batch must be handled
                log.exception("the hub could not handle %d messages", len(items))

    def _stop_worker(self) -> None:
        with self._inbox_changed:
            self._worker_stop = True
            self._inbox_changed.notify()
        worker, self._worker = self._worker, None
        if worker is not None and worker is not threading.current_thread():
            worker.join(10)

    def _handle_items(self, items: list[tuple[str, bytes] | tm.BrokerStatus]) -> None:
        """Validate each raw message (refusals are counted), then hand the usable ones to the
        session as one batch; a message the session failed on is counted and logged."""
        batch: list[tm.Message] = []
        topics: list[str] = []
        for item in items:
            if isinstance(item, tm.BrokerStatus):
                batch.append(item)
                topics.append("")
                continue
            message = self._validated(*item)
            if message is not None:
                batch.append(message)
                topics.append(item[0])
        if not batch:
            return
        self.batches += 1
        self.batched += len(batch)
        results = self.session.handle_batch(batch)
        for topic, result in zip(topics, results, strict=True):
            if isinstance(result, Exception):
                log.error("unexpected error handling %s", topic or "the broker's status", exc_info=result)
                if topic:
                    self.session.reject_message(
                        "malformed", "the hub could not handle this message", topic=topic
                    )

    # --- paho callbacks (paho's network thread) --------------------------------------------
    def _broker_status(self, online: bool, detail: Text | str) -> None:
        """Tell the session, in order with the node messages queued before it."""
        try:
            self._queue(tm.BrokerStatus(online, detail))
        except Exception:  # never let it kill paho's thread
            log.exception("could not record the broker's status")

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            log.error("broker %s refused the hub: %s", self.address, reason)
            self._broker_status(False, _refused(self.address, reason))
            return
        self._broker_status(True, str(self.address))
        # Subscribing again also replays the retained statuses, so nodes come back online.
        client.subscribe(protocol.hub_subscriptions(self.table))
        client.publish(
            protocol.hub_status_topic(self.table), protocol.status_payload(True), qos=1, retain=True
        )
        self.publish_table_state()
        if self.ha is not None:
            client.subscribe(self.ha.status_topic, protocol.QOS)
            self.publish_discovery(again=True)
        self.connected.set()
        log.info("hub connected to %s", self.address)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()
        if not self._stopping:
            log.warning("hub lost the broker %s (%s); reconnecting", self.address, reason)
            self._broker_status(False, _lost(self.address))

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        if not self._stopping:
            log.info("hub cannot reach the broker %s; trying again", self.address)
            self._broker_status(False, _unreachable(self.address))

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            if self.ha is not None and msg.topic == self.ha.status_topic:
                if msg.payload.strip() == b"online":  # Home Assistant (re)started: tell it again
                    self.publish_discovery(again=True)
                return
            if msg.retain and not owns_retained(self.table, msg.topic):
                self._clear_retained(msg.topic)
                return
            if not msg.payload and msg.topic in self._clearing:
                self._clearing.discard(msg.topic)  # the echo of our own clearing
                return
            self._queue((msg.topic, bytes(msg.payload)))
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
        """Handle one raw message at once, in the caller's thread (tests, tools)."""
        self._handle_items([(topic, bytes(payload))])

    def _validated(self, topic: str, payload: bytes | bytearray) -> tm.Message | None:
        """The session's message for a raw topic and payload, or None (refusals are counted)."""
        try:
            parsed = protocol.parse_topic(topic)
        except protocol.ProtocolError as exc:
            self.session.reject_message("unknown_topic", str(exc), topic=topic)
            return None
        if parsed.table != self.table:
            self.session.reject_message("wrong_table", f"message for table {parsed.table!r}", topic=topic)
            return None
        if parsed.kind in ("cmd", "state", "hub-status") or parsed.node is None:
            return None  # the hub's own publications, seen through its subscription to the whole table
        try:
            msg = protocol.decode(parsed.kind, payload)
        except protocol.ProtocolError as exc:
            category = "malformed" if isinstance(exc, protocol.MalformedPayloadError) else "schema"
            self.session.reject_message(category, str(exc), topic=topic)
            return None
        if parsed.kind == "status":
            return tm.NodeStatus(parsed.node, msg.kind == "online")
        return tm.NodeReport(parsed.node, msg)  # its commands come back through the listener, in order

    def send(self, command: cmd.Command) -> None:
        """Publish one command: to its node, or the retained table state."""
        if isinstance(command, cmd.CallForReports):  # the nodes resend their outboxes when they see it
            self.client.publish(
                protocol.hub_status_topic(self.table),
                protocol.status_payload(True),
                qos=protocol.QOS,
                retain=True,
            )
            return
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
            if self.ha is not None and any(type(e).__name__ in SEATS_CHANGED for e in data["events"]):
                self.publish_discovery()

    # --- Home Assistant ------------------------------------------------------------------------
    def publish_discovery(self, *, again: bool = False) -> None:
        """Publish the discovery configs of the seated nodes (retained) and remove those of nodes
        no longer seated; ``again`` publishes every one even if unchanged (Home Assistant restarted)."""
        if self.ha is None:
            return
        session = self.session
        seats = [(seat.node, f"{seat.player} {seat.index}") for seat in session.setup.seats]
        with self._ha_lock:
            wanted = self.ha.wanted(seats, session.nodes)
            for topic, payload in self.ha.changes(wanted, again=again):
                self.client.publish(topic, payload, qos=protocol.QOS, retain=True)
