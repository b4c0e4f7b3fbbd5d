"""kill -9 a whole club mid-game, start it again: every table goes on with its game, nothing lost.

A real ``companion club`` process runs two tables on a real mosquitto; their nodes (the product's
``SimNode`` with notebooks, in this process) play on through each crash, so each crash leaves a
backlog in their outboxes and in the broker. The club is SIGKILLed at seeded random moments and
started again with the same command line. Each time:

* the lobby lists both tables as resumed (with the number of events it went on from), and the
  command line says so; each table's master clock comes back paused;
* no new game (no new log) is started for them: the backlog goes into the resumed games.

At the end every report a node was told "accepted" is in its table's log exactly once, nothing
is forged, each log folds to its table's live state, and a clean stop leaves ``club.json`` saying
the club is not running.
"""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from companion.clock import ScaledClock
from tests.faults.checks import assert_log_is_live_state, audit, fold_log, node_reports
from tests.faults.hub import wait_for
from tests.faults.sizes import SEED, report, sized_int

SCALE = 5.0
SAND_S = 3.0
TABLES = ("red", "blue")
KILLS = sized_int("FAULT_CLUB_KILLS", ci=2, full=6)

pytestmark = [pytest.mark.broker, pytest.mark.timeout(90 + 25 * KILLS)]


