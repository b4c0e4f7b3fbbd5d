"""Soak: several tables of 8 nodes play a whole master clock on one broker, with random faults.

Each table is one ``companion run`` hub process (its own table id, its own log) and
8 simulated nodes in this process; the tables play different games (timers only,
Time 'n' Space, Space Dealer) at a high time scale. While they play, seeded random
faults hit them: a node loses the network for a while (its events wait in its
buffer), a hub is SIGKILLed and resumed (``--resume latest``, clock resumed by the
players). When every master clock has run out, every log must replay to its hub's
live state, every accepted report must be in its log exactly once, and nothing
may be logged that a node did not send.

CI-sized: 2 tables, an 8-minute clock. Full-sized (``make soak``): 8 tables, 30 minutes.
"""

from __future__ import annotations

import random
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from companion.clock import ScaledClock
from tests.faults.checks import assert_log_is_live_state, audit, fold_log
from tests.faults.hub import Processes, wait_for
from tests.faults.sizes import SEED, report, sized, sized_int

TABLES = sized_int("SOAK_TABLES", ci=2, full=8)
MINUTES = sized("SOAK_MINUTES", ci=8, full=30)
SCALE = sized("SOAK_SCALE", ci=60, full=60)
KILLS = sized_int("SOAK_KILLS", ci=1, full=3)
"""Hub kills per table."""
DISCONNECTS = sized_int("SOAK_DISCONNECTS", ci=2, full=8)
"""Node network losses per table."""
GAMES = [
    ["--game", "sandtimers"],
    ["--game", "time-n-space", "--variant", "light"],
    ["--game", "space-dealer", "--variant", "basic"],
]
PLAY_REAL_S = MINUTES * 60 / SCALE

pytestmark = [pytest.mark.broker, pytest.mark.timeout(int(180 + 4 * PLAY_REAL_S + 30 * TABLES))]


def _play_table(index: int, broker: Any, procs: Processes, work: Any) -> dict[str, Any]:
    """One table from its first flip to its expired clock, with its faults; returns its figures."""
    rng = random.Random(f"{SEED}-soak-{index}")
    table = f"soak{index}"
    launcher = procs.launcher(
        broker=broker.address,
        table=table,
        work_dir=work,
        time_scale=SCALE,
        game_args=[
            *GAMES[index % len(GAMES)],
            "--players",
            "4",
            "--timers",
            "2",
            "--sand-seconds",
            "60",
            "--clock-minutes",
            f"{MINUTES:g}",
        ],
    )
    hub = launcher.start()
    first = hub.state()
    node_ids = [link["node"] for link in first["nodes"]]
    fleet = procs.fleet(
        table,
        node_ids,
        broker.address,
        ScaledClock(SCALE),
        sand_ms=60_000,
        rng=random.Random(rng.random()),
        heartbeat_s=1.0,
        rest_s=(0.0, 0.5),
        midrun_per_s=0.05,
    ).start()
    fleet.wait_connected(30)
    wait_for(lambda: all(n["online"] for n in hub.state()["nodes"]), timeout_s=30, what=f"{table}'s nodes")
    began = time.monotonic()
    hub.post("/api/clock/start")
    fleet.playing.set()
    kill_at = sorted(rng.uniform(0.1, 0.8) * PLAY_REAL_S for _ in range(KILLS))
    drops = sorted(
        (rng.uniform(0.05, 0.85) * PLAY_REAL_S, rng.choice(node_ids), rng.uniform(0.3, 3.0))
        for _ in range(DISCONNECTS)
    )
    back: list[tuple[float, str]] = []
    kills = disconnects = 0
    deadline = began + 3 * PLAY_REAL_S + 20 * KILLS + 60
    next_look = 0.0
    while True:
        now = time.monotonic()
        assert now < deadline, f"{table}'s master clock did not run out in time"
        since = now - began
        if kill_at and since >= kill_at[0]:
            kill_at.pop(0)
            hub.kill()
            kills += 1
            time.sleep(rng.uniform(0.0, 0.5))
            hub = launcher.start(resume=True)
            if hub.state()["clock"]["phase"] == "paused":
                hub.resume_clock()
        while drops and since >= drops[0][0]:
            _, node_id, away_s = drops.pop(0)
            node = fleet.nodes[node_id]
            if not node.offline:
                node.go_offline()
                disconnects += 1
                back.append((now + away_s, node_id))
        for due, node_id in [b for b in back if b[0] <= now]:
            back.remove((due, node_id))
            fleet.nodes[node_id].go_online()
        if now >= next_look:
            next_look = now + 0.25
            if hub.state()["clock"]["phase"] in ("expired", "aborted"):
                break
        fleet.check()
        time.sleep(0.02)
    played_s = time.monotonic() - began
    for node in fleet.nodes.values():
        if node.offline:
            node.go_online()
    fleet.playing.clear()
    wait_for(fleet.is_quiet, timeout_s=60, what=f"{table}'s nodes to be answered")
    live = hub.state()
    path = launcher.log_path
    folded = assert_log_is_live_state(path, live)
    _, events, notes = fold_log(path)
    result = audit(fleet.nodes.values(), events)
    hub.stop()
    assert not notes, f"{table}: the log needed repairs when read: {notes}"
    result.assert_nothing_lost_or_forged()
    assert not result.unanswered, f"{table}: reports never answered: {result.unanswered[:10]}"
    dropped = sum(n.core.dropped for n in fleet.nodes.values())
    assert dropped == 0, f"{table}: nodes dropped {dropped} events (buffers overflowed)"
    return {
        "table": table,
        "game": folded.setup.game,
        "phase": live["clock"]["phase"],
        "game_minutes": live["clock"]["elapsed_s"] / 60,
        "kills": kills,
        "disconnects": disconnects,
        "log_events": folded.events,
        "played_real_s": played_s,
        **result.figures(),
    }


