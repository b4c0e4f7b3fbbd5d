"""The benchmark harness: what the hub costs on this machine, next to what the broker and the disk cost.

One run measures, on one real broker (mosquitto with ``set_tcp_nodelay``, started here on a
free loopback port; every client sets ``TCP_NODELAY``):

* **floor**: the raw broker round trip (a plain paho client echoing through the same broker,
  QoS 1) and the machine's fsync (append one log-sized line and fsync it, in the folder the
  hub's logs go to);
* **scenarios**: flip -> verdict and flip -> dashboard at each number of nodes (all at one table,
  one hub process) and each rate of flips per node, paced open-loop, with one dashboard stream
  open; the ratios of the verdict to raw + fsync, and the hub's CPU seconds per 1,000 flips;
* **saturation**: every node sends a burst at once (no dashboard open); flips acknowledged per
  second, and the hub alone in this process (decide, log, fsync; no MQTT) one message at a time
  and in batches;
* **tables**: RSS and USS for 1, 10 and 50 tables (8 nodes each), as that many tables in one
  process (``create_app`` per table, no web server: what a club process holds at least) and,
  optionally, as that many ``companion run`` processes; the largest count in one process also
  plays a club (every node flips at ``--club-rate``): p99, RSS, CPU cores;
* **engines**: each game's rules on a random legal game (:mod:`companion.bench.engines`).

Targets (issue 14) are checked in the output's pass/fail column, never in timed tests.
``--json FILE`` saves everything; ``--compare OLD.json`` prints what changed since.
Every hub under test runs in a child process (:mod:`companion.bench.procs`), so its CPU time
and memory are its own, not the load generator's.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from companion.bench.load import DashboardProbe, NodeLoad, PageProcess, fsync_times, raw_round_trip
from companion.bench.procs import NODES_PER_TABLE, HubProcess, node_ids
from companion.bench.stats import Percentiles

Echo = Callable[[str], object]
FORMAT = 1
"""Version of the JSON this writes (``--compare`` reads the same)."""


@dataclass
class Options:
    nodes: list[int] = field(default_factory=lambda: [8, 64, 512])
    rates: list[float] = field(default_factory=lambda: [1.0, 10.0])
    duration_s: float = 10.0
    """Longest paced run per scenario; a slow scenario runs until it has ``samples`` flips, at least 3 s."""
    samples: int = 400
    raw_samples: int = 1000
    fsync_samples: int = 300
    burst_per_node: int = 40
    saturation_nodes: int = 64
    hub_alone: int = 3000
    tables: list[int] = field(default_factory=lambda: [1, 10, 50])
    table_processes: bool = True
    """Also measure N tables as N ``companion run`` processes."""
    club_rate: float = 1.0
    club_duration_s: float = 10.0
    engine_budget_s: float = 1.0
    dashboard: bool = True
    fsync: bool = True
    connections: int = 4
    embedded: str = "mosquitto"
    data_dir: str | None = None
    cues: bool = False
    streams: int = 0
    """Also run the one-table benchmark of :mod:`companion.bench.classic` with this many dashboard streams."""
    flips: int = 300
    """Sequential flips of that one-table benchmark."""
    quick: bool = False


QUICK = Options(
    nodes=[8, 32],
    rates=[10.0],
    duration_s=0.6,
    samples=0,
    raw_samples=60,
    fsync_samples=30,
    burst_per_node=5,
    saturation_nodes=32,
    hub_alone=200,
    tables=[1, 2],
    table_processes=False,
    club_duration_s=0.6,
    engine_budget_s=0.03,
    quick=True,
)


@dataclass(frozen=True)
class Target:
    name: str
    value: float
    limit: float
    unit: str
    how: str

    @property
    def ok(self) -> bool:
        return self.value <= self.limit

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


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
    return info


def _scenario_line(row: dict[str, Any]) -> str:
    nodes, rate = row["nodes"], row["rate_per_node"]
    page = (
        f"{row['dashboard'].p50_ms:>11.1f}ms {row['dashboard'].p99_ms:>6.1f}ms"
        if row["page"]
        else f"{'(no page open)':>22}"
    )
    return (
        f"{nodes:>5} {nodes * rate:>8.0f} {row['achieved_per_s']:>8.0f} "
        f"{row['verdict'].p50_ms:>9.2f}ms {row['verdict'].p99_ms:>6.1f}ms "
        f"{row['p99_vs_raw_fsync']:>9.1f}x {page} {row['cpu_s_per_1k_flips']:>8.3f} "
        f"{row['messages_per_batch']:>9.1f}"
    )


def _ratios(p: Percentiles, floor: dict[str, Percentiles]) -> dict[str, float]:
    raw, sync = floor["raw"], floor["fsync"]
    return {
        "p50_vs_raw_fsync": round(p.p50_ms / max(1e-6, raw.p50_ms + sync.p50_ms), 2),
        "p99_vs_raw_fsync": round(p.p99_ms / max(1e-6, raw.p99_ms + sync.p99_ms), 2),
    }


def _scenario(
    hub: HubProcess,
    load: NodeLoad,
    probe: DashboardProbe | PageProcess | None,
    nodes: int,
    rate: float,
    opts: Options,
) -> dict[str, Any]:
    duration = opts.duration_s
    if opts.samples:
        duration = min(opts.duration_s, max(3.0, opts.samples / (nodes * rate)))
    for sends in load.sent_at.values():
        sends.clear()  # only this run's flips are timed to the dashboard
    before, counted = hub.usage(), hub.stats()
    run = load.paced(rate, duration)
    after, grouped = hub.usage(), hub.stats()
    dashboard: list[float] = []
    missing = 0
    if probe is not None:
        time.sleep(0.05)
        probe.collect()
        for key, sends in load.sent_at.items():
            for seq, sent in sends:
                shown = probe.shown(key[1], seq)
                if shown is None:
                    missing += 1
                else:
                    dashboard.append(shown - sent)
            sends.clear()
    batches = grouped["batches"] - counted["batches"]
    syncs = grouped["syncs"] - counted["syncs"]
    cpu = after.cpu_s - before.cpu_s
    return {
        "nodes": nodes,
        "rate_per_node": rate,
        "offered_per_s": nodes * rate,
        "achieved_per_s": round(run.acked / run.elapsed_s, 1) if run.elapsed_s else 0.0,
        "sent": run.sent,
        "acked": run.acked,
        "rejected": run.rejected,
        "late_sends": run.late_sends,
        "verdict": Percentiles.of(run.verdict_s),
        "dashboard": Percentiles.of(dashboard),
        "dashboard_missing": missing,
        "hub_cpu_s": round(cpu, 3),
        "cpu_s_per_1k_flips": round(1000 * cpu / max(1, run.acked), 3),
        "messages_per_batch": round((grouped["batched"] - counted["batched"]) / max(1, batches), 2),
        "events_per_fsync": round((grouped["events"] - counted["events"]) / max(1, syncs), 2),
        "rss_mb": round(after.rss_mb, 1),
    }


def _hub_alone(folder: Path, count: int, fsync: bool) -> dict[str, Any]:
    """The hub's own cost without MQTT: decode, validate, decide, log (and fsync), fold, per message
    and in batches of 64 (what the bridge's worker does when reports arrive together)."""
    from companion.bench.procs import bench_setup
    from companion.clock import ScaledClock
    from companion.core import protocol
    from companion.mqtt.bridge import HubBridge
    from companion.mqtt.broker import BrokerAddress
    from companion.table.log import EventLog
    from companion.table.session import TableSession

    out: dict[str, Any] = {}
    for mode in ("one_by_one", "batches_of_64"):
        setup = bench_setup("alone", NODES_PER_TABLE)
        log = EventLog.for_new_game(setup, folder / f"alone-{mode}.jsonl", fsync=fsync)
        session = TableSession(setup, clock=ScaledClock(1.0), log=log)
        bridge = HubBridge(session, BrokerAddress("127.0.0.1", 1))  # never connected
        nodes = node_ids(NODES_PER_TABLE)
        items = []
        for i in range(count):
            node = nodes[i % len(nodes)]
            payload = protocol.encode(
                "event", "flip", boot="0badcafe", seq=i // len(nodes) + 1, t_ms=i, upper_ms=60000, lower_ms=0
            )
            items.append((protocol.node_topic("alone", node, "event"), payload))
        handle_items = getattr(bridge, "_handle_items", None)  # (a hub without group commit has none)
        start = time.perf_counter()
        if mode == "one_by_one" or handle_items is None:
            for topic, payload in items:
                bridge.handle(topic, payload)
        else:
            for at in range(0, len(items), 64):
                handle_items(list(items[at : at + 64]))
        seconds = time.perf_counter() - start
        out[f"{mode}_per_s"] = round(count / seconds, 1)
        out[f"{mode}_fsyncs"] = getattr(log, "syncs", None)
        log.close()
    return out


def _tables_in_one_process(
    url: str, address: Any, folder: Path, count: int, opts: Options, *, club: bool
) -> dict[str, Any]:
    hub = HubProcess(url, folder / f"club{count}", table="club", sessions=count, fsync=opts.fsync)
    try:
        info = hub.wait_ready(60 + 2 * count)
        tables = {table: node_ids(NODES_PER_TABLE) for table in info["tables"]}
        load = NodeLoad(address, tables, connections=opts.connections, name=f"club{count}").start()
        try:
            load.hello()
            load.burst(2)
            time.sleep(0.3)
            idle = hub.usage()
            out: dict[str, Any] = {
                "tables": count,
                "rss_mb": round(idle.rss_mb, 1),
                "uss_mb": round(idle.uss_mb, 1),
            }
            if club:
                before = hub.usage()
                run = load.paced(opts.club_rate, opts.club_duration_s)
                after = hub.usage()
                out["club"] = {
                    "nodes": count * NODES_PER_TABLE,
                    "rate_per_node": opts.club_rate,
                    "acked": run.acked,
                    "sent": run.sent,
                    "verdict": Percentiles.of(run.verdict_s),
                    "cpu_cores": round((after.cpu_s - before.cpu_s) / max(1e-6, run.elapsed_s), 3),
                    "rss_mb": round(after.rss_mb, 1),
                }
            return out
        finally:
            load.stop()
    finally:
        hub.stop()


def _tables_as_processes(url: str, address: Any, folder: Path, count: int, opts: Options) -> dict[str, Any]:
    hubs = [
        HubProcess(url, folder / f"proc{count}-{i}", table=f"p{i}", nodes=NODES_PER_TABLE, fsync=opts.fsync)
        for i in range(count)
    ]
    try:
        for hub in hubs:
            hub.wait_ready(120)
        tables = {f"p{i}": node_ids(NODES_PER_TABLE) for i in range(count)}
        load = NodeLoad(address, tables, connections=opts.connections, name=f"procs{count}").start()
        try:
            load.hello()
            load.burst(2)
            time.sleep(0.3)
        finally:
            load.stop()
        used = [hub.usage() for hub in hubs]
        return {
            "tables": count,
            "rss_mb": round(sum(u.rss_mb for u in used), 1),
            "uss_mb": round(sum(u.uss_mb for u in used), 1),
        }
    finally:
        for hub in hubs:
            hub.stop()


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

    results: dict[str, Any] = {"format": FORMAT, "machine": machine(), "options": asdict(opts)}
    echo(
        f"machine: {results['machine'].get('cpu', '?')}, {results['machine']['cpus']} CPUs, "
        f"load {results['machine']['load_avg']}, Python {results['machine']['python']}"
    )
    targets: list[Target] = []
    with tempfile.TemporaryDirectory(prefix="companion-bench-", dir=opts.data_dir) as tmp:
        folder = Path(tmp)
        broker = start_embedded_broker(
            "127.0.0.1", None, prefer=opts.embedded, persistence_dir=folder / "broker"
        )
        try:
            address = broker.address
            url = f"mqtt://{address.host}:{address.port}"
            echo(
                f"broker: {broker.kind} on {address}; hub log fsync {'on' if opts.fsync else 'off'}; {folder}"
            )

            # --- the floor: broker and disk ---------------------------------------------------
            floor = {
                "raw": Percentiles.of(raw_round_trip(address, samples=opts.raw_samples)),
                "fsync": Percentiles.of(fsync_times(folder, samples=opts.fsync_samples)),
            }
            results["floor"] = floor
            echo(floor["raw"].line("raw broker echo"))
            echo(floor["fsync"].line("fsync (log's disk)"))

            # --- scenarios -----------------------------------------------------------------------
            scenarios: list[dict[str, Any]] = []
            saturation: dict[str, Any] = {}
            echo(
                f"{'nodes':>5} {'flips/s':>8} {'done/s':>8} {'verdict p50':>11} {'p99':>8} {'x(raw+fs)':>10} "
                f"{'dashboard p50':>13} {'p99':>8} {'cpu s/1k':>8} {'msg/batch':>9}"
            )
            sizes = sorted(set(opts.nodes) | {opts.saturation_nodes})
            for nodes in sizes:
                measured = nodes in opts.nodes
                hub = HubProcess(url, folder / f"n{nodes}", nodes=nodes, fsync=opts.fsync)
                try:
                    info = hub.wait_ready()
                    ids = node_ids(nodes)
                    load = NodeLoad(address, {"bench": ids}, connections=opts.connections).start()
                    probe = None
                    try:
                        load.hello()
                        load.burst(1)  # every node known to the hub, every subscription working
                        if opts.dashboard and measured:
                            probe = PageProcess("127.0.0.1", info["http_ports"][0], ids[:4])
                            load.watch(("bench", node) for node in ids[:4])
                            time.sleep(0.2)
                        for rate in opts.rates if measured else []:
                            row = _scenario(hub, load, probe, nodes, rate, opts)
                            row.update(_ratios(row["verdict"], floor), page=probe is not None)
                            scenarios.append(row)
                            echo(_scenario_line(row))
                        if probe is not None:
                            probe.close()
                            probe = None
                            if measured and nodes == 64 and 10 in opts.rates:
                                # the target's scenario once more with no page: what the nodes get
                                # when no other process shares the machine's CPUs with the hub
                                row = _scenario(hub, load, None, nodes, 10, opts)
                                row.update(_ratios(row["verdict"], floor), page=False)
                                scenarios.append(row)
                                echo(_scenario_line(row))
                        if nodes == opts.saturation_nodes:
                            before, counted = hub.usage(), hub.stats()
                            burst = load.burst(opts.burst_per_node)
                            after, grouped = hub.usage(), hub.stats()
                            saturation = {
                                "nodes": nodes,
                                "flips": burst.acked,
                                "sent": burst.sent,
                                "seconds": round(burst.elapsed_s, 3),
                                "flips_per_s": round(burst.acked / max(1e-9, burst.elapsed_s), 1),
                                "cpu_s_per_1k_flips": round(
                                    1000 * (after.cpu_s - before.cpu_s) / max(1, burst.acked), 3
                                ),
                                "messages_per_batch": round(
                                    (grouped["batched"] - counted["batched"])
                                    / max(1, grouped["batches"] - counted["batches"]),
                                    2,
                                ),
                            }
                    finally:
                        if probe is not None:
                            probe.close()
                        load.stop()
                finally:
                    hub.stop()
            results["scenarios"] = [_jsonable(row) for row in scenarios]
            saturation["hub_alone"] = _hub_alone(folder, opts.hub_alone, opts.fsync)
            results["saturation"] = saturation
            echo(
                f"{'saturation':<22} {saturation.get('flips', 0)} flips from {saturation.get('nodes', 0)} nodes at "
                f"once: {saturation.get('flips_per_s', 0):,.0f} flips/s, "
                f"{saturation.get('cpu_s_per_1k_flips', 0):.3f} CPU s/1k flips, "
                f"{saturation.get('messages_per_batch', 0):.1f} messages per fsync"
            )
            alone = saturation["hub_alone"]
            echo(
                f"{'hub alone (no MQTT)':<22} {alone['one_by_one_per_s']:,.0f} flips/s one by one, "
                f"{alone['batches_of_64_per_s']:,.0f} flips/s in batches of 64 (decode, decide, log, fsync)"
            )

            # --- tables: memory, and a club in one process ------------------------------------
            tables: dict[str, Any] = {"one_process": [], "processes": []}
            for count in opts.tables:
                row = _tables_in_one_process(
                    url, address, folder, count, opts, club=count == max(opts.tables)
                )
                tables["one_process"].append(_jsonable(row))
                echo(
                    f"{'tables in 1 process':<22} {count:>3}: RSS {row['rss_mb']:7.1f} MB, USS {row['uss_mb']:7.1f} MB"
                )
                if "club" in row:
                    club = row["club"]
                    echo(
                        f"{'club in 1 process':<22} {count} tables, {club['nodes']} nodes x {club['rate_per_node']:g}/s: "
                        f"{club['verdict'].line('verdict').split(None, 2)[2]}  "
                        f"CPU {club['cpu_cores']:.2f} cores, RSS {club['rss_mb']:.0f} MB"
                    )
                    targets += [
                        Target(
                            "club p99 verdict",
                            club["verdict"].p99_ms,
                            50.0,
                            "ms",
                            f"{count} tables x 8 nodes x 1/s",
                        ),
                        Target("club RSS", club["rss_mb"], 300.0, "MB", "one process"),
                        Target("club CPU", club["cpu_cores"], 1.0, "cores", "one process"),
                    ]
                if opts.table_processes:
                    row = _tables_as_processes(url, address, folder, count, opts)
                    tables["processes"].append(row)
                    echo(
                        f"{'tables as processes':<22} {count:>3}: RSS {row['rss_mb']:7.1f} MB summed, "
                        f"USS {row['uss_mb']:7.1f} MB summed"
                    )
            results["tables"] = tables
        finally:
            broker.close()

    # --- engines ------------------------------------------------------------------------------
    from companion.bench.engines import measure_engines

    engines = {name: rate.to_dict() for name, rate in measure_engines(budget_s=opts.engine_budget_s).items()}
    results["engines"] = engines
    for name, engine in engines.items():
        echo(
            f"{'rules: ' + name:<22} {engine['actions_per_s']:>9,.0f} engine actions/s, "
            f"{engine['steps_per_s']:>9,.0f} referee answers/s ({engine['games']} games)"
        )
    if opts.cues:
        from companion.bench.classic import measure_cue_lateness

        lateness = measure_cue_lateness(
            scale=30.0 if opts.quick else 20.0, length_s=30.0 if opts.quick else 120.0
        )
        results["cue_lateness"] = lateness.to_dict()
        echo(lateness.line("cue lateness (real)"))
    if opts.streams:
        from companion.bench.classic import run_bench

        echo(f"one table with {opts.streams} dashboard streams open (simulated nodes in this process):")
        classic = run_bench(
            flips=opts.flips,
            burst=400,
            embedded=opts.embedded,
            fsync=opts.fsync,
            streams=opts.streams,
            echo=echo,
        )
        results["streams"] = _jsonable(classic)

    # --- targets ------------------------------------------------------------------------------
    raw, sync = results["floor"]["raw"], results["floor"]["fsync"]
    for row in results["scenarios"]:
        if row["nodes"] == 64 and row["rate_per_node"] == 10:
            where = "page open" if row["page"] else "no page"
            targets += [
                Target(
                    f"verdict p99, 64x10/s, {where}",
                    row["verdict"]["p99_ms"],
                    round(1.5 * raw.p99_ms + sync.p99_ms, 3),
                    "ms",
                    "1.5 x raw p99 + fsync p99",
                ),
                Target(
                    f"verdict p50, 64x10/s, {where}",
                    row["verdict"]["p50_ms"],
                    round(2 * raw.p50_ms + sync.p50_ms, 3),
                    "ms",
                    "2 x raw p50 + fsync p50",
                ),
            ]
    results["targets"] = [t.to_dict() for t in targets]
    results["floor"] = {k: v.to_dict() for k, v in results["floor"].items()}
    if targets:
        echo("targets (issue 14):")
        for t in targets:
            echo(
                f"  {'PASS' if t.ok else 'FAIL'}  {t.name:<32} {t.value:9.2f} {t.unit:<5} limit {t.limit:8.2f} ({t.how})"
            )
    return results


def _jsonable(value: Any) -> Any:
    if isinstance(value, Percentiles):
        return value.to_dict()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


# --- comparing two runs -------------------------------------------------------------------------
COMPARED = (
    "p50_ms",
    "p99_ms",
    "_per_s",
    "cpu_s_per_1k_flips",
    "rss_mb",
    "uss_mb",
    "cpu_cores",
    "_vs_raw_fsync",
)


def flatten(results: dict[str, Any]) -> dict[str, float]:
    """The comparable numbers of a run, by a readable key (``scenario 64x10 verdict p99_ms``)."""
    out: dict[str, float] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix} {k}".strip(), v)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if any(prefix.endswith(c) for c in COMPARED):
                out[prefix] = float(value)

    walk("floor", results.get("floor", {}))
    for row in results.get("scenarios", []):
        page = "" if row.get("page", True) else " no-page"
        walk(f"scenario {row['nodes']}x{row['rate_per_node']:g}{page}", row)
    walk("saturation", results.get("saturation", {}))
    for kind, rows in results.get("tables", {}).items():
        for row in rows:
            walk(f"tables {kind} {row['tables']}", row)
    walk("engines", results.get("engines", {}))
    return out


