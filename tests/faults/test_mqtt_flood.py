"""An MQTT flood never delays the real nodes' verdicts, and a crowd of made-up node ids is said once.

The hub is a real ``companion run`` process on a real mosquitto with the embedded broker's own
configuration (``MosquittoBroker``: message size, in-flight and queue limits); the real nodes are
plain paho clients timing flip -> ack (``NodeLoad``, one connection per node); the flooder is a
paho client in a process of its own (``tests/faults/mqtt_flooder.py``). The raw broker echo is
measured in the same run.

- ``test_a_flood_from_an_unpaired_node_id_does_not_delay_verdicts``: one node id the table has
  not seated publishes 5,000 messages a second (before the per-node rate limit: every real node's
  ack p50 496 ms);
- ``test_a_flood_from_a_paired_node_with_its_own_credentials_does_not_delay_verdicts``: the same
  from a seated node, with its own password, on a locked broker (per-node users and ACL);
- ``test_3000_made_up_node_ids_are_said_once_then_counted``: hello, heartbeat and "online" from
  3,000 node ids (before: 9,005 warning lines).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from companion.bench.load import NodeLoad, raw_round_trip
from companion.bench.stats import Percentiles
from companion.mqtt.auth import BrokerAuth
from companion.mqtt.bridge import SAY_AGAIN_S
from companion.mqtt.broker import BrokerAddress, MosquittoBroker
from tests.faults.hub import wait_for
from tests.faults.sizes import report, sized, sized_int

FLOODER = Path(__file__).with_name("mqtt_flooder.py")
FLOOD_RATE = sized("MQTT_FLOOD_RATE", ci=5000, full=5000)
FLOOD_S = sized("MQTT_FLOOD_SECONDS", ci=4.0, full=30.0)
FAKE_IDS = sized_int("MQTT_FLOOD_IDS", ci=3000, full=3000)
RATE = 5.0
"""Flips per real node per second (8 nodes: 40 a second)."""
QUIET_S = sized("FLOOD_QUIET_S", ci=2.5, full=5.0)
"""Seconds of quiet flips before the flood, for the run's own floor (100 verdicts in CI)."""
ACK_P99_MS = 100.0
"""The real nodes' ack p99 during a flood stays under this, plus twice the same run's quiet p99
or raw echo p99 (whichever is slower) when the machine is busy with other work."""

pytestmark = [pytest.mark.broker, pytest.mark.timeout(150 + 3 * FLOOD_S)]