def test_soak_tables_play_a_whole_clock_through_random_faults(fault_broker, procs, tmp_path):
    began = time.monotonic()

    def run(index: int) -> dict[str, Any]:
        try:
            return _play_table(index, fault_broker, procs, tmp_path)
        except BaseException as exc:  # reported with the table it happened at
            return {"table": f"soak{index}", "failure": f"{exc}\n{traceback.format_exc(limit=4)}"}

    with ThreadPoolExecutor(max_workers=TABLES, thread_name_prefix="soak-table") as pool:
        tables = list(pool.map(run, range(TABLES)))
    failures = [t for t in tables if "failure" in t]
    good = [t for t in tables if "failure" not in t]
    totals = {
        key: sum(t[key] for t in good)
        for key in (
            "kills",
            "disconnects",
            "log_events",
            "events_produced",
            "acked_accepted",
            "lost",
            "duplicated",
        )
    }
    report(
        "soak",
        {
            "tables": TABLES,
            "nodes_per_table": 8,
            "clock_minutes": MINUTES,
            "time_scale": SCALE,
            **totals,
            "forged": sum(t["forged"] for t in good),
            "games": sorted({t["game"] for t in good}),
            "game_minutes_min": min((t["game_minutes"] for t in good), default=0.0),
            "tables_failed": len(failures),
            "wall_s": time.monotonic() - began,
        },
    )
    for t in good:
        print(
            f"  {t['table']} ({t['game']}): {t['phase']} after {t['game_minutes']:.1f} game min, "
            f"{t['played_real_s']:.1f} s real; {t['kills']} kills, {t['disconnects']} disconnects; "
            f"{t['events_produced']} reports, {t['acked_accepted']} accepted, {t['log_events']} logged events"
        )
    assert not failures, "\n\n".join(f"{t['table']}: {t['failure']}" for t in failures)
    for t in good:
        assert t["phase"] == "expired", f"{t['table']} ended {t['phase']}"
    assert totals["kills"] == TABLES * KILLS
