"""Several tables on one shared mosquitto (docs/club.md): each hub hears only its own table's nodes,
a node's credentials reach only its own topics, and a game log has one writer at a time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from dataclasses import replace
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.bench.procs import HubProcess
from companion.clock import ScaledClock
from companion.core import protocol
from companion.mqtt.auth import BrokerAuth
from companion.mqtt.bridge import HubBridge
from companion.mqtt.broker import MosquittoBroker, find_mosquitto
from companion.node.sim import SimFleet
from companion.rules.setup import Seat, make_setup
from companion.table import events as ev
from companion.table.log import EventLog, LogInUseError, read_log
from companion.table.session import TableSession
from tests.conftest import wait_until

pytestmark = pytest.mark.broker


def api_state(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10) as response:
        return json.loads(response.read())


def flipped(log_path: Path) -> list[ev.TimerFlipped]:
    return [e for e in read_log(log_path).events if isinstance(e, ev.TimerFlipped)]


def test_two_hub_processes_on_one_broker_hear_only_their_own_table(mosquitto, table_id, tmp_path):
    """Two ``companion run`` hubs (tables A and B, nodes with the same ids at both) share one
    anonymous mosquitto: every flip is acknowledged by its own table's hub and logged there only."""
    url = f"mqtt://{mosquitto.address.host}:{mosquitto.address.port}"
    tables = [f"{table_id}a", f"{table_id}b"]
    hubs = [HubProcess(url, tmp_path / t, table=t, nodes=4) for t in tables]
    fleets = []
    try:
        infos = [hub.wait_ready() for hub in hubs]
        for table in tables:
            nodes = [f"n{i:03d}" for i in range(4)]
            fleets.append(SimFleet(table, nodes, mosquitto.address, ScaledClock(1.0)).start())
        for fleet in fleets:
            assert fleet.wait_connected(10)
        for fleet in fleets:
            for node in fleet.nodes.values():
                node.flip()
        wait_until(
            lambda: all(not n.core.outbox for f in fleets for n in f.nodes.values()),
            timeout_s=15,
            message="every flip acknowledged",
        )
        assert all(n.core.last_verdict == "accepted" for f in fleets for n in f.nodes.values())
        for info in infos:
            state = api_state(info["http_ports"][0])
            assert [t["flips"] for p in state["players"] for t in p["timers"]] == [1, 1, 1, 1]
            assert state["stats"]["counts"].get("rejected", 0) == 0
    finally:
        for fleet in fleets:
            fleet.stop()
        for hub in hubs:
            hub.stop()
    for table, fleet in zip(tables, fleets, strict=True):
        boots = {n.core.boot_id for n in fleet.nodes.values()}
        logged = flipped(tmp_path / table / "tables" / f"{table}-bench.jsonl")
        assert len(logged) == 4 and {e.boot for e in logged} == boots, (
            f"table {table} logged another table's flip"
        )


class ClubUsers:
    """The users of a shared mosquitto, made from every table's own credential store (docs/club.md):
    each table's hub logs in as ``hub-<table>`` (the store's ``hub`` user renamed, same password), node
    users keep their ids, which must therefore differ between the tables."""

    def __init__(self, folder: Path, stores: list[BrokerAuth]) -> None:
        self.folder, self.stores = folder, stores

    def mosquitto_files(self) -> tuple[Path, Path]:
        passwd, acl = [], []
        for auth in self.stores:
            user = f"hub-{auth.table}"
            passwd.append(auth.password_text().replace("hub:", f"{user}:", 1))
            acl.append(auth.acl_text().replace("\nuser hub\n", f"\nuser {user}\n", 1))
        (self.folder / "club.passwd").write_text("".join(passwd))
        (self.folder / "club.acl").write_text("\n".join(acl))
        return self.folder / "club.passwd", self.folder / "club.acl"

    def record_broker(self, pid: int, argv: list[str]) -> None:
        pass

    def forget_broker(self, pid: int | None = None) -> None:
        pass


