"""The disk under the game log fills up mid-game (a real tmpfs), then space returns: nothing lost, no restart.

A real ``companion run`` hub keeps its data folder on a small file system of the test's own;
six simulated nodes in this process play on a real mosquitto. The disk is filled while they
play, held full for a while (the nodes keep flipping and resending), then freed. Each round:

* within moments every page's data (``/api/state``) says "storage full", the master clock is
  paused, and the host's buttons answer 409 with the reason, never a 500;
* the terminal says it once, not a traceback per tick;
* the reports made meanwhile are answered ``retry`` and stay in the nodes' outboxes, which the
  nodes send again while they stay connected;
* when space returns the table goes on by itself: the banner goes, every kept report is decided
  once and dated when it happened on the node, and the host resumes the clock.

At the end the log folds to the live state, nothing accepted is lost or doubled; then, with
the disk full again, ``companion run`` and ``companion run --resume latest`` each say so in one
line and exit with status 2, leaving no file behind; with space back, ``--resume latest`` goes on
with the game.
"""

from __future__ import annotations

import random
import subprocess
import time
from typing import Any

import pytest

from companion.clock import ScaledClock
from companion.table.storage import FULL
from tests.conftest import mount_small_disk
from tests.faults.checks import assert_log_is_live_state, audit, fold_log, node_reports
from tests.faults.hub import Processes, sandtimer_table, wait_for
from tests.faults.sizes import SEED, report, sized, sized_int
from tests.faults.test_offline_node import _true_offset

SCALE = 10.0
SAND_S = 4.0
"""0.4 real seconds of sand: each node reports a few times a second."""
ROUNDS = sized_int("FAULT_FULL_DISK_ROUNDS", ci=1, full=3)
FULL_S = sized("FAULT_FULL_DISK_S", ci=3.0, full=15.0)
"""Real seconds the disk stays full each round."""
RESEND_S = 1.0
"""The nodes' first wait for an ack before they send again (5 s on real nodes)."""
DISK_MB = 8
DATING_BOUND_REAL_S = 0.02
"""As for buffered reports (test_offline_node.py): the best clock sample's delay and millisecond stamps."""

pytestmark = [pytest.mark.broker, pytest.mark.timeout(150 + ROUNDS * (FULL_S + 40))]


def _stderr_lines(hub: Any) -> list[str]:
    return hub.stderr_tail(10**7).splitlines()


@pytest.fixture(scope="module")
def full_disk_game(fault_broker, tmp_path_factory) -> Any:
    rng = random.Random(SEED)
    began = time.monotonic()
    work = tmp_path_factory.mktemp("full-disk")
    disk = mount_small_disk(work / "disk", DISK_MB)
    try:
        with Processes() as procs:
            yield _play(procs, fault_broker, work, disk, rng, began)
    finally:
        subprocess.run(["umount", "-l", str(disk.path)], capture_output=True)


