"""The benchmark harness: what the hub costs on this machine, next to what the broker and the disk cost.

Everything runs on one real broker (mosquitto with ``set_tcp_nodelay``, started here on a free
loopback port) and every hub under test is the command users run, in a process of its own:
``companion run`` for one table, ``companion club`` for a club, started and stopped as a user
does (Ctrl+C). The nodes are a crowd of real MQTT clients, one connection per node, speaking
docs/protocol.md as nodes do (:mod:`companion.bench.crowd`: hello, a heartbeat every 5 s,
numbered flips at QoS 1). Measured:

* **floor**: the raw broker round trip (a plain paho client echoing through the same broker, QoS
  1), one fsync of a log line in the folder the logs go to, and the hub alone (decode, decide,
  log, fold; no MQTT) with and without fsync;
* **one table**: 32 nodes x 10 flips/s with no page open, then with a dashboard open on this
  machine (the kiosk: headless Chromium when there is one, and a page reader timing flip ->
  dashboard), then a plain paho echo in the hub's place under the same nodes (what any hub on
  paho costs at least), and a saturation burst;
* **clubs**: ``companion club`` with 50 and 200 tables of 8 nodes, every node flipping about once
  a second, and the paho echo under the same crowd;
* **rules**: each game's referee on random legal games (:mod:`companion.bench.engines`).

For each run: flip -> ack p50/p99/max, ratios to raw + fsync, the hub's and the broker's CPU per
flip (``/proc``, over the same window), the load generator's, threads and RSS, how much of the
machine the measured processes used together, and the CPU the hypervisor took meanwhile
(``steal``: over 5 % and the run measured the host's other guests too). Targets (issue
23) are checked in the output's pass/fail column, never in timed tests. ``--json FILE`` saves
everything; ``--compare OLD.json`` prints what changed since.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from companion.bench.crowd import NodeCrowd, RunResult
from companion.bench.load import PageProcess, fsync_times, raw_round_trip
from companion.bench.procs import CommandProcess, bench_setup, cpu_of, node_ids, process_tree, stolen_s, usage
from companion.bench.stats import Percentiles

Echo = Callable[[str], object]
FORMAT = 2
"""Version of the JSON this writes (``--compare`` reads either)."""

STEAL_WARN = 0.05
"""Share of the machine's CPU the hypervisor may take during a run before the bench says the run
measured the host's neighbours more than the hub."""

CLUB_NODES = ["red-1", "red-2", "yellow-1", "yellow-2", "green-1", "green-2", "blue-1", "blue-2"]
"""The sandtimers of a club table as ``companion club NAME`` seats them (4 players x 2 timers)."""


@dataclass
class Options:
    table_nodes: int = 32
    table_rate: float = 10.0
    duration_s: float = 10.0
    """Each paced run of the one table."""
    kiosk: bool = True
    """Also measure the one table with a dashboard open on this machine."""
    clubs: list[int] = field(default_factory=lambda: [50, 200])
    club_rate: float = 1.0
    club_duration_s: float = 15.0
    echo: bool = True
    """Also run the plain paho echo under each load (the floor of any hub on paho)."""
    raw_samples: int = 1000
    fsync_samples: int = 300
    burst_per_node: int = 40
    hub_alone: int = 3000
    engine_budget_s: float = 1.0
    fsync: bool = True
    data_dir: str | None = None
    cues: bool = False
    streams: int = 0
    """Also time one table with this many dashboard streams open (flip -> every dashboard)."""
    flips: int = 300
    """Sequential flips of that streams run."""
    quick: bool = False


QUICK = Options(
    table_nodes=8,
    duration_s=0.8,
    kiosk=False,
    clubs=[3],
    club_duration_s=1.5,
    raw_samples=60,
    fsync_samples=30,
    burst_per_node=5,
    hub_alone=100,
    engine_budget_s=0.01,
    flips=20,
    quick=True,
)


