"""Hubs under test in processes of their own, and what the kernel says they cost (Linux ``/proc``).

The benchmark runs every hub it measures in a child process, so the hub's CPU time and
memory are its own and not the load generator's:

* :func:`serve` (``python -m companion.bench.procs``) is the child: one table with any
  number of nodes served as ``companion run --resume LOG`` serves it (``runtime.Table``: hub,
  MQTT bridge, ticker, cues and web server, on an external broker), or ``--sessions K`` tables
  of 8 nodes as K hubs (``create_app`` + ``start_services``) in one process without web
  servers, which is what a club of K tables in one process will hold at least;
* :class:`HubProcess` starts it, reads the line it prints when it is ready, and stops it;
* :class:`CommandProcess` runs a ``companion`` command itself (``companion run``, ``companion
  club``) as users start it, and stops it with Ctrl+C (SIGINT) as they do;
* :func:`usage` reads a process's CPU seconds, RSS, USS and threads from ``/proc``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import heap
from companion.errors import CompanionError
from companion.rules.setup import PLAYER_COLOURS, Seat, TableSetup, make_setup

NODES_PER_TABLE = 8


def node_ids(nodes: int) -> list[str]:
    """The bench's node ids: ``n000``, ``n001``, ..."""
    return [f"n{i:03d}" for i in range(nodes)]