def compare(old: dict[str, Any], new: dict[str, Any], echo: Echo = print) -> list[tuple[str, float, float]]:
    """Print each number both runs have, old -> new and the change; return (key, old, new)."""
    before, after = flatten(old), flatten(new)
    rows = [(key, before[key], after[key]) for key in after if key in before]
    echo(f"compared with the run of {old.get('machine', {}).get('when', '?')}:")
    for key, a, b in rows:
        change = f"{(b - a) / a * 100:+7.1f}%" if a else "    new"
        echo(f"  {key:<58} {a:>11.2f} -> {b:>11.2f}  {change}")
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
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds (small sizes)")
    parser.add_argument("--nodes", type=numbers(int), help="node counts, e.g. 8,64,512")
    parser.add_argument("--rates", type=numbers(float), help="flips per second per node, e.g. 1,10")
    parser.add_argument("--duration", type=float, help="longest paced run per scenario, seconds")
    parser.add_argument("--samples", type=int, help="flips wanted per scenario (a slow one runs longer)")
    parser.add_argument("--raw-samples", type=int, help="raw broker round trips")
    parser.add_argument("--fsync-samples", type=int, help="fsyncs timed")
    parser.add_argument(
        "--burst", type=int, dest="burst_per_node", help="flips per node in the saturation burst"
    )
    parser.add_argument("--saturation-nodes", type=int, help="nodes sending the saturation burst")
    parser.add_argument("--hub-alone", type=int, help="messages handled by the hub alone (no MQTT)")
    parser.add_argument("--tables", type=numbers(int), help="table counts for memory, e.g. 1,10,50")
    parser.add_argument(
        "--table-processes",
        action=argparse.BooleanOptionalAction,
        help="also run that many companion run processes",
    )
    parser.add_argument("--club-rate", type=float, help="flips per second per node in the club run")
    parser.add_argument("--club-duration", type=float, dest="club_duration_s")
    parser.add_argument("--engine-seconds", type=float, dest="engine_budget_s", help="rules time per game")
    parser.add_argument("--no-dashboard", dest="dashboard", action="store_false", default=None)
    parser.add_argument(
        "--no-fsync", dest="fsync", action="store_false", default=None, help="no fsync of logs"
    )
    parser.add_argument("--connections", type=int, help="MQTT connections the simulated nodes share")
    parser.add_argument("--embedded", choices=["auto", "mosquitto", "amqtt"])
    parser.add_argument("--data-dir", help="where the hub logs go (the file system whose fsync counts)")
    parser.add_argument("--cues", action="store_true", default=None, help="also time the audio cues")
    parser.add_argument(
        "--streams", type=int, help="also time one table with this many dashboard streams open"
    )
    parser.add_argument("--flips", type=int, help="sequential flips of that run (default 300)")
    parser.add_argument("--json", dest="json_path", help="write every number to this file")
    parser.add_argument("--compare", dest="compare_path", help="print the differences to this earlier --json")
    args = vars(parser.parse_args(argv))
    json_path, compare_path, quick = args.pop("json_path"), args.pop("compare_path"), args.pop("quick")
    if args.get("duration") is not None:
        args["duration_s"] = args.pop("duration")
    args.pop("duration", None)
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
