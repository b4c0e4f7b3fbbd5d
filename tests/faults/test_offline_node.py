"""A node off the network for 300 events: the hub dates what it buffered when it happened,
and hears how many events the node had to drop.

The node (the real ``NodeCore`` in this process) loses its connection without a
DISCONNECT, flips and runs out 300 times on the table's clock while the other nodes
play on, then comes back. Its buffer holds the latest 64 reports; the hub must log
each of them once, dated within a small bound of the moment it happened on the node
(not when it arrived, up to tens of game seconds later), and must show that the node
dropped the other 236 (``dropped`` in /api/state's ``nodes``).
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from companion.clock import ScaledClock
from tests.faults.checks import assert_log_is_live_state, fold_log, node_reports
from tests.faults.hub import Processes, sandtimer_table, wait_for
from tests.faults.sizes import SEED, report, sized_int

SCALE = 10.0
SAND_S = 0.4
"""40 real milliseconds of sand: 300 reports take about 8 real seconds."""
EVENTS = sized_int("FAULT_OFFLINE_EVENTS", ci=300, full=300)
OFFLINE_NODES = sized_int("FAULT_OFFLINE_NODES", ci=1, full=4)
ROUNDS = sized_int("FAULT_OFFLINE_ROUNDS", ci=1, full=3)
DATING_BOUND_REAL_S = 0.02
"""How far (in real seconds) a buffered event may be dated from when it happened on the node:
the delay of the best clock sample, and the node's millisecond stamps."""

pytestmark = [pytest.mark.broker, pytest.mark.timeout(120 + 40 * ROUNDS)]


def _true_offset(hub: Any, clock: ScaledClock) -> tuple[float, float]:
    """(hub game time - node game time, uncertainty): both clocks run at the same rate, so the
    difference is fixed; the narrowest of several /api/state round trips brackets it."""
    samples = []
    for _ in range(40):
        before = clock.now_s()
        hub_now = hub.state()["now_s"]  # rounded to the millisecond
        after = clock.now_s()
        samples.append((after - before, hub_now - (before + after) / 2))
    width, offset = min(samples)
    return offset, width / 2 + 0.0005


@pytest.fixture(scope="module")
def offline_game(fault_broker, tmp_path_factory) -> Any:
    """Play the scenario once; the tests below check different promises of it."""
    assert EVENTS % 2 == 0, "COMPANION_FAULT_OFFLINE_EVENTS must be even (pairs of flip and run-out)"
    rng = random.Random(SEED)
    began = time.monotonic()
    work = tmp_path_factory.mktemp("offline")
    table = "offline"
    with Processes() as procs:
        launcher = procs.launcher(
            broker=fault_broker.address,
            table=table,
            work_dir=work,
            time_scale=SCALE,
            game_args=sandtimer_table(3, 2, SAND_S),
        )
        hub = launcher.start()
        node_ids = hub.node_ids()
        clock = ScaledClock(SCALE)
        fleet = procs.fleet(
            table,
            node_ids,
            fault_broker.address,
            clock,
            sand_ms=int(SAND_S * 1000),
            rng=random.Random(rng.random()),
            heartbeat_s=0.2,
            rest_s=(0.05, 0.5),
            midrun_per_s=0.0,
        )
        away = node_ids[:OFFLINE_NODES]
        fleet.players = set(node_ids) - set(away)
        fleet.start()
        fleet.wait_connected()
        wait_for(
            lambda: all(n["online"] and n["clock_offset_s"] is not None for n in hub.state()["nodes"]),
            timeout_s=15,
            what="the hub to hear every node",
        )
        hub.post("/api/clock/start")
        fleet.playing.set()
        offset, uncertainty = _true_offset(hub, clock)

        rounds: list[dict[str, Any]] = []
        for _ in range(ROUNDS):
            nodes = [fleet.nodes[n] for n in away]
            for node in nodes:
                node.go_offline()
            wait_for(
                lambda: not any(n["online"] for n in hub.state()["nodes"] if n["node"] in away),
                timeout_s=15,
                what="the hub to see the nodes go offline",
            )
            first = {node.node_id: node.core.seq + 1 for node in nodes}
            deadline = time.monotonic() + 60
            while any(node.core.seq - first[node.node_id] + 1 < EVENTS for node in nodes):
                assert time.monotonic() < deadline, "the offline nodes did not make their reports in time"
                for node in nodes:
                    made = node.core.seq - first[node.node_id] + 1
                    if made < EVENTS and made % 2 == 0 and node.core.sand.is_empty():
                        node.flip()
                time.sleep(0.002)
            for node in nodes:
                assert node.core.seq - first[node.node_id] + 1 == EVENTS  # the last one is a run-out
            back_at = clock.now_s() + offset
            for node in nodes:
                assert not node.connected.is_set()
                node.go_online()
            wait_for(
                lambda nodes=nodes: all(n.is_drained() for n in nodes),
                timeout_s=30,
                what="the buffers to be answered",
            )
            rounds.append({"first": first, "back_at_hub_s": back_at})
        fleet.playing.clear()
        wait_for(fleet.is_quiet, timeout_s=30, what="the table to fall quiet")
        fleet.check()
        hub.post("/api/clock/pause")
        live = hub.state()
        path = launcher.log_path
        _, events, _ = fold_log(path)
        nodes_made = {n: {key: value for key, value in fleet.nodes[n].produced.items()} for n in away}
        acks = {n: dict(fleet.nodes[n].acks) for n in away}
        dropped = {n: fleet.nodes[n].core.dropped for n in away}
        boots = {n: fleet.nodes[n].boot for n in away}
        buffer = fleet.nodes[away[0]].core.outbox_limit
        hub.stop()
    return {
        "live": live,
        "path": path,
        "events": events,
        "away": away,
        "made": nodes_made,
        "acks": acks,
        "dropped": dropped,
        "boots": boots,
        "buffer": buffer,
        "rounds": rounds,
        "offset": offset,
        "uncertainty": uncertainty,
        "wall_s": time.monotonic() - began,
    }