def bench_setup(table: str, nodes: int, *, sand_s: float = 60.0) -> TableSetup:
    """A sandtimers table with ``nodes`` nodes, dealt round the (at most 8) players in turn."""
    players = PLAYER_COLOURS[: max(1, min(len(PLAYER_COLOURS), nodes))]
    seats = []
    for i, node in enumerate(node_ids(nodes)):
        player = players[i % len(players)]
        seats.append(Seat(player, i // len(players) + 1, node))
    return make_setup(
        table=table, players=tuple(players), seats=tuple(seats), sand_s=sand_s, clock_length_s=3600.0
    )


@dataclass(frozen=True)
class Usage:
    cpu_s: float
    """User and system CPU seconds of the process so far."""
    rss_mb: float
    uss_mb: float
    """Memory only this process uses (private pages): what one more such process costs."""
    threads: int = 0


def usage(pid: int) -> Usage:
    """CPU seconds, RSS and USS of process ``pid`` (Linux)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu_s = (int(fields[11]) + int(fields[12])) / ticks
    rss_kb = uss_kb = threads = 0
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                rss_kb = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    uss_kb += int(line.split()[1])
    except OSError:
        uss_kb = rss_kb
    return Usage(cpu_s, rss_kb / 1024, uss_kb / 1024, threads)


def cpu_of(pids: list[int]) -> float:
    """CPU seconds of these processes so far (0 for one that is gone)."""
    total = 0.0
    for pid in pids:
        try:
            total += usage(pid).cpu_s
        except OSError:
            pass
    return total


def stolen_s() -> float:
    """CPU seconds the hypervisor has given to other machines while this one wanted them (``steal``
    in ``/proc/stat``, all CPUs together; 0 where the kernel does not count it)."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = fh.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK") if fields[0] == "cpu" and len(fields) > 8 else 0.0
    except (OSError, ValueError):
        return 0.0


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process below it (a browser's renderers, say)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            with open(f"/proc/{current}/task/{current}/children", encoding="ascii") as fh:
                todo.extend(int(child) for child in fh.read().split())
        except OSError:
            pass
    return found


class CommandProcess:
    """A ``companion`` command (``python -m companion ARGS``) as a user runs it, its output read as it comes.

    Its stdout is collected line by line (:meth:`wait_for` finds the line that says it is up), its
    stderr goes to a file, and :meth:`stop` presses Ctrl+C (SIGINT), as a user stops it."""

    def __init__(self, args: list[str], *, log_path: Path, env: dict[str, str] | None = None) -> None:
        """``COMPANION_BENCH_HUB_PATH`` in the environment puts another checkout first on the command's
        ``PYTHONPATH``: the same harness and load then measure another version of the hub."""
        self.args = args
        other = os.environ.get("COMPANION_BENCH_HUB_PATH")
        cwd = None
        if other:  # (``-m`` puts the working directory first on the path: run it from there too)
            env = {**(env or {}), "PYTHONPATH": other}
            cwd = other
        self.log_path = log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self.lines: list[str] = []
        self._changed = threading.Condition()
        with open(log_path, "wb") as errors:
            runner = os.environ.get("COMPANION_BENCH_RUNNER")  # a wrapper script (a profiler) instead of -m
            command = [sys.executable, runner] if runner else [sys.executable, "-m", "companion"]
            self.proc = subprocess.Popen(
                [*command, *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                env={**os.environ, **(env or {})},
                cwd=cwd,
            )
        self._reader = threading.Thread(target=self._read, name="bench-command-output", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def wait_for(self, prefix: str, timeout_s: float = 120.0) -> str:
        """The first line of its output that starts with ``prefix`` (waiting for it)."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while True:
                for line in self.lines:
                    if line.startswith(prefix):
                        return line
                left = deadline - time.monotonic()
                if self.proc.poll() is not None:
                    raise CompanionError(f"companion {self.args[0]} exited: {self.stderr()}")
                if left <= 0:
                    self.stop()
                    raise TimeoutError(f"companion {self.args[0]} did not start: {self.stderr()}")
                self._changed.wait(min(left, 0.5))

    def stderr(self) -> str:
        try:
            return (
                self.log_path.read_text(encoding="utf-8", errors="replace")[-2000:] or "(nothing on stderr)"
            )
        except OSError:
            return "(no log)"

    def usage(self) -> Usage:
        return usage(self.proc.pid)

    def stop(self, timeout_s: float = 30.0) -> None:
        """Ctrl+C, as a user stops it; killed if it has not ended after ``timeout_s``."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._reader.join(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class HubProcess:
    """A hub under test in a child process (see :func:`serve`)."""

    def __init__(
        self,
        broker_url: str,
        data_dir: Path,
        *,
        table: str = "bench",
        nodes: int = 8,
        sessions: int = 0,
        fsync: bool = True,
        max_streams: int = 64,
    ) -> None:
        argv = [
            sys.executable,
            "-m",
            "companion.bench.procs",
            "--broker",
            broker_url,
            "--data-dir",
            str(data_dir),
            "--table",
            table,
            "--nodes",
            str(nodes),
            "--sessions",
            str(sessions),
            "--max-streams",
            str(max_streams),
        ]
        if not fsync:
            argv.append("--no-fsync")
        data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = data_dir / f"hub-{table}.log"
        """The child's stderr (a file, not a pipe: a chatty child must never block on it)."""
        with open(self.log_path, "wb") as errors:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True
            )
        self.info: dict[str, Any] = {}

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_ready(self, timeout_s: float = 60.0) -> dict[str, Any]:
        """Wait for the child's ready line: ``{"pid", "http_ports", "tables"}``."""
        self.info = self._read_line(timeout_s)
        return self.info

    def _read_line(self, timeout_s: float) -> dict[str, Any]:
        """The child's next JSON line."""
        import selectors

        assert self.proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                self.stop()
                raise TimeoutError(f"the hub under test did not start: {self._stderr()}")
            line = self.proc.stdout.readline()
            if not line:
                raise CompanionError(f"the hub under test exited: {self._stderr()}")
            if line.startswith("{"):
                found: dict[str, Any] = json.loads(line)
                return found

    def _stderr(self) -> str:
        try:
            return (
                self.log_path.read_text(encoding="utf-8", errors="replace")[-2000:] or "(nothing on stderr)"
            )
        except OSError:
            return "(no log)"

    def usage(self) -> Usage:
        return usage(self.proc.pid)

    def stats(self, timeout_s: float = 10.0) -> dict[str, Any]:
        """The child's counters (see :func:`_stats`): batches, messages batched, fsyncs, events logged."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("stats\n")
        self.proc.stdin.flush()
        return self._read_line(timeout_s)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Close its stdin (it stops its table in order); kill it if it does not end."""
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def serve(argv: list[str] | None = None) -> None:
    """The child: start the tables, print one JSON line when ready, run until stdin closes."""
    import argparse
    import logging

    parser = argparse.ArgumentParser(prog="python -m companion.bench.procs")
    parser.add_argument("--broker", required=True)
    parser.add_argument("--data-dir", required=True, type=Path)
    parser.add_argument("--table", default="bench")
    parser.add_argument("--nodes", type=int, default=NODES_PER_TABLE)
    parser.add_argument("--sessions", type=int, default=0, help="this many tables of 8 nodes, no web server")
    parser.add_argument("--max-streams", type=int, default=64)
    parser.add_argument("--no-fsync", dest="fsync", action="store_false")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    stop: list[Any] = []
    apps: list[Any] = []
    try:
        if args.sessions:
            ports: list[int] = []
            tables = [f"{args.table}{i}" for i in range(args.sessions)]
            apps.extend(_sessions(args, tables))
            stop.extend(lambda app=app: _stop_app(app) for app in apps)
        else:
            table = _one_table(args)
            stop.append(table.stop)
            assert table.server is not None and table.app is not None
            apps.append(table.app)
            ports, tables = [table.server.server_port], [args.table]
        heap.settle()  # as `companion run` and `companion club` do once started
        print(json.dumps({"pid": os.getpid(), "http_ports": ports, "tables": tables}), flush=True)
        for line in sys.stdin:  # until the benchmark closes it
            if line.strip() == "stats":
                print(json.dumps(_stats(apps)), flush=True)
    finally:
        for end in reversed(stop):
            end()


def _stats(apps: list[Any]) -> dict[str, Any]:
    """How the hubs' work was grouped: batches handed to the sessions, messages in them, fsyncs."""
    out = {"batches": 0, "batched": 0, "syncs": 0, "events": 0}
    for app in apps:
        bridge = app.extensions.get("companion.bridge")
        log = app.extensions["companion.session"].log
        out["batches"] += getattr(bridge, "batches", 0)
        out["batched"] += getattr(bridge, "batched", 0)
        out["syncs"] += getattr(log, "syncs", 0)
        out["events"] += len(log)
    return out


def _stop_app(app: Any) -> None:
    from companion.hub import stop_services

    stop_services(app)


def _one_table(args: Any) -> Any:
    from companion.hub import HubConfig
    from companion.runtime import RunOptions, Table
    from companion.table.log import EventLog

    setup = bench_setup(args.table, args.nodes)
    path = args.data_dir / "tables" / f"{args.table}-bench.jsonl"
    EventLog.for_new_game(setup, path, fsync=args.fsync).close()  # a new game, resumed as a log
    hub = HubConfig(table=args.table, data_dir=args.data_dir, fsync=args.fsync, max_streams=args.max_streams)
    options = RunOptions(
        hub=hub, broker_url=args.broker, simulate=False, resume=path, http_port=None, mqtt_port=None
    )
    return Table(options).start()


def _sessions(args: Any, tables: list[str]) -> list[Any]:
    from companion.clock import ScaledClock
    from companion.hub import HubConfig, create_app, start_services
    from companion.mqtt.broker import BrokerAddress
    from companion.table.log import EventLog

    address = BrokerAddress.parse(args.broker)
    apps = []
    for table in tables:
        setup = bench_setup(table, NODES_PER_TABLE)
        path = args.data_dir / "tables" / f"{table}-bench.jsonl"
        EventLog.for_new_game(setup, path, fsync=args.fsync).close()
        log = EventLog.open_existing(path, fsync=args.fsync)
        # as in `companion club`: the tables share the data directory, so one set of cue sounds
        # is built (by the first table) and read by all
        app = create_app(
            HubConfig(table=table, data_dir=args.data_dir, fsync=args.fsync),
            clock=ScaledClock(1.0),
            broker=address,
            log=log,
        )
        start_services(app)
        apps.append(app)
    return apps


if __name__ == "__main__":
    serve()
