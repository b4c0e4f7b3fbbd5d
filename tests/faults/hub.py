"""The hub as a real ``companion run`` process: started, asked over HTTP, killed with SIGKILL, resumed."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from companion.mqtt.broker import BrokerAddress, free_port
from companion.table.log import latest_log

START_TIMEOUT_S = 30.0
"""Real seconds a hub may take to print its dashboard address (it needs ~0.6 s on an idle machine)."""
HTTP_TIMEOUT_S = 10.0


class HubProcess:
    """One ``companion run`` process."""

    def __init__(self, proc: subprocess.Popen[str], stderr_path: Path, number: int) -> None:
        self.proc = proc
        self.stderr_path = stderr_path
        self.number = number
        self.url = ""
        self.lines: list[str] = []
        self.resumed_events: int | None = None
        self.launched_at = time.monotonic()
        self.start_s = 0.0
        """Real seconds from launch to the dashboard address."""
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, name=f"hub-{number}-stdout", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            line = line.rstrip()
            self.lines.append(line)
            resumed = re.match(r"Resumed (\d+) events", line)
            if resumed:
                self.resumed_events = int(resumed.group(1))
            if line.startswith("Dashboard: "):
                self.url = line.split(" ", 1)[1].strip().rstrip("/")
                self._ready.set()
        self._ready.set()  # the process ended: wait_ready reports it

    def wait_ready(self, timeout_s: float = START_TIMEOUT_S) -> HubProcess:
        if not self._ready.wait(timeout_s) or not self.url:
            self.kill()
            pytest.fail(
                f"hub process {self.number} did not start within {timeout_s:g} s "
                f"(exit status {self.proc.poll()}):\n" + "\n".join(self.lines) + "\n" + self.stderr_tail()
            )
        return self

    def stderr_tail(self, chars: int = 3000) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    # --- HTTP -----------------------------------------------------------------------------------
    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT_S) as res:
                return res.status, json.loads(res.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def get(self, path: str) -> Any:
        status, body = self.request("GET", path)
        assert status == 200, f"GET {path}: {status} {body}"
        return body

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        status, answer = self.request("POST", path, body or {})
        assert status == 200, f"POST {path}: {status} {answer}"
        return answer

    def state(self) -> dict[str, Any]:
        return self.get("/api/state")  # type: ignore[no-any-return]

    def node_ids(self) -> list[str]:
        """The seated sandtimers, in the table's order."""
        return [link["node"] for link in self.state()["nodes"]]

    def resume_clock(self) -> tuple[float, float]:
        """Resume the master clock a restart paused: (its elapsed game seconds, real time of the request)."""
        state = self.state()
        assert state["clock"]["phase"] == "paused", f"a resumed game came back {state['clock']['phase']}"
        asked_at = time.monotonic()
        self.post("/api/clock/resume")
        return float(state["clock"]["elapsed_s"]), asked_at

    # --- ending -------------------------------------------------------------------------------
    def kill(self) -> None:
        """SIGKILL: no handler runs, nothing is flushed or announced."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        """A clean stop (SIGTERM), as Ctrl+C or systemd would do."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                pytest.fail(f"hub process {self.number} did not stop on SIGTERM:\n{self.stderr_tail()}")
        assert self.proc.returncode == 0, f"hub exited with {self.proc.returncode}:\n{self.stderr_tail()}"


class HubLauncher:
    """Starts the hub processes of one table: the first game, then ``--resume latest`` after each crash."""

    def __init__(
        self,
        *,
        broker: BrokerAddress,
        table: str,
        work_dir: Path,
        time_scale: float,
        game_args: Sequence[str] = (),
        data_dir: Path | None = None,
    ) -> None:
        """``data_dir``: where the game logs go (default ``work_dir/data-<table>``); the hubs' output
        stays in ``work_dir`` (a test may fill the data's disk)."""
        self.broker = broker
        self.table = table
        self.data_dir = data_dir if data_dir is not None else work_dir / f"data-{table}"
        self.work_dir = work_dir
        self.time_scale = time_scale
        self.game_args = list(game_args)
        self.processes: list[HubProcess] = []

    def command(self, *, resume: bool) -> list[str]:
        args = [
            sys.executable,
            "-m",
            "companion",
            "run",
            "--broker",
            str(self.broker),
            "--no-sim",
            "--table",
            self.table,
            "--data-dir",
            str(self.data_dir),
            "--time-scale",
            repr(self.time_scale),
            "--port",
            str(free_port()),
        ]
        return args + (["--resume", "latest"] if resume else self.game_args)

    def start(
        self,
        *,
        resume: bool = False,
        wait: bool = True,
        wrap: Sequence[str] = (),
        env: dict[str, str] | None = None,
    ) -> HubProcess:
        """``wrap``: a command the hub runs under (``faketime -f -3h``); ``env``: more environment."""
        number = len(self.processes) + 1
        stderr_path = self.work_dir / f"hub-{self.table}-{number}.stderr"
        env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
        with open(stderr_path, "w") as stderr:
            proc = subprocess.Popen(
                self.command(resume=resume),
                stdout=subprocess.PIPE,
                stderr=stderr,
                stdin=subprocess.DEVNULL,
                text=True,
                env=env,
            )
        hub = HubProcess(proc, stderr_path, number)
        self.processes.append(hub)
        if wait:
            hub.wait_ready()
            hub.start_s = time.monotonic() - hub.launched_at
        return hub

    @property
    def log_path(self) -> Path:
        return latest_log(self.data_dir, self.table)

    def kill_all(self) -> None:
        """Teardown: no hub of this table outlives its test."""
        for hub in self.processes:
            if hub.proc.poll() is None:
                hub.proc.kill()
                try:
                    hub.proc.wait(10)
                except subprocess.TimeoutExpired:
                    pass


def sandtimer_table(players: int, timers: int, sand_s: float, clock_minutes: float = 600) -> list[str]:
    """``companion run``'s options for a fault test's table (a long master clock: the test ends it)."""
    return [
        "--players",
        str(players),
        "--timers",
        str(timers),
        "--sand-seconds",
        f"{sand_s:g}",
        "--clock-minutes",
        f"{clock_minutes:g}",
    ]


def wait_for(predicate: Any, *, timeout_s: float, what: str, interval_s: float = 0.02) -> Any:
    """Poll until ``predicate()`` is truthy; fail the test after ``timeout_s`` real seconds."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s:g} s waiting for {what}")
        time.sleep(interval_s)


class Processes:
    """Everything a test started (hub launchers, node fleets), stopped in reverse order at the end."""

    def __init__(self) -> None:
        self._things: list[Any] = []

    def launcher(self, **kwargs: Any) -> HubLauncher:
        launcher = HubLauncher(**kwargs)
        self._things.append(launcher)
        return launcher

    def fleet(self, *args: Any, **kwargs: Any) -> Any:
        from tests.faults.nodes import Fleet

        fleet = Fleet(*args, **kwargs)
        self._things.append(fleet)
        return fleet

    def close(self) -> None:
        for thing in reversed(self._things):
            if isinstance(thing, HubLauncher):
                thing.kill_all()
            else:
                thing.stop()
        self._things.clear()

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
