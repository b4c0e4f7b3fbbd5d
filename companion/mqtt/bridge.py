"""The hub's MQTT side: node messages in, acknowledgements and table state out.

Every raw topic and payload goes through ``companion.core.protocol``; what does
not validate is counted in the session's statistics with its reason and
otherwise ignored, so a misbehaving node can never change the table.

The bridge rides on two :class:`~companion.mqtt.link.MqttLink` connections, its own or a club's
(shared by every table of the club: one connection, one network thread and one small pool for
all of them, each table a route by its id in the topic). What the main link reads in one pass
is handed to ``TableSession.handle_batch`` as one batch, so reports that arrive together share
one fsync of the log (group commit), and reports that arrive while a sync runs form the next
batch. Each ack leaves only after its report's line is synced, and in the order the table
decided. (A report read here when the hub dies was already acknowledged to the broker, not to
the node: the node keeps it in its outbox and sends it again.)

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
``/api/stats``) and said in the log once per node and minute, never once per message. The side
connection also gets a copy of every seated node's report (MQTT has no "all but these" filter),
so it reads at most once every :data:`SIDE_GATHER_S`: what came meanwhile is read in one pass, and
the interpreter changes hands between the two connections once per pass instead of once per report
(a stranger's hello waits that long at most).

The bridge also tells the session whether it reaches its broker (a ``BrokerStatus``
message): offline as soon as the link loses the connection or cannot make one, online again
on the next CONNACK. It clears retained messages it
finds under the table that nobody owns (see :func:`owns_retained`), so junk left in
a persistent broker does not come back at every start.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from companion.core import protocol
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.ha_discovery import HomeAssistant
from companion.mqtt.link import MqttLink
from companion.rules.text import Text, text
from companion.table import commands as cmd
from companion.table import events as ev
from companion.table import messages as tm
from companion.table.decide import table_state
from companion.table.model import TableReset
from companion.table.session import Changed, News, TableSession

log = logging.getLogger(__name__)

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
SIDE_GATHER_S = 0.02
"""The side connection reads at most once in this time (what came meanwhile in one pass): a club of
50 tables spent about a tenth less CPU per flip, against the broker's, than with a pass per copy."""
QUARANTINE_S = 30.0
"""How long a seated node that flooded stays on the side connection (from its last dropped message)."""
HANDOVER_S = 2.0
"""How long both connections take a node that goes back to the main one."""
RETAINED_SWEEP_S = 2.0
"""How long the side connection holds the whole table's filter after it connects (the broker replays
the retained messages under it at once)."""

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


class HubLinks:
    """The two connections a hub's tables share: ``main`` (a persistent session: the seated nodes'
    reports wait in the broker while the hub is away) and ``side`` (everything else under the tables).

    A lone table makes its own (:meth:`for_table`); a club makes one pair for all its tables
    (:meth:`for_club`), so its threads do not grow with its tables."""

    def __init__(self, main: MqttLink, side: MqttLink, *, owned: bool) -> None:
        self.main = main
        self.side = side
        self.owned = owned
        """Whether the one table that uses them starts and stops them (a club's are the club's)."""

    @classmethod
    def for_table(cls, table: str, address: BrokerAddress, *, client_id: str | None = None) -> HubLinks:
        name = client_id or f"companion-hub-{table}"
        will = (protocol.hub_status_topic(table), protocol.status_payload(False), True)
        main = MqttLink(name, address, clean_session=False, will=will, name=f"mqtt-{table}")
        side = MqttLink(
            f"{name}-side", address, clean_session=True, name=f"mqtt-{table}-side", gather_s=SIDE_GATHER_S
        )
        return cls(main, side, owned=True)

    @classmethod
    def for_club(cls, name: str, address: BrokerAddress) -> HubLinks:
        """One pair for every table of a club (no last will: one connection can carry only one, so a
        club's tables say ``offline`` when they end or the club stops, not when it crashes)."""
        main = MqttLink(f"companion-club-{name}", address, clean_session=False, name="mqtt-club")
        side = MqttLink(
            f"companion-club-{name}-side",
            address,
            clean_session=True,
            name="mqtt-club-side",
            gather_s=SIDE_GATHER_S,
        )
        return cls(main, side, owned=False)

    def start(self) -> HubLinks:
        self.main.start()
        self.side.start()
        return self

    def stop(self) -> None:
        self.main.stop()
        self.side.stop()


