"""A forged report with a real node's boot id and a huge sequence number cannot silence that node.

A separate MQTT client listens to the table like any client on the network could,
learns a real node's boot id from its heartbeats, and publishes reports in that node's
name with sequence numbers far beyond anything a node can have buffered (2**53, the
protocol's largest number, and more in the full run). The hub must refuse them without
logging them, and the real node's next flips and run-outs must still be accepted and
logged, also after the hub was killed and resumed.
"""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict

import pytest

from companion.clock import ScaledClock
from companion.core import protocol
from companion.mqtt.client import connect_in_background, make_client
from companion.table.nodes import MAX_SEQ_JUMP
from tests.faults.checks import assert_log_is_live_state, audit, fold_log, node_reports
from tests.faults.hub import sandtimer_table, wait_for
from tests.faults.sizes import SEED, SIZE, report, sized_int

SCALE = 5.0
SAND_S = 2.0
ROUNDS = sized_int("FAULT_FORGE_ROUNDS", ci=1, full=5)
"""Rounds of forging; each forges on every victim, then the victims play on."""
FOLLOWING_FLIPS = 4
"""Flips each victim makes after each round of forgeries (and again after a hub restart)."""

pytestmark = [pytest.mark.broker, pytest.mark.timeout(90 + 40 * ROUNDS)]


class Forger:
    """Any client on the broker: hears the table's node traffic, publishes in a node's name."""

    def __init__(self, address, table: str) -> None:
        self.table = table
        self.boots: dict[str, str] = {}
        self.acks: dict[tuple[str, int], list[str]] = defaultdict(list)
        self.ready = threading.Event()
        self.client = make_client(f"forger-{table}", address)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message

    def _on_connect(self, client, userdata, flags, reason, props) -> None:
        root = protocol.table_prefix(self.table)
        client.subscribe([(f"{root}/node/+/event", 1), (f"{root}/node/+/cmd", 1)])
        self.ready.set()

    def _on_message(self, client, userdata, msg) -> None:
        try:
            topic = protocol.parse_topic(msg.topic)
            decoded = protocol.decode(topic.kind, msg.payload)
        except protocol.ProtocolError:
            return
        if topic.kind == "event" and decoded.kind in ("hello", "heartbeat"):
            self.boots[topic.node] = decoded.boot
        elif topic.kind == "cmd" and decoded.kind == "ack":
            self.acks[(decoded.boot, decoded.seq)].append(decoded.verdict)

    def start(self, address) -> Forger:
        connect_in_background(self.client, address)
        if not self.ready.wait(10):
            raise AssertionError("the forging client did not connect")
        return self

    def forge(self, node: str, kind: str, seq: int, t_ms: int) -> None:
        fields: dict[str, object] = {"boot": self.boots[node], "seq": seq, "t_ms": t_ms}
        if kind == "flip":
            fields.update(upper_ms=int(SAND_S * 1000), lower_ms=0)
        payload = protocol.encode("event", kind, **fields)
        info = self.client.publish(protocol.node_topic(self.table, node, "event"), payload, qos=1)
        info.wait_for_publish(5)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _forgeries(last_seq: int) -> list[tuple[str, int]]:
    """(kind, seq) of the reports forged in one round for a node whose last report was ``last_seq``."""
    plan = [("flip", protocol.MAX_INT), ("empty", protocol.MAX_INT)]
    if SIZE == "full" or ROUNDS > 1:
        plan += [
            ("flip", protocol.MAX_INT - 1),
            ("flip", last_seq + MAX_SEQ_JUMP + 1),
            ("empty", last_seq + MAX_SEQ_JUMP + 1),
            ("flip", 2**31),
            ("flip", 2**32 + 1),
        ]
    return plan


def _flip_and_wait(node, times: int) -> list[tuple[str, int]]:
    """Flip ``node`` ``times`` times, each once its sand ran out; return the flips' (boot, seq)."""
    keys = []
    for _ in range(times):
        wait_for(lambda: node.core.sand.is_empty(), timeout_s=10, what=f"{node.node_id}'s sand to run out")
        node.flip()
        key = (node.boot, node.core.seq)
        keys.append(key)
        wait_for(
            lambda key=key: node.verdict(key), timeout_s=10, what=f"the verdict on {node.node_id} #{key[1]}"
        )
    return keys


