"""Undo of the latest accepted action (with confirmation) and restarting a node from the hub."""

from __future__ import annotations

import pytest

from companion.clock import FakeClock
from companion.games import register, unregister
from companion.hub import HubConfig, create_app
from companion.i18n import render_tree
from companion.runtime import RunOptions, Table
from companion.table import events as ev
from tests.conftest import replays, wait_until


@pytest.fixture
def app():
    register("counting", "tests.hub.counting_game")
    try:
        yield create_app({"table": "t1", "game": "counting", "players": 2, "timers": 1}, clock=FakeClock())
    finally:
        unregister("counting")


def test_undo_needs_confirmation_and_takes_back_the_latest_tap(app):
    client = app.test_client()
    session = app.extensions["companion.session"]
    assert (
        client.post("/api/undo", json={"confirm": True}).get_json()["error"]
        == "There is no accepted action to undo"
    )
    client.post("/api/players/red/action", json={"action": {"@": "Point"}})
    client.post("/api/players/yellow/action", json={"action": {"@": "Point"}})
    res = client.post("/api/undo", json={})
    assert res.status_code == 409 and res.get_json()["error"] == "Confirm to undo: yellow scored"
    assert session.state.game.points_of() == {"red": 1, "yellow": 1}
    assert english(client.get("/api/undo").get_json()["undo"]) == "yellow scored"
    assert english(client.post("/api/undo", json={"confirm": True}).get_json()["undone"]) == "yellow scored"
    assert session.state.game.points_of() == {"red": 1}
    assert english(client.get("/api/undo").get_json()["undo"]) == "red scored"
    assert isinstance(session.log.events()[-1], ev.StepUndone)
    assert replays(session)
    client.post("/api/undo", json={"confirm": True})
    assert session.state.game.points_of() == {}
    assert "undone: red scored" in [english(e["text"]) for e in client.get("/api/state").get_json()["recent"]]


def english(value):
    return render_tree(value, "en")


@pytest.mark.broker
def test_restart_brings_a_node_back_with_a_new_boot(mosquitto, table_id):
    options = RunOptions(
        hub=HubConfig(table=table_id, players=1, timers=1),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    with Table(options) as table:
        session = table.app.extensions["companion.session"]
        wait_until(lambda: session.table.link("red-1").boot, message="the node's hello")
        before = session.table.link("red-1").boot
        client = table.app.test_client()
        assert client.post("/api/nodes/red-1/restart").status_code == 200
        wait_until(lambda: session.table.link("red-1").boot not in (None, before), message="a new boot id")
        node = table.fleet.nodes["red-1"]
        node.flip()
        wait_until(lambda: node.core.last_verdict == "accepted", message="the restarted node plays on")
        assert client.post("/api/nodes/nobody/restart").status_code == 404
