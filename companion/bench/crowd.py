"""A crowd of sandtimer nodes for the hub under test: one MQTT connection per node, as real nodes have.

Each node does what docs/protocol.md asks of a node: it connects with its last will (``status``
offline, retained), subscribes to its ``cmd`` topic, the table's ``state`` and the hub's status,
says ``online`` (retained) and ``hello``, sends a ``heartbeat`` every 5 s and numbers its flips
from 1 within its boot. The broker and the hub see exactly the connections, topics and payloads
of a room of real nodes.

Hundreds of paho clients each with its own network thread would cost the load generator more
than the hub it measures, so the crowd runs in a few worker processes (``python -m
companion.bench.crowd``), each driving its clients from one thread through paho's own
external-loop calls (``loop_read``/``loop_write``/``loop_misc`` on the clients' sockets, one
selector). :class:`NodeCrowd` starts the workers, tells them what to do over their stdin, and
collects what they timed: flip -> ack of every flip, on the machine's monotonic clock
(``time.perf_counter``), which every process reads alike.

:func:`echo_hub` is the floor of the hub's own MQTT work: a plain paho client that answers every
flip with an accepted ack, under the same crowd (``python -m companion.bench.crowd echo``).
"""

from __future__ import annotations

import heapq
import json
import math
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from companion.core import protocol
from companion.mqtt.broker import BrokerAddress

SAND_MS = 60000
HEARTBEAT_S = 5.0
NODES_PER_WORKER = 400
"""Nodes one worker process drives (its one thread keeps up with 400 flips a second and their acks)."""


@dataclass
class RunResult:
    """One paced (or burst) run of flips, summed over the workers."""

    sent: int = 0
    acked: int = 0
    verdict_s: list[float] = field(default_factory=list)
    elapsed_s: float = 0.0
    """From the run's start to its last ack (or the give-up)."""
    late_sends: int = 0
    """Flips sent more than 5 ms after their planned moment (the generator fell behind)."""
    rejected: int = 0
    sent_at: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    """``table/node`` -> (seq, moment sent) of the watched nodes' flips (for flip -> dashboard)."""