def _play(procs: Processes, broker: Any, work: Any, disk: Any, rng: random.Random, began: float) -> dict:
    table = "fulldisk"
    launcher = procs.launcher(
        broker=broker.address,
        table=table,
        work_dir=work,
        time_scale=SCALE,
        data_dir=disk.path / "data",
        game_args=sandtimer_table(3, 2, SAND_S),
    )
    hub = launcher.start()
    node_ids = hub.node_ids()
    clock = ScaledClock(SCALE)
    fleet = procs.fleet(
        table,
        node_ids,
        broker.address,
        clock,
        sand_ms=int(SAND_S * 1000),
        rng=random.Random(rng.random()),
        heartbeat_s=0.2,
        rest_s=(0.0, 0.2),
        midrun_per_s=0.5,
        resend_s=RESEND_S,
    )
    fleet.start()
    fleet.wait_connected()
    wait_for(
        lambda: all(n["online"] and n["clock_offset_s"] is not None for n in hub.state()["nodes"]),
        timeout_s=15,
        what="the hub to hear every node",
    )
    offset, uncertainty = _true_offset(hub, clock)
    hub.post("/api/clock/start")
    fleet.playing.set()
    rounds = []
    for _ in range(ROUNDS):
        time.sleep(1.5)  # play a while on a disk with room
        said_before = len(_stderr_lines(hub))
        resent_before = sum(n.core.resent for n in fleet.nodes.values())
        filled_at = time.monotonic()
        taken = disk.fill()
        state = wait_for(
            lambda: (s := hub.state())["storage"]["ok"] is False and s,
            timeout_s=15,
            what="the hub to say its storage is full",
        )
        shown_s = time.monotonic() - filled_at
        answers = {
            action: hub.request("POST", f"/api/clock/{action}") for action in ("pause", "resume", "abort")
        }
        time.sleep(FULL_S)  # the nodes keep flipping; their reports wait and are sent again
        during = hub.state()
        freed_at = time.monotonic()
        disk.free()
        wait_for(lambda: hub.state()["storage"]["ok"], timeout_s=15, what="the hub to write again")
        back_s = time.monotonic() - freed_at
        wait_for(fleet.is_drained, timeout_s=30, what="every kept report to be answered")
        drained_s = time.monotonic() - freed_at
        hub.post("/api/clock/resume")
        said = _stderr_lines(hub)[said_before:]
        rounds.append(
            {
                "filled_bytes": taken,
                "shown_s": shown_s,
                "state": state,
                "during": during,
                "answers": answers,
                "back_s": back_s,
                "drained_s": drained_s,
                "said": said,
                "resent": sum(n.core.resent for n in fleet.nodes.values()) - resent_before,
            }
        )
    fleet.playing.clear()
    wait_for(fleet.is_quiet, timeout_s=30, what="the table to fall quiet")
    fleet.check()
    hub.post("/api/clock/pause")
    live = hub.state()
    path = launcher.log_path
    _, events, notes = fold_log(path)
    checked = audit(fleet.nodes.values(), events)
    retried = {
        (node.node_id, boot, seq): answers
        for node in fleet.nodes.values()
        for (boot, seq), answers in node.acks.items()
        if any(verdict == "retry" for verdict, _ in answers)
    }
    made = {
        (n.node_id, *key): payload for n in fleet.nodes.values() for key, (_, payload) in n.produced.items()
    }
    hub.stop()

    # a start on the full disk: one line, exit 2, no file left behind
    disk.fill()
    before = sorted(p.name for p in (disk.path / "data" / "tables").iterdir())
    starts = {}
    for resume in (False, True):
        done = subprocess.run(
            launcher.command(resume=resume),
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        starts["resume" if resume else "new"] = (done.returncode, done.stderr, done.stdout)
    after = sorted(p.name for p in (disk.path / "data" / "tables").iterdir())
    disk.free()
    resumed = launcher.start(resume=True)
    resumed_events = resumed.resumed_events
    resumed_state = resumed.state()
    resumed.stop()
    return {
        "rounds": rounds,
        "live": live,
        "path": path,
        "events": events,
        "notes": notes,
        "audit": checked,
        "retried": retried,
        "made": made,
        "offset": offset,
        "uncertainty": uncertainty,
        "starts": starts,
        "tables_before": before,
        "tables_after": after,
        "resumed_events": resumed_events,
        "resumed_state": resumed_state,
        "wall_s": time.monotonic() - began,
    }


def test_a_full_disk_is_shown_pauses_the_clock_and_is_said_once(full_disk_game):
    game = full_disk_game
    for number, round_ in enumerate(game["rounds"], start=1):
        storage = round_["state"]["storage"]
        assert storage["message"] == FULL.to_json() and storage["detail"] == "No space left on device"
        assert round_["state"]["clock"]["phase"] == "paused", "the master clock pauses with the disk"
        assert round_["during"]["clock"]["phase"] == "paused" and round_["during"]["storage"]["ok"] is False
        statuses = {action: status for action, (status, _) in round_["answers"].items()}
        assert statuses == {"pause": 409, "resume": 409, "abort": 409}, statuses
        assert round_["answers"]["resume"][1]["error"] == str(FULL)
        said = round_["said"]
        assert not [line for line in said if "Traceback" in line or " ERROR " in line], said[:20]
        assert len([line for line in said if "storage full" in line]) == 1, said[:20]
        assert len([line for line in said if "written again" in line]) == 1, said[:20]
        assert round_["shown_s"] < 5 and round_["back_s"] < 5, (number, round_["shown_s"], round_["back_s"])


def test_every_kept_report_is_decided_once_and_dated_when_it_happened(full_disk_game):
    game = full_disk_game
    checked = game["audit"]
    logged = node_reports(game["events"])
    errors = []
    problems = []
    for key in game["retried"]:
        entries = logged.get(key, [])
        final = [verdict for verdict, _ in game["retried"][key] if verdict != "retry"]
        if len(entries) != 1 or not final:
            problems.append(f"{key}: logged {len(entries)}x, answers {game['retried'][key]}")
            continue
        happened = game["made"][key]["t_ms"] / 1000 + game["offset"]
        errors.append(entries[0].at_s - happened)
    worst = max((abs(e) for e in errors), default=0.0)
    bound = DATING_BOUND_REAL_S * SCALE + game["uncertainty"]
    rounds = game["rounds"]
    report(
        "full_disk",
        {
            "rounds": ROUNDS,
            "full_s": FULL_S,
            "banner_after_fill_s_max": max(r["shown_s"] for r in rounds),
            "writing_again_after_free_s_max": max(r["back_s"] for r in rounds),
            "all_kept_answered_after_free_s_max": max(r["drained_s"] for r in rounds),
            "reports_held": len(game["retried"]),
            "resends_while_connected": sum(r["resent"] for r in rounds),
            "terminal_lines_while_full_max": max(len(r["said"]) for r in rounds),
            "dating_error_max_game_ms": worst * 1000,
            "dating_error_max_real_ms": worst * 1000 / SCALE,
            **checked.figures(),
            "wall_s": game["wall_s"],
        },
    )
    assert game["retried"], "no report met the full disk: the test proved nothing"
    assert sum(r["resent"] for r in rounds) > 0, "the nodes never sent again while connected"
    assert not problems, problems[:10]
    assert worst <= bound, f"a kept report was dated {worst:.3f} game s off (bound {bound:.3f})"
    checked.assert_nothing_lost_or_forged()
    assert not checked.unanswered, f"reports never decided: {checked.unanswered[:10]}"
    assert game["notes"] == [], "the log needed repairs"
    assert_log_is_live_state(game["path"], game["live"])


def test_a_start_on_a_full_disk_is_one_line_and_exit_2_and_leaves_no_log(full_disk_game):
    game = full_disk_game
    for kind, (code, stderr, stdout) in game["starts"].items():
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert code == 2, (kind, code, stderr[-2000:])
        assert len(lines) == 1 and lines[0].startswith("companion: the disk holding "), (kind, lines)
        assert "is full (No space left on device)" in lines[0] and "Dashboard" not in stdout
    assert game["tables_after"] == game["tables_before"], "a failed start left a file behind"
    assert game["resumed_events"] == len(game["events"])
    assert game["resumed_state"]["clock"]["phase"] == "paused"