def test_buffered_events_are_logged_once_and_dated_when_they_happened(offline_game):
    game = offline_game
    logged = node_reports(game["events"])
    buffer = game["buffer"]
    errors: list[float] = []
    ages: list[float] = []
    problems: list[str] = []
    delivered = 0
    for node in game["away"]:
        boot = game["boots"][node]
        for round_ in game["rounds"]:
            first = round_["first"][node]
            kept = range(first + EVENTS - buffer, first + EVENTS)
            lost_to_buffer = range(first, first + EVENTS - buffer)
            for seq in kept:
                entries = logged.get((node, boot, seq), [])
                verdicts = [v for v, _ in game["acks"][node].get((boot, seq), [])]
                if len(entries) != 1 or set(verdicts) != {"accepted"}:
                    problems.append(f"{node} #{seq}: logged {len(entries)}x, verdicts {verdicts}")
                    continue
                delivered += 1
                _, payload = game["made"][node][(boot, seq)]
                happened = payload["t_ms"] / 1000 + game["offset"]
                errors.append(entries[0].at_s - happened)
                ages.append(round_["back_at_hub_s"] - happened)
            for seq in lost_to_buffer:
                if (node, boot, seq) in logged:
                    problems.append(f"{node} #{seq} was dropped by the node but is logged")
    worst = max((abs(e) for e in errors), default=float("inf"))
    bound = DATING_BOUND_REAL_S * SCALE + game["uncertainty"]
    report(
        "offline_node_dating",
        {
            "offline_nodes": len(game["away"]),
            "rounds": ROUNDS,
            "events_per_round": EVENTS,
            "buffered_delivered": delivered,
            "dating_error_max_game_ms": worst * 1000,
            "dating_error_max_real_ms": worst * 1000 / SCALE,
            "dating_error_mean_game_ms": 1000 * sum(errors) / max(1, len(errors)),
            "measurement_uncertainty_game_ms": game["uncertainty"] * 1000,
            "oldest_event_age_at_delivery_game_s": max(ages, default=0.0),
            "dating_bound_game_ms": bound * 1000,
            "wall_s": game["wall_s"],
        },
    )
    assert not problems, f"buffered reports not logged exactly once as accepted: {problems[:10]}"
    assert delivered == len(game["away"]) * ROUNDS * buffer
    assert worst <= bound, f"a buffered event was dated {worst:.3f} game s off (bound {bound:.3f})"
    assert_log_is_live_state(game["path"], game["live"])


def test_events_beyond_the_buffer_are_reported_as_dropped(offline_game):
    game = offline_game
    expected = ROUNDS * (EVENTS - game["buffer"])
    shown = {n["node"]: n["dropped"] for n in game["live"]["nodes"]}
    report(
        "offline_node_dropped",
        {
            "dropped_on_nodes": game["dropped"],
            "dropped_shown_by_hub": {n: shown.get(n) for n in game["away"]},
            "expected_per_node": expected,
        },
    )
    assert all(count == expected for count in game["dropped"].values()), game["dropped"]
    wrong = {n: shown.get(n) for n in game["away"] if shown.get(n) != expected}
    assert not wrong, (
        f"the hub does not show the {expected} events each node dropped from its full buffer "
        f"(/api/state nodes[].dropped: {wrong})"
    )