def test_on_a_locked_shared_broker_a_node_reaches_only_its_own_table(tmp_path, table_id):
    if find_mosquitto() is None:
        pytest.fail("mosquitto is not installed: apt-get install -y mosquitto (.ci/run does this)")
    names = {f"{table_id}a": ("a1", "a2"), f"{table_id}b": ("b1", "b2")}
    stores = {}
    for table, nodes in names.items():
        auth = BrokerAuth.for_table(tmp_path / "data", table)
        for node in nodes:
            auth.add_node(node)
        stores[table] = auth
    broker = MosquittoBroker("127.0.0.1", auth=ClubUsers(tmp_path, list(stores.values()))).start()
    sessions, bridges, fleets = {}, [], []
    try:
        for table, nodes in names.items():
            auth = stores[table]
            setup = make_setup(
                table=table, players=("red",), seats=tuple(Seat("red", i + 1, n) for i, n in enumerate(nodes))
            )
            session = TableSession(setup, clock=ScaledClock(1.0))
            hub_address = auth.hub_address(broker.address)
            bridge = HubBridge(session, replace(hub_address, username=f"hub-{table}"))
            bridges.append(bridge.start())
            sessions[table] = session
            fleet = SimFleet(
                table,
                nodes,
                broker.address,
                ScaledClock(1.0),
                address_for=lambda n, a=auth: a.node_address(broker.address, n),
            )
            fleets.append(fleet.start())
        assert all(b.connected.wait(10) for b in bridges) and all(f.wait_connected(10) for f in fleets)
        a, b = names
        # hub A's user cannot listen in on table B
        spy_seen: list[str] = []
        spy = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="spy")
        spy.username_pw_set(f"hub-{a}", stores[a].hub_address(broker.address).password)
        spy.on_connect = lambda c, *args: c.subscribe(protocol.table_prefix(b) + "/#", 1)
        spy.on_message = lambda c, u, msg: spy_seen.append(msg.topic)
        spy.connect(broker.address.host, broker.address.port)
        spy.loop_start()
        # node a1 forges a flip of table B's node b1 with its own credentials: the broker drops it
        forger = fleets[0].nodes["a1"]
        forged = protocol.encode("event", "flip", boot="0f0f0f0f", seq=1, t_ms=1, upper_ms=60000, lower_ms=0)
        assert forger.radio.client is not None
        forger.radio.client.publish(protocol.node_topic(b, "b1", "event"), forged, qos=1).wait_for_publish(5)
        for fleet in fleets:
            for node in fleet.nodes.values():
                node.flip()
        wait_until(
            lambda: all(not n.core.outbox for f in fleets for n in f.nodes.values()),
            timeout_s=15,
            message="every flip acknowledged by its own hub",
        )
        spy.loop_stop()
        spy.disconnect()
        for table, session in sessions.items():
            logged = [e for e in session.log.events() if isinstance(e, ev.TimerFlipped)]
            assert sorted(e.node for e in logged) == sorted(names[table])
            assert "0f0f0f0f" not in {e.boot for e in logged}
        assert spy_seen == [], "a hub's user read another table's topics"
    finally:
        for fleet in fleets:
            fleet.stop()
        for bridge in bridges:
            bridge.stop()
        broker.close()


def test_a_game_log_has_one_writer_and_another_hub_resumes_it_after_a_crash(mosquitto, table_id, tmp_path):
    """A live hub holds its log's lock: a second hub (another process, as on shared storage)
    refuses to open it; once the first hub is killed, the second resumes the game."""
    url = f"mqtt://{mosquitto.address.host}:{mosquitto.address.port}"
    hub = HubProcess(url, tmp_path, table=table_id, nodes=2)
    path = tmp_path / "tables" / f"{table_id}-bench.jsonl"
    try:
        hub.wait_ready()
        with pytest.raises(LogInUseError, match="open in another running hub"):
            EventLog.open_existing(path)
        second = subprocess.run(
            [
                sys.executable,
                "-c",
                f"from companion.table.log import EventLog; EventLog.open_existing({str(path)!r})",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode != 0 and "LogInUseError" in second.stderr
        os.kill(hub.pid, signal.SIGKILL)  # the hub crashes; the kernel lets go of its lock
        hub.proc.wait(10)
        resumed = EventLog.open_existing(path)
        assert resumed.setup.table == table_id
        resumed.close()
    finally:
        hub.stop()


def test_in_one_process_a_log_open_twice_is_refused_until_closed(tmp_path):
    from companion.rules.setup import default_setup

    setup = default_setup("t1", players=1, timers=1)
    first = EventLog.for_new_game(setup, tmp_path / "game.jsonl", fsync=False)
    with pytest.raises(LogInUseError):
        EventLog.open_existing(tmp_path / "game.jsonl", fsync=False)
    first.close()
    EventLog.open_existing(tmp_path / "game.jsonl", fsync=False).close()
