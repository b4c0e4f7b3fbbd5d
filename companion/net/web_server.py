"""The pages' web server: waitress, bounded so that no crowd of connections reaches the table.

Why waitress (Pylons' pure-Python WSGI server, 3.x): one I/O thread reads every connection's
request line, headers and body (poll, no thread per connection) and hands only *complete*
requests to a fixed pool of worker threads. A thousand idle or half-sent connections cost a
socket each, not a thread, and the node's path (paho's thread, the bridge's worker, the
session) shares no pool and no lock with them. gunicorn wants to own the process (it forks its
workers, and the hub lives in one process with its broker and bridge), and its ``gthread`` worker
reads a new connection's request in a pool thread; cheroot hands a readable connection to a pool
thread that then blocks reading the rest of it. Either way a slow client holds a thread.

Each open live stream (Server-Sent Events) holds one worker thread for as long as it is open,
as under any WSGI server, so the pool is the streams' slots plus :attr:`WebLimits.workers` for
every other request; the pages' stream feed never opens more streams than that
(``companion.hub.stream.StreamSlots``).

On top of waitress's own limits (header and body sizes) this module adds what it lacks:

- **a deadline for each request**: its head and body must arrive within
  :attr:`WebLimits.request_timeout_s` of its first byte (and a new connection must send its
  first byte as soon), else the connection is closed: a slowloris client that sends a byte
  now and then is not "active";
- **an idle keep-alive connection** is closed after :attr:`WebLimits.idle_timeout_s`;
- **a response nobody reads** (pending output that has not moved for
  :attr:`WebLimits.write_timeout_s`: a page that stopped reading its stream) is closed, and
  its pending output is bounded meanwhile;
- **at most** :attr:`WebLimits.per_client` **connections from one address**: more are closed
  as soon as they are accepted;
- **at most** :attr:`WebLimits.max_connections` **in all**, and fewer when the process may open
  fewer files (``RLIMIT_NOFILE``, 1,024 on a Pi): a connection beyond that takes the place
  of the one that has been quiet longest without a request being served (a half-sent or idle
  one), so the pages stay reachable while the slots are full of idle connections;
- **accept() failing for lack of files** pauses accepting for a moment instead of spinning.

Every refusal is counted (:attr:`WebServer.stats`) and logged once a minute per kind and
address, never once per connection. All deadlines use ``time.monotonic()``, so a wall-clock
step (a Pi without a real-time clock syncing NTP) neither closes every connection nor keeps
a slow one open.
"""

from __future__ import annotations

import errno
import heapq
import logging
import os
import select
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

log = logging.getLogger(__name__)

access_log = logging.getLogger("companion.access")
"""One line per request at INFO (``127.0.0.1 "GET /path?query HTTP/1.1" 200``); the hub blanks
tokens in it (``companion.hub.auth.RedactTokens``)."""

RESERVED_FILES = 128
"""Open files kept free for the rest of the process (logs, the broker, MQTT, sounds) when the
connection limit is worked out from ``RLIMIT_NOFILE``."""

ACCEPT_PAUSE_S = 0.25
"""How long accepting pauses after accept() failed for lack of files."""

ACCEPTS_PER_EVENT = 16
"""Connections taken from the listen queue per wake-up of the I/O loop (a burst is accepted in a
few short passes, each giving the interpreter back to the hub's other threads)."""

EVENTS_PER_PASS = 64
"""Ready connections handled per pass of the I/O loop (a thousand closing at once are handled in
passes of this many, not in one long hold of the interpreter)."""

BUSY_PASS_S = 0.001
"""A pass of the I/O loop that worked longer than this is followed by a rest as long (up to
:data:`MAX_REST_S`): under a crowd the web server takes at most about half of the interpreter,
and the node path (paho's threads, the bridge's worker) gets the rest without waiting for it."""
MAX_REST_S = 0.005

EVICT_SHARE = 32
"""When every connection slot is taken, a new connection makes room for 1/32 of the slots at once
(the quietest ones), so a crowd costs one pass over the connections per 32 of its own."""

SAY_AGAIN_S = 60.0
"""A kind of refusal is logged again for the same address after this long (counted meanwhile)."""