class HubBridge:
    """Connects a :class:`TableSession` to a broker: its table's route on the main and side links."""

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
        links: HubLinks | None = None,
    ) -> None:
        """``ha_discovery``: publish Home Assistant discovery configs for the seated nodes under this
        prefix (``"homeassistant"``); None publishes none (see :mod:`companion.mqtt.ha_discovery`).
        ``monotonic``: the clock of the rate limit and the quarantine (tests inject one). ``links``: the
        connections to ride on (a club's); None makes this table's own."""
        self._monotonic = monotonic
        self.session = session
        self.address = address
        self.table = session.setup.table
        self.connected = threading.Event()
        self._stopping = False
        self._started = False
        self.retained_cleared = 0
        """Retained messages under the table the hub did not own and cleared."""
        self._clearing: set[str] = set()
        """Topics the hub cleared whose (empty, live) echo it has not seen yet."""
        self._cleared: set[str] = set()
        """Topics the hub cleared and saw the echo of: a further empty copy of the echo (the side
        connection gets one per filter it matches while the sweep's filter is on) is not a message."""
        self.links = links or HubLinks.for_table(self.table, address, client_id=client_id)
        self.main = self.links.main
        self.side_link = self.links.side
        self._side_route = _SideRoute(self)
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
        self._ready: set[str] = set()
        """The links ("main", "side") that have taken this table's subscriptions since they connected."""
        self._kept: list[tuple[str, bytes] | tm.BrokerStatus] = []
        """What the main link read for this table in its current pass, in order, for :meth:`flush`."""
        self.batches = 0
        """Batches handed to the session (with ``batched``: messages per fsync)."""
        self.batched = 0
        self.ha = (
            HomeAssistant(session, self._publish_retained, prefix=ha_discovery, language=language)
            if ha_discovery
            else None
        )
        self.rate_limit = rate_limit or NodeRateLimit(monotonic=monotonic)
        """Per node id, what may go on to be decided (see the module's docstring)."""
        self._seated: tuple[object, frozenset[str], dict[str, protocol.Topic]] = (None, frozenset(), {})
        """(the setup they were read from, the seated node ids, their event and status topics
        parsed), made again when the setup changes."""
        session.add_listener(self._on_session_change)

    @property
    def client(self) -> mqtt.Client:
        """The main connection's paho client."""
        return self.main.client

    @property
    def side(self) -> mqtt.Client:
        """The side connection's paho client."""
        return self.side_link.client

    def start(self) -> HubBridge:
        if not self._started:
            self._started = True
            self.main.add_route(self.table, self)
            if self.ha is not None:
                self.main.add_extra_route(self.ha.handles, self)
            self.side_link.add_route(self.table, self._side_route)
            if self.links.owned:
                self.links.start()
        return self

    def stop(self) -> None:
        self._stopping = True
        goodbye = (protocol.hub_status_topic(self.table), protocol.status_payload(False), True)
        if self.links.owned:
            self.main.stop(last=[goodbye] if self.connected.is_set() else [])
            self.side_link.stop()
        else:  # the club's connections go on for the other tables
            self.main.remove_route(self.table)
            self.main.remove_extra_route(self)
            self.side_link.remove_route(self.table)
            if self.main.connected.is_set():
                with self._subs_lock:
                    nodes, self._subscribed = set(self._subscribed), set()
                self.main.unsubscribe(self._node_filters(nodes))
                self.side_link.unsubscribe([f for f, _ in self._side_filters()])
                info = self.main.publish(goodbye[0], goodbye[1], qos=1, retain=True)
                try:
                    info.wait_for_publish(2)
                except (RuntimeError, ValueError):
                    pass
        self.connected.clear()
        self.session.remove_listener(self._on_session_change)

    # --- the main link's route (its thread) ----------------------------------------------------
    def on_connect(self, link: MqttLink) -> None:
        self._handle_items([*self._take_kept(), tm.BrokerStatus(True, str(self.address))])
        # Subscribing again also replays the retained statuses, so nodes come back online. (A
        # persistent session of an older hub may still hold the whole table's filter: dropped.)
        link.unsubscribe([protocol.hub_subscriptions(self.table)[0][0]])
        with self._subs_lock:
            self._subscribed = set()
        self._sync_subscriptions()
        link.publish(protocol.hub_status_topic(self.table), protocol.status_payload(True), qos=1, retain=True)
        self.publish_table_state()
        if self.ha is not None:
            link.subscribe(self.ha.subscriptions())
            self.ha.on_connect()
        self._now_connected("main")
        log.info("hub of table %s connected to %s", self.table, self.address)

    def _now_connected(self, which: str) -> None:
        """``connected`` once both links have taken this table's subscriptions (strangers are heard too)."""
        with self._subs_lock:
            self._ready.add(which)
            if self._ready >= {"main", "side"}:
                self.connected.set()

    def wait_listening(self, timeout_s: float = 5.0) -> bool:
        """Wait until both links are up with this table's subscriptions answered by the broker: any
        node's message from then on is heard (tests publish as strangers only after this)."""
        deadline = time.monotonic() + timeout_s
        if not self.connected.wait(timeout_s):
            return False
        return all(
            link.wait_subscribed(max(0.0, deadline - time.monotonic()))
            for link in (self.main, self.side_link)
        )

    def on_disconnect(self, link: MqttLink, reason: str) -> None:
        with self._subs_lock:
            self._ready.discard("main")
        self.connected.clear()
        if not self._stopping:
            log.warning("hub lost the broker %s (%s); reconnecting", self.address, reason)
            self._handle_items([*self._take_kept(), tm.BrokerStatus(False, _lost(self.address))])

    def on_connect_fail(self, link: MqttLink, reason: str, *, refused: bool) -> None:
        if self._stopping:
            return
        if refused:
            detail = _refused(self.address, reason)
        else:
            log.info("hub cannot reach the broker %s; trying again", self.address)
            detail = _unreachable(self.address)
        self._handle_items([*self._take_kept(), tm.BrokerStatus(False, detail)])

    def on_message(self, link: MqttLink, msg: mqtt.MQTTMessage) -> bool:
        """Keep a message of the main link for this pass's batch; True when kept."""
        try:
            if self.ha is not None and self.ha.handles(msg.topic):
                self.ha.on_message(msg.topic, bytes(msg.payload), retain=bool(msg.retain))
                return False
            if msg.retain and not owns_retained(self.table, msg.topic):
                return False  # junk: the side connection, which sees every retained message, clears it
            if not msg.payload and (msg.topic in self._clearing or msg.topic in self._cleared):
                return False  # the echo of our own clearing (the side connection forgets it)
            node = self._main_node(msg.topic)
            if node is None:
                return False  # not a seated node's (the side connection has it), or quarantined
            if not msg.retain and not self.rate_limit.allow(node):
                self._quarantine_node(node)  # a flood: dropped before it is decided, and moved aside
                return False
            self._kept.append((msg.topic, bytes(msg.payload)))
            return True
        except Exception:  # never let one message stop the link
            log.exception("unexpected error handling %s", msg.topic)
            self.session.reject_message("malformed", "the hub could not handle this message", topic=msg.topic)
            return False

    def flush(self) -> None:
        """Handle what this pass kept, as one batch (one fsync)."""
        self._handle_items(self._take_kept())

    @property
    def sync_s(self) -> float:
        """How long this table's log has recently taken to sync (the link sends PUBACKs early on a slow disk)."""
        return float(self.session.log.sync_s)

    def _take_kept(self) -> list[tuple[str, bytes] | tm.BrokerStatus]:
        kept, self._kept = self._kept, []
        return kept

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """One message of the main connection taken and handled at once (for tools and tests that
        drive the bridge by hand, as paho's callback)."""
        if self.on_message(self.main, msg):
            self.flush()

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

    # --- who takes what: the main connection, the side connection, the rate limit --------------
    def _seated_now(self) -> tuple[object, frozenset[str], dict[str, protocol.Topic]]:
        setup = self.session.setup
        if self._seated[0] is not setup:
            nodes = frozenset(seat.node for seat in setup.seats)
            topics = {
                protocol.node_topic(self.table, node, kind): protocol.Topic(kind, self.table, node)
                for node in nodes
                for kind in ("event", "status")
            }
            self._seated = (setup, nodes, topics)
        return self._seated

    def _seated_nodes(self) -> frozenset[str]:
        return self._seated_now()[1]

    def _seated_topic(self, topic: str) -> protocol.Topic | None:
        """``topic`` parsed, when it is a seated node's event or status topic (a dictionary lookup:
        nearly every message the hub reads is one, most of them twice, once on each connection)."""
        return self._seated_now()[2].get(topic)

    def _main_node(self, topic: str) -> str | None:
        """The seated, not quarantined node a message on the main connection is from, or None (only
        a node's own reports and status are taken on the main connection)."""
        parsed = self._seated_topic(topic)
        if parsed is None or parsed.node in self._quarantine:
            return None
        return parsed.node

    def _node_filters(self, nodes: set[str]) -> list[str]:
        return [
            protocol.node_topic(self.table, n, kind) for n in sorted(nodes) for kind in ("event", "status")
        ]

    def _sync_subscriptions(self) -> None:
        """Make the main connection subscribe to exactly the seated, not quarantined nodes' topics."""
        with self._subs_lock:
            wanted = set(self._seated_nodes()) - set(self._quarantine)
            added, removed = wanted - self._subscribed, self._subscribed - wanted
            self._subscribed = wanted
        for start in range(0, len(added), 100):  # a few hundred filters per SUBSCRIBE at most
            chunk = set(sorted(added)[start : start + 100])
            self.main.subscribe([(f, protocol.QOS) for f in self._node_filters(chunk)])
        if removed:
            self.main.unsubscribe(self._node_filters(removed))

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
        the hub's own commands (an echo of every ack), which would double what it reads.

        At QoS 0: the side connection has no persistent session to keep anything for, and it also
        receives a copy of every seated node's report (MQTT has no "all but these" filter), which at
        QoS 0 costs the hub no PUBACK and the broker no delivery to track; a flood beyond what it
        reads is dropped by the broker instead of queued."""
        root = protocol.table_prefix(self.table)
        return [
            (f"{root}/node/+/event", 0),
            (f"{root}/node/+/status", 0),
            (f"{root}/+", 0),
            (f"{root}/+/+", 0),
        ]

    def _on_side_connect(self, link: MqttLink) -> None:
        link.subscribe(self._side_filters())
        # For a moment the whole table too: the broker replays every retained message under it,
        # and what nobody owns (a retained command, a topic outside the schema) is cleared.
        sweep = protocol.hub_subscriptions(self.table)
        link.subscribe(sweep)
        link.call_later(RETAINED_SWEEP_S, lambda: link.unsubscribe([f for f, _ in sweep]))
        self._now_connected("side")

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
            time.sleep(0)  # gives the interpreter to the main connection if it waits

    def _on_side_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """What the main connection does not take: node ids the table has not seated, quarantined
        nodes, stray topics, retained junk; within their rate, handled at once in this thread."""
        parsed = self._seated_topic(msg.topic)
        node = parsed.node if parsed is not None else None
        if (
            node is not None
            and not msg.retain
            and msg.payload
            and node not in self._quarantine
            and node not in self._handover
        ):
            return  # the copy of a seated node's message: the main connection takes it (no pacing)
        if parsed is None:
            try:
                parsed = protocol.parse_topic(msg.topic)
            except protocol.ProtocolError:
                parsed = None
            node = parsed.node if parsed is not None else None
        self._pace_side()
        try:
            if msg.retain and not owns_retained(self.table, msg.topic):
                self._clear_retained(msg.topic)
                return
            if not msg.payload and (msg.topic in self._clearing or msg.topic in self._cleared):
                self._clearing.discard(msg.topic)  # the echo of our own clearing (or its copy)
                if len(self._cleared) < 10_000:  # bounded: a flood of junk cannot grow it
                    self._cleared.add(msg.topic)
                return
            allowance = STRANGERS
            if parsed is not None:
                if parsed.table == self.table and parsed.kind in ("cmd", "state", "hub-status"):
                    return  # the hub's own publications
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
        except Exception:  # never let one message stop the link
            log.exception("unexpected error handling %s", msg.topic)

    def _clear_retained(self, topic: str) -> None:
        """Remove a retained message nobody owns (an empty retained payload), count it and log it."""
        if topic in self._clearing:
            return  # replayed once per filter it matches (the side connection's overlap at connect)
        self._clearing.add(topic)
        self.side_link.publish(topic, b"", qos=protocol.QOS, retain=True)
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
        parsed = self._seated_topic(topic)
        if parsed is None:
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
            self.main.publish(protocol.table_state_topic(self.table), payload, qos=protocol.QOS, retain=True)
            return
        payload = protocol.encode("cmd", command.kind, **command.fields)
        topic = protocol.node_topic(self.table, command.node, "cmd")
        self.main.publish(topic, payload, qos=protocol.command_qos(command.kind))

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
        self.main.publish(topic, payload, qos=protocol.QOS, retain=True)


class _SideRoute:
    """The table's route on the side link: each message handled at once, in the side link's thread."""

    def __init__(self, bridge: HubBridge) -> None:
        self.bridge = bridge

    def on_connect(self, link: MqttLink) -> None:
        self.bridge._on_side_connect(link)

    def on_disconnect(self, link: MqttLink, reason: str) -> None:
        """The main link says it to the table (and must wait for this one to come back too)."""
        with self.bridge._subs_lock:
            self.bridge._ready.discard("side")

    def on_connect_fail(self, link: MqttLink, reason: str, *, refused: bool) -> None:
        """The main link says it to the table."""

    def on_message(self, link: MqttLink, msg: mqtt.MQTTMessage) -> bool:
        self.bridge._on_side_message(link.client, None, msg)
        return False

    def flush(self) -> None:
        """Nothing is kept: each message was handled as it came."""
