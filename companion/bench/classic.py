"""The first benchmark of one table (what ``companion bench`` printed before the harness).

Starts the same parts ``companion run`` starts (broker, hub, web server,
simulated nodes) and measures:

* flip -> verdict: a node publishes a flip until it has the hub's ack;
* flip -> dashboard: a node publishes a flip until the live stream delivers
  the state that shows it;
* burst: many flips from all nodes at once, until every one is acknowledged;
* with ``streams=N`` (``--streams N``): the same flip -> verdict with N dashboard
  streams open, and flip -> all N dashboards (until every stream has the frame showing it).

Kept so ``run_bench(flips=..., burst=..., ...)`` goes on working; :mod:`companion.bench.harness`
is the harness of the whole hub, and reuses :func:`measure_cue_lateness`.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.bench.stats import Percentiles
from companion.bench.streams import StreamLoad
from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from companion.table import events as ev
from companion.table import messages as msg
from companion.table.session import CuePlayed, News


def _shows_flips(want: int) -> Callable[[dict[str, Any]], bool]:
    """A predicate on dashboard frames: the first timer (``red-1``) shows at least ``want`` flips."""

    def shows(frame: dict[str, Any]) -> bool:
        return bool(frame["players"][0]["timers"][0]["flips"] >= want)

    return shows


def _wait(event: threading.Event, timeout_s: float, what: str) -> None:
    if not event.wait(timeout_s):
        raise TimeoutError(f"benchmark timed out waiting for {what}")


def run_bench(
    *,
    flips: int = 300,
    burst: int = 400,
    embedded: str = "auto",
    fsync: bool = True,
    streams: int = 0,
    echo: Callable[[str], object] = print,
) -> dict[str, object]:
    """Run the measurements and print one line each; return the numbers.

    ``streams``: also measure flip -> verdict with this many dashboard streams open (the hub's
    stream limit is raised to fit them), and flip -> every dashboard.
    """
    import logging

    from companion.sse_client import SSEReader

    logging.getLogger("werkzeug").setLevel(logging.WARNING)

    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
        hub = HubConfig(
            table="bench",
            players=4,
            timers=2,
            data_dir=Path(tmp),
            fsync=fsync,
            max_streams=max(HubConfig.max_streams, streams + 8),
        )
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
                arrival, _ = reader.wait_for(_shows_flips(flips_seen), 5)
                dashboard.append(arrival - start)
            reader.close()
            loaded: dict[str, Any] = {}
            if streams:
                loaded = _flips_with_streams(table, node, acked, streams=streams, flips=flips)
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
    if loaded:
        results.update(loaded)
        echo(f"{'streams':<22} {loaded['streams_open']} of {streams} dashboard streams open")
        echo(loaded["flip_to_verdict_streams"].line(f"verdict, {streams} streams"))
        echo(loaded["flip_to_all_dashboards"].line(f"flip -> all {loaded['streams_open']} pages"))
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


def _flips_with_streams(
    table: Table, node: Any, acked: threading.Event, *, streams: int, flips: int
) -> dict[str, Any]:
    """Flip -> verdict and flip -> every dashboard with ``streams`` dashboard streams open."""
    assert table.server is not None and table.app is not None
    session = table.app.extensions["companion.session"]
    load = StreamLoad("127.0.0.1", table.server.server_port, streams)
    try:
        flips_seen = session.state.timers["red-1"].flips
        load.wait_all(flips_seen, 60)
        verdict, everywhere = [], []
        for _ in range(flips):
            acked.clear()
            start = time.perf_counter()
            node.flip()
            _wait(acked, 120, "the hub's ack with the streams open")
            verdict.append(time.perf_counter() - start)
            flips_seen += 1
            arrival = load.wait_all(flips_seen, 120)
            everywhere.append(arrival - start)
        return {
            "streams_open": load.open,
            "flip_to_verdict_streams": Percentiles.of(verdict),
            "flip_to_all_dashboards": Percentiles.of(everywhere),
        }
    finally:
        load.close()


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

        def listen(news: News) -> None:
            if isinstance(news, CuePlayed):
                heard.append((news.payload["name"], clock.now_s()))
                if news.payload["name"] == "end":
                    done.set()

        session.add_listener(listen)
        start_services(app)
        try:
            outcome = session.handle(msg.ClockCommand("start"))
            started = next(e for e in outcome.events if isinstance(e, ev.ClockStarted))
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