@dataclass(frozen=True)
class WebLimits:
    """How much the web server takes on; the defaults suit one table on a Raspberry Pi."""

    streams: int = 64
    """Worker threads kept for live streams: each open stream holds one."""
    workers: int = 8
    """Worker threads for every other request (pages, API, static files)."""
    max_connections: int = 512
    """Open connections in all (lowered to what ``RLIMIT_NOFILE`` allows)."""
    per_client: int = 32
    """Open connections from one address; a browser uses at most 6 per site."""
    request_timeout_s: float = 10.0
    """A request's head and body must arrive within this of its first byte (and a new
    connection must begin its first request within it)."""
    idle_timeout_s: float = 15.0
    """A kept-alive connection with no request is closed after this."""
    write_timeout_s: float = 30.0
    """A response whose pending output has not moved for this long is closed (nobody reads it)."""
    max_header_bytes: int = 32 * 1024
    """Request line and headers together; more is answered 431."""
    max_body_bytes: int = 256 * 1024
    """A request body; more is answered 413 (the API's own limit is lower and says so in words)."""
    max_pending_output_bytes: int = 256 * 1024
    """A response's output waiting for a slow reader; the stream writing it waits meanwhile."""

    @property
    def threads(self) -> int:
        return self.streams + self.workers


def connection_limit(wanted: int, *, reserved: int = RESERVED_FILES) -> int:
    """``wanted``, or fewer when this process may not open that many more files (at least 16)."""
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return wanted
    if soft == resource.RLIM_INFINITY:
        return wanted
    try:
        open_now = len(os.listdir("/proc/self/fd"))
    except OSError:
        open_now = 64
    return max(16, min(wanted, soft - open_now - reserved))


class _SayOnce:
    """Log a kind of event once per key and minute; count every one."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._next: dict[tuple[str, str], float] = {}
        self._since: Counter[tuple[str, str]] = Counter()

    def __call__(self, kind: str, key: str, message: str, *args: Any) -> None:
        now = self._now()
        slot = (kind, key)
        self._since[slot] += 1
        if now < self._next.get(slot, 0.0):
            return
        if len(self._next) > 4096:  # many addresses: forget the oldest notes rather than grow
            self._next.clear()
            self._since.clear()
            self._since[slot] = 1
        count = self._since.pop(slot, 1)
        self._next[slot] = now + SAY_AGAIN_S
        suffix = f" ({count} times since it was last said)" if count > 1 else ""
        log.warning(message + suffix + "; said again in a minute at most", *args)


class _Channel(HTTPChannel):
    """One connection, with the moments the server's deadlines are measured from."""

    server: _Server

    def __init__(self, server: _Server, sock: Any, addr: Any, adj: Adjustments, map: Any = None) -> None:
        now = time.monotonic()
        self.client = str(addr[0]) if isinstance(addr, tuple) and addr else "unknown"
        self.opened_at = now
        self.heard_at = now
        """When the last bytes came from the client."""
        self.sent_at = now
        """When output last moved (or the connection opened)."""
        self.waiting_since = now
        """Since when the server waits for the current request (its first byte, or the connection)."""
        self.fresh = True
        """Nothing has come from the client yet."""
        self._timed: object | None = None
        self._counted = False
        super().__init__(server, sock, addr, adj, map=map)
        server.clients[self.client] += 1
        self._counted = True
        server.changed(self._fileno)

    def received(self, data: bytes) -> bool:
        now = time.monotonic()
        self.heard_at = now
        self.fresh = False
        done = super().received(data)
        pending = self.request
        if pending is None:
            self._timed = None
            self.waiting_since = now  # between requests: the idle timeout runs from here
        elif pending is not self._timed:
            self._timed = pending  # the first bytes of a new request: its deadline runs from here
            self.waiting_since = now
        return bool(done)

    def _flush_some(self, do_close: bool = True) -> bool:
        sent = bool(super()._flush_some(do_close=do_close))
        if sent:
            self.sent_at = time.monotonic()
        return sent

    def service(self) -> None:
        super().service()
        self.waiting_since = time.monotonic()  # the response is out: idle from now on

    def del_channel(self, map: Any = None) -> None:
        fd = self._fileno
        super().del_channel(map)
        self.server.forget(fd)
        if self._counted:
            self._counted = False
            clients = self.server.clients
            clients[self.client] -= 1
            if clients[self.client] <= 0:
                del clients[self.client]

    # --- what the server's maintenance asks ----------------------------------------------------
    def overdue(self, now: float, limits: WebLimits) -> str | None:
        """Why this connection should be closed now, or None."""
        if self.total_outbufs_len and now - self.sent_at > limits.write_timeout_s:
            return "write"
        if self.requests:  # a request is being served (a live stream): only its output can stall
            return None
        if self.request is not None or self.fresh:
            if now - self.waiting_since > limits.request_timeout_s:
                return "request"
            return None
        if now - self.waiting_since > limits.idle_timeout_s:
            return "idle"
        return None

    def is_evictable(self) -> bool:
        """Nothing is being served on it (no request running, no output pending)."""
        return not self.requests and not self.total_outbufs_len and self.connected


