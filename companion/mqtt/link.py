"""One MQTT connection of the hub, driven from one thread, shared by every table it serves.

paho's own network thread (``loop_start``) wakes through a socket pair for every publish and
leaves each message to a callback; a club of fifty tables with a connection (and a thread or
three) each spent more on threads queueing for the interpreter than on its tables. An
:class:`MqttLink` drives one paho client through paho's external-loop calls (``loop_read``,
``loop_write``, ``loop_misc``) from a single thread and a selector, and gives each table's
:class:`Route` what arrived for it, by the table id in the topic:

1. it reads everything the socket holds, and each message goes to its route's ``on_message``
   (which filters, rate-limits and keeps it), then writes the PUBACKs at once, so the broker
   keeps sending while the hub decides;
2. every route that kept something handles it as one batch (``flush``: one fsync of its log);
   when several tables have something, all but one of them are handled on a small fixed pool of
   threads (:data:`SYNC_THREADS`; an fsync lets the interpreter go, so the disks work in
   parallel), the last in this thread;
3. the acks they published are written in one pass.

A publish from another thread (a tap on a phone, the ticker) goes into paho's queue and wakes
the loop, which writes it; only the loop's thread touches the socket. The link reconnects as
paho's own loop does (:data:`~companion.mqtt.client.RECONNECT_MIN_S`, doubling up to
:data:`~companion.mqtt.client.RECONNECT_MAX_S`) and tells every route when it connects, loses the
connection or cannot make one.

This is paho doing all of MQTT: the link only decides when to call it and for whom.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import select
import selectors
import socket
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import paho.mqtt.client as mqtt

from companion.mqtt.broker import BrokerAddress
from companion.mqtt.client import RECONNECT_MAX_S, RECONNECT_MIN_S, make_client

log = logging.getLogger(__name__)

SYNC_THREADS = 4
"""Threads that handle (and fsync) other tables' batches while the loop's thread handles one."""
READS_PER_PASS = 256
"""Packets read before the loop goes on to decide (the rest stays in the socket for the next pass)."""
MISC_EVERY_S = 1.0
"""How often the keep-alive is looked after (paho's ``loop_misc``)."""
SLOW_SYNC_S = 0.002
"""A log whose fsync takes longer than this (a Raspberry Pi's SD card) has its reports' PUBACKs
written before they are handled, so the broker keeps sending meanwhile; on a faster disk they go
out with the acks, in one write."""
_CORK: int | None = getattr(socket, "TCP_CORK", None)


class Route(Protocol):
    """What a table (its bridge) gives the link: everything is called in the link's thread, except
    ``flush``, which may run on the pool while the loop waits for it."""

    def on_connect(self, link: MqttLink) -> None:
        """The link is connected (again): subscribe, publish what is retained."""

    def on_disconnect(self, link: MqttLink, reason: str) -> None:
        """The link lost its connection (it reconnects by itself)."""

    def on_connect_fail(self, link: MqttLink, reason: str, *, refused: bool) -> None:
        """The link could not connect (``refused``: the broker answered no), and tries again."""

    def on_message(self, link: MqttLink, msg: mqtt.MQTTMessage) -> bool:
        """A message for this table; True when the route kept something for :meth:`flush`."""

    def flush(self) -> None:
        """Handle everything kept since the last flush, as one batch."""


class MqttLink:
    """One paho client and the thread that drives it (see the module docstring)."""

    def __init__(
        self,
        client_id: str,
        address: BrokerAddress,
        *,
        clean_session: bool = True,
        will: tuple[str, bytes, bool] | None = None,
        name: str = "mqtt",
        gather_s: float = 0.0,
    ) -> None:
        self.address = address
        self.gather_s = gather_s
        """After a pass found something to read, wait this long (from that moment) before the next
        read, so that what arrives meanwhile is read in one go (the side connection: its messages can wait; the interpreter changes hands
        once per pass instead of once per message)."""
        self.name = name
        self.client = make_client(client_id, address, clean_session=clean_session, will=will)
        self.client.on_socket_close = lambda client, userdata, sock: self._forget_socket()
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.connected = threading.Event()
        self._subscribing = threading.Condition()
        self._unanswered: set[int] = set()
        """SUBSCRIBEs sent and not answered yet (by message id)."""
        self._answered_early: set[int] = set()
        """SUBACKs that came before :meth:`subscribe` recorded their id (another thread's call)."""
        self._routes: dict[str, Route] = {}
        """Table id -> its route (the third level of a topic, ``companion/v1/<table>/...``)."""
        self._extra: list[tuple[Callable[[str], bool], Route]] = []
        """Routes for topics outside the tables (Home Assistant's birth message), by a test on the topic."""
        self._lock = threading.Lock()
        self._kept: dict[int, Route] = {}
        """Routes that kept something in this pass (by id, in arrival order)."""
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._woken = False
        self._flushing = False
        self._soon: list[Callable[[], None]] = []
        self._later: list[tuple[float, int, Callable[[], None]]] = []
        """(when, order, work) for :meth:`call_later`, soonest first (the loop's thread only)."""
        self._order = itertools.count()
        self._socket: Any = None
        self._poll: Any = None
        self._thread: threading.Thread | None = None
        self._thread_id: int | None = None
        self._delay = RECONNECT_MIN_S
        """The pause before the next attempt to connect (back to the least on every CONNACK)."""
        self._stopping = False
        self._pool: ThreadPoolExecutor | None = None
        self.passes = 0
        """Passes that read something (with ``batches``: how messages group)."""
        self.reads = 0
        """Passes that found the socket readable (the gather test counts them)."""
        self.batches = 0
        """Batches handed to routes (one fsync each, at most)."""

    # --- routes -------------------------------------------------------------------------------
    def add_route(self, table: str, route: Route) -> None:
        with self._lock:
            self._routes = {**self._routes, table: route}
        if self.connected.is_set():
            self.call_soon(lambda: route.on_connect(self))

    def remove_route(self, table: str) -> None:
        with self._lock:
            routes = dict(self._routes)
            routes.pop(table, None)
            self._routes = routes

    def add_extra_route(self, matches: Callable[[str], bool], route: Route) -> None:
        """A route for topics that are no table's (``matches(topic)`` says which)."""
        with self._lock:
            self._extra = [*self._extra, (matches, route)]

    def remove_extra_route(self, route: Route) -> None:
        with self._lock:
            self._extra = [(m, r) for m, r in self._extra if r is not route]

    @property
    def routes(self) -> int:
        return len(self._routes) + len(self._extra)

    # --- what other threads call ------------------------------------------------------------------
    def publish(self, topic: str, payload: bytes | str, *, qos: int = 1, retain: bool = False) -> Any:
        """Queue a publish (from any thread); the loop's thread writes it."""
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        self._wake()
        return info

    def subscribe(self, filters: list[tuple[str, int]]) -> None:
        if filters:
            _, mid = self.client.subscribe(filters)
            if mid is not None:
                with self._subscribing:
                    if mid in self._answered_early:
                        self._answered_early.discard(mid)
                    else:
                        self._unanswered.add(mid)
            self._wake()

    def wait_subscribed(self, timeout_s: float) -> bool:
        """Wait until the broker answered every SUBSCRIBE sent so far; False after ``timeout_s``."""
        with self._subscribing:
            return self._subscribing.wait_for(lambda: not self._unanswered, timeout_s)

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        with self._subscribing:
            if mid in self._unanswered:
                self._unanswered.discard(mid)
                self._subscribing.notify_all()
            else:
                self._answered_early.add(mid)

    def unsubscribe(self, filters: list[str]) -> None:
        if filters:
            self.client.unsubscribe(filters)
            self._wake()

    def call_soon(self, work: Callable[[], None]) -> None:
        """Run ``work`` in the loop's thread at its next pass (or now, from that thread)."""
        if threading.get_ident() == self._thread_id:
            work()
            return
        with self._lock:
            self._soon.append(work)
        self._wake(force=True)

    def call_later(self, delay_s: float, work: Callable[[], None]) -> None:
        """Run ``work`` in the loop's thread in ``delay_s`` seconds (from any thread)."""

        def plan() -> None:
            heapq.heappush(self._later, (time.monotonic() + delay_s, next(self._order), work))

        self.call_soon(plan)

    def _wake(self, *, force: bool = False) -> None:
        if not force and (self._flushing or threading.get_ident() == self._thread_id):
            return  # the loop writes at the end of its pass anyway
        if self._woken and not force:
            return
        self._woken = True
        try:
            self._wake_w.send(b"x")
        except (BlockingIOError, OSError):
            pass

    # --- lifetime -------------------------------------------------------------------------------------
    def start(self) -> MqttLink:
        if self._thread is None:
            self.client.connect_async(
                self.address.host,
                self.address.port,
                keepalive=getattr(self.client, "_companion_keepalive", 15),
            )
            self._selector.register(self._wake_r, selectors.EVENT_READ, None)
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()
        return self

    def stop(self, *, last: Sequence[tuple[str, bytes, bool]] = (), timeout_s: float = 5.0) -> None:
        """Publish ``last`` (topic, payload, retain; each waited for, at most 2 s), disconnect cleanly
        and end the thread."""
        infos = [self.publish(topic, payload, qos=1, retain=retain) for topic, payload, retain in last]
        if self.connected.is_set():
            for info in infos:
                try:
                    info.wait_for_publish(2)
                except (RuntimeError, ValueError):
                    pass
        self._stopping = True
        self.client.disconnect()
        self._wake(force=True)
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
        for sock in (self._wake_r, self._wake_w):
            try:
                sock.close()
            except OSError:
                pass

    # --- the loop ---------------------------------------------------------------------------------
    def _run(self) -> None:
        self._thread_id = threading.get_ident()
        first = True
        next_misc = time.monotonic() + MISC_EVERY_S
        while not self._stopping:
            if self.client.socket() is None:
                if not first:  # as paho's own loop: a pause before every new attempt, doubling
                    self._sleep(self._delay)
                    self._delay = min(RECONNECT_MAX_S, self._delay * 2)
                    if self._stopping:
                        break
                first = False
                if not self._connect():
                    continue
            try:
                next_misc = self._pass(next_misc)
            except Exception:  # the loop never dies: the next pass goes on
                log.exception("the MQTT link %s failed in a pass", self.name)
        # the last DISCONNECT (and anything queued before it) goes out before the socket closes
        try:
            if self.client.socket() is not None:
                self.client.loop_write()
        except Exception:  # the broker may be gone already
            pass
        try:
            self._selector.close()
        except Exception:
            pass

    def _connect(self) -> bool:
        self._forget_socket()
        try:
            self.client.reconnect()
        except (OSError, ssl.SSLError, ValueError) as exc:
            self._tell_fail(str(exc) or type(exc).__name__, refused=False)
            return False
        sock = self.client.socket()
        if sock is None:
            return False
        self._selector.register(sock, selectors.EVENT_READ, sock)
        self._socket = sock
        self._poll = select.poll()
        self._poll.register(sock.fileno(), select.POLLIN)
        return True

    def _sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (or until woken, e.g. to stop), doing what other threads asked meanwhile;
        the socket, if there is one, is left to fill (a reconnect's pause, the side link's gather)."""
        deadline = time.monotonic() + seconds
        while not self._stopping:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if select.select([self._wake_r], [], [], left)[0]:
                self._drain_wake()
            self._run_soon()

    def _drain_wake(self) -> None:
        self._woken = False
        try:
            while self._wake_r.recv(4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def _run_soon(self) -> None:
        with self._lock:
            soon, self._soon = self._soon, []
        now = time.monotonic()
        while self._later and self._later[0][0] <= now:
            soon.append(heapq.heappop(self._later)[2])
        for work in soon:
            try:
                work()
            except Exception:
                log.exception("the MQTT link %s could not run a queued call", self.name)

    def _pass(self, next_misc: float) -> float:
        client = self.client
        sock = self._socket
        wants = selectors.EVENT_READ | (selectors.EVENT_WRITE if client.want_write() else 0)
        key = self._selector.get_map().get(sock.fileno()) if sock is not None else None
        if key is not None and key.events != wants:
            self._selector.modify(sock, wants, sock)
        timeout = max(0.0, min(next_misc, self._later[0][0] if self._later else next_misc) - time.monotonic())
        if client.want_write():
            timeout = 0.0
        readable = writable = False
        for key, mask in self._selector.select(timeout):
            if key.data is None:
                self._drain_wake()
            else:
                readable |= bool(mask & selectors.EVENT_READ)
                writable |= bool(mask & selectors.EVENT_WRITE)
        self._run_soon()
        if readable:
            self.reads += 1
            read_at = time.monotonic()
            self._read_all()
            if client.want_write() and self._slow_disk():
                client.loop_write()  # PUBACKs out before deciding: the broker sends on while the disk syncs
            self._flush_routes()
        if client.want_write() or writable:
            self._write()
        now = time.monotonic()
        if now >= next_misc and client.socket() is not None:
            client.loop_misc()
            next_misc = now + MISC_EVERY_S
        if client.socket() is None:
            self._forget_socket()
        elif readable and self.gather_s:
            self._sleep(read_at + self.gather_s - time.monotonic())
        return next_misc

    def _slow_disk(self) -> bool:
        """Whether a route that kept something syncs slowly (its log's recent fsync above
        :data:`SLOW_SYNC_S`): then the PUBACKs go out before the batch is handled."""
        return any(getattr(route, "sync_s", 0.0) >= SLOW_SYNC_S for route in self._kept.values())

    def _write(self) -> None:
        """Write everything queued (PUBACKs, acks, the table state) as few TCP segments as it fits
        in (``TCP_CORK`` on Linux: one send per packet, one segment for them all)."""
        sock: Any = self.client.socket()
        cork = _CORK
        corked = False
        if cork is not None and isinstance(sock, socket.socket) and not isinstance(sock, ssl.SSLSocket):
            try:
                sock.setsockopt(socket.IPPROTO_TCP, cork, 1)
                corked = True
            except OSError:
                pass
        try:
            self.client.loop_write()
        finally:
            sock = self.client.socket()
            if corked and cork is not None and isinstance(sock, socket.socket):
                try:
                    sock.setsockopt(socket.IPPROTO_TCP, cork, 0)
                except OSError:
                    pass

    def _read_all(self) -> None:
        """Read packets while the socket has more (paho reads one packet per call here)."""
        client = self.client
        for _ in range(READS_PER_PASS):
            if client.socket() is None:
                return
            client.loop_read()
            sock, poll = client.socket(), self._poll
            if sock is None or poll is None:
                return
            if isinstance(sock, ssl.SSLSocket) and sock.pending():
                continue
            if not poll.poll(0):
                return

    def _flush_routes(self) -> None:
        kept = list(self._kept.values())
        self._kept.clear()
        if not kept:
            return
        self.passes += 1
        self.batches += len(kept)
        if len(kept) == 1:
            self._flush(kept[0])
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=SYNC_THREADS, thread_name_prefix=f"{self.name}-sync")
        self._flushing = True  # the pool's publishes need no wake: the loop writes when they are done
        try:
            others = [self._pool.submit(self._flush, route) for route in kept[1:]]
            self._flush(kept[0])
            for done in others:
                done.result()
        finally:
            self._flushing = False

    def _flush(self, route: Route) -> None:
        try:
            route.flush()
        except Exception:  # one table's failure must not stop the others
            log.exception("a table could not handle its messages")

    def _forget_socket(self) -> None:
        sock, self._socket = self._socket, None
        self._poll = None
        if sock is not None:
            try:
                self._selector.unregister(sock)
            except (KeyError, ValueError, OSError):
                pass

    # --- paho callbacks (the loop's thread) ---------------------------------------------------------
    def _routes_of(self, topic: str) -> list[Route]:
        parts = topic.split("/", 3)
        if len(parts) >= 3 and parts[0] == "companion":
            route = self._routes.get(parts[2])
            if route is not None:
                return [route]
        return [extra for matches, extra in self._extra if matches(topic)]

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        for route in self._routes_of(msg.topic):  # none: a table that ended while its messages came
            try:
                if route.on_message(self, msg):
                    self._kept.setdefault(id(route), route)
            except Exception:  # never let one message stop the loop
                log.exception("unexpected error handling %s", msg.topic)

    def _all_routes(self) -> list[Route]:
        return [*self._routes.values(), *(route for _, route in self._extra)]

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            log.error("broker %s refused the hub: %s", self.address, reason)
            self._tell_fail(str(reason), refused=True)
            return
        self.connected.set()
        self._delay = RECONNECT_MIN_S
        for route in self._all_routes():
            try:
                route.on_connect(self)
            except Exception:
                log.exception("a table could not take the new connection")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        self._forget_socket()
        if self._stopping or not was:
            return
        for route in self._all_routes():
            try:
                route.on_disconnect(self, str(reason))
            except Exception:
                log.exception("a table could not take the lost connection")

    def _tell_fail(self, reason: str, *, refused: bool) -> None:
        if self._stopping:
            return
        for route in self._all_routes():
            try:
                route.on_connect_fail(self, reason, refused=refused)
            except Exception:
                log.exception("a table could not take the failed connection")