def test_forged_high_sequence_numbers_do_not_silence_a_node(fault_broker, procs, tmp_path):
    rng = random.Random(SEED)
    began = time.monotonic()
    table = "forged"
    launcher = procs.launcher(
        broker=fault_broker.address,
        table=table,
        work_dir=tmp_path,
        time_scale=SCALE,
        game_args=sandtimer_table(2, 1, SAND_S),
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
    ).start()
    fleet.wait_connected()
    wait_for(lambda: all(n["online"] for n in hub.state()["nodes"]), timeout_s=15, what="every node online")
    hub.post("/api/clock/start")
    forger = Forger(fault_broker.address, table).start(fault_broker.address)
    try:
        victims = node_ids if SIZE == "full" or ROUNDS > 1 else node_ids[:1]
        wait_for(
            lambda: all(v in forger.boots for v in victims), timeout_s=10, what="the victims' heartbeats"
        )
        followers: list[tuple[str, str, int]] = []
        forged: list[tuple[str, str, int, str]] = []
        for _ in range(ROUNDS):
            for name in victims:
                node = fleet.nodes[name]
                _flip_and_wait(node, 1)
                wait_for(node.is_idle, timeout_s=10, what=f"{name} to stand still")
                assert forger.boots[name] == node.boot, "the forger heard the wrong boot id"
                for kind, seq in _forgeries(node.core.seq):
                    answers = forger.acks[(node.boot, seq)]
                    before = len(answers)
                    forger.forge(name, kind, seq, clock.now_ms())
                    wait_for(
                        lambda answers=answers, before=before: len(answers) > before,
                        timeout_s=10,
                        what=f"the hub's answer to the forged #{seq}",
                    )
                    forged.append((name, node.boot, seq, answers[before]))
                keys = _flip_and_wait(node, FOLLOWING_FLIPS)
                followers += [(name, boot, seq) for boot, seq in keys]
        jumps = hub.get("/api/stats")["counts"].get("rejected_sequence_jump", 0)
        hub.kill()
        hub = launcher.start(resume=True)
        hub.resume_clock()
        for name in victims:
            keys = _flip_and_wait(fleet.nodes[name], FOLLOWING_FLIPS)
            followers += [(name, boot, seq) for boot, seq in keys]
    finally:
        forger.stop()

    wait_for(fleet.is_quiet, timeout_s=30, what="every node's outbox to be answered")
    fleet.check()
    hub.post("/api/clock/pause")
    live = hub.state()
    path = launcher.log_path
    assert_log_is_live_state(path, live)
    _, events, _ = fold_log(path)
    logged = node_reports(events)
    result = audit(fleet.nodes.values(), events)
    hub.stop()
    refused_followers = [k for k in followers if fleet.nodes[k[0]].verdict(k[1:]) != "accepted"]
    unlogged_followers = [k for k in followers if len(logged.get(k, [])) != 1]
    logged_forgeries = [k[:3] for k in forged if k[:3] in logged]
    accepted_forgeries = [k for k in forged if k[3] != "rejected"]
    report(
        "forged_seq",
        {
            "victims": len(victims),
            "forged_reports": len(forged),
            "forged_answered_rejected": len(forged) - len(accepted_forgeries),
            "forged_logged": len(logged_forgeries),
            "following_flips": len(followers),
            "following_accepted": len(followers) - len(refused_followers),
            "following_logged_once": len(followers) - len(unlogged_followers),
            "hub_rejected_sequence_jump": jumps,
            **result.figures(),
            "wall_s": time.monotonic() - began,
        },
    )
    assert not accepted_forgeries, f"forged reports were accepted: {accepted_forgeries}"
    assert not logged_forgeries, f"forged reports were logged: {logged_forgeries}"
    assert not refused_followers, f"the real node's flips were refused after the forgery: {refused_followers}"
    assert not unlogged_followers, f"the real node's flips are not in the log once: {unlogged_followers}"
    result.assert_nothing_lost_or_forged()
