"""Many open dashboard streams, read by one thread that only counts frames (``--streams N``)."""

from __future__ import annotations

import selectors
import socket
import threading
import time


class StreamLoad:
    """``n`` open dashboard streams (``/api/stream``), read by one thread that only counts frames.

    Each stream remembers the flips of the first timer (``red-1``) in the newest state frame it
    received, so a benchmark can wait until every dashboard shows a flip. One reading thread keeps
    the load on the client side small: what is measured is the hub serving ``n`` streams.

    On loopback the streams come from ``spread`` different addresses (127.0.0.2, 127.0.0.3, ...),
    like pages on that many phones: the hub lets one address hold only a few streams.
    """

    FLIPS = b'"flips":'
    DELTA_FLIPS = b'["players",0,"timers",0,"flips"],'
    """How a delta frame (``companion.table.deltas``) sets the first timer's count."""

    def __init__(self, host: str, port: int, n: int, *, path: str = "/api/stream", spread: int = 200) -> None:
        self.statuses: list[int] = []
        self.flips: list[int] = [-1] * n
        self._selector = selectors.DefaultSelector()
        self._socks: list[socket.socket] = []
        self._changed = threading.Condition()
        request = (
            f"GET {path} HTTP/1.0\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n"
        ).encode()
        loopback = host.startswith("127.")
        for i in range(n):
            source = (f"127.0.{1 + i % spread // 250}.{2 + i % spread % 250}", 0) if loopback else None
            sock = socket.create_connection((host, port), timeout=10, source_address=source)
            sock.sendall(request)
            self._socks.append(sock)
        buffers = [b""] * n
        for i, sock in enumerate(self._socks):  # read each status line and headers
            while b"\r\n\r\n" not in buffers[i]:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                buffers[i] += chunk
            head, _, rest = buffers[i].partition(b"\r\n\r\n")
            self.statuses.append(int(head.split(b" ", 2)[1]) if head else 0)
            buffers[i] = rest
            sock.setblocking(False)
            self._selector.register(sock, selectors.EVENT_READ, i)
        self._buffers = buffers
        for i in range(n):
            self._scan(i)
        self._stop = False
        self._thread = threading.Thread(target=self._read, name="bench-streams", daemon=True)
        self._thread.start()

    @property
    def open(self) -> int:
        return sum(1 for status in self.statuses if status == 200)

    def _scan(self, i: int) -> None:
        """Take the complete frames out of stream ``i``'s buffer; note the flips of the first timer
        the newest frame shows: a whole ``state``, or a ``delta`` that sets that count."""
        buffer = self._buffers[i]
        end = buffer.rfind(b"\n\n")
        if end < 0:
            return
        frames, self._buffers[i] = buffer[: end + 2], buffer[end + 2 :]
        count = None
        for frame in frames.split(b"\n\n"):
            if frame.startswith(b"event: state") or b"\nevent: state" in frame:
                players = frame.find(b'"players":')
                found = frame.find(self.FLIPS, players) if players >= 0 else -1
                count = _number(frame, found + len(self.FLIPS)) if found >= 0 else count
            elif b"event: delta" in frame:
                found = frame.find(self.DELTA_FLIPS)
                if found >= 0:
                    count = _number(frame, found + len(self.DELTA_FLIPS))
        if count is not None:
            with self._changed:
                self.flips[i] = count
                self._changed.notify_all()

    def _read(self) -> None:
        while not self._stop:
            for key, _ in self._selector.select(timeout=0.2):
                try:
                    chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    self._selector.unregister(key.fileobj)
                    continue
                self._buffers[key.data] += chunk
                self._scan(key.data)

    def wait_all(self, flips: int, timeout_s: float) -> float:
        """Wait until every open stream shows at least ``flips`` flips of ``red-1``; the moment it did."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while not all(f >= flips for f, s in zip(self.flips, self.statuses, strict=True) if s == 200):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("not every dashboard stream showed the flip")
                self._changed.wait(left)
        return time.perf_counter()

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        for sock in self._socks:
            try:
                sock.close()
            except OSError:
                pass
        self._selector.close()


def _number(frame: bytes, start: int) -> int | None:
    stop = start
    while stop < len(frame) and frame[stop : stop + 1].isdigit():
        stop += 1
    return int(frame[start:stop]) if stop > start else None
