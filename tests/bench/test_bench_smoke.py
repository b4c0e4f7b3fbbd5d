"""The benchmark's quick mode runs end to end, so the harness never rots.

Only the shape and sanity of the numbers are checked here (every section there, positive
latencies, acknowledged flips, memory in a plausible range): the targets themselves live in
the bench's own pass/fail column, never in a timed test.
"""

from __future__ import annotations

import json

import pytest

from companion.bench import main
from companion.bench.harness import compare
from companion.bench.harness import main as harness_main

pytestmark = [pytest.mark.broker, pytest.mark.timeout(240)]


def sane(p: dict) -> bool:
    return p["n"] > 0 and 0 < p["p50_ms"] <= p["p99_ms"] <= p["max_ms"] < 60_000


def test_quick_bench_writes_every_section_with_sane_numbers(tmp_path):
    out = tmp_path / "bench.json"
    lines: list[str] = []
    harness_main(["--quick", "--json", str(out), "--data-dir", str(tmp_path)], echo=lines.append)
    results = json.loads(out.read_text())
    assert {"machine", "options", "floor", "scenarios", "saturation", "tables", "engines", "targets"} <= set(
        results
    )
    assert sane(results["floor"]["raw"]) and sane(results["floor"]["fsync"])
    assert results["scenarios"], "no scenario ran"
    for row in results["scenarios"]:
        assert row["acked"] == row["sent"] > 0 and row["rejected"] == 0
        assert sane(row["verdict"]) and sane(row["dashboard"])
        assert row["cpu_s_per_1k_flips"] > 0 and row["p99_vs_raw_fsync"] > 0
    saturation = results["saturation"]
    assert saturation["flips"] == saturation["sent"] > 0 and saturation["flips_per_s"] > 0
    assert (
        saturation["hub_alone"]["one_by_one_per_s"] > 0 and saturation["hub_alone"]["batches_of_64_per_s"] > 0
    )
    for row in results["tables"]["one_process"]:
        assert 10 < row["uss_mb"] <= row["rss_mb"] < 2000
    club = results["tables"]["one_process"][-1]["club"]
    assert club["acked"] == club["sent"] > 0 and sane(club["verdict"])
    from companion.games import all_games

    assert set(results["engines"]) == {info.name for info in all_games()}
    assert any(rate["actions_per_s"] > 0 for rate in results["engines"].values())
    assert all(t["ok"] in (True, False) and t["limit"] > 0 for t in results["targets"])
    assert any("targets" in line for line in lines)
    compared: list[str] = []
    rows = compare(results, results, echo=compared.append)
    assert rows and all(old == new for _, old, new in rows)


def test_the_package_keeps_its_old_names():
    import companion.bench as bench

    assert callable(main) and callable(bench.run_bench) and bench.StreamLoad and bench.Percentiles
