"""Server-Sent Events: every open dashboard gets the table's state whenever it changes."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request

from companion.hub.extensions import session_of

bp = Blueprint("stream", __name__)


def end_streams(app: Any) -> None:
    """Close every open stream of ``app`` (pages reconnect by themselves)."""
    epochs: list[int] = app.extensions.setdefault("companion.stream_epoch", [0])
    epochs[0] += 1
    app.extensions["companion.session"].announce("streams-ended")


KEEPALIVE_S = 10.0


def sse_frame(event: str, data: Any, event_id: int | None = None) -> str:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


@bp.get("/api/stream")
def stream() -> Response:
    """Live state: the table's snapshot, or with ``?player=NAME`` that player's phone view."""
    session = session_of(current_app)
    shutdown: threading.Event = current_app.extensions["companion.shutdown"]
    player = request.args.get("player")
    if player is not None and player not in session.setup.players:
        return Response(f"no player {player!r} at this table\n", status=404, mimetype="text/plain")

    def frame() -> dict[str, Any]:
        if player is None:
            return session.snapshot()
        return session.player_snapshot(player) or {}

    wake: queue.SimpleQueue[tuple[str, dict[str, Any]]] = queue.SimpleQueue()

    def listener(kind: str, data: dict[str, Any]) -> None:
        wake.put((kind, data))

    epochs: list[int] = current_app.extensions.setdefault("companion.stream_epoch", [0])
    epoch = epochs[0]

    def generate() -> Iterator[str]:
        session.add_listener(listener)
        counter = 0
        try:
            yield "retry: 1000\n\n"
            yield sse_frame("state", frame(), counter)
            while not shutdown.is_set() and epochs[0] == epoch:
                try:
                    items = [wake.get(timeout=KEEPALIVE_S)]
                except queue.Empty:
                    yield ": keepalive\n\n"
                    continue
                if shutdown.is_set() or epochs[0] != epoch:
                    break
                while True:  # coalesce a burst of changes into one frame
                    try:
                        items.append(wake.get_nowait())
                    except queue.Empty:
                        break
                for kind, data in items:
                    if kind == "cue":  # sounds go out as they come, before the new state
                        yield sse_frame("cue", data)
                if any(kind not in ("cue", "events") for kind, _ in items):
                    counter += 1
                    yield sse_frame("state", frame(), counter)
        finally:
            session.remove_listener(listener)

    return Response(
        generate(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
