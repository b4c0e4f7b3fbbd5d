"""``companion bench``: latency and throughput of a real table on this machine.

Starts the same parts ``companion run`` starts (broker, hub, web server,
simulated nodes) and measures:

* flip -> verdict: a node publishes a flip until it has the hub's ack;
* flip -> dashboard: a node publishes a flip until the live stream delivers
  the state that shows it;
* burst: many flips from all nodes at once, until every one is acknowledged.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.hub import HubConfig
from companion.runtime import RunOptions, Table


@dataclass
class Percentiles:
    n: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    mean_ms: float

    @classmethod
    def of(cls, seconds: list[float]) -> Percentiles:
        ms = sorted(s * 1000 for s in seconds)
        p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
        return cls(len(ms), statistics.median(ms), p99, ms[-1], statistics.fmean(ms))

    def line(self, label: str) -> str:
        return (
            f"{label:<22} n={self.n:<5} p50={self.p50_ms:7.2f} ms  p99={self.p99_ms:7.2f} ms  "
            f"max={self.max_ms:7.2f} ms  mean={self.mean_ms:7.2f} ms"
        )


def _wait(event: threading.Event, timeout_s: float, what: str) -> None:
    if not event.wait(timeout_s):
        raise TimeoutError(f"benchmark timed out waiting for {what}")


def run_bench(
    *, flips: int = 300, burst: int = 400, embedded: str = "auto", fsync: bool = True, echo=print
) -> dict[str, object]:
    """Run the measurements and print one line each; return the numbers."""
    import logging

    from companion.sse_client import SSEReader

    logging.getLogger("werkzeug").setLevel(logging.WARNING)

    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
        hub = HubConfig(table="bench", players=4, timers=2, data_dir=Path(tmp), fsync=fsync)
        options = RunOptions(hub=hub, embedded=embedded, mqtt_port=None, http_port=None, heartbeat_s=5.0)
        with Table(options) as table:
            assert table.app is not None and table.server is not None
            fleet = table.fleet
            assert fleet is not None
            if not fleet.wait_connected(10):
                raise TimeoutError("simulated nodes did not connect")
            broker = table.broker.kind if table.broker else "external"
            echo(
                f"broker: {broker}; hub log fsync: {'on' if fsync else 'off'}; "
                f"nodes: {len(fleet.nodes)}; TCP_NODELAY on every client"
            )
            node = fleet.nodes["red-1"]
            acked = threading.Event()
            node.on_command = lambda topic: acked.set() if topic.endswith("/cmd") else None
            reader = SSEReader("127.0.0.1", table.server.server_port)
            reader.wait_for(lambda f: True, 5)

            # warm-up
            for _ in range(20):
                acked.clear()
                node.flip()
                _wait(acked, 5, "warm-up ack")
            time.sleep(0.1)
            while not reader.frames.empty():
                reader.frames.get_nowait()

            verdict, dashboard = [], []
            flips_seen = table.app.extensions["companion.session"].state.timers["red-1"].flips
            for _ in range(flips):
                acked.clear()
                start = time.perf_counter()
                node.flip()
                _wait(acked, 5, "the hub's ack")
                verdict.append(time.perf_counter() - start)
                flips_seen += 1
                want = flips_seen
                arrival, _ = reader.wait_for(
                    lambda f, want=want: f["players"][0]["timers"][0]["flips"] >= want, 5
                )
                dashboard.append(arrival - start)
            reader.close()
            node.on_command = None

            # burst: every node flips as fast as it can; wait for all acks
            remaining = threading.Semaphore(0)
            for sim in fleet.nodes.values():
                sim.on_command = lambda topic: remaining.release() if topic.endswith("/cmd") else None
            per_node = max(1, burst // len(fleet.nodes))
            total = per_node * len(fleet.nodes)
            start = time.perf_counter()
            for _ in range(per_node):
                for sim in fleet.nodes.values():
                    sim.flip()
            for _ in range(total):
                if not remaining.acquire(timeout=30):
                    raise TimeoutError("burst acks did not all arrive")
            burst_s = time.perf_counter() - start
            for sim in fleet.nodes.values():
                sim.on_command = None

            # the hub alone: decode, validate, decide, log, fold and acknowledge, with no node in the loop
            from companion.core import protocol

            bridge = table.app.extensions["companion.bridge"]
            topic = protocol.node_topic("bench", "green-1", "event")
            payloads = [
                protocol.encode("event", "flip", boot="0badcafe", seq=i, t_ms=i, upper_ms=60000, lower_ms=0)
                for i in range(1, burst * 5 + 1)
            ]
            start = time.perf_counter()
            for payload in payloads:
                bridge.handle(topic, payload)
            hub_s = time.perf_counter() - start
    cue_lateness = measure_cue_lateness()
    results: dict[str, Any] = {
        "flip_to_verdict": Percentiles.of(verdict),
        "flip_to_dashboard": Percentiles.of(dashboard),
        "burst_flips": total,
        "burst_s": burst_s,
        "burst_per_s": total / burst_s,
        "hub_only_per_s": len(payloads) / hub_s,
        "cue_lateness": cue_lateness,
    }
    echo(results["flip_to_verdict"].line("flip -> verdict"))
    echo(results["flip_to_dashboard"].line("flip -> dashboard"))
    echo(
        f"{'burst':<22} {total} flips from {len(fleet.nodes) if fleet else 0} nodes acknowledged in "
        f"{burst_s * 1000:.0f} ms = {total / burst_s:,.0f} flips/s (hub, nodes and reader in one process)"
    )
    echo(cue_lateness.line("cue lateness (real)"))
    echo(
        f"{'hub alone':<22} {len(payloads)} flips handled in {hub_s * 1000:.0f} ms = "
        f"{len(payloads) / hub_s:,.0f} flips/s (decode, decide, log, ack)"
    )
    return results


def measure_cue_lateness(*, scale: float = 20.0, length_s: float = 120.0) -> Percentiles:
    """How late (in real time) the hub's ticker fires the audio cues of a running master clock.

    A hub without broker on a ScaledClock; each cue's lateness is the real time between its
    master-clock moment and the moment the cue reached the hub's listeners.
    """
    import logging

    from companion.clock import ScaledClock
    from companion.hub import create_app, start_services, stop_services

    logging.getLogger("companion.audio").setLevel(logging.ERROR)
    clock = ScaledClock(scale)
    with tempfile.TemporaryDirectory(prefix="companion-bench-cues-") as tmp:
        app = create_app(
            {
                "table": "cues",
                "players": 2,
                "timers": 1,
                "clock_minutes": length_s / 60,
                "sounds_dir": tmp,
                "audio": {"speech": False},
            },
            clock=clock,
        )
        app.extensions["companion.cues"].prepare(length_s)
        session = app.extensions["companion.session"]
        heard: list[tuple[str, float]] = []
        done = threading.Event()

        def listen(kind: str, data: dict) -> None:
            if kind == "cue":
                heard.append((data["name"], clock.now_s()))
                if data["name"] == "end":
                    done.set()

        session.add_listener(listen)
        start_services(app)
        try:
            started = session.start_clock()
            if not done.wait(length_s / scale + 10):
                raise TimeoutError("the end cue did not come")
        finally:
            stop_services(app)
    schedule = app.extensions["companion.cues"].settings.schedule(length_s)
    late = [
        max(0.0, (at - (started.at_s + cue.at_elapsed_s)) / scale)
        for cue, (_, at) in zip(schedule, heard, strict=False)
    ]
    return Percentiles.of(late)
