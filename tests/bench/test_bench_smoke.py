"""The benchmark's quick mode runs end to end, so the harness never rots.

Only the shape and sanity of the numbers are checked here (every section there, positive
latencies, every flip acknowledged, CPU and memory in a plausible range): the targets themselves
live in the bench's own pass/fail column, never in a timed test.
"""

from __future__ import annotations

import json

import pytest

from companion.bench import main
from companion.bench.harness import STEAL_WARN, Target, compare, steal_warning
from companion.bench.harness import main as harness_main

pytestmark = [pytest.mark.broker, pytest.mark.timeout(240)]


def sane(p: dict) -> bool:
    return p["n"] > 0 and 0 < p["p50_ms"] <= p["p99_ms"] <= p["max_ms"] < 60_000


def sane_row(row: dict) -> bool:
    return (
        row["acked"] == row["sent"] > 0
        and row["rejected"] == 0
        and sane(row["verdict"])
        and row["hub_cpu_ms_per_flip"] >= 0
        and row["p99_vs_raw_fsync"] > 0
        and 10 < row["hub_rss_mb"] < 2000
        and row["hub_threads"] >= 1
        and 0 <= row["steal"] <= 1
        and row["measured_cores"] >= row["hub_cpu_cores"]
    )


def test_quick_bench_measures_companion_run_and_companion_club_against_the_paho_echo(tmp_path):
    out = tmp_path / "bench.json"
    lines: list[str] = []
    harness_main(["--quick", "--json", str(out), "--data-dir", str(tmp_path)], echo=lines.append)
    results = json.loads(out.read_text())
    assert {"machine", "options", "floor", "hub_alone", "table", "clubs", "engines", "targets"} <= set(
        results
    )
    assert sane(results["floor"]["raw"]) and sane(results["floor"]["fsync"])
    alone = results["hub_alone"]
    assert 0 < alone["no_fsync_cpu_ms_per_flip"] and alone["fsync_per_s"] > 0
    rows = results["table"]["rows"]
    assert [row.get("echo", False) for row in rows] == [False, True]  # the hub, then the echo in its place
    assert all(sane_row(row) for row in rows)
    assert rows[1]["hub_threads"] < rows[0]["hub_threads"]  # the echo is one paho client, not a hub
    assert results["table"]["saturation"]["flips"] == results["table"]["saturation"]["sent"] > 0
    [club] = results["clubs"]
    assert club["tables"] == 3 and club["nodes"] == 24
    assert all(sane_row(row) for row in club["rows"])
    from companion.games import game_names

    assert set(results["engines"]) | set(results["engines_skipped"]) == set(game_names())
    assert all(
        t["ok"] in (True, False) and t["limit"] >= 0 for t in results["targets"]
    )  # (CPU in 10 ms ticks)
    assert any("targets" in line for line in lines)
    cpu = [t for t in results["targets"] if " CPU" in t["name"]]  # per flip, and the club's cores
    assert len(cpu) == 3 and all(t["echo"] > 0 and t["echo_ok"] in (True, False) for t in cpu)
    assert sum("paho echo alone" in line for line in lines) == 3
    compared: list[str] = []
    rows_compared = compare(results, results, echo=compared.append)
    assert rows_compared and all(old == new for _, old, new in rows_compared)


def test_the_package_exports_the_harness():
    import companion.bench as bench

    assert callable(main) and bench.StreamLoad and bench.Percentiles
    assert not hasattr(bench, "run_bench")  # the one-table benchmark of old is gone: the harness is it


def test_a_run_the_hypervisor_took_cpu_from_is_said_to_be_no_measure():
    quiet = {"table": {"rows": [{"steal": 0.01}]}, "clubs": [{"rows": [{"steal": STEAL_WARN}]}]}
    assert steal_warning(quiet) is None
    stolen = {"table": {"rows": [{"steal": 0.01}]}, "clubs": [{"rows": [{"steal": 0.31}]}]}
    assert "31 %" in (steal_warning(stolen) or "")


def test_a_target_says_whether_the_paho_echo_alone_keeps_within_it():
    over = Target("club hub CPU", 0.5, 0.25, "cores", "under 0.25 cores", echo=0.3, echo_limit=0.25)
    assert not over.ok and over.echo_ok is False
    assert over.line().endswith("; paho echo alone 0.30 (limit 0.25: over it too)")
    within = Target("club hub CPU", 0.5, 0.25, "cores", "under 0.25 cores", echo=0.2, echo_limit=0.25)
    assert within.echo_ok is True and within.line().endswith("(limit 0.25: within it)")
    alone = Target("club RSS", 69.0, 150.0, "MB", "under 150 MB")
    assert alone.ok and alone.echo_ok is None and "echo" not in alone.line()
    assert alone.to_dict()["echo_ok"] is None
