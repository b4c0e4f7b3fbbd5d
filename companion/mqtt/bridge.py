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

**A flood never queues in front of the seated nodes.** The hub has two connections to the
broker. The *main* one subscribes to the seated nodes' own topics only (a persistent session:
their reports wait in the broker while the hub is away); the *side* one subscribes to the whole
table and takes what the main one does not: node ids the table has not seated (a new node's hello,
a pairing flip), stray topics, retained junk. So one made-up node id publishing thousands of
messages a second fills only the side connection's queue, never the one the real nodes' reports
arrive on. Each node id may send :data:`NODE_RATE_PER_S` messages a second on average and
:data:`NODE_BURST` at once (a node that comes back sends its outbox with its hello); the ids the
table has not seated share :data:`STRANGERS_RATE_PER_S`. Beyond that a message is dropped in
paho's thread, before validation, the worker and the session's lock. A *seated* node that
floods (a broken firmware, or someone with a node's credentials) is moved to the side connection
for :data:`QUARANTINE_S` (the main one unsubscribes its topics), where it gets its own rate and
cannot hold up the others. Drops are counted (:attr:`HubBridge.rate_limit`, ``rate_limited`` in
``/api/stats``) and said in the log once per node and minute, never once per message.

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
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from companion.core import protocol
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.client import connect_in_background, make_client
from companion.mqtt.ha_discovery import HomeAssistant
from companion.rules.text import Text, text
from companion.table import commands as cmd
from companion.table import events as ev
from companion.table import messages as tm
from companion.table.decide import table_state
from companion.table.model import TableReset
from companion.table.session import Changed, News, TableSession

log = logging.getLogger(__name__)

INLINE_GAP_S = 0.0005
"""A message that comes this long after the one before, with nothing queued, is handled at once."""
INLINE_SYNC_S = 0.001
"""... if the log's fsync takes less than this; on a slower disk every message goes to the worker."""

NODE_RATE_PER_S = 20.0
"""Messages a second one node id may send on average: flips, run-outs, a heartbeat every 5 s and
its status are a few a second at the busiest table."""
NODE_BURST = 100
"""Messages one node id may send at once: a node back on the network sends its outbox (up to 64
reports) with its hello and status at once."""
STRANGERS_RATE_PER_S = 50.0
"""Messages a second all node ids the table has not seated may send together (a new node's hello
and a pairing flip fit easily; a thousand made-up ids share it)."""
STRANGERS = "\x00strangers"
"""The allowance shared by every node id the table has not seated."""
SAY_AGAIN_S = 60.0
SIDE_MAX_PER_S = 1000.0
"""Messages a second the side connection reads at most; a flood beyond that waits in the broker's
queue for it (``max_queued_messages``), where the broker drops what does not fit, instead of taking
the interpreter from the seated nodes' verdicts. Between two messages it gives up the interpreter."""
SIDE_SLOT_S = 0.02
QUARANTINE_S = 30.0
HANDOVER_S = 2.0
RETAINED_SWEEP_S = 2.0
"""How long the side connection holds the whole table's filter after it connects (the broker replays
the retained messages under it at once)."""
"""How long both connections take a node that goes back to the main one."""
"""How long a seated node that flooded stays on the side connection (from its last dropped message)."""

SEATS_CHANGED = (TableReset, ev.SeatAdded)
"""Events after which the seated nodes may differ (the main connection's subscriptions follow them)."""


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


class NodeRateLimit:
    """A token bucket per node id: a message beyond its node's rate is dropped (and counted).

    Only paho's network thread calls :meth:`allow`, so it needs no lock; :meth:`to_dict` copies."""

    def __init__(
        self,
        *,
        rate_per_s: float = NODE_RATE_PER_S,
        burst: int = NODE_BURST,
        strangers_rate_per_s: float = STRANGERS_RATE_PER_S,
        monotonic: Callable[[], float] = time.monotonic,
        max_nodes: int = 4096,
    ) -> None:
        self.rate_per_s = rate_per_s
        self.burst = float(burst)
        self.strangers_rate_per_s = strangers_rate_per_s
        self._monotonic = monotonic
        self._max_nodes = max_nodes
        self._buckets: dict[str, list[float]] = {}
        """node -> [tokens, when last filled]"""
        self.dropped: Counter[str] = Counter()
        """Messages dropped, by node id (node ids the table has not seated under :data:`STRANGERS`)."""
        self._said: dict[str, float] = {}

    def allow(self, node: str) -> bool:
        """Whether a message from ``node`` (a seated node id, or :data:`STRANGERS`) may go on now."""
        now = self._monotonic()
        bucket = self._buckets.get(node)
        if bucket is None:
            if len(self._buckets) >= self._max_nodes:  # bounded: forget the oldest
                for old in list(self._buckets)[: self._max_nodes // 4]:
                    del self._buckets[old]
            bucket = self._buckets[node] = [self.burst, now]
        rate = self.strangers_rate_per_s if node == STRANGERS else self.rate_per_s
        tokens = min(self.burst, bucket[0] + (now - bucket[1]) * rate)
        bucket[1] = now
        if tokens >= 1.0:
            bucket[0] = tokens - 1.0
            return True
        bucket[0] = tokens
        self.dropped[node] += 1
        if now >= self._said.get(node, 0.0):
            self._said[node] = now + SAY_AGAIN_S
            who = "node ids the table has not seated send" if node == STRANGERS else f"node {node} sends"
            rate_shown = self.strangers_rate_per_s if node == STRANGERS else self.rate_per_s
            log.warning(
                "%s more than %g messages a second: the rest is dropped before it is decided "
                "(%d so far, counted in /api/stats; said again in a minute at most)",
                who,
                rate_shown,
                self.dropped[node],
            )
        return False

    def to_dict(self) -> dict[str, Any]:
        dropped = dict(self.dropped)
        by_node = {("(not seated)" if k == STRANGERS else k): v for k, v in dropped.items()}
        return {
            "dropped": sum(dropped.values()),
            "by_node": by_node,
            "rate_per_s": self.rate_per_s,
            "burst": int(self.burst),
            "strangers_rate_per_s": self.strangers_rate_per_s,
        }


class HubBridge:
    """Connects a :class:`TableSession` to a broker."""

    def __init__(
        self,
        session: TableSession,
        address: BrokerAddress,
        *,
        client_id: str | None = None,
        ha_discovery: str | None = None,
        language: str = "en",
        monotonic: Callable[[], float] = time.monotonic,
        rate_limit: NodeRateLimit | None = None,
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
        self.side = make_client(
            f"{client_id or f'companion-hub-{self.table}'}-side", address, clean_session=True
        )
        """The side connection: everything under the table that the main one does not take."""
        self.side.on_connect = self._on_side_connect
        self.side.on_message = self._on_side_message
        self._subscribed: set[str] = set()
        """Nodes whose topics the main connection subscribes to."""
        self._quarantine: dict[str, float] = {}
        """Seated nodes on the side connection for flooding: node -> until (``monotonic``)."""
        self._handover: dict[str, float] = {}
        """Nodes going back to the main connection: the side one still takes their messages until
        then (the main one's SUBSCRIBE may not be in force yet; a report taken twice is answered
        twice with one verdict)."""
        self._subs_lock = threading.Lock()
        self._side_slot = (0.0, 0)
        """(when the side connection's current pacing slot began, messages read in it)"""
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
        self.ha = (
            HomeAssistant(session, self._publish_retained, prefix=ha_discovery, language=language)
            if ha_discovery
            else None
        )
        self.rate_limit = rate_limit or NodeRateLimit(monotonic=monotonic)
        """Per node id, what may go on to be decided (see the module's docstring)."""
        self._seated: tuple[object, frozenset[str]] = (None, frozenset())
        """(the setup they were read from, the seated node ids), read again when the setup changes."""
        session.add_listener(self._on_session_change)

    def start(self) -> HubBridge:
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name=f"hub-{self.table}", daemon=True)
            self._worker.start()
        connect_in_background(self.client, self.address)
        connect_in_background(self.side, self.address)
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
        for client in (self.client, self.side):
            client.disconnect()
            client.loop_stop()
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
        # Subscribing again also replays the retained statuses, so nodes come back online. (A
        # persistent session of an older hub may still hold the whole table's filter: dropped.)
        client.unsubscribe(protocol.hub_subscriptions(self.table)[0][0])
        with self._subs_lock:
            self._subscribed = set()
        self._sync_subscriptions()
        client.publish(
            protocol.hub_status_topic(self.table), protocol.status_payload(True), qos=1, retain=True
        )
        self.publish_table_state()
        if self.ha is not None:
            client.subscribe(self.ha.subscriptions())
            self.ha.on_connect()
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
            if self.ha is not None and self.ha.handles(msg.topic):
                self.ha.on_message(msg.topic, bytes(msg.payload), retain=bool(msg.retain))
                return
            if msg.retain and not owns_retained(self.table, msg.topic):
                return  # junk: the side connection, which sees every retained message, clears it
            if not msg.payload and msg.topic in self._clearing:
                return  # the echo of our own clearing (the side connection forgets it)
            node = self._main_node(msg.topic)
            if node is None:
                return  # not a seated node's (the side connection has it), or quarantined
            if not msg.retain and not self.rate_limit.allow(node):
                self._quarantine_node(node)  # a flood: dropped before it is decided, and moved aside
                return
            self._queue((msg.topic, bytes(msg.payload)))
        except Exception:  # never let one message kill paho's thread
            log.exception("unexpected error handling %s", msg.topic)
            self.session.reject_message("malformed", "the hub could not handle this message", topic=msg.topic)

    # --- who takes what: the main connection, the side connection, the rate limit --------------
    def _seated_nodes(self) -> frozenset[str]:
        setup = self.session.setup
        if self._seated[0] is not setup:
            self._seated = (setup, frozenset(seat.node for seat in setup.seats))
        return self._seated[1]

    def _main_node(self, topic: str) -> str | None:
        """The seated, not quarantined node a message on the main connection is from, or None."""
        try:
            node = protocol.parse_topic(topic).node
        except protocol.ProtocolError:
            return None
        if node is None or node not in self._seated_nodes() or node in self._quarantine:
            return None
        return node

    def _sync_subscriptions(self) -> None:
        """Make the main connection subscribe to exactly the seated, not quarantined nodes' topics."""
        with self._subs_lock:
            wanted = set(self._seated_nodes()) - set(self._quarantine)
            added, removed = wanted - self._subscribed, self._subscribed - wanted
            self._subscribed = wanted

        def filters(nodes: set[str]) -> list[str]:
            return [
                protocol.node_topic(self.table, n, kind)
                for n in sorted(nodes)
                for kind in ("event", "status")
            ]

        for start in range(0, len(added), 100):  # a few hundred filters per SUBSCRIBE at most
            chunk = set(sorted(added)[start : start + 100])
            self.client.subscribe([(f, protocol.QOS) for f in filters(chunk)])
        if removed:
            self.client.unsubscribe(filters(removed))

    def _quarantine_node(self, node: str) -> None:
        """``node`` floods: its messages go to the side connection for a while (see the module docstring)."""
        until = self._monotonic() + QUARANTINE_S
        known = node in self._quarantine
        self._quarantine[node] = until
        if not known:
            log.warning(
                "node %s floods the hub: its messages are taken on the side connection for %g s",
                node,
                QUARANTINE_S,
            )
            self._sync_subscriptions()

    def _side_filters(self) -> list[tuple[str, int]]:
        """The node topics of every node id, and the topics one or two levels under the table: not
        the hub's own commands (an echo of every ack), which would double what it reads."""
        root = protocol.table_prefix(self.table)
        return [(f"{root}/node/+/event", protocol.QOS), (f"{root}/node/+/status", protocol.QOS)] + [
            (f"{root}/+", protocol.QOS),
            (f"{root}/+/+", protocol.QOS),
        ]

    def _on_side_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if reason.is_failure:
            return  # the main connection says why
        client.subscribe(self._side_filters())
        # For a moment the whole table too: the broker replays every retained message under it,
        # and what nobody owns (a retained command, a topic outside the schema) is cleared.
        sweep = protocol.hub_subscriptions(self.table)
        client.subscribe(sweep)
        timer = threading.Timer(RETAINED_SWEEP_S, lambda: client.unsubscribe([f for f, _ in sweep]))
        timer.daemon = True
        timer.start()

    def _pace_side(self) -> None:
        """Hold the side connection to :data:`SIDE_MAX_PER_S`, and let other threads run between messages."""
        now = time.monotonic()
        began, count = self._side_slot
        if now - began >= SIDE_SLOT_S:
            began, count = now, 0
        count += 1
        self._side_slot = (began, count)
        if count >= SIDE_MAX_PER_S * SIDE_SLOT_S:
            time.sleep(max(0.0, began + SIDE_SLOT_S - now))
        else:
            time.sleep(0)  # gives the interpreter to the main connection and the worker if they wait

    def _on_side_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """What the main connection does not take: node ids the table has not seated, quarantined
        nodes, stray topics, retained junk; within their rate, handled at once in this thread."""
        self._pace_side()
        try:
            if msg.retain and not owns_retained(self.table, msg.topic):
                self._clear_retained(msg.topic)
                return
            if not msg.payload and msg.topic in self._clearing:
                self._clearing.discard(msg.topic)  # the echo of our own clearing
                return
            try:
                parsed = protocol.parse_topic(msg.topic)
            except protocol.ProtocolError:
                parsed = None
            allowance = STRANGERS
            if parsed is not None:
                if parsed.table == self.table and parsed.kind in ("cmd", "state", "hub-status"):
                    return  # the hub's own publications
                node = parsed.node
                if node is not None and node in self._seated_nodes():
                    now = self._monotonic()
                    until = self._quarantine.get(node)
                    if until is not None and now >= until:  # calm again: back to the main connection
                        self._quarantine.pop(node, None)
                        self._handover[node] = now + HANDOVER_S
                        self._sync_subscriptions()
                    elif until is None:
                        handover = self._handover.get(node)
                        if handover is None:
                            return  # the main connection takes it
                        if now >= handover:
                            self._handover.pop(node, None)
                            return
                    allowance = node
            if not msg.retain and not self.rate_limit.allow(allowance):
                if allowance in self._quarantine:
                    self._quarantine[allowance] = self._monotonic() + QUARANTINE_S
                return
            self._handle_items([(msg.topic, bytes(msg.payload))])
        except Exception:  # never let one message kill paho's thread
            log.exception("unexpected error handling %s", msg.topic)

    def _clear_retained(self, topic: str) -> None:
        """Remove a retained message nobody owns (an empty retained payload), count it and log it."""
        if topic in self._clearing:
            return  # replayed once per filter it matches (the side connection's overlap at connect)
        self._clearing.add(topic)
        self.side.publish(topic, b"", qos=protocol.QOS, retain=True)
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
        return tm.NodeReport(parsed.node, tm.report_of(msg))  # its commands come back through the listener

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
        self.send(table_state(self.session.table, now_s=self.session.clock.now_s()))

    def _on_session_change(self, news: News) -> None:
        if isinstance(news, Changed):  # called inside the session's lock: commands leave in decision order
            for command in news.commands:
                self.send(command)
            if any(isinstance(e, SEATS_CHANGED) for e in news.events):
                self._sync_subscriptions()  # the main connection follows the seats
            if self.ha is not None:
                self.ha.on_change(news.events)

    # --- Home Assistant ------------------------------------------------------------------------
    def publish_discovery(self, *, again: bool = False) -> None:
        """Publish the Home Assistant discovery configs that changed (every one with ``again``) and
        remove those of nodes no longer seated (see :mod:`companion.mqtt.ha_discovery`)."""
        if self.ha is not None:
            self.ha.publish_configs(again=again)

    def _publish_retained(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=protocol.QOS, retain=True)
