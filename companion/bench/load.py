"""Load for the hub under test: many nodes over a few MQTT connections, and the raw broker echo.

:class:`NodeLoad` speaks the node protocol for any number of nodes (``companion.core.protocol``:
hello, then sequenced flips at QoS 1) through a few paho connections, the way real nodes reach
the broker one connection each: the broker and the hub see the same topics and payloads. It
times each flip until the hub's ack arrives (flip -> verdict), paced open-loop at a rate per node
or all at once (saturation).

:class:`DashboardProbe` reads one dashboard stream (``/api/stream``) and times a few nodes' flips
until a state frame shows them (flip -> dashboard), scanning bytes instead of parsing JSON so the
reader stays cheap however large the frames get.

:func:`raw_round_trip` is the floor: a plain paho client echoing through the same broker.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt

from companion.core import protocol
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.client import connect_in_background, make_client

SAND_MS = 60000


@dataclass
class RunResult:
    """One paced (or burst) run of flips."""

    sent: int = 0
    acked: int = 0
    verdict_s: list[float] = field(default_factory=list)
    elapsed_s: float = 0.0
    """From the first flip sent to the last ack (or the give-up)."""
    late_sends: int = 0
    """Flips the pacer sent more than 5 ms after their planned moment (the generator fell behind)."""
    rejected: int = 0


class NodeLoad:
    """Pretends to be ``nodes`` (table -> node ids) over ``connections`` MQTT connections."""

    def __init__(
        self,
        address: BrokerAddress,
        nodes: dict[str, list[str]],
        *,
        connections: int = 4,
        name: str = "bench",
    ) -> None:
        self.address = address
        self.keys = [(table, node) for table, ids in nodes.items() for node in ids]
        count = max(1, min(connections, len(self.keys)))
        self._boot = {key: os.urandom(4).hex() for key in self.keys}
        self._seq = dict.fromkeys(self.keys, 0)
        self._topic = {key: protocol.node_topic(key[0], key[1], "event") for key in self.keys}
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, str, int], float] = {}
        self.sent_at: dict[tuple[str, str], list[tuple[int, float]]] = {}
        """(seq, moment sent) of every flip of the nodes listed in ``watch`` (for flip -> dashboard)."""
        self._done = threading.Condition(self._lock)
        self._result = RunResult()
        self._t0 = time.monotonic()
        self.clients: list[mqtt.Client] = []
        self._owner: dict[tuple[str, str], mqtt.Client] = {}
        self._connected = [threading.Event() for _ in range(count)]
        for i in range(count):
            client = make_client(f"{name}-load-{os.getpid()}-{i}", address, clean_session=True)
            mine = self.keys[i::count]
            for key in mine:
                self._owner[key] = client
            subs = [(protocol.node_topic(t, n, "cmd"), protocol.QOS) for t, n in mine]
            client.on_connect = self._on_connect_for(subs, self._connected[i])
            client.on_message = self._on_message
            self.clients.append(client)

    def _on_connect_for(self, subs: list[tuple[str, int]], ready: threading.Event) -> Any:
        def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
            if reason.is_failure:
                return
            # at most a few hundred filters per SUBSCRIBE
            for start in range(0, len(subs), 200):
                client.subscribe(subs[start : start + 200])
            ready.set()

        return on_connect

    def start(self, timeout_s: float = 20.0) -> NodeLoad:
        for client in self.clients:
            connect_in_background(client, self.address)
        for ready in self._connected:
            if not ready.wait(timeout_s):
                raise TimeoutError("the load generator could not connect to the broker")
        time.sleep(0.2)  # let the SUBACKs come back before the hub answers
        return self

    def stop(self) -> None:
        for client in self.clients:
            client.disconnect()
            client.loop_stop()

    def now_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    # --- the node protocol ------------------------------------------------------------------
    def hello(self) -> None:
        """Every node says hello (the hub maps node time onto its own from it)."""
        for key in self.keys:
            payload = protocol.encode(
                "event",
                "hello",
                boot=self._boot[key],
                t_ms=self.now_ms(),
                sand_ms=SAND_MS,
                node_kind="sim",
                firmware="companion-bench/1",
            )
            self._owner[key].publish(self._topic[key], payload, qos=protocol.QOS)

    def watch(self, keys: Iterable[tuple[str, str]]) -> None:
        """Remember when each flip of these nodes is sent (``sent_at``)."""
        for key in keys:
            self.sent_at.setdefault(key, [])

    def flip(self, key: tuple[str, str]) -> float:
        """Flip one node (its sand had run out, so any table accepts it); the moment it was sent."""
        with self._lock:
            self._seq[key] += 1
            seq = self._seq[key]
        payload = protocol.encode(
            "event",
            "flip",
            boot=self._boot[key],
            seq=seq,
            t_ms=self.now_ms(),
            upper_ms=SAND_MS,
            lower_ms=0,
        )
        sent = time.perf_counter()
        with self._lock:
            self._pending[(key[0], key[1], seq)] = sent
            self._result.sent += 1
            watched = self.sent_at.get(key)
            if watched is not None:
                watched.append((seq, sent))
        self._owner[key].publish(self._topic[key], payload, qos=protocol.QOS)
        return sent

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        arrived = time.perf_counter()
        try:
            data = json.loads(msg.payload)
        except ValueError:
            return
        if data.get("kind") != "ack":
            return
        parts = msg.topic.split("/")  # companion/v1/<table>/node/<node>/cmd
        with self._lock:
            sent = self._pending.pop((parts[2], parts[4], data.get("seq")), None)
            if sent is None:
                return
            self._result.acked += 1
            self._result.verdict_s.append(arrived - sent)
            if data.get("verdict") != "accepted":
                self._result.rejected += 1
            if not self._pending:
                self._done.notify_all()

    def _begin(self) -> None:
        with self._lock:
            self._pending.clear()
            self._result = RunResult()

    def _finish(self, started: float, timeout_s: float) -> RunResult:
        with self._lock:
            self._done.wait_for(lambda: not self._pending, timeout_s)
            result = self._result
            result.elapsed_s = time.perf_counter() - started
            self._pending.clear()
            return result

    # --- runs -------------------------------------------------------------------------------
    def paced(
        self, rate_per_node: float, duration_s: float, *, keys: Iterable[tuple[str, str]] | None = None
    ) -> RunResult:
        """Every node flips ``rate_per_node`` times a second for ``duration_s``, evenly spread."""
        order = list(keys) if keys is not None else self.keys
        interval = 1.0 / (rate_per_node * len(order))
        total = max(1, int(duration_s / interval))
        self._begin()
        started = time.perf_counter()
        late = 0
        for i in range(total):
            due = started + i * interval
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            elif wait < -0.005:
                late += 1
            self.flip(order[i % len(order)])
        result = self._finish(started, timeout_s=30.0)
        result.late_sends = late
        return result

    def burst(self, per_node: int) -> RunResult:
        """Every node sends ``per_node`` flips at once; until every ack is in (saturation)."""
        self._begin()
        started = time.perf_counter()
        for _ in range(per_node):
            for key in self.keys:
                self.flip(key)
        return self._finish(started, timeout_s=120.0)


class DashboardProbe:
    """One open dashboard stream; when did the page first show a node's ``flips`` count?

    It reads what a page reads: ``state`` frames (the whole snapshot) and, from hubs that send
    them, ``delta`` frames (``["set"|"del"|"splice", path, ...]`` operations on the snapshot it
    has, see ``companion.table.deltas``), and keeps the snapshot up to date as the page does.
    A whole state is parsed only when one comes (the first frame, or a page that fell behind).
    """

    def __init__(self, host: str, port: int, nodes: list[str]) -> None:
        self.nodes = nodes
        self._seen: dict[str, list[tuple[float, int]]] = {node: [] for node in nodes}
        self._lock = threading.Lock()
        self._snapshot: Any = None
        self._where: dict[str, tuple[int, int]] = {}
        """node -> (player index, timer index) in the snapshot's ``players``."""
        self.bytes = 0
        self.frames = 0
        self.deltas = 0
        self._sock = socket.create_connection((host, port), timeout=10)
        self._sock.sendall(
            f"GET /api/stream HTTP/1.0\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        self._sock.settimeout(0.5)
        self._stop = False
        self._thread = threading.Thread(target=self._read, name="bench-dashboard", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buffer = b""
        while not self._stop:
            try:
                chunk = self._sock.recv(1 << 20)
            except TimeoutError:
                continue
            except OSError:
                return
            if not chunk:
                return
            arrived = time.perf_counter()
            self.bytes += len(chunk)
            buffer += chunk
            end = buffer.rfind(b"\n\n")
            if end < 0:
                continue
            frames, buffer = buffer[: end + 2], buffer[end + 2 :]
            for frame in frames.split(b"\n\n"):
                self._frame(frame, arrived)

    def _frame(self, frame: bytes, arrived: float) -> None:
        event, data = b"", b""
        for line in frame.split(b"\n"):
            if line.startswith(b"event: "):
                event = line[7:]
            elif line.startswith(b"data: "):
                data += line[6:]
        if event == b"state":
            self.frames += 1
            try:
                self._snapshot = json.loads(data)
                self._where = {
                    timer["node"]: (i, j)
                    for i, player in enumerate(self._snapshot["players"])
                    for j, timer in enumerate(player["timers"])
                }
            except (ValueError, KeyError, TypeError):
                self._snapshot = None
                return
        elif event == b"delta" and self._snapshot is not None:
            self.deltas += 1
            try:
                for op in json.loads(data)["ops"]:
                    self._snapshot = _apply(self._snapshot, op)
            except (ValueError, KeyError, TypeError, IndexError):
                self._snapshot = None  # lost track: wait for the next whole state
                return
        else:
            return
        with self._lock:
            for node in self.nodes:
                where = self._where.get(node)
                if where is None:
                    continue
                try:
                    count = self._snapshot["players"][where[0]]["timers"][where[1]]["flips"]
                except (KeyError, IndexError, TypeError):
                    continue
                seen = self._seen[node]
                if not seen or seen[-1][1] != count:
                    seen.append((arrived, count))

    def shown(self, node: str, flips: int) -> float | None:
        """The first moment a frame showed ``node`` with at least ``flips`` flips, or None."""
        with self._lock:
            for arrived, count in self._seen[node]:
                if count >= flips:
                    return arrived
        return None

    def collect(self) -> None:
        """Nothing to fetch: this probe runs in the caller's process."""

    def flips_now(self, node: str) -> int:
        with self._lock:
            return self._seen[node][-1][1] if self._seen[node] else 0

    def close(self) -> None:
        self._stop = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        self._thread.join(2)


class PageProcess:
    """A :class:`DashboardProbe` in a process of its own, as a browser is: reading and applying the
    frames never takes the interpreter from the simulated nodes, whose verdicts are timed here.

    Both processes read the same monotonic clock (``time.perf_counter``), so the moments the child
    saw each flip count compare with the moments the flips were sent."""

    def __init__(self, host: str, port: int, nodes: list[str]) -> None:
        import subprocess
        import sys

        self.nodes = nodes
        self._seen: dict[str, list[tuple[float, int]]] = {node: [] for node in nodes}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.bench.load", host, str(port), ",".join(nodes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "open":
            self.close()
            raise TimeoutError("the dashboard probe could not open the live stream")

    def collect(self) -> None:
        """Fetch what the page has seen so far (call before :meth:`shown`)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("seen\n")
        self.proc.stdin.flush()
        seen = json.loads(self.proc.stdout.readline())
        self._seen = {node: [(at, count) for at, count in seen[node]] for node in self.nodes}

    def shown(self, node: str, flips: int) -> float | None:
        for arrived, count in self._seen[node]:
            if count >= flips:
                return arrived
        return None

    def close(self) -> None:
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(5)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def _probe_main(argv: list[str]) -> None:
    """The child of :class:`PageProcess`: ``HOST PORT NODE,NODE...``; answers ``seen`` on stdin."""
    import sys

    host, port, nodes = argv[0], int(argv[1]), argv[2].split(",")
    probe = DashboardProbe(host, port, nodes)
    print("open", flush=True)
    try:
        for line in sys.stdin:
            if line.strip() == "seen":
                with probe._lock:
                    print(json.dumps(probe._seen), flush=True)
    finally:
        probe.close()


def _apply(value: Any, op: list[Any]) -> Any:
    """One delta operation applied in place (``set``, ``del``, ``splice``); the new root."""
    kind, path = op[0], op[1]
    if not path:
        return op[2] if kind == "set" else value
    target = value
    for step in path[:-1] if kind != "splice" else path:
        target = target[step]
    if kind == "splice":
        start, removed, items = op[2], op[3], op[4]
        target[start : start + removed] = items
    elif kind == "set":
        last = path[-1]
        if isinstance(target, list) and last == len(target):
            target.append(op[2])
        else:
            target[last] = op[2]
    elif kind == "del":
        del target[path[-1]]
    return value


def raw_round_trip(
    address: BrokerAddress, *, samples: int, qos: int = 1, prefix: str = "bench/raw"
) -> list[float]:
    """A plain paho client publishes, another echoes from its ``on_message``; seconds per round trip.

    The same path as flip -> verdict (client -> broker -> client that answers -> broker -> client),
    with nothing decided, logged or synced: the floor of what the hub can answer in.
    """
    tag = f"{os.getpid()}-{time.monotonic_ns()}"
    ping, pong = f"{prefix}/{tag}/ping", f"{prefix}/{tag}/pong"  # (a locked broker: a prefix its ACL allows)
    ready = [threading.Event(), threading.Event()]
    got = threading.Event()

    def echo_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        client.publish(pong, msg.payload, qos=qos)

    def subscriber(topic: str, flag: threading.Event) -> Any:
        def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
            client.subscribe(topic, qos)

        def on_subscribe(client: mqtt.Client, *args: Any) -> None:
            flag.set()

        return on_connect, on_subscribe

    echo = make_client(f"bench-echo-{tag}", address)
    echo.on_connect, echo.on_subscribe = subscriber(ping, ready[0])
    echo.on_message = echo_message
    pinger = make_client(f"bench-ping-{tag}", address)
    pinger.on_connect, pinger.on_subscribe = subscriber(pong, ready[1])
    pinger.on_message = lambda *a: got.set()
    for client in (echo, pinger):
        connect_in_background(client, address)
    try:
        for flag in ready:
            if not flag.wait(10):
                raise TimeoutError("the raw echo clients could not subscribe")
        times = []
        for i in range(samples + 10):
            got.clear()
            start = time.perf_counter()
            pinger.publish(ping, b'{"v":1,"kind":"flip","seq":%d}' % i, qos=qos)
            if not got.wait(5):
                raise TimeoutError("the raw echo did not come back")
            if i >= 10:  # the first few warm up both clients
                times.append(time.perf_counter() - start)
        return times
    finally:
        for client in (echo, pinger):
            client.disconnect()
            client.loop_stop()


def fsync_times(folder: Any, *, samples: int, line_bytes: int = 200) -> list[float]:
    """Seconds to append one log-sized line and sync it as the hub's log does (fdatasync where there is
    one), in ``folder`` (the hub log's file system)."""
    sync = getattr(os, "fdatasync", os.fsync)
    import tempfile

    line = (b"x" * (line_bytes - 1)) + b"\n"
    times = []
    with tempfile.NamedTemporaryFile(dir=folder, prefix="fsync-", suffix=".bench") as fh:
        for _ in range(samples):
            start = time.perf_counter()
            fh.write(line)
            fh.flush()
            sync(fh.fileno())
            times.append(time.perf_counter() - start)
    return times


if __name__ == "__main__":
    import sys

    _probe_main(sys.argv[1:])
