"""Losing the broker in the middle of a game, and getting it back.

Fault injection on real processes: the embedded broker (mosquitto, or amqtt in-process)
is killed and the hub's supervisor must start it again; an external mosquitto is killed
or stopped and started again by the test. Flips made while the broker is away must be
acknowledged after it comes back, nothing may be applied twice, and the table must show
the broker (and every node) offline, then online again.

Run with ``-s`` to see the measured times.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import pytest

from companion.clock import FakeClock
from companion.hub import HubConfig
from companion.mqtt.bridge import HubBridge
from companion.mqtt.broker import AmqttBroker, MosquittoBroker
from companion.rules.setup import default_setup
from companion.rules.text import from_json
from companion.runtime import RunOptions, Table
from companion.table import events as ev
from companion.table import messages as tm
from companion.table.model import BrokerChanged, LinkChanged
from companion.table.session import Changed, TableSession
from tests.conftest import wait_until

pytestmark = pytest.mark.broker

FLIPPED_IN_OUTAGE = ("yellow-1", "green-1", "red-1")


class HealthLog:
    """What the session tells its listeners about the broker and the nodes, with real times."""

    def __init__(self, session: Any) -> None:
        self.broker: list[tuple[float, bool | None, str]] = []
        self.links: list[tuple[float, str, bool]] = []
        session.add_listener(self._on_change)

    def _on_change(self, news: Any) -> None:
        if not isinstance(news, Changed):
            return
        now = time.monotonic()  # called inside the session's lock: only record
        for event in news.events:
            if isinstance(event, BrokerChanged):
                self.broker.append((now, event.health.online, event.health.detail))
            elif isinstance(event, LinkChanged):
                self.links.append((now, event.link.node, event.link.online))

    def states(self, after: float = 0.0) -> list[bool | None]:
        return [online for at, online, _ in self.broker if at > after]

    def first(self, online: bool, after: float = 0.0) -> float:
        return next(at for at, state, _ in self.broker if state is online and at > after)

    def all_back_at(self, nodes: list[str], after: float) -> float:
        """When the last of ``nodes`` was online again after ``after``."""
        return max(
            next(at for at, n, online in self.links if n == node and online and at > after) for node in nodes
        )


def reports(session: Any) -> list[tuple[str, str, int]]:
    """(node, boot, seq) of every node report in the game log, in order."""
    return [
        (e.node, e.boot, e.seq) for e in session.log.events() if isinstance(e, ev.NODE_REPORTS) and e.boot
    ]


def play_through_an_outage(
    table: Table, break_broker: Callable[[], None], restore: Callable[[], None] | None = None
) -> dict[str, float]:
    """Flip during a game, break the broker, flip while it is away, bring it back; check and measure."""
    session = table.app.extensions["companion.session"]
    fleet = table.fleet
    assert fleet is not None
    health = HealthLog(session)
    wait_until(
        lambda: session.table.broker.online and all(n.online for n in session.table.seated_links()),
        message="the hub and every node online",
    )
    assert not isinstance(session.handle(tm.ClockCommand("start")), Exception)
    red = fleet.nodes["red-1"]
    red.flip()
    wait_until(lambda: red.core.last_verdict == "accepted" and not red.core.outbox, message="a flip before")

    broke_at = time.monotonic()
    break_broker()
    cut_off = [fleet.nodes[n] for n in FLIPPED_IN_OUTAGE]
    wait_until(lambda: not any(n.connected.is_set() for n in cut_off), message="the nodes to notice")
    for node in cut_off:
        node.flip()
    assert all(node.core.outbox for node in cut_off), "the flips wait in the nodes' outboxes"
    wait_until(lambda: False in health.states(broke_at), message="the table to show the broker offline")
    offline = {n: link.online for link in session.table.seated_links() for n in [link.node]}
    if restore is not None:
        time.sleep(0.3)  # an outage the hub has to ride out, not a blip
        assert session.table.broker.online is False
        restore()
    restored_at = time.monotonic()

    wait_until(
        lambda: all(not n.core.outbox and n.core.last_verdict == "accepted" for n in cut_off),
        timeout_s=15,
        message="every flip made during the outage to be acknowledged",
    )
    wait_until(
        lambda: session.table.broker.online and all(n.online for n in session.table.seated_links()),
        timeout_s=10,
        message="the hub and every node back online",
    )

    # the broker went offline once and came back once; while it was away no node was online
    assert health.states(broke_at) == [False, True], health.broker
    assert not any(offline.values()), offline
    assert health.first(False) > broke_at
    assert str(next(d for at, online, d in health.broker if online is False)).startswith(
        "lost the connection to the broker at mqtt://"
    )
    # every flip counted once: nothing applied twice, nothing lost
    logged = reports(session)
    assert len(logged) == len(set(logged)), "a node report was applied twice"
    flips = {n: session.state.timers[n].flips for n in FLIPPED_IN_OUTAGE}
    assert flips == {"yellow-1": 1, "green-1": 1, "red-1": 2}
    # and nothing lost: every report red-1 made (flips and its sand running out) is in the log, in
    # whatever order the resends arrived
    assert sorted(seq for node, _, seq in logged if node == "red-1") == list(range(1, red.core.seq + 1))

    offline_at = health.first(False, broke_at)
    online_at = health.first(True, offline_at)
    nodes_back = health.all_back_at([seat.node for seat in session.setup.seats], offline_at)
    return {
        "broker_offline_after_s": offline_at - broke_at,
        "hub_online_after_restore_s": online_at - restored_at,
        "hub_offline_for_s": online_at - offline_at,
        "nodes_offline_for_s": nodes_back - offline_at,
    }


def embedded_table(table_id: str, embedded: str) -> Table:
    options = RunOptions(
        hub=HubConfig(table=table_id, players=4, timers=1),
        embedded=embedded,
        mqtt_port=None,
        http_port=None,
        heartbeat_s=0.5,
    )
    return Table(options)


@pytest.mark.parametrize("embedded", ["mosquitto", "amqtt"])
def test_the_embedded_broker_is_restarted_when_it_dies_mid_game(embedded, table_id, caplog):
    caplog.set_level(logging.WARNING, logger="companion.mqtt.supervisor")
    with embedded_table(table_id, embedded) as table:
        broker, supervisor = table.broker, table.supervisor
        assert broker is not None and supervisor is not None
        assert isinstance(broker, MosquittoBroker if embedded == "mosquitto" else AmqttBroker)
        port, pid = broker.port, broker.pid
        killed_at = 0.0

        def kill() -> None:
            nonlocal killed_at
            killed_at = time.monotonic()
            broker.kill()

        measured = play_through_an_outage(table, kill)
        assert broker.port == port and broker.is_running()
        if embedded == "mosquitto":
            assert broker.pid != pid
        assert supervisor.restarts == 1
        died, restarted = supervisor.events
        assert (died.kind, restarted.kind) == ("died", "restarted")
        assert table.broker_address.port == port
        text = caplog.text
        assert f"the embedded {embedded} broker at {broker.address} stopped" in text
        assert "starting it again now (attempt 1)" in text
        assert "is back at" in text
        if embedded == "mosquitto":
            assert "killed by SIGKILL" in text
        measured["noticed_after_s"] = died.at_s - killed_at
        measured["restarted_after_s"] = restarted.at_s - killed_at
        print(f"\n{embedded} killed: " + ", ".join(f"{k} {v:.3f}" for k, v in measured.items()))
        assert measured["noticed_after_s"] < 0.5
        assert measured["restarted_after_s"] < 2.0
        assert measured["nodes_offline_for_s"] < 5.0


@pytest.mark.parametrize("how", ["kill", "stop"])
def test_an_external_broker_restarted_mid_game(restartable_mosquitto, table_id, how):
    broker = restartable_mosquitto
    options = RunOptions(
        hub=HubConfig(table=table_id, players=4, timers=1),
        broker_url=str(broker.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    with Table(options) as table:
        assert table.supervisor is None  # nobody but its owner restarts an external broker
        pid = broker.pid
        measured = play_through_an_outage(table, getattr(broker, how), broker.start)
        assert broker.pid != pid
        print(f"\nexternal mosquitto {how}: " + ", ".join(f"{k} {v:.3f}" for k, v in measured.items()))
        assert measured["hub_online_after_restore_s"] < 5.0


def test_a_hub_that_cannot_reach_its_broker_at_start_says_so(restartable_mosquitto, table_id):
    broker = restartable_mosquitto
    broker.stop()
    session = TableSession(default_setup(table_id, players=2, timers=1), clock=FakeClock())
    hub = HubBridge(session, broker.address).start()
    try:
        wait_until(lambda: session.table.broker.online is False, message="the broker shown offline")
        detail = from_json(session.snapshot()["broker"]["detail"])
        assert str(detail) == f"cannot reach the broker at {broker.address}"
        broker.start()
        wait_until(lambda: session.table.broker.online, timeout_s=8, message="the broker shown online")
        assert session.snapshot()["broker"]["detail"] == str(broker.address)
    finally:
        hub.stop()