class ClubProcess:
    """One ``companion club`` process, read until it printed its tables."""

    def __init__(self, command: list[str], stderr_path: Path) -> None:
        self.launched = time.monotonic()
        with open(stderr_path, "w") as stderr:
            self.proc = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL, text=True
            )
        self.stderr_path = stderr_path
        self.lines: list[str] = []
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self._ready.wait(45) or not self.url:
            self.proc.kill()
            pytest.fail(f"the club did not start: {self.lines} {stderr_path.read_text()[-2000:]}")
        self.start_s = time.monotonic() - self.launched

    url = ""

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())
            found = re.match(r"club lobby: (\S+)", line)
            if found:
                self.url = found[1]
            if line.startswith("Ctrl-C ends every table"):
                self._ready.set()
        self._ready.set()

    def request(self, method: str, path: str) -> tuple[int, Any]:
        req = urllib.request.Request(
            self.url + path.lstrip("/"), data=b"{}" if method == "POST" else None, method=method
        )
        req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                return res.status, json.loads(res.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def get(self, path: str) -> Any:
        status, body = self.request("GET", path)
        assert status == 200, (path, status, body)
        return body

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(30)
        assert self.proc.returncode == 0, self.stderr_path.read_text()[-3000:]


def test_a_club_killed_mid_game_resumes_every_table_and_loses_nothing(fault_broker, procs, tmp_path):
    rng = random.Random(SEED)
    began = time.monotonic()
    data = tmp_path / "data"
    command = [sys.executable, "-m", "companion", "club", *(f"{t}:sandtimers:2" for t in TABLES)]
    command += ["--broker", str(fault_broker.address), "--no-sim", "--data-dir", str(data), "--port", "0"]
    command += ["--time-scale", repr(SCALE), "--pin", "4321"]
    clubs: list[ClubProcess] = []

    def start() -> ClubProcess:
        club = ClubProcess(command, tmp_path / f"club-{len(clubs) + 1}.stderr")
        clubs.append(club)
        return club

    try:
        club = start()
        clock = ScaledClock(SCALE)
        fleets = {}
        for table in TABLES:
            nodes = [link["node"] for link in club.get(f"t/{table}/api/state")["nodes"]]
            fleet = procs.fleet(
                table,
                nodes,
                fault_broker.address,
                clock,
                sand_ms=int(SAND_S * 1000),
                rng=random.Random(rng.random()),
                heartbeat_s=0.3,
                rest_s=(0.0, 0.3),
                midrun_per_s=0.2,
            )
            fleet.start()
            fleet.wait_connected()
            fleets[table] = fleet
        for table in TABLES:
            wait_for(
                lambda table=table: all(n["online"] for n in club.get(f"t/{table}/api/state")["nodes"]),
                timeout_s=15,
                what=f"table {table} to hear its nodes",
            )
            assert club.request("POST", f"t/{table}/api/clock/start")[0] == 200
            fleets[table].playing.set()
        logs_at_start = sorted(p.name for p in (data / "tables").glob("*.jsonl"))
        rounds = []
        for _ in range(KILLS):
            time.sleep(rng.uniform(1.0, 2.5))  # play
            club.kill()
            before = {
                (t, *key) for t, fleet in fleets.items() for n in fleet.nodes.values() for key in n.produced
            }
            time.sleep(rng.uniform(0.5, 1.2))  # the nodes play on: a backlog for the next club
            made_while_down = {
                (t, n.node_id, *key)
                for t, fleet in fleets.items()
                for n in fleet.nodes.values()
                for key in n.produced
                if (t, *key) not in before
            }
            club = start()
            lobby = {t["table"]: t for t in club.get("api/tables")["tables"]}
            states = {table: club.get(f"t/{table}/api/state") for table in TABLES}
            rounds.append(
                {
                    "start_s": club.start_s,
                    "resumed": {t: (lobby[t]["resumed"] or {}).get("events") for t in TABLES},
                    "phases": {t: states[t]["clock"]["phase"] for t in TABLES},
                    "said": [line for line in club.lines if "resumed:" in line],
                    "backlog": made_while_down,
                }
            )
            for table in TABLES:
                assert club.request("POST", f"t/{table}/api/clock/resume")[0] == 200
        for fleet in fleets.values():
            fleet.playing.clear()
        for table, fleet in fleets.items():
            wait_for(fleet.is_quiet, timeout_s=40, what=f"table {table} to fall quiet")
            fleet.check()
        lives = {}
        for table in TABLES:
            club.request("POST", f"t/{table}/api/clock/pause")
            lives[table] = club.get(f"t/{table}/api/state")
        logs_at_end = sorted(p.name for p in (data / "tables").glob("*.jsonl"))
        club.stop()
        record = json.loads((data / "club.json").read_text())
    finally:
        for started in clubs:
            if started.proc.poll() is None:
                started.proc.kill()
    audits = {}
    logged_keys = set()
    for table in TABLES:
        [path] = [data / "tables" / name for name in logs_at_end if name.startswith(f"{table}-")]
        _, events, notes = fold_log(path)
        logged_keys |= {(table, *key) for key in node_reports(events)}
        audits[table] = audit(fleets[table].nodes.values(), events)
        assert notes == [] or all("cut short" in n for n in notes), notes
        assert_log_is_live_state(path, lives[table], when=f"of table {table}")
    report(
        "club_kill",
        {
            "kills": KILLS,
            "tables": len(TABLES),
            "restart_s_max": max(r["start_s"] for r in rounds),
            "restart_s_mean": sum(r["start_s"] for r in rounds) / len(rounds),
            "resumed_events": [r["resumed"] for r in rounds],
            "backlog_reports": sum(len(r["backlog"]) for r in rounds),
            **{f"{table}_{k}": v for table, a in audits.items() for k, v in a.figures().items()},
            "wall_s": time.monotonic() - began,
        },
    )
    for number, round_ in enumerate(rounds, start=1):
        assert all(isinstance(n, int) and n > 0 for n in round_["resumed"].values()), (number, round_)
        assert round_["phases"] == {t: "paused" for t in TABLES}, (number, round_)
        assert len(round_["said"]) == len(TABLES), (number, round_["said"])
    assert logs_at_end == logs_at_start, "a restarted club began new games instead of resuming"
    backlog = set().union(*(r["backlog"] for r in rounds))
    assert backlog, "no report was made while the club was down: the test proved nothing"
    assert backlog <= logged_keys, f"backlog not in the resumed games: {sorted(backlog - logged_keys)[:10]}"
    for table, checked in audits.items():
        checked.assert_nothing_lost_or_forged()
        assert not checked.unanswered, (table, checked.unanswered[:10])
    assert record["running"] is False and sorted(record["tables"]) == sorted(TABLES)
