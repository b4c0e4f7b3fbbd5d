"""Server-Sent Events: every open page gets the table's state whenever it changes.

One :class:`StreamFeed` per app serves every open stream, so page traffic never
holds up node traffic:

- its session listener runs inside the session lock and only notes what happened
  and wakes the feed's thread (O(1), whatever the number of pages);
- the feed's thread builds the snapshot once per change and serialises the frame
  once, for the dashboard and for each player that has a phone page open, then
  wakes the streams;
- each stream only writes the shared bytes of the frames it has not sent yet: the changes since the
  frame it sent last (a ``delta`` event, :mod:`companion.hub.deltas`) when it has the one before,
  else the whole state (a ``state`` event). The SSE id of a frame is its build number; a delta's
  ``from`` names the build it applies to.

At most ``HubConfig.max_streams`` streams are open at once, and at most
``HubConfig.max_streams_per_client`` from one address (so one device cannot hold every live
view); one more gets a 503 with a JSON body that says which (see docs/running.md). The slots
are a :class:`StreamSlots`, which a club shares among its tables: each open stream holds one of
the web server's worker threads (``companion.net.web_server``), so the server is sized from it.
"""

from __future__ import annotations

import json
import logging
import select
import socket
import ssl
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from companion.errors import ConfigError
from companion.hub.bodies import error_body
from companion.hub.extensions import session_of
from companion.rules.setup import find_player
from companion.rules.text import text
from companion.table.deltas import json_diff
from companion.table.session import Changed, Counted, CuePlayed, News, TableSession

log = logging.getLogger(__name__)

bp = Blueprint("stream", __name__)

EXTENSION = "companion.stream_feed"

KEEPALIVE_S = 10.0
"""A comment line on an idle stream this often, so proxies and browsers keep it open."""

HANGUP_CHECK_S = 1.0
"""How often an idle stream looks whether its page has gone, so a closed page frees its slot soon."""

FRESH_S = 0.25
"""A page that connects gets the shared frame if it was built this recently, else a new one
(the page counts time from the frame's ``now_s``, so it must not be old)."""

FRAME_SPACING_S = 0.0002
"""Time kept free after a state frame, per open stream: sending a frame costs each stream's thread
about 50 µs of the interpreter, so with this spacing the streams take at most a quarter of it and
node traffic keeps the rest. A change after a quiet moment goes out at once; a burst of changes is
coalesced (the spacing stays between FRAME_INTERVAL_MIN_S and FRAME_INTERVAL_MAX_S). Cues are never
held."""

FRAME_INTERVAL_MAX_S = 0.04
"""The spacing never exceeds this: 25 frames a second, however many pages are open."""

FRAME_INTERVAL_MIN_S = 0.02
"""At most 50 state frames a second, however few pages are open: a busy table's changes within
20 ms go out as one frame (a page cannot show more), so building frames never crowds out the
nodes' verdicts. A change after a quiet moment still goes out at once."""

CUE_BACKLOG = 256
"""Cue frames kept for streams that have not written them yet (a stream further behind skips the oldest)."""

RETRY_AFTER_S = 5
"""What a refused stream is told to wait before it tries again."""

DASHBOARD: str | None = None
"""The key of the dashboard's frames; a player's frames are keyed by the player's name."""

MAX_STREAMS = 1024
"""The most streams one web server keeps open (each holds one of its threads)."""

FULL = "full"
"""Why :meth:`StreamSlots.take` refused: every slot is taken ..."""
CLIENT_FULL = "client"
"""... or this address holds its share already."""


def sse_frame(event: str, data: Any, event_id: int | None = None) -> str:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


class Frame:
    """One state frame, shared by every stream of its key.

    Its changes from the frame before (``delta``) are encoded when it is built: that is what open
    pages are sent. The whole state (``data``, a ``state`` event) is encoded the first time a page
    needs it (one that just connected, or fell behind), by that page's stream, so the feed's thread
    never spends the interpreter on bytes no page may ask for."""

    __slots__ = ("seq", "built_at", "build", "snapshot", "delta", "base", "_data", "_lock")

    def __init__(
        self,
        seq: int,
        built_at: float,
        build: int,
        snapshot: Any,
        delta: bytes | None = None,
        base: int = 0,
    ) -> None:
        self.seq = seq
        """The feed's change number it shows."""
        self.built_at = built_at
        """``time.monotonic()`` when it was built."""
        self.build = build
        """This frame's own number (the SSE ``id``; unique per feed)."""
        self.snapshot = snapshot
        """The state it shows (the next frame's changes are counted from it; never changed)."""
        self.delta = delta
        """The changes from frame ``base`` as an SSE ``delta`` event; None for the first frame of a key."""
        self.base = base
        self._data: bytes | None = None
        self._lock = threading.Lock()

    @property
    def data(self) -> bytes:
        """The whole state as an SSE ``state`` event, encoded once, when first asked for."""
        with self._lock:
            if self._data is None:
                self._data = sse_frame("state", self.snapshot, self.build).encode()
            return self._data