def run_flooder(*args: Any, timeout_s: float) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(FLOODER), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def start_flooder(*args: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(FLOODER), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def finished(proc: subprocess.Popen[str], timeout_s: float) -> dict[str, Any]:
    out, err = proc.communicate(timeout=timeout_s)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def p99(result: Any) -> dict[str, float]:
    p = Percentiles.of(result.verdict_s)
    return {
        "sent": result.sent,
        "acked": result.acked,
        "p50_ms": p.p50_ms,
        "p99_ms": p.p99_ms,
        "max_ms": p.max_ms,
    }


def start_hub(procs: Any, broker_url: str, broker: BrokerAddress, tmp_path: Path, table: str) -> Any:
    launcher = procs.launcher(broker=broker, table=table, work_dir=tmp_path, time_scale=1.0)
    command = launcher.command

    def with_url(*, resume: bool) -> list[str]:
        args = command(resume=resume)
        args[args.index("--broker") + 1] = broker_url  # with the hub's password, which str() hides
        return args

    launcher.command = with_url  # type: ignore[method-assign]
    hub = launcher.start()
    hub.post("/api/clock/start")
    return hub


def measure_flood(
    hub: Any, table: str, load_address: BrokerAddress, raw_address: BrokerAddress, flooder_args: list[Any]
) -> dict[str, Any]:
    prefix = f"companion/v1/{table}/raw"  # the hub's user may use it on a locked broker
    nodes = [link["node"] for link in hub.state()["nodes"]]
    load = NodeLoad(
        load_address, {table: nodes[:-1]}, connections=len(nodes) - 1, name=f"real-{table}"
    ).start()
    load.hello()
    try:
        raw = Percentiles.of(raw_round_trip(raw_address, samples=300, prefix=prefix))
        quiet = load.paced(RATE, QUIET_S)
        flood = start_flooder(*flooder_args)
        time.sleep(0.5)  # the flood is on before the nodes are timed
        raw_during = Percentiles.of(raw_round_trip(raw_address, samples=200, prefix=prefix))
        during = load.paced(RATE, max(1.0, FLOOD_S - 2.0))
        sent = finished(flood, FLOOD_S + 60)
    finally:
        load.stop()
    stats = hub.get("/api/stats")
    return {
        "raw_echo_p50_ms": raw.p50_ms,
        "raw_echo_p99_ms": raw.p99_ms,
        "raw_echo_during_p50_ms": raw_during.p50_ms,
        "raw_echo_during_p99_ms": raw_during.p99_ms,
        "quiet": p99(quiet),
        "during": p99(during),
        "flood_sent": sent["sent"],
        "flood_per_s": sent["per_s"],
        "dropped_by_rate": stats["rate_limited"]["dropped"],
        "p99_ratio_to_raw": round(Percentiles.of(during.verdict_s).p99_ms / max(raw.p99_ms, 0.001), 1),
        "_during": during,
        "_quiet": quiet,
    }


def check(figures: dict[str, Any], hub: Any, flooder: str) -> None:
    """``flooder``: who the hub's rate warning names (its words before "more than")."""
    during, quiet = figures.pop("_during"), figures.pop("_quiet")
    assert during.acked == during.sent and quiet.acked == quiet.sent, "a verdict never came"
    assert figures["flood_per_s"] >= 0.8 * FLOOD_RATE, f"the flood was only {figures['flood_per_s']}/s"
    assert figures["dropped_by_rate"] > 0, figures  # the rest waited, or was dropped, in the broker
    # on a machine busy with other work the quiet run and the raw echo slow down too: the flood may
    # add ACK_P99_MS over twice the slower of them (a single connection for everything: ~200 ms
    # against a quiet 9 ms, so this still fails)
    floor = max(figures["quiet"]["p99_ms"], figures["raw_echo_during_p99_ms"])
    bound = ACK_P99_MS + 2 * floor
    assert figures["during"]["p99_ms"] < bound, figures
    stderr = hub.stderr_tail(200_000)
    # the flooder's warning only: with a seated flooder the raw echo, which travels under the
    # table's topics (the hub's user may use no others), is said too, as unseated traffic
    said = [line for line in stderr.splitlines() if f"{flooder} more than" in line]
    # said at once, then again at most once every SAY_AGAIN_S: a flood shorter than that exactly once
    assert FLOOD_S < SAY_AGAIN_S, f"MQTT_FLOOD_SECONDS={FLOOD_S}: these tests count one warning"
    assert len(said) == 1, said
    assert "Traceback" not in stderr


@pytest.mark.alone  # compares verdict latencies within the run
def test_a_flood_from_an_unpaired_node_id_does_not_delay_verdicts(fault_broker, procs, tmp_path):
    table = "mqttflood"
    address = fault_broker.address
    hub = start_hub(procs, str(address), address, tmp_path, table)
    args = [
        "rate",
        table,
        "intruder-1",
        address.host,
        address.port,
        "--rate",
        FLOOD_RATE,
        "--seconds",
        FLOOD_S,
    ]
    figures = measure_flood(hub, table, address, address, args)
    report(
        "mqtt_flood_unpaired",
        {
            "rate": FLOOD_RATE,
            "seconds": FLOOD_S,
            **{k: v for k, v in figures.items() if not k.startswith("_")},
        },
    )
    check(figures, hub, "node ids the table has not seated send")


@pytest.mark.alone  # compares verdict latencies within the run
def test_a_flood_from_a_paired_node_with_its_own_credentials_does_not_delay_verdicts(procs, tmp_path):
    table = "mqttpaired"
    auth = BrokerAuth.for_table(tmp_path / "auth", table)
    nodes = ["red-1", "red-2", "yellow-1", "yellow-2", "green-1", "green-2", "blue-1", "blue-2"]
    flooder = auth.ensure_node("blue-2")
    for node in nodes:
        auth.ensure_node(node)
    broker = MosquittoBroker("127.0.0.1", auth=auth).start()
    try:
        local = broker.address
        hub_address = auth.hub_address(local)
        url = f"mqtt://{hub_address.username}:{hub_address.password}@{local.host}:{local.port}"
        hub = start_hub(procs, url, local, tmp_path, table)
        # the real nodes are timed over the hub's user (allowed every topic of the table); the flood
        # comes from blue-2 itself, with its own password, which the ACL lets publish only as blue-2
        args = [
            "rate",
            table,
            "blue-2",
            local.host,
            local.port,
            "--rate",
            FLOOD_RATE,
            "--seconds",
            FLOOD_S,
            "--user",
            flooder.user,
            "--password",
            flooder.password,
        ]
        figures = measure_flood(hub, table, hub_address, hub_address, args)
        report(
            "mqtt_flood_paired",
            {
                "rate": FLOOD_RATE,
                "seconds": FLOOD_S,
                **{k: v for k, v in figures.items() if not k.startswith("_")},
            },
        )
        check(figures, hub, "node blue-2 sends")
    finally:
        broker.close()


def test_3000_made_up_node_ids_are_said_once_then_counted(fault_broker, procs, tmp_path):
    table = "mqttids"
    address = fault_broker.address
    hub = start_hub(procs, str(address), address, tmp_path, table)
    sent = run_flooder("ids", table, address.host, address.port, "--count", FAKE_IDS, timeout_s=120)

    def counted() -> Any:
        stats = hub.get("/api/stats")
        seen = stats["counts"].get("rejected_unknown_node", 0) + stats["rate_limited"]["dropped"]
        return stats if seen >= sent["sent"] * 0.99 else None

    stats = wait_for(counted, timeout_s=30, what="every made-up id's message counted")
    stderr = hub.stderr_tail(500_000)
    warnings = [line for line in stderr.splitlines() if "WARNING" in line]
    report(
        "mqtt_flood_ids",
        {
            "ids": FAKE_IDS,
            "messages": sent["sent"],
            "rejected_unknown_node": stats["counts"].get("rejected_unknown_node", 0),
            "dropped_by_rate": stats["rate_limited"]["dropped"],
            "warning_lines": len(warnings),
        },
    )
    assert len(warnings) <= 12, warnings
    assert hub.state()["nodes"] and all(not link["node"].startswith("fake-") for link in hub.state()["nodes"])