@dataclass(frozen=True)
class Target:
    name: str
    value: float
    limit: float
    unit: str
    how: str
    echo: float | None = None
    """The plain paho echo's own figure under the same load in the same run (None without an echo
    line): what the MQTT client costs with no table behind it."""
    echo_limit: float | None = None
    """The limit the echo's figure is held to (a ratio's limit is its own broker figure's)."""

    @property
    def ok(self) -> bool:
        return self.value <= self.limit

    @property
    def echo_ok(self) -> bool | None:
        """Whether the echo alone keeps within the limit (None without an echo line)."""
        if self.echo is None or self.echo_limit is None:
            return None
        return self.echo <= self.echo_limit

    def line(self) -> str:
        text = f"  {'PASS' if self.ok else 'FAIL'}  {self.name:<44} {self.value:9.2f} {self.unit:<5} "
        text += f"limit {self.limit:8.2f} ({self.how})"
        if self.echo is not None and self.echo_limit is not None:
            verdict = "within it" if self.echo_ok else "over it too"
            text += f"; paho echo alone {self.echo:.2f} (limit {self.echo_limit:.2f}: {verdict})"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok, "echo_ok": self.echo_ok}


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            info["cpu"] = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), "")
    except OSError:
        pass
    from companion.mqtt.broker import find_mosquitto

    binary = find_mosquitto()
    if binary:
        try:
            out = subprocess.run([binary, "-h"], capture_output=True, text=True, timeout=5).stdout
            info["mosquitto"] = out.splitlines()[0] if out else binary
        except (OSError, subprocess.TimeoutExpired):
            info["mosquitto"] = binary
    import paho.mqtt

    info["paho"] = getattr(paho.mqtt, "__version__", "?")
    return info