class NodeCrowd:
    """``tables`` (table -> node ids) as that many nodes, each on its own MQTT connection."""

    def __init__(
        self,
        address: BrokerAddress,
        tables: dict[str, list[str]],
        *,
        heartbeat_s: float = HEARTBEAT_S,
        processes: int | None = None,
    ) -> None:
        self.address = address
        keys = [(table, node) for table, nodes in tables.items() for node in nodes]
        self.count = len(keys)
        workers = processes or max(1, math.ceil(self.count / NODES_PER_WORKER))
        workers = max(1, min(workers, self.count))
        self.procs: list[subprocess.Popen[str]] = []
        self._specs = []
        for w in range(workers):
            mine = [(table, node, g) for g, (table, node) in enumerate(keys) if g % workers == w]
            self._specs.append(
                {
                    "host": address.host,
                    "port": address.port,
                    "nodes": mine,
                    "total": self.count,
                    "heartbeat_s": heartbeat_s,
                    "tag": f"{os.getpid()}-{w}",
                }
            )

    @property
    def pids(self) -> list[int]:
        return [proc.pid for proc in self.procs]

    def start(self, timeout_s: float = 60.0) -> NodeCrowd:
        """Start the workers; return once every node is connected, subscribed and said hello."""
        for spec in self._specs:
            proc = subprocess.Popen(
                [sys.executable, "-m", "companion.bench.crowd", "nodes"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            self.procs.append(proc)
            self._send(proc, spec)
        try:
            for proc in self.procs:
                self._answer(proc, timeout_s)
        except BaseException:
            self.stop()
            raise
        return self

    def _send(self, proc: subprocess.Popen[str], order: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(order) + "\n")
        proc.stdin.flush()

    def _answer(self, proc: subprocess.Popen[str], timeout_s: float) -> dict[str, Any]:
        assert proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(proc.stdout, selectors.EVENT_READ)
        try:
            if not selector.select(timeout_s):
                raise TimeoutError("a node worker of the benchmark did not answer")
        finally:
            selector.close()
        line = proc.stdout.readline()
        if not line:
            raise TimeoutError("a node worker of the benchmark exited (is the broker up?)")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise TimeoutError(f"a node worker of the benchmark failed: {answer['error']}")
        return answer

    def _all(self, order: dict[str, Any], timeout_s: float) -> RunResult:
        for proc in self.procs:
            self._send(proc, order)
        result = RunResult()
        ended = 0.0
        for proc in self.procs:
            part = self._answer(proc, timeout_s)
            result.sent += part["sent"]
            result.acked += part["acked"]
            result.rejected += part["rejected"]
            result.late_sends += part["late"]
            result.verdict_s.extend(part["verdicts"])
            ended = max(ended, part["ended"])
            for key, sends in part["watched"].items():
                result.sent_at[key] = [(seq, at) for seq, at in sends]
        result.elapsed_s = max(0.0, ended - order.get("t0", ended))
        return result

    def paced(
        self, rate_per_node: float, duration_s: float, *, watch: Iterable[tuple[str, str]] = ()
    ) -> RunResult:
        """Every node flips ``rate_per_node`` times a second for ``duration_s``, evenly spread over the
        crowd (open loop: a late ack never delays the next flip)."""
        t0 = time.perf_counter() + 0.2  # every worker has the order by then
        order = {
            "op": "run",
            "rate": rate_per_node,
            "duration": duration_s,
            "t0": t0,
            "watch": [f"{t}/{n}" for t, n in watch],
        }
        result = self._all(order, duration_s + 40.0)
        return result

    def burst(self, per_node: int) -> RunResult:
        """Every node sends ``per_node`` flips at once; until every ack is in (saturation)."""
        return self._all({"op": "burst", "per_node": per_node, "t0": time.perf_counter()}, 150.0)

    def stop(self) -> None:
        for proc in self.procs:
            try:
                self._send(proc, {"op": "stop"})
            except (OSError, ValueError):
                pass
        for proc in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:
                        pass
        self.procs = []


# --- the worker process -----------------------------------------------------------------------------


class _Node:
    """One simulated node of a worker: its client, topics, boot and numbers."""

    __slots__ = (
        "table",
        "node",
        "index",
        "client",
        "boot",
        "seq",
        "event",
        "status",
        "flipped_at",
        "ready",
        "outbox",
    )

    def __init__(self, table: str, node: str, index: int) -> None:
        self.table, self.node, self.index = table, node, index
        self.boot = os.urandom(4).hex()
        self.seq = 0
        self.event = protocol.node_topic(table, node, "event")
        self.status = protocol.node_topic(table, node, "status")
        self.flipped_at = 0.0
        self.ready = False
        self.outbox = 0
        """Flips sent and not acknowledged yet (the heartbeat's ``queued``)."""
        self.client: Any = None


class _Worker:
    """The crowd's worker: its nodes' clients on one selector, and the orders on stdin."""

    def __init__(self, spec: dict[str, Any]) -> None:
        from companion.mqtt.client import make_client

        self.address = BrokerAddress(spec["host"], spec["port"])
        self.total = spec["total"]
        self.heartbeat_s = spec["heartbeat_s"]
        self.nodes = [_Node(t, n, g) for t, n, g in spec["nodes"]]
        self.selector = selectors.DefaultSelector()
        self.started = time.perf_counter()
        self.pending: dict[tuple[str, str, int], float] = {}
        self.run: dict[str, Any] | None = None
        self.stopping = False
        self._stdin = b""
        for node in self.nodes:
            client = make_client(
                f"bench-{node.table}-{node.node}-{spec['tag']}",
                self.address,
                clean_session=True,
                will=(node.status, protocol.status_payload(False), True),
            )
            client.user_data_set(node)
            client.on_connect = self._on_connect
            client.on_subscribe = self._on_subscribe
            client.on_message = self._on_message
            node.client = client
        # heartbeats spread over the period, by the node's place in the whole crowd
        self.beats = [
            (self.started + self.heartbeat_s * (1 + node.index / max(1, self.total)), i)
            for i, node in enumerate(self.nodes)
        ]
        heapq.heapify(self.beats)

    def now_ms(self) -> int:
        return int((time.perf_counter() - self.started) * 1000)

    # --- paho callbacks (this thread) ---------------------------------------------------------
    def _on_connect(self, client: Any, node: _Node, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            return
        subs = [*protocol.node_subscriptions(node.table, node.node)]
        subs.append((protocol.hub_status_topic(node.table), protocol.QOS))
        client.subscribe(subs)

    def _on_subscribe(self, client: Any, node: _Node, mid: Any, reasons: Any, props: Any) -> None:
        client.publish(node.status, protocol.status_payload(True), qos=protocol.QOS, retain=True)
        hello = protocol.encode(
            "event",
            "hello",
            boot=node.boot,
            t_ms=self.now_ms(),
            sand_ms=SAND_MS,
            node_kind="sim",
            firmware="companion-bench/2",
        )
        client.publish(node.event, hello, qos=protocol.QOS)
        node.ready = True

    def _on_message(self, client: Any, node: _Node, msg: Any) -> None:
        arrived = time.perf_counter()
        if not msg.topic.endswith("/cmd"):
            return  # the table's state, the hub's status
        try:
            data = json.loads(msg.payload)
        except ValueError:
            return
        if data.get("kind") != "ack":
            return
        sent = self.pending.pop((node.table, node.node, data.get("seq")), None)
        run = self.run
        if sent is None or run is None:
            return
        node.outbox -= 1
        run["acked"] += 1
        run["verdicts"].append(arrived - sent)
        run["ended"] = arrived
        if data.get("verdict") != "accepted":
            run["rejected"] += 1

    # --- the node protocol --------------------------------------------------------------------
    def flip(self, node: _Node) -> None:
        node.seq += 1
        payload = protocol.encode(
            "event",
            "flip",
            boot=node.boot,
            seq=node.seq,
            t_ms=self.now_ms(),
            upper_ms=SAND_MS,
            lower_ms=0,
        )
        sent = time.perf_counter()
        node.flipped_at = sent
        node.outbox += 1
        self.pending[(node.table, node.node, node.seq)] = sent
        run = self.run
        if run is not None:
            run["sent"] += 1
            watched = run["watched"].get(f"{node.table}/{node.node}")
            if watched is not None:
                watched.append((node.seq, sent))
        node.client.publish(node.event, payload, qos=protocol.QOS)
        self._flush(node.client)

    def heartbeat(self, node: _Node, now: float) -> None:
        run_ms = max(0, int((now - node.flipped_at) * 1000)) if node.flipped_at else SAND_MS
        upper = max(0, SAND_MS - run_ms)
        payload = protocol.encode(
            "event",
            "heartbeat",
            boot=node.boot,
            t_ms=self.now_ms(),
            upper_ms=upper,
            lower_ms=SAND_MS - upper,
            queued=max(0, node.outbox),
        )
        node.client.publish(node.event, payload, qos=protocol.QOS)
        self._flush(node.client)

    # --- the loop -----------------------------------------------------------------------------
    def _flush(self, client: Any) -> None:
        if client.want_write():
            client.loop_write()
        sock = client.socket()
        if sock is None:
            return
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if client.want_write() else 0)
        key = self.selector.get_map().get(sock.fileno())
        if key is None:
            self.selector.register(sock, events, client)
        elif key.events != events:
            self.selector.modify(sock, events, client)

    def connect(self) -> None:
        for node in self.nodes:
            node.client.connect(self.address.host, self.address.port, keepalive=15)
            self._flush(node.client)
        self.selector.register(sys.stdin.fileno(), selectors.EVENT_READ, None)

    def serve(self) -> None:
        self.connect()
        said_ready = False
        next_misc = time.perf_counter() + 1.0
        while not self.stopping:
            now = time.perf_counter()
            due = [next_misc, self.beats[0][0] if self.beats else next_misc]
            if self.run is not None:
                due.append(self._next_flip_at())
            timeout = max(0.0, min(due) - now)
            for key, mask in self.selector.select(timeout):
                if key.data is None:
                    self._read_orders()
                    continue
                client = key.data
                if mask & selectors.EVENT_READ:
                    client.loop_read(64)
                if mask & selectors.EVENT_WRITE or client.want_write():
                    client.loop_write()
                self._flush(client)
            now = time.perf_counter()
            if self.run is not None:
                self._flips_due(now)
            while self.beats and self.beats[0][0] <= now:
                at, i = heapq.heappop(self.beats)
                if self.nodes[i].ready:
                    self.heartbeat(self.nodes[i], now)
                heapq.heappush(self.beats, (at + self.heartbeat_s, i))
            if now >= next_misc:
                next_misc = now + 1.0
                for node in self.nodes:
                    node.client.loop_misc()
                    self._flush(node.client)
            if not said_ready and all(node.ready for node in self.nodes):
                said_ready = True
                self._say({"ready": len(self.nodes)})
        for node in self.nodes:  # a clean goodbye, as a node that is switched off on purpose
            node.client.publish(node.status, protocol.status_payload(False), qos=protocol.QOS, retain=True)
            node.client.disconnect()
            node.client.loop_write()

    def _read_orders(self) -> None:
        chunk = os.read(sys.stdin.fileno(), 1 << 16)
        if not chunk:
            self.stopping = True
            return
        self._stdin += chunk
        while b"\n" in self._stdin:
            line, self._stdin = self._stdin.split(b"\n", 1)
            if line.strip():
                self._order(json.loads(line))

    def _order(self, order: dict[str, Any]) -> None:
        op = order.get("op")
        if op == "stop":
            self.stopping = True
        elif op == "run":
            self._begin(order)
            interval = 1.0 / (order["rate"] * self.total)
            flips_per_node = max(1, int(order["duration"] * order["rate"]))
            schedule = [
                (order["t0"] + (m * self.total + node.index) * interval, i)
                for m in range(flips_per_node)
                for i, node in enumerate(self.nodes)
            ]
            schedule.sort()
            self.run["schedule"] = schedule  # type: ignore[index]
        elif op == "burst":
            self._begin(order)
            for _ in range(order["per_node"]):
                for node in self.nodes:
                    self.flip(node)
            self.run["schedule"] = []  # type: ignore[index]

    def _begin(self, order: dict[str, Any]) -> None:
        self.pending.clear()
        for node in self.nodes:
            node.outbox = 0
        self.run = {
            "sent": 0,
            "acked": 0,
            "rejected": 0,
            "late": 0,
            "verdicts": [],
            "ended": order.get("t0", time.perf_counter()),
            "watched": {key: [] for key in order.get("watch", [])},
            "schedule": [],
            "at": 0,
            "give_up": time.perf_counter() + order.get("duration", 90.0) + 30.0,
        }

    def _next_flip_at(self) -> float:
        run = self.run
        assert run is not None
        if run["at"] < len(run["schedule"]):
            at: float = run["schedule"][run["at"]][0]
            return at
        return time.perf_counter() + 0.01  # waiting for the last acks

    def _flips_due(self, now: float) -> None:
        run = self.run
        assert run is not None
        schedule = run["schedule"]
        while run["at"] < len(schedule) and schedule[run["at"]][0] <= now:
            due, i = schedule[run["at"]]
            run["at"] += 1
            if now - due > 0.005:
                run["late"] += 1
            self.flip(self.nodes[i])
        if run["at"] >= len(schedule) and (not self.pending or now > run["give_up"]):
            self.run = None
            self._say(
                {
                    "sent": run["sent"],
                    "acked": run["acked"],
                    "rejected": run["rejected"],
                    "late": run["late"],
                    "verdicts": run["verdicts"],
                    "ended": run["ended"],
                    "watched": run["watched"],
                }
            )

    def _say(self, answer: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def _nodes_main() -> None:
    spec = json.loads(sys.stdin.readline())
    try:
        worker = _Worker(spec)
    except Exception as exc:  # said to the parent in one line
        print(json.dumps({"error": str(exc)}), flush=True)
        return
    worker.serve()


# --- the floor: a plain paho echo in place of the hub -------------------------------------------------


def echo_hub(address: BrokerAddress, tables: list[str]) -> None:
    """Answer every flip of ``tables`` with an accepted ack, from paho's own loop (until stdin closes).

    What any hub on paho costs at least: the same subscriptions, the same acks (at
    ``protocol.command_qos("ack")``), nothing decided, logged or synced. Prints
    ``{"pid"}`` once subscribed."""
    import threading

    from companion.mqtt.client import connect_in_background, make_client

    ready = threading.Event()
    client = make_client(f"bench-echo-hub-{os.getpid()}", address, clean_session=True)

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        c.subscribe([(f"{protocol.table_prefix(t)}/#", protocol.QOS) for t in tables])

    def on_message(c: Any, userdata: Any, msg: Any) -> None:
        parts = msg.topic.split("/")
        if len(parts) != 6 or parts[5] != "event":
            return
        data = json.loads(msg.payload)
        if data.get("kind") not in ("flip", "empty"):
            return
        ack = protocol.encode("cmd", "ack", boot=data["boot"], seq=data["seq"], verdict="accepted")
        c.publish(protocol.node_topic(parts[2], parts[4], "cmd"), ack, qos=protocol.command_qos("ack"))

    client.on_connect = on_connect
    client.on_subscribe = lambda *a: ready.set()
    client.on_message = on_message
    connect_in_background(client, address)
    if not ready.wait(20):
        raise TimeoutError("the echo hub could not subscribe")
    print(json.dumps({"pid": os.getpid()}), flush=True)
    sys.stdin.read()
    client.disconnect()
    client.loop_stop()


if __name__ == "__main__":
    if sys.argv[1:2] == ["echo"]:
        echo_hub(BrokerAddress.parse(sys.argv[2]), sys.argv[3].split(","))
    else:
        _nodes_main()