@dataclass(frozen=True)
class Update:
    """What a stream has to write after a wait: cue frames first, then the state frame if newer."""

    cues: tuple[bytes, ...] = ()
    cue_seq: int = 0
    frame: Frame | None = None
    ended: bool = False
    """The hub is shutting down or the streams were ended: close the stream."""


class StreamSlots:
    """Open live streams of one web server: at most ``limit`` in all, ``per_client`` from one address.

    Thread-safe. A table's hub has its own; a club gives one to all its tables
    (:meth:`StreamFeed.share_slots`), sized like the web server's stream threads."""

    def __init__(self, limit: int, per_client: int) -> None:
        self.limit = limit
        self.per_client = max(1, min(per_client, limit))
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        """Streams refused, by why (:data:`FULL`, :data:`CLIENT_FULL`)."""

    def take(self, client: str) -> str | None:
        """Hold a slot for ``client`` (an address); None when taken, else why not."""
        with self._lock:
            if sum(self._open.values()) >= self.limit:
                why = FULL
            elif self._open[client] >= self.per_client:
                why = CLIENT_FULL
            else:
                self._open[client] += 1
                return None
            self.refused[why] += 1
            return why

    def give_back(self, client: str) -> None:
        with self._lock:
            self._open[client] -= 1
            if self._open[client] <= 0:
                del self._open[client]

    def held_by(self, client: str) -> int:
        with self._lock:
            return self._open[client]

    @property
    def open(self) -> int:
        with self._lock:
            return sum(self._open.values())