def _raise_open_files() -> None:
    """Two hundred tables of eight nodes are 1,600 connections: let this process and its children
    (broker, hubs, crowd) open as many files as the system allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass


# --- one measured run -------------------------------------------------------------------------------


@dataclass
class Measured:
    """A paced run of the crowd against whatever answers (a hub, the echo), and what it cost."""

    label: str
    run: RunResult
    hub: dict[str, Any]
    """The answering process: ``cpu_s``, ``rss_mb``, ``threads``."""
    broker_cpu_s: float
    crowd_cpu_s: float
    extra_cpu_s: float = 0.0
    """A page on this machine (the kiosk's browser and page reader)."""
    stolen_s: float = 0.0
    """CPU time the hypervisor took from this machine during the run (all CPUs)."""

    def to_dict(self, floor: dict[str, Percentiles]) -> dict[str, Any]:
        run = self.run
        acked = max(1, run.acked)
        verdict = Percentiles.of(run.verdict_s)
        seconds = max(1e-6, run.elapsed_s)
        hub_ms, broker_ms = 1000 * self.hub["cpu_s"] / acked, 1000 * self.broker_cpu_s / acked
        raw, sync = floor["raw"], floor["fsync"]
        return {
            "label": self.label,
            "sent": run.sent,
            "acked": run.acked,
            "rejected": run.rejected,
            "late_sends": run.late_sends,
            "achieved_per_s": round(run.acked / seconds, 1),
            "verdict": verdict.to_dict(),
            "p50_vs_raw_fsync": round(verdict.p50_ms / max(1e-6, raw.p50_ms + sync.p50_ms), 2),
            "p99_vs_raw_fsync": round(verdict.p99_ms / max(1e-6, raw.p99_ms + sync.p99_ms), 2),
            "hub_cpu_ms_per_flip": round(hub_ms, 3),
            "broker_cpu_ms_per_flip": round(broker_ms, 3),
            "hub_vs_broker_cpu": round(hub_ms / max(1e-6, broker_ms), 2),
            "crowd_cpu_ms_per_flip": round(1000 * self.crowd_cpu_s / acked, 3),
            "page_cpu_ms_per_flip": round(1000 * self.extra_cpu_s / acked, 3),
            "hub_cpu_cores": round(self.hub["cpu_s"] / seconds, 3),
            "broker_cpu_cores": round(self.broker_cpu_s / seconds, 3),
            "hub_rss_mb": round(self.hub["rss_mb"], 1),
            "hub_threads": self.hub["threads"],
            "steal": round(self.stolen_s / (seconds * (os.cpu_count() or 1)), 3),
            "measured_cores": round(
                (self.hub["cpu_s"] + self.broker_cpu_s + self.crowd_cpu_s + self.extra_cpu_s) / seconds, 3
            ),
        }


def _measure(
    label: str,
    crowd: NodeCrowd,
    hub_pid: int,
    broker_pid: int | None,
    rate: float,
    duration_s: float,
    *,
    page_pids: Callable[[], list[int]] = list,
    watch: list[tuple[str, str]] | None = None,
) -> Measured:
    before_hub, before_broker = usage(hub_pid), cpu_of([broker_pid] if broker_pid else [])
    before_crowd, before_page = cpu_of(crowd.pids), cpu_of(page_pids())
    before_stolen = stolen_s()
    run = crowd.paced(rate, duration_s, watch=watch or [])
    stolen = stolen_s() - before_stolen
    after_hub, after_broker = usage(hub_pid), cpu_of([broker_pid] if broker_pid else [])
    after_crowd, after_page = cpu_of(crowd.pids), cpu_of(page_pids())
    hub = {
        "cpu_s": after_hub.cpu_s - before_hub.cpu_s,
        "rss_mb": after_hub.rss_mb,
        "threads": after_hub.threads,
    }
    return Measured(
        label,
        run,
        hub,
        after_broker - before_broker,
        after_crowd - before_crowd,
        max(0.0, after_page - before_page),
        stolen,
    )


def _line(row: dict[str, Any]) -> str:
    v = row["verdict"]
    return (
        f"  {row['label']:<34} {row['achieved_per_s']:>7.0f}/s  p50 {v['p50_ms']:6.2f}  p99 {v['p99_ms']:7.2f}  "
        f"max {v['max_ms']:7.1f} ms  x(raw+fs) {row['p99_vs_raw_fsync']:5.1f}  "
        f"cpu/flip hub {row['hub_cpu_ms_per_flip']:.3f} broker {row['broker_cpu_ms_per_flip']:.3f} ms "
        f"({row['hub_vs_broker_cpu']:.1f}x)  hub {row['hub_cpu_cores']:.2f} cores, "
        f"{row['hub_threads']} threads, {row['hub_rss_mb']:.0f} MB; hub, broker, nodes and page "
        f"{row['measured_cores']:.2f} of {os.cpu_count()} cores, steal {100 * row['steal']:.0f} %"
    )


# --- what answers the nodes -------------------------------------------------------------------------


def _write_config(path: Path, sections: dict[str, dict[str, Any]]) -> Path:
    lines = []
    for name, body in sections.items():
        lines.append(f"[{name}]")
        for key, value in body.items():
            lines.append(f"{key} = {json.dumps(value)}")
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@contextmanager
def one_table(url: str, folder: Path, nodes: int, opts: Options) -> Iterator[tuple[CommandProcess, str]]:
    """``companion run`` with ``nodes`` nodes at one table (a bench game resumed from its log), on
    the bench's broker, no simulated nodes; yields the process and the dashboard's address."""
    from companion.mqtt.broker import free_port
    from companion.table.log import EventLog

    setup = bench_setup("bench", nodes)
    log = folder / "tables" / "bench-bench.jsonl"
    EventLog.for_new_game(setup, log, fsync=opts.fsync).close()
    config = _write_config(
        folder / "hub.toml",
        {
            "hub": {
                "data_dir": str(folder),
                "resume": str(log),
                "simulate": False,
                "port": free_port(),
                "fsync": opts.fsync,
                "max_streams": max(64, opts.streams + 8),
            },
            "broker": {"url": url},
        },
    )
    hub = CommandProcess(["run", "--config", str(config)], log_path=folder / "hub.log")
    try:
        line = hub.wait_for("Dashboard: ")
        yield hub, line.split(": ", 1)[1].strip()
    finally:
        hub.stop()


@contextmanager
def club(url: str, folder: Path, tables: list[str], opts: Options) -> Iterator[CommandProcess]:
    """``companion club`` with ``tables`` (each the default table of 8 sandtimers), on the bench's
    broker, no simulated nodes."""
    from companion.mqtt.broker import free_port

    port = free_port()
    if opts.fsync:  # the command line a user types
        args = ["club", *tables, "--broker", url, "--no-sim", "--port", str(port), "--data-dir", str(folder)]
        args += ["--pin", "246810"]
    else:  # only the config file turns fsync off
        config = _write_config(
            folder / "club.toml",
            {
                "club": {
                    "tables": tables,
                    "data_dir": str(folder),
                    "simulate": False,
                    "port": port,
                    "pin": "246810",
                    "fsync": False,
                },
                "broker": {"url": url},
            },
        )
        args = ["club", "--config", str(config)]
    hub = CommandProcess(args, log_path=folder / "club.log")
    try:
        hub.wait_for("club lobby: ", timeout_s=120 + len(tables))
        yield hub
    finally:
        hub.stop(60)


@contextmanager
def echo_hub(url: str, tables: list[str], folder: Path) -> Iterator[int]:
    """The plain paho echo (``companion.bench.crowd echo``) answering every flip of ``tables``."""
    with open(folder / "echo.log", "wb") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion.bench.crowd", "echo", url, ",".join(tables)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise TimeoutError("the paho echo did not start")
        yield proc.pid
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()


@contextmanager
def kiosk_browser(url: str, folder: Path) -> Iterator[subprocess.Popen[bytes] | None]:
    """Headless Chromium showing the dashboard, as a kiosk on the hub's own screen (None without one)."""
    binary = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if binary is None:
        yield None
        return
    profile = folder / "kiosk-profile"
    argv = [
        binary,
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        url,
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3.0)  # the page loads, opens its stream and draws
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


# --- the sections -----------------------------------------------------------------------------------


def _hub_alone(folder: Path, count: int) -> dict[str, Any]:
    """The hub's own cost without MQTT: decode, validate, decide, log, fold and the ack's encoding,
    per message (what a report that comes alone costs), with an fsync per message and without."""
    from companion.clock import ScaledClock
    from companion.core import protocol
    from companion.mqtt.bridge import HubBridge
    from companion.mqtt.broker import BrokerAddress
    from companion.table.log import EventLog
    from companion.table.session import TableSession

    out: dict[str, Any] = {}
    nodes = node_ids(32)
    for fsync in (True, False):
        setup = bench_setup("alone", 32)
        log = EventLog.for_new_game(setup, folder / f"alone-{fsync}.jsonl", fsync=fsync)
        session = TableSession(setup, clock=ScaledClock(1.0), log=log)
        bridge = HubBridge(session, BrokerAddress("127.0.0.1", 1))  # never connected: acks stay queued
        items = []
        for i in range(count + 200):
            node = nodes[i % len(nodes)]
            payload = protocol.encode(
                "event", "flip", boot="0badcafe", seq=i // len(nodes) + 1, t_ms=i, upper_ms=60000, lower_ms=0
            )
            items.append((protocol.node_topic("alone", node, "event"), payload))
        for topic, payload in items[:200]:  # warm up
            bridge.handle(topic, payload)
        cpu, wall = time.process_time(), time.perf_counter()
        for topic, payload in items[200:]:
            bridge.handle(topic, payload)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        key = "fsync" if fsync else "no_fsync"
        out[f"{key}_cpu_ms_per_flip"] = round(1000 * cpu / count, 4)
        out[f"{key}_per_s"] = round(count / wall, 1)
        bridge.client.loop_stop()
        log.close()
    return out


def _one_table(
    url: str,
    address: Any,
    broker_pid: int | None,
    folder: Path,
    opts: Options,
    floor: dict[str, Percentiles],
    echo: Echo,
) -> dict[str, Any]:
    nodes = opts.table_nodes
    ids = node_ids(nodes)
    out: dict[str, Any] = {"nodes": nodes, "rate_per_node": opts.table_rate, "rows": []}
    crowd = NodeCrowd(address, {"bench": ids}).start()
    try:
        with one_table(url, folder / "table", nodes, opts) as (hub, dashboard):
            time.sleep(0.5)
            crowd.burst(1)  # every node known, every subscription working
            row = _measure(
                f"{nodes} nodes x {opts.table_rate:g}/s, no page",
                crowd,
                hub.pid,
                broker_pid,
                opts.table_rate,
                opts.duration_s,
            ).to_dict(floor)
            row["page"] = "none"
            out["rows"].append(row)
            echo(_line(row))
            if opts.kiosk:
                out["rows"].append(_kiosk(dashboard, crowd, hub, broker_pid, ids, opts, floor, folder, echo))
            burst = crowd.burst(opts.burst_per_node)
            out["saturation"] = {
                "nodes": nodes,
                "flips": burst.acked,
                "sent": burst.sent,
                "flips_per_s": round(burst.acked / max(1e-9, burst.elapsed_s), 1),
            }
            echo(
                f"  {'saturation':<34} {burst.acked} flips from {nodes} nodes at once: "
                f"{out['saturation']['flips_per_s']:,.0f} flips/s"
            )
        if opts.echo:
            with echo_hub(url, ["bench"], folder) as pid:
                time.sleep(0.3)
                row = _measure(
                    f"{nodes} nodes x {opts.table_rate:g}/s, paho echo",
                    crowd,
                    pid,
                    broker_pid,
                    opts.table_rate,
                    opts.duration_s,
                ).to_dict(floor)
                row["page"] = "none"
                row["echo"] = True
                out["rows"].append(row)
                echo(_line(row))
    finally:
        crowd.stop()
    return out


def _kiosk(
    dashboard: str,
    crowd: NodeCrowd,
    hub: CommandProcess,
    broker_pid: int | None,
    ids: list[str],
    opts: Options,
    floor: dict[str, Percentiles],
    folder: Path,
    echo: Echo,
) -> dict[str, Any]:
    """The one table with its dashboard open on this machine: headless Chromium (if any) and a page
    reader that times flip -> dashboard, both on the hub's CPUs."""
    from urllib.parse import urlparse

    where = urlparse(dashboard)
    with kiosk_browser(dashboard, folder) as browser:
        probe = PageProcess(where.hostname or "127.0.0.1", where.port or 80, ids[:4])
        try:
            time.sleep(0.3)

            def page_pids() -> list[int]:
                pids = [probe.proc.pid]
                if browser is not None:
                    pids += process_tree(browser.pid)
                return pids

            watched = [("bench", node) for node in ids[:4]]
            measured = _measure(
                f"{len(ids)} nodes x {opts.table_rate:g}/s, kiosk page open",
                crowd,
                hub.pid,
                broker_pid,
                opts.table_rate,
                opts.duration_s,
                page_pids=page_pids,
                watch=watched,
            )
            time.sleep(0.1)
            probe.collect()
            shown: list[float] = []
            missing = 0
            for key, sends in measured.run.sent_at.items():
                node = key.split("/", 1)[1]
                for seq, sent in sends:
                    at = probe.shown(node, seq)
                    if at is None:
                        missing += 1
                    else:
                        shown.append(at - sent)
        finally:
            probe.close()
    row = measured.to_dict(floor)
    row["page"] = "chromium + page reader" if browser is not None else "page reader (no Chromium found)"
    row["dashboard"] = Percentiles.of(shown).to_dict()
    row["dashboard_missing"] = missing
    echo(_line(row))
    dash = row["dashboard"]
    echo(
        f"  {'  flip -> dashboard':<34} p50 {dash['p50_ms']:6.2f}  p99 {dash['p99_ms']:7.2f} ms "
        f"({row['page']}: {row['page_cpu_ms_per_flip']:.3f} CPU ms per flip)"
    )
    return row


def _club(
    url: str,
    address: Any,
    broker_pid: int | None,
    folder: Path,
    count: int,
    opts: Options,
    floor: dict[str, Percentiles],
    echo: Echo,
) -> dict[str, Any]:
    names = [f"t{i:03d}" for i in range(count)]
    crowd = NodeCrowd(address, {name: CLUB_NODES for name in names}).start(timeout_s=120 + count)
    out: dict[str, Any] = {
        "tables": count,
        "nodes": count * len(CLUB_NODES),
        "rate_per_node": opts.club_rate,
        "rows": [],
    }
    try:
        with club(url, folder / f"club{count}", names, opts) as hub:
            time.sleep(1.0)
            crowd.burst(1)
            idle = hub.usage()
            out["idle_rss_mb"] = round(idle.rss_mb, 1)
            out["idle_threads"] = idle.threads
            row = _measure(
                f"club {count} tables x 8 x {opts.club_rate:g}/s",
                crowd,
                hub.pid,
                broker_pid,
                opts.club_rate,
                opts.club_duration_s,
            ).to_dict(floor)
            out["rows"].append(row)
            echo(_line(row))
        if opts.echo:
            with echo_hub(url, names, folder) as pid:
                time.sleep(0.3)
                row = _measure(
                    f"club {count} tables, paho echo",
                    crowd,
                    pid,
                    broker_pid,
                    opts.club_rate,
                    opts.club_duration_s,
                ).to_dict(floor)
                row["echo"] = True
                out["rows"].append(row)
                echo(_line(row))
    finally:
        crowd.stop()
    return out


def _streams(url: str, address: Any, folder: Path, opts: Options, echo: Echo) -> dict[str, Any]:
    """One table with ``opts.streams`` dashboard streams open: flip -> ack and flip -> every dashboard,
    one flip at a time."""
    from urllib.parse import urlparse

    from companion.bench.streams import StreamLoad

    ids = node_ids(8)
    crowd = NodeCrowd(address, {"bench": ids}).start()
    try:
        with one_table(url, folder / "streams", len(ids), opts) as (_, dashboard):
            where = urlparse(dashboard)
            time.sleep(0.5)
            crowd.burst(1)
            load = StreamLoad(where.hostname or "127.0.0.1", where.port or 80, opts.streams)
            try:
                flips = 1  # the warm-up burst flipped every node once
                load.wait_all(flips, 60)
                verdict: list[float] = []
                everywhere: list[float] = []
                for _ in range(opts.flips):
                    started = time.perf_counter()
                    run = crowd.burst(1)  # one flip of every node; the first node's is the one shown
                    verdict.extend(run.verdict_s)
                    flips += 1
                    everywhere.append(load.wait_all(flips, 120) - started)
                out: dict[str, Any] = {
                    "streams_open": load.open,
                    "verdict": Percentiles.of(verdict).to_dict(),
                    "all_dashboards": Percentiles.of(everywhere).to_dict(),
                }
            finally:
                load.close()
    finally:
        crowd.stop()
    echo(
        f"  {opts.streams} streams ({out['streams_open']} open): verdict p99 {out['verdict']['p99_ms']:.1f} ms, "
        f"flip -> every dashboard p50 {out['all_dashboards']['p50_ms']:.1f} p99 {out['all_dashboards']['p99_ms']:.1f} ms"
    )
    return out


def measure_cue_lateness(*, scale: float = 20.0, length_s: float = 120.0) -> Percentiles:
    """How late (in real time) the hub's cue thread fires the audio cues of a running master clock.

    A hub without broker on a ScaledClock; each cue's lateness is the real time between its
    master-clock moment and the moment the cue reached the hub's listeners.
    """
    import logging
    import threading

    from companion.clock import ScaledClock
    from companion.hub import create_app, start_services, stop_services
    from companion.table import events as ev
    from companion.table import messages as msg
    from companion.table.session import CuePlayed, News

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


def run(opts: Options, echo: Echo = print) -> dict[str, Any]:
    """Run every measurement of ``opts``; print as it goes; return everything (JSON-ready)."""
    import logging

    quiet = logging.getLogger("companion")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # the hubs under test log in their own processes
    try:
        return _run(opts, echo)
    finally:
        quiet.setLevel(level)


def _run(opts: Options, echo: Echo) -> dict[str, Any]:
    from companion.mqtt.broker import start_embedded_broker

    _raise_open_files()
    results: dict[str, Any] = {"format": FORMAT, "machine": machine(), "options": asdict(opts)}
    m = results["machine"]
    echo(
        f"machine: {m.get('cpu', '?')}, {m['cpus']} CPUs, load {m['load_avg']}, Python {m['python']}, paho {m['paho']}"
    )
    with tempfile.TemporaryDirectory(prefix="companion-bench-", dir=opts.data_dir) as tmp:
        folder = Path(tmp)
        broker = start_embedded_broker(
            "127.0.0.1", None, prefer="mosquitto", persistence_dir=folder / "broker"
        )
        try:
            address = broker.address
            url = f"mqtt://{address.host}:{address.port}"
            broker_pid = getattr(broker, "pid", None)
            echo(
                f"broker: {broker.kind} on {address}; hub log fsync {'on' if opts.fsync else 'off'}; {folder}"
            )

            floor = {
                "raw": Percentiles.of(raw_round_trip(address, samples=opts.raw_samples)),
                "fsync": Percentiles.of(fsync_times(folder, samples=opts.fsync_samples)),
            }
            echo(floor["raw"].line("raw broker echo"))
            echo(floor["fsync"].line("fsync (log's disk)"))
            alone = _hub_alone(folder, opts.hub_alone)
            results["hub_alone"] = alone
            echo(
                f"{'hub alone (no MQTT)':<22} {alone['fsync_cpu_ms_per_flip']:.3f} CPU ms a flip with an fsync each "
                f"({alone['fsync_per_s']:,.0f}/s), {alone['no_fsync_cpu_ms_per_flip']:.3f} without "
                f"({alone['no_fsync_per_s']:,.0f}/s): decode, decide, log, fold, ack"
            )
            echo(f"one table (companion run), {opts.table_nodes} nodes, one connection each:")
            results["table"] = _one_table(url, address, broker_pid, folder, opts, floor, echo)
            results["clubs"] = []
            for count in opts.clubs:
                echo(f"club (companion club), {count} tables x 8 nodes, one connection each:")
                results["clubs"].append(_club(url, address, broker_pid, folder, count, opts, floor, echo))
            if opts.streams:
                echo(f"one table with {opts.streams} dashboard streams open:")
                results["streams"] = _streams(url, address, folder, opts, echo)
            results["floor"] = {k: v.to_dict() for k, v in floor.items()}
        finally:
            broker.close()

    from companion.bench.engines import measure_engines

    rates, skipped = measure_engines(budget_s=opts.engine_budget_s)
    results["engines"] = {name: rate.to_dict() for name, rate in rates.items()}
    results["engines_skipped"] = skipped
    for name, engine in results["engines"].items():
        echo(
            f"{'rules: ' + name:<22} {engine['actions_per_s']:>9,.0f} engine actions/s, "
            f"{engine['steps_per_s']:>9,.0f} referee answers/s ({engine['games']} games)"
        )
    for name, reason in skipped.items():
        echo(f"{'rules: ' + name:<22} skipped: {reason}")
    if opts.cues:
        lateness = measure_cue_lateness(
            scale=30.0 if opts.quick else 20.0, length_s=30.0 if opts.quick else 120.0
        )
        results["cue_lateness"] = lateness.to_dict()
        echo(lateness.line("cue lateness (real)"))

    targets = _targets(results)
    results["targets"] = [t.to_dict() for t in targets]
    echo("targets (issue 23):")
    for t in targets:
        echo(t.line())
    warning = steal_warning(results)
    if warning:
        echo(warning)
    return results


def steal_warning(results: dict[str, Any]) -> str | None:
    """What to say when the hypervisor took more than :data:`STEAL_WARN` of the machine's CPU during
    any measured run (one table, its echo and kiosk lines, each club's), else None."""
    rows = [*results["table"]["rows"], *(row for club in results["clubs"] for row in club["rows"])]
    stolen = max((row["steal"] for row in rows), default=0.0)
    if stolen <= STEAL_WARN:
        return None
    return (
        f"warning: the hypervisor took up to {100 * stolen:.0f} % of this machine's CPU during a run; "
        "its times and the ratios built on them measure the host's other guests as much as the hub"
    )


def _echo_cpu_per_flip(echo_row: dict[str, Any] | None) -> tuple[float | None, float | None]:
    """The echo's CPU per flip and its limit (twice the broker's in the echo's own line)."""
    if echo_row is None:
        return None, None
    return echo_row["hub_cpu_ms_per_flip"], round(2 * echo_row["broker_cpu_ms_per_flip"], 3)


def _echo_cores(echo_row: dict[str, Any] | None, limit: float) -> tuple[float | None, float | None]:
    """The echo's CPU in cores and the same limit as the hub's."""
    if echo_row is None:
        return None, None
    return echo_row["hub_cpu_cores"], limit


def _targets(results: dict[str, Any]) -> list[Target]:
    raw, sync = results["floor"]["raw"], results["floor"]["fsync"]
    targets: list[Target] = []
    rows = [r for r in results["table"]["rows"] if not r.get("echo")]
    table_echo = next((r for r in results["table"]["rows"] if r.get("echo")), None)
    table = results["table"]
    where = f"{table['nodes']}x{table['rate_per_node']:g}/s"
    for row in rows:
        p99, p50 = row["verdict"]["p99_ms"], row["verdict"]["p50_ms"]
        if row["page"] == "none":
            targets += [
                Target(
                    f"table {where} p99, no page",
                    p99,
                    round(1.5 * raw["p99_ms"] + sync["p99_ms"], 3),
                    "ms",
                    "1.5 x raw p99 + fsync p99",
                ),
                Target(
                    f"table {where} p50, no page",
                    p50,
                    round(2 * raw["p50_ms"] + sync["p50_ms"], 3),
                    "ms",
                    "2 x raw p50 + fsync p50",
                ),
                Target(
                    f"table {where} hub CPU per flip",
                    row["hub_cpu_ms_per_flip"],
                    round(2 * row["broker_cpu_ms_per_flip"], 3),
                    "ms",
                    "2 x the broker's",
                    *_echo_cpu_per_flip(table_echo),
                ),
            ]
        else:
            targets.append(
                Target(
                    f"table {where} p99, kiosk page open",
                    p99,
                    round(3 * raw["p99_ms"] + sync["p99_ms"], 3),
                    "ms",
                    "3 x raw p99 + fsync p99",
                )
            )
    threads: dict[int, int] = {}
    for club_run in results["clubs"]:
        count = club_run["tables"]
        hub = next(r for r in club_run["rows"] if not r.get("echo"))
        club_echo = next((r for r in club_run["rows"] if r.get("echo")), None)
        threads[count] = hub["hub_threads"]
        p99 = hub["verdict"]["p99_ms"]
        name = f"club {count} tables"
        if count == 200:
            targets.append(Target(f"{name} p99", p99, 50.0, "ms", "under 50 ms"))
            continue
        targets += [
            Target(
                f"{name} p99",
                p99,
                round(min(50.0, 3 * raw["p99_ms"] + sync["p99_ms"]), 3),
                "ms",
                "3 x raw p99 + fsync p99, and under 50 ms",
            ),
            Target(
                f"{name} hub CPU",
                hub["hub_cpu_cores"],
                0.25,
                "cores",
                "under 0.25 cores",
                *_echo_cores(club_echo, 0.25),
            ),
            Target(
                f"{name} hub CPU per flip",
                hub["hub_cpu_ms_per_flip"],
                round(2 * hub["broker_cpu_ms_per_flip"], 3),
                "ms",
                "2 x the broker's",
                *_echo_cpu_per_flip(club_echo),
            ),
            Target(f"{name} RSS", hub["hub_rss_mb"], 150.0, "MB", "under 150 MB"),
        ]
    if len(threads) >= 2:
        small, large = min(threads), max(threads)
        targets.append(
            Target(
                f"club threads at {large} tables",
                threads[large],
                threads[small],
                "",
                f"no more than at {small} tables",
            )
        )
    return targets


# --- comparing two runs -------------------------------------------------------------------------
COMPARED = (
    "p50_ms",
    "p99_ms",
    "max_ms",
    "_per_s",
    "_per_flip",
    "cpu_cores",
    "rss_mb",
    "threads",
    "_vs_raw_fsync",
    "_vs_broker_cpu",
)


def flatten(results: dict[str, Any]) -> dict[str, float]:
    """The comparable numbers of a run, by a readable key (``table 32 nodes x 10/s, no page verdict p99_ms``)."""
    out: dict[str, float] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix} {k}".strip(), v)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if any(prefix.endswith(c) for c in COMPARED):
                out[prefix] = float(value)

    walk("floor", results.get("floor", {}))
    walk("hub alone", results.get("hub_alone", {}))
    table = results.get("table", {})
    for row in table.get("rows", []):
        walk(f"table {row['label']}", row)
    walk("table saturation", table.get("saturation", {}))
    for club_run in results.get("clubs", []):
        for row in club_run.get("rows", []):
            walk(row["label"], row)
    walk("engines", results.get("engines", {}))
    return out