class _Server(TcpWSGIServer):
    """waitress's TCP server with the limits of :class:`WebLimits` (see the module's docstring)."""

    channel_class = _Channel

    def __init__(self, app: Any, *, limits: WebLimits, cap: int, stats: Counter[str], **kw: Any) -> None:
        self.limits = limits
        self.cap = cap
        self.stats = stats
        self.clients: Counter[str] = Counter()
        self.stopping = False
        self._paused_until = 0.0
        self._next_check = 0.0
        self.say = _SayOnce()
        super().__init__(app, **kw)

    def readable(self) -> bool:
        now = time.monotonic()
        if now >= self._next_check:
            self._next_check = now + 1.0
            self._check(now)
        return bool(self.accepting) and now >= self._paused_until and not self.stopping

    def maintenance(self, now: float) -> None:
        """waitress's own idle check runs on the wall clock; :meth:`_check` replaces it."""

    def _check(self, now: float) -> None:
        for channel in list(self.active_channels.values()):
            if not isinstance(channel, _Channel) or channel.will_close:
                continue
            why = channel.overdue(now, self.limits)
            if why is None:
                continue
            self.stats[f"closed_{why}"] += 1
            if why == "write":
                self.say(
                    "write",
                    channel.client,
                    "closed a connection from %s: nobody read its page's output for %g s",
                    channel.client,
                    self.limits.write_timeout_s,
                )
                channel.handle_close()  # wakes the stream waiting to write, which then ends
            else:
                self.changed(channel._fileno)
                if why == "request":
                    self.say(
                        "request",
                        channel.client,
                        "closed a connection from %s: its request did not arrive within %g s",
                        channel.client,
                        self.limits.request_timeout_s,
                    )
                channel.will_close = True

    def handle_accept(self) -> None:
        for _ in range(ACCEPTS_PER_EVENT):
            try:
                pair = self.accept()
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self._paused_until = time.monotonic() + ACCEPT_PAUSE_S
                    self.stats["accept_out_of_files"] += 1
                    self.say(
                        "files",
                        "",
                        "cannot accept connections: the process has no file left (%s)",
                        exc.strerror,
                    )
                return
            if pair is None:
                return
            conn, addr = pair
            client = str(addr[0]) if addr else "unknown"
            if self.clients[client] >= self.limits.per_client:
                self.stats["refused_per_client"] += 1  # counted before the close its client may see
                conn.close()
                self.say(
                    "client",
                    client,
                    "refused a connection from %s: it has %d open, the most one address may",
                    client,
                    self.limits.per_client,
                )
                continue
            if len(self.active_channels) >= self.cap and not self._evict():
                self.stats["refused_full"] += 1  # counted before the close its client may see
                conn.close()
                self.say(
                    "full",
                    "",
                    "refused a connection from %s: %d connections are open and busy",
                    client,
                    self.cap,
                )
                continue
            try:
                self.set_socket_options(conn)
                self.channel_class(self, conn, addr, self.adj, map=self._map)
            except OSError:  # the client went away in the meantime
                conn.close()
                continue
            self.stats["accepted"] += 1

    def _evict(self) -> bool:
        """Close the connections whose request the server has waited for longest, with nothing being
        served on them (1/32 of the slots at once); True if there was one."""
        evictable = [c for c in self.active_channels.values() if isinstance(c, _Channel) and c.is_evictable()]
        # oldest first by when the server began waiting for their request: a half-sent request that
        # trickles a byte now and then ages all the same, a connection just accepted is the youngest
        quietest = heapq.nsmallest(max(1, self.cap // EVICT_SHARE), evictable, key=lambda c: c.waiting_since)
        if not quietest:
            return False
        self.stats["evicted"] += len(quietest)
        self.say(
            "evict", "", "the connection limit (%d) is reached: the quietest connections make room", self.cap
        )
        for channel in quietest:
            channel.handle_close()
        return True

    # --- the I/O loop -----------------------------------------------------------------------------
    _loop: _EpollLoop | None = None

    def pull_trigger(self) -> None:
        """Wake the I/O loop (a worker thread wrote or finished); nothing to wake once it has ended."""
        try:
            super().pull_trigger()
        except (OSError, ValueError):
            if not self.stopping:
                raise

    def changed(self, fd: int | None) -> None:
        """What ``fd`` waits for may have changed (the epoll loop works it out again)."""
        if self._loop is not None and fd is not None:
            self._loop.watch.add(fd)

    def forget(self, fd: int | None) -> None:
        if self._loop is not None and fd is not None:
            self._loop.forget(fd)

    def serve(self) -> None:
        """The I/O loop, until :meth:`WebServer.stop`; then every connection is closed."""
        try:
            if hasattr(select, "epoll"):
                self._loop = _EpollLoop(self._map)
            while not self.stopping:
                if self._loop is not None:
                    self._loop.once(self.adj.asyncore_loop_timeout)
                else:
                    wasyncore.poll2(self.adj.asyncore_loop_timeout, self._map)
        except Exception:
            log.exception("the web server's loop failed")
        finally:
            for channel in list(self.active_channels.values()):
                channel.handle_close()  # also wakes a stream waiting to write, which then ends
            self.task_dispatcher.shutdown(timeout=2)  # before the trigger closes: they pull it as they end
            wasyncore.close_all(self._map)
            if self._loop is not None:
                self._loop.epoll.close()


class _EpollLoop:
    """waitress's poll loop asks every connection what it waits for on every pass (about 2 ms for
    500 connections here), so a crowd of idle connections would cost the interpreter on every
    event. This loop keeps the answers in an epoll set and asks again only the connections that
    may have changed: those that had an event, new ones, those being served (a worker thread
    writes to them), and all of them once a second, to be sure."""

    FULL_PASS_S = 1.0

    def __init__(self, map: dict[int, Any]) -> None:
        self.map = map
        self.epoll = select.epoll()
        self.masks: dict[int, int] = {}
        self.watch: set[int] = set(map)
        """Connections to ask again on the next pass."""
        self.busy: set[int] = set()
        """Connections with a request, pending output or a close under way: asked on every pass."""
        self._next_full = 0.0
        self.fixed = {fd for fd, obj in map.items() if not isinstance(obj, _Channel)}
        """The listening socket and the trigger: asked on every pass."""

    def forget(self, fd: int) -> None:
        """``fd`` left the map (its socket is closed, which also takes it out of the epoll set)."""
        self.masks.pop(fd, None)
        self.watch.discard(fd)
        self.busy.discard(fd)
        try:
            self.epoll.unregister(fd)
        except (OSError, ValueError):
            pass

    def _ask(self, fd: int, obj: Any) -> None:
        mask = 0
        if obj.readable():
            mask |= select.EPOLLIN | select.EPOLLPRI
        if not obj.accepting and obj.writable():
            mask |= select.EPOLLOUT
        if isinstance(obj, _Channel):
            if obj.requests or obj.total_outbufs_len or obj.will_close or obj.close_when_flushed:
                self.busy.add(fd)
            else:
                self.busy.discard(fd)
        old = self.masks.get(fd)
        if old == mask:
            return
        try:
            if old is None:
                self.epoll.register(fd, mask)
            else:
                self.epoll.modify(fd, mask)
        except FileExistsError:
            self.epoll.modify(fd, mask)
        except FileNotFoundError:
            self.epoll.register(fd, mask)
        self.masks[fd] = mask

    def once(self, timeout_s: float) -> None:
        now = time.monotonic()
        if now >= self._next_full:
            self._next_full = now + self.FULL_PASS_S
            ask = set(self.map)
        else:
            ask = self.watch | self.busy | self.fixed
        self.watch = set()
        for fd in ask:
            obj = self.map.get(fd)
            if obj is None:
                self.forget(fd)
                continue
            try:
                self._ask(fd, obj)
            except OSError:  # its socket went away under us
                self.forget(fd)
        try:
            events = self.epoll.poll(timeout_s, EVENTS_PER_PASS)
        except InterruptedError:
            return
        began = time.monotonic()
        for fd, flags in events:
            obj = self.map.get(fd)
            if obj is None:
                continue
            wasyncore.readwrite(obj, flags)
            self.watch.add(fd)
        spent = time.monotonic() - began
        if spent > BUSY_PASS_S:  # a crowd keeps this thread busy: rest as long, so the interpreter
            time.sleep(min(spent, MAX_REST_S))  # goes to the node path at least half of the time


class AccessLog:
    """WSGI middleware: logs each request's line and status to :data:`access_log` (when INFO is on)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if not access_log.isEnabledFor(logging.INFO):
            return self.app(environ, start_response)

        def logged(status: str, headers: Any, exc_info: Any = None) -> Any:
            query = environ.get("QUERY_STRING")
            path = (
                environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
            )
            access_log.info(
                '%s "%s %s %s" %s',
                environ.get("REMOTE_ADDR", "-"),
                environ.get("REQUEST_METHOD", "-"),
                path,
                environ.get("SERVER_PROTOCOL", "-"),
                status.split(" ", 1)[0],
            )
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        return self.app(environ, logged)


class WebServer:
    """A WSGI app served on ``host:port`` by waitress within :class:`WebLimits`; ``start`` binds
    (``OSError`` when the port is taken) and serves from a thread until :meth:`stop`."""

    def __init__(
        self, app: Any, host: str, port: int, *, limits: WebLimits = WebLimits(), name: str = "http"
    ) -> None:
        self.app = app
        self.host = host
        self.requested_port = port
        self.limits = limits
        self.name = name
        self.stats: Counter[str] = Counter()
        """What the server did: ``accepted``, ``refused_per_client``, ``refused_full``, ``evicted``,
        ``closed_request``, ``closed_idle``, ``closed_write``, ``accept_out_of_files``."""
        self.cap = 0
        """The connection limit in force (``max_connections``, or lower for the file limit)."""
        self._server: _Server | None = None
        self._port: int | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> WebServer:
        quiet_waitress_logs()
        limits = self.limits
        self.cap = connection_limit(limits.max_connections)
        adj = Adjustments(
            host=self.host,
            port=self.requested_port,
            threads=limits.threads,
            connection_limit=self.cap + 16,  # ours is checked first (and makes room); this never trips
            channel_timeout=int(max(limits.idle_timeout_s, limits.request_timeout_s)) + 60,  # unused
            cleanup_interval=1,
            max_request_header_size=limits.max_header_bytes,
            max_request_body_size=limits.max_body_bytes,
            outbuf_high_watermark=limits.max_pending_output_bytes,
            outbuf_overflow=max(1 << 20, 2 * limits.max_pending_output_bytes),
            inbuf_overflow=max(1 << 20, 2 * limits.max_body_bytes),
            asyncore_use_poll=True,  # select() cannot watch a socket numbered 1,024 or more
            asyncore_loop_timeout=1,
            channel_request_lookahead=1,  # keep reading during a stream, to see the page go
            ident="companion",
            expose_tracebacks=False,
            log_socket_errors=False,
        )
        dispatcher = ThreadedTaskDispatcher()
        dispatcher.set_thread_count(limits.threads)
        try:
            server = _Server(
                AccessLog(self.app),
                limits=limits,
                cap=self.cap,
                stats=self.stats,
                map={},
                adj=adj,
                dispatcher=dispatcher,
                sockinfo=adj.listen[0],
            )
        except BaseException:
            dispatcher.shutdown(timeout=1)
            raise
        self._server = server
        self._port = int(server.effective_port)
        self._thread = threading.Thread(target=server.serve, name=self.name, daemon=True)
        self._thread.start()
        return self

    @property
    def port(self) -> int:
        """The port it listens on (the one the system chose, when asked for 0), also after it stopped."""
        assert self._port is not None, "start the web server first"
        return self._port

    server_port = port

    @property
    def open_connections(self) -> int:
        server = self._server
        return len(server.active_channels) if server is not None else 0

    def stop(self) -> None:
        """Stop accepting, close every connection and end the worker threads (waits up to ~3 s)."""
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is None:
            return
        server.stopping = True
        try:
            server.pull_trigger()
        except OSError:
            pass
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)


def quiet_waitress_logs() -> None:
    """waitress warns once per queued request when its pool is busy ("Task queue depth"): under a
    burst that is a line per request, so only its errors are logged."""
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    logging.getLogger("waitress").setLevel(logging.ERROR)
