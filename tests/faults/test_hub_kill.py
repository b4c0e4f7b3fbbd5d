"""kill -9 the hub at random moments of a busy game: nothing lost, nothing forged, little time lost.

Six simulated nodes in this process flip and run out continuously against a real
``companion run`` hub on a real mosquitto. The hub is SIGKILLed at seeded random
moments (in the middle of play, while a freshly resumed hub is still taking the
reports queued for it, and after a quiet stretch longer than the checkpoint interval),
restarted with ``--resume latest``, and its master clock resumed. At the end:

* every report a node was told "accepted" is in the log exactly once (by boot id and
  sequence number), nothing is logged that a node did not send, and no report was
  answered "accepted" once and "rejected" another time;
* the log, read back and folded, is the state the last hub reports on /api/state;
* each crash cost the master clock at most the checkpoint interval (plus one tick).
"""

from __future__ import annotations

import random
import time

import pytest

from companion.clock import ScaledClock
from companion.hub.ticker import MAX_WAIT_S
from companion.table.decide import CHECKPOINT_S
from tests.faults.checks import assert_log_is_live_state, audit, fold_log
from tests.faults.hub import sandtimer_table, wait_for
from tests.faults.sizes import SEED, report, sized_int

SCALE = 5.0
SAND_S = 4.0
"""A full timer runs 0.8 real seconds: every node flips and runs out about once a second."""
KILLS = sized_int("FAULT_KILLS", ci=12, full=100)
QUIET_KILLS = min(KILLS, sized_int("FAULT_QUIET_KILLS", ci=2, full=10))
"""Kills after 6-7.5 real seconds without any event: only the clock checkpoints keep that time."""
EARLY_SHARE = 0.15
"""Share of restarts killed again at once, before the clock is resumed (while queued reports arrive)."""
TIMING_SLACK_S = 0.15
"""Real seconds allowed for the HTTP round trips that bracket a resume and a kill."""
LOSS_BOUND_S = (CHECKPOINT_S + MAX_WAIT_S + TIMING_SLACK_S) * SCALE
"""Game seconds a crash may cost the master clock: one checkpoint interval and one ticker wait."""

pytestmark = [pytest.mark.broker, pytest.mark.timeout(120 + 12 * KILLS)]


def test_kill_9_at_random_moments_loses_nothing_and_forges_nothing(fault_broker, procs, tmp_path):
    rng = random.Random(SEED)
    began = time.monotonic()
    table = "kill9"
    launcher = procs.launcher(
        broker=fault_broker.address,
        table=table,
        work_dir=tmp_path,
        time_scale=SCALE,
        game_args=sandtimer_table(3, 2, SAND_S),
    )
    hub = launcher.start()
    node_ids = hub.node_ids()
    fleet = procs.fleet(
        table,
        node_ids,
        fault_broker.address,
        ScaledClock(SCALE),
        sand_ms=int(SAND_S * 1000),
        rng=random.Random(rng.random()),
        heartbeat_s=0.5,
    ).start()
    fleet.wait_connected()
    wait_for(lambda: all(n["online"] for n in hub.state()["nodes"]), timeout_s=15, what="every node online")
    resumed_at = time.monotonic()
    hub.post("/api/clock/start")
    elapsed_at_resume = 0.0
    fleet.playing.set()

    quiet_at = set(rng.sample(range(KILLS), QUIET_KILLS))
    kills = early = 0
    losses: list[float] = []
    quiet_losses: list[float] = []
    starts: list[float] = []
    while kills < KILLS:
        quiet = kills in quiet_at
        if quiet:
            fleet.playing.clear()
            wait_for(fleet.is_quiet, timeout_s=30, what="the table to fall quiet")
            time.sleep(rng.uniform(6.0, 7.5))
        else:
            time.sleep(rng.uniform(0.2, 1.5))
        fleet.check()
        killed_at = time.monotonic()
        hub.kill()
        kills += 1
        hub = launcher.start(resume=True)
        starts.append(hub.start_s)
        while kills < KILLS and kills not in quiet_at and rng.random() < EARLY_SHARE:
            time.sleep(rng.uniform(0.0, 0.3))
            hub.kill()
            kills += 1
            early += 1
            hub = launcher.start(resume=True)
            starts.append(hub.start_s)
        elapsed_paused, asked_at = hub.resume_clock()
        credited = elapsed_paused - elapsed_at_resume
        loss = (killed_at - resumed_at) * SCALE - credited
        losses.append(loss)
        if quiet:
            quiet_losses.append(loss)
        resumed_at, elapsed_at_resume = asked_at, elapsed_paused
        fleet.playing.set()

    time.sleep(1.0)
    fleet.playing.clear()
    wait_for(fleet.is_quiet, timeout_s=30, what="every node's outbox to be answered")
    fleet.check()
    hub.post("/api/clock/pause")
    live = hub.state()
    path = launcher.log_path
    folded = assert_log_is_live_state(path, live)
    _, events, notes = fold_log(path)
    result = audit(fleet.nodes.values(), events)
    hub.stop()
    assert_log_is_live_state(path, live)  # a clean stop adds nothing the live state did not show

    report(
        "hub_kill",
        {
            "kills": kills,
            "kills_before_clock_resumed": early,
            "kills_after_quiet": len(quiet_losses),
            "nodes": len(fleet.nodes),
            **result.figures(),
            "log_events": folded.events,
            "clock_loss_max_game_s": max(losses),
            "clock_loss_max_real_s": max(losses) / SCALE,
            "clock_loss_after_quiet_max_game_s": max(quiet_losses, default=0.0),
            "clock_loss_min_game_s": min(losses),
            "clock_loss_mean_game_s": sum(losses) / len(losses),
            "clock_loss_bound_game_s": LOSS_BOUND_S,
            "restart_mean_s": sum(starts) / len(starts),
            "restart_max_s": max(starts),
            "game_minutes": live["clock"]["elapsed_s"] / 60,
            "wall_s": time.monotonic() - began,
        },
    )
    assert not notes, f"the log needed repairs when read: {notes}"
    assert all(n.core.dropped == 0 for n in fleet.nodes.values()), "a node's buffer overflowed"
    assert not result.unanswered, f"reports never answered: {result.unanswered[:10]}"
    result.assert_nothing_lost_or_forged()
    assert not result.rejected_unlogged, f"refusals not in the log: {result.rejected_unlogged[:10]}"
    assert result.accepted > 5 * KILLS, "the game was not busy: too few accepted reports"
    worst = max(losses)
    assert worst <= LOSS_BOUND_S, (
        f"a crash cost the master clock {worst:.2f} game s (bound {LOSS_BOUND_S:.2f}): {losses}"
    )