def compare(old: dict[str, Any], new: dict[str, Any], echo: Echo = print) -> list[tuple[str, float, float]]:
    """Print each number both runs have, old -> new and the change; return (key, old, new)."""
    before, after = flatten(old), flatten(new)
    rows = [(key, before[key], after[key]) for key in after if key in before]
    echo(f"compared with the run of {old.get('machine', {}).get('when', '?')}:")
    for key, a, b in rows:
        change = f"{(b - a) / a * 100:+7.1f}%" if a else "    new"
        echo(f"  {key:<64} {a:>11.3f} -> {b:>11.3f}  {change}")
    if not rows:
        echo("  (no number in common: the runs measured different things)")
    return rows


def main(argv: list[str] | None = None, echo: Echo = print) -> dict[str, Any]:
    """``python -m companion.bench [options]`` (every option of ``companion bench``)."""
    import argparse

    def numbers(kind: Callable[[str], Any]) -> Callable[[str], list[Any]]:
        return lambda text: [kind(part) for part in text.split(",") if part.strip()]

    class Formatter(argparse.HelpFormatter):
        """``Usage:`` as every other companion command spells it."""

        def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
            super().add_usage(usage, actions, groups, prefix or "Usage: ")

    parser = argparse.ArgumentParser(
        prog="companion bench",
        description=__doc__.splitlines()[0] if __doc__ else None,
        formatter_class=Formatter,
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run of about ten seconds (small sizes)")
    parser.add_argument("--table-nodes", type=int, help="nodes at the one table (default 32)")
    parser.add_argument("--table-rate", type=float, help="flips per second per node at the one table (10)")
    parser.add_argument(
        "--duration", type=float, dest="duration_s", help="seconds of each run of the one table"
    )
    parser.add_argument(
        "--no-kiosk", dest="kiosk", action="store_false", default=None, help="no run with a page open"
    )
    parser.add_argument("--clubs", type=numbers(int), help="club sizes in tables, e.g. 50,200 (0: none)")
    parser.add_argument("--club-rate", type=float, help="flips per second per node in the clubs (1)")
    parser.add_argument(
        "--club-duration", type=float, dest="club_duration_s", help="seconds of each club run"
    )
    parser.add_argument(
        "--no-echo", dest="echo", action="store_false", default=None, help="no paho echo runs"
    )
    parser.add_argument("--raw-samples", type=int, help="raw broker round trips")
    parser.add_argument("--fsync-samples", type=int, help="fsyncs timed")
    parser.add_argument(
        "--burst", type=int, dest="burst_per_node", help="flips per node in the saturation burst"
    )
    parser.add_argument("--hub-alone", type=int, help="messages handled by the hub alone (no MQTT)")
    parser.add_argument("--engine-seconds", type=float, dest="engine_budget_s", help="rules time per game")
    parser.add_argument(
        "--no-fsync", dest="fsync", action="store_false", default=None, help="no fsync of logs"
    )
    parser.add_argument("--data-dir", help="where the hub logs go (the file system whose fsync counts)")
    parser.add_argument("--cues", action="store_true", default=None, help="also time the audio cues")
    parser.add_argument(
        "--streams", type=int, help="also time one table with this many dashboard streams open"
    )
    parser.add_argument("--flips", type=int, help="flips of that streams run (default 300)")
    parser.add_argument("--json", dest="json_path", help="write every number to this file")
    parser.add_argument("--compare", dest="compare_path", help="print the differences to this earlier --json")
    args = vars(parser.parse_args(argv))
    json_path, compare_path, quick = args.pop("json_path"), args.pop("compare_path"), args.pop("quick")
    if args.get("clubs") == [0]:
        args["clubs"] = []
    opts = replace(QUICK if quick else Options(), **{k: v for k, v in args.items() if v is not None})
    old = None
    if compare_path:
        old = json.loads(Path(compare_path).read_text(encoding="utf-8"))
    results = run(opts, echo)
    if json_path:
        Path(json_path).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        echo(f"saved to {json_path}")
    if old is not None:
        compare(old, results, echo)
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