class StreamFeed:
    """The frames of one table's live streams: built once per change, written by every stream."""

    def __init__(
        self,
        session: TableSession,
        *,
        max_streams: int,
        shutdown: threading.Event,
        per_client: int | None = None,
    ) -> None:
        self.session = session
        self.max_streams = max_streams
        self.slots = StreamSlots(max_streams, per_client if per_client is not None else max_streams)
        """Where this table's streams take their slots (shared by a club's tables)."""
        self._shutdown = shutdown
        self._cond = threading.Condition()
        self._inbox: deque[tuple[str, dict[str, Any] | None]] = deque()
        self._wake = threading.Event()
        self._change_noted = False
        """A change is waiting for the next frame: later changes do not wake the feed's thread again
        (at 640 reports a second it would take the interpreter 640 times, for nothing)."""
        self._build_lock = threading.Lock()
        # guarded by _cond:
        self._open: Counter[str | None] = Counter()
        self._frames: dict[str | None, Frame] = {}
        self._seq = 0
        self._cues: deque[tuple[int, bytes]] = deque(maxlen=CUE_BACKLOG)
        self._cue_seq = 0
        self._epoch = 0
        self._closed = False
        self._thread: threading.Thread | None = None
        self.builds = 0
        """State frames built so far (for tests: one per change and key, not one per stream)."""
        self.sent = Counter[str]()
        """Bytes written to streams by kind (``state``, ``delta``, ``cue``), for the bench and tests."""

    # --- the session side: runs inside the session lock, so it only notes and wakes -------
    def _on_session(self, news: News) -> None:
        if isinstance(news, (Changed, Counted)):
            if self._change_noted:  # the frame the feed will build shows this change too
                return
            self._change_noted = True
            self._inbox.append(("change", None))
        elif isinstance(news, CuePlayed):
            self._inbox.append(("cue", news.payload))
        else:
            self._inbox.append(("shutdown", None))
        self._wake.set()

    # --- the feed's thread ----------------------------------------------------------------
    def _start(self) -> None:
        """Start listening to the session (with the first stream); runs until shutdown."""
        with self._cond:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name="stream-feed", daemon=True)
        self.session.add_listener(self._on_session)
        self._thread.start()

    def _run(self) -> None:
        changed = False
        next_frame_at = 0.0
        try:
            while True:
                wait_s = max(0.0, next_frame_at - time.monotonic()) if changed else None
                self._wake.wait(wait_s)
                self._wake.clear()
                items = []
                while self._inbox:
                    items.append(self._inbox.popleft())
                closing = self._shutdown.is_set() or any(kind == "shutdown" for kind, _ in items)
                cues = [sse_frame("cue", data).encode() for kind, data in items if kind == "cue"]
                changed = changed or any(kind != "cue" for kind, _ in items)
                frames: dict[str | None, Frame] = {}
                if changed and not closing and time.monotonic() >= next_frame_at:
                    changed = False
                    self._change_noted = False  # before the snapshot: a change after it wakes us again
                    with self._cond:
                        self._seq += 1
                        keys = list(self._open)
                        streams = sum(self._open.values())
                    with self._build_lock:
                        for key in keys:
                            frames[key] = self._build(key)
                    spacing = min(FRAME_INTERVAL_MAX_S, streams * FRAME_SPACING_S)
                    next_frame_at = time.monotonic() + max(FRAME_INTERVAL_MIN_S, spacing)
                if not (cues or frames or closing):
                    continue
                with self._cond:
                    for text in cues:
                        self._cue_seq += 1
                        self._cues.append((self._cue_seq, text))
                    for key, frame in frames.items():
                        held = self._frames.get(key)
                        if held is None or held.seq <= frame.seq:
                            self._frames[key] = frame
                    if closing:
                        self._closed = True
                    self._cond.notify_all()
                if closing:
                    return
        except Exception:  # the pages stop updating, but the table goes on
            log.exception("the live stream feed failed")
            with self._cond:
                self._closed = True
                self._cond.notify_all()
        finally:
            self.session.remove_listener(self._on_session)

    def _build(self, key: str | None) -> Frame:
        """A new frame of ``key`` at the current change number, with its changes from the frame held for
        ``key`` (call with the build lock held)."""
        with self._cond:
            seq = self._seq
            previous = self._frames.get(key)
        if key is None:
            data = self.session.snapshot(live_sand=False)
        else:
            data = self.session.player_snapshot(key, live_sand=False) or {}
        self.builds += 1
        build = self.builds
        delta = None
        base = 0
        if previous is not None:
            ops = json_diff(previous.snapshot, data)
            delta = sse_frame("delta", {"from": previous.build, "ops": ops}, build).encode()
            base = previous.build
        return Frame(seq, time.monotonic(), build, data, delta, base)

    # --- the streams' side ------------------------------------------------------------------
    def share_slots(self, slots: StreamSlots) -> None:
        """Take stream slots from ``slots`` (the web server's, shared with other tables) from now on."""
        self.slots = slots

    def open(self, key: str | None, client: str = "") -> str | None:
        """Take a stream slot for ``key`` from ``client`` (its address); None when taken, else why not
        (:data:`FULL`: this table's ``max_streams`` or the server's slots; :data:`CLIENT_FULL`)."""
        with self._cond:
            if self._closed or self._shutdown.is_set() or sum(self._open.values()) >= self.max_streams:
                return FULL
            why = self.slots.take(client)
            if why is not None:
                return why
            self._open[key] += 1
        self._start()
        return None

    def release(self, key: str | None, client: str = "") -> None:
        with self._cond:
            self._open[key] -= 1
            if self._open[key] <= 0:
                del self._open[key]
                self._frames.pop(key, None)
            self.slots.give_back(client)

    @property
    def open_streams(self) -> int:
        with self._cond:
            return sum(self._open.values())

    def position(self) -> tuple[int, int]:
        """(epoch, cue number) now: a new stream writes only what comes after."""
        with self._cond:
            return self._epoch, self._cue_seq

    def current(self, key: str | None) -> Frame:
        """The frame a page that connects now gets: the shared one if fresh, else a new one."""
        with self._build_lock:
            with self._cond:
                frame = self._frames.get(key)
                seq = self._seq
            if frame is not None and frame.seq == seq and time.monotonic() - frame.built_at < FRESH_S:
                return frame
            frame = self._build(key)
            with self._cond:
                held = self._frames.get(key)
                if key in self._open and (held is None or held.seq <= frame.seq):
                    self._frames[key] = frame
            return frame

    def wait(
        self, key: str | None, *, state_seq: int, cue_seq: int, epoch: int, timeout_s: float
    ) -> Update | None:
        """Wait for what a stream has not written yet; None after ``timeout_s`` with nothing new."""

        def ready() -> bool:
            frame = self._frames.get(key)
            return (
                self._closed
                or self._epoch != epoch
                or self._cue_seq > cue_seq
                or (frame is not None and frame.seq > state_seq)
            )

        with self._cond:
            if not self._cond.wait_for(ready, timeout_s):
                return None
            if self._closed or self._epoch != epoch:
                return Update(ended=True)
            cues = tuple(text for n, text in self._cues if n > cue_seq)
            frame = self._frames.get(key)
            return Update(
                cues=cues,
                cue_seq=self._cue_seq,
                frame=frame if frame is not None and frame.seq > state_seq else None,
            )

    def end_streams(self) -> None:
        """Close every open stream (pages reconnect by themselves)."""
        with self._cond:
            self._epoch += 1
            self._cond.notify_all()

    def close(self) -> None:
        """End every stream and the feed's thread (the hub is shutting down)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._wake.set()


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_STREAMS:
        raise ConfigError(f"{name} must be a whole number from 1 to {MAX_STREAMS}, not {value!r}")
    return value


def init_streams(
    app: Flask, session: TableSession, *, max_streams: int, per_client: int | None = None
) -> StreamFeed:
    """Attach the live-stream feed to ``app`` and register the stream route."""
    _check_count("max_streams", max_streams)
    if per_client is not None:
        _check_count("max_streams_per_client", per_client)
    feed = StreamFeed(
        session,
        max_streams=max_streams,
        per_client=per_client,
        shutdown=app.extensions["companion.shutdown"],
    )
    app.extensions[EXTENSION] = feed
    app.register_blueprint(bp)
    return feed


def feed_of(app: Flask) -> StreamFeed:
    feed: StreamFeed = app.extensions[EXTENSION]
    return feed


def end_streams(app: Flask) -> None:
    """Close every open stream of ``app`` (pages reconnect by themselves)."""
    feed = app.extensions.get(EXTENSION)
    if feed is not None:
        feed.end_streams()


def _client_gone(sock: Any) -> bool:
    """True when the page at the other end of ``sock`` has closed the connection."""
    if sock is None or isinstance(sock, ssl.SSLSocket):  # no way to peek: the next write will tell
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


class _Stream:
    """The body of one stream response; gives its slot back when the server closes it, even unread."""

    def __init__(
        self,
        feed: StreamFeed,
        key: str | None,
        sock: Any = None,
        *,
        client: str = "",
        gone: Callable[[], bool] | None = None,
    ) -> None:
        self.feed = feed
        self.key = key
        self.client = client
        self.sock = sock
        """The connection's socket when the server tells it (werkzeug), to notice a closed page."""
        self.gone = gone or (lambda: _client_gone(sock))
        """True once the page has closed the connection (waitress says so itself)."""
        self._released = False
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[bytes]:
        feed, key = self.feed, self.key
        try:
            epoch, cue_seq = feed.position()
            yield b"retry: 1000\n\n"
            frame = feed.current(key)
            state_seq, written = frame.seq, frame.build
            feed.sent["state"] += len(frame.data)
            yield frame.data
            idle_s = 0.0
            while True:
                update = feed.wait(
                    key, state_seq=state_seq, cue_seq=cue_seq, epoch=epoch, timeout_s=HANGUP_CHECK_S
                )
                if update is None:
                    if self.gone():
                        break
                    idle_s += HANGUP_CHECK_S
                    if idle_s >= KEEPALIVE_S:
                        idle_s = 0.0
                        yield b": keepalive\n\n"
                    continue
                idle_s = 0.0
                if update.ended:
                    break
                yield from update.cues  # sounds go out as they come, before the new state
                feed.sent["cue"] += sum(len(c) for c in update.cues)
                cue_seq = update.cue_seq
                newer = update.frame
                if newer is not None:
                    state_seq = newer.seq
                    if newer.delta is not None and newer.base == written:
                        feed.sent["delta"] += len(newer.delta)
                        yield newer.delta  # only what changed since the frame this page has
                    elif newer.build != written:
                        feed.sent["state"] += len(newer.data)
                        yield newer.data
                    written = newer.build
        finally:
            self.close()

    def close(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
        self.feed.release(self.key, self.client)


@bp.get("/api/stream")
def stream() -> Any:
    """Live state: the table's snapshot, or with ``?player=NAME`` that player's phone view."""
    session = session_of(current_app)
    player = request.args.get("player")
    if player is not None:
        seated = find_player(session.setup.players, player)  # a name, or the id in the page's address
        if seated is None:
            return jsonify(error_body(text("There is no player {player} at this table", player=player))), 404
        player = seated
    feed = feed_of(current_app)
    client = request.remote_addr or ""
    why = feed.open(player, client)
    if why is not None:
        if why == CLIENT_FULL:
            message = text(
                "Too many live pages are open on this device ({count}); close one or try again in a few seconds",
                count=feed.slots.per_client,
            )
        else:
            message = text(
                "Too many live pages are open ({count}); close one or try again in a few seconds",
                count=min(feed.max_streams, feed.slots.limit),
            )
        response = jsonify(error_body(message))
        response.status_code = 503
        response.headers["Retry-After"] = str(RETRY_AFTER_S)
        return response
    sock = request.environ.get("werkzeug.socket")
    gone = request.environ.get("waitress.client_disconnected")
    return Response(
        _Stream(feed, player, sock, client=client, gone=gone if callable(gone) else None),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
