"""A small Server-Sent Events client (standard library only), used by the benchmark and the tests."""

from __future__ import annotations

import http.client
import json
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.table.deltas import json_patch


class SSEReader:
    """Reads the state of a hub's /api/stream into a queue of (arrival, data): each ``state`` frame, and
    the state each ``delta`` frame leads to (applied to the last one); ``event: cue`` frames go into
    ``cues``; ``ended`` is set when the hub closes the stream."""

    def __init__(self, host: str, port: int, path: str = "/api/stream") -> None:
        self.frames: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.cues: queue.Queue[dict[str, Any]] = queue.Queue()
        self.order: list[str] = []
        """The event names of every frame received, in order."""
        self.sizes: dict[str, int] = {}
        """Bytes of ``data`` received per event name."""
        self._state: dict[str, Any] | None = None
        self._frame_id = ""
        self.ended = threading.Event()
        self._conn = http.client.HTTPConnection(host, port, timeout=30)
        self._conn.request("GET", path, headers={"Accept": "text/event-stream"})
        self._response = self._conn.getresponse()
        self.status = self._response.status
        self.content_type = self._response.getheader("Content-Type", "")
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            self._read_frames()
        finally:
            self.ended.set()

    def _read_frames(self) -> None:
        event, data, frame_id = None, [], ""
        try:
            while True:
                line = self._response.readline()
                if not line:
                    return
                text = line.decode().rstrip("\n")
                if text.startswith("event: "):
                    event = text[7:]
                elif text.startswith("id: "):
                    frame_id = text[4:]
                elif text.startswith("data: "):
                    data.append(text[6:])
                elif text == "":
                    if event is not None and data:
                        self.order.append(event)
                        self.sizes[event] = self.sizes.get(event, 0) + sum(len(d) for d in data)
                    if event == "state" and data:
                        self._state, self._frame_id = json.loads("".join(data)), frame_id
                        self.frames.put((time.perf_counter(), self._state))
                    elif event == "delta" and data:
                        delta = json.loads("".join(data))
                        if self._state is None or str(delta["from"]) != self._frame_id:
                            raise ValueError(
                                f"a delta from frame {delta['from']} after frame {self._frame_id}"
                            )
                        self._state, self._frame_id = json_patch(self._state, delta["ops"]), frame_id
                        self.frames.put((time.perf_counter(), self._state))
                    elif event == "cue" and data:
                        self.cues.put(json.loads("".join(data)))
                    event, data, frame_id = None, [], ""
        except (OSError, ValueError):
            return

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], object], timeout_s: float = 5.0
    ) -> tuple[float, dict[str, Any]]:
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching state frame arrived")
            try:
                arrival, frame = self.frames.get(timeout=left)
            except queue.Empty as exc:
                raise TimeoutError("no matching state frame arrived") from exc
            if predicate(frame):
                return arrival, frame

    def close(self) -> None:
        try:
            if self._conn.sock is not None:
                self._conn.sock.shutdown(2)
        except (OSError, AttributeError):
            pass
        self._conn.close()
