"""Time 'n' Space end to end: mosquitto, the hub, simulated sandtimer nodes over MQTT, at 200x speed.

12 game minutes last 3.6 real seconds and a sandtimer minute 0.3 s.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from companion.table import messages as msg
from tests.conftest import wait_seated_online, wait_until

from .test_time_n_space_helpers import intent as choice

pytestmark = pytest.mark.broker


@pytest.fixture
def table(mosquitto, table_id):
    options = RunOptions(
        hub=HubConfig(
            table=table_id,
            game="time-n-space",
            variant="intro",
            players=3,
            timers=2,
            time_scale=200,
            clock_minutes=12,
        ),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    table = Table(options).start()
    try:
        assert table.fleet.wait_connected(10)
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        yield table
    finally:
        table.stop()


def api(table: Table, path: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        table.url.rstrip("/") + path,
        data=data,
        method="GET" if body is None else "POST",
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def flip(table: Table, node: str, **intent) -> tuple[str, str]:
    """Store the intent, turn the simulated node over and wait for the hub's verdict."""
    session = table.app.extensions["companion.session"]
    if intent:
        player = session.setup.seat_of(node).player
        assert session.handle(msg.ChooseIntent(player, node, choice(**intent))).refusal is None
    sim = table.fleet.nodes[node]
    sim.flip()
    wait_until(
        lambda: not any(kind == "flip" for _, kind, _ in sim.core.outbox),
        timeout_s=5,
        message=f"the verdict on {node}",
    )
    return sim.core.last_verdict, sim.core.last_reason


def finished(table: Table, *nodes: str) -> None:
    """Wait until the engine knows these sandtimers ran through (the nodes reported it)."""
    session = table.app.extensions["companion.session"]

    def done() -> bool:
        game = session.state.game
        for node in nodes:
            seat = session.setup.seat_of(node)
            timer = game.player(seat.player).timers[seat.index - 1]
            if timer.symbol is None or timer.running:
                return False
        return True

    wait_until(done, timeout_s=5, message=f"the sand of {', '.join(nodes)} to run through")


def test_a_short_introductory_game_on_the_hub_ends_with_the_scoring(table):
    session = table.app.extensions["companion.session"]
    assert session.referee.game == "time-n-space"
    # the table plays with its box: before the clock each player tells the hub the ocher tile they drew
    refused = session.handle(msg.ClockCommand("start")).refusal
    assert "still must tell the hub which ocher tile they drew" in str(refused.reason)
    for player, tile in (("red", "t01"), ("yellow", "t03"), ("green", "t05")):
        status, body = api(
            table, f"/api/players/{player}/action", {"action": {"@": "OcherTile", "tile": tile}}
        )
        assert status == 200 and body["ok"], body
    assert session.handle(msg.ClockCommand("start")).refusal is None

    # minute 1: red beams and flies towards green; yellow tries an empty research plant
    assert flip(table, "red-1", symbol="b7") == ("accepted", "")
    assert flip(table, "red-2", symbol="ship", destination="moon-3") == ("accepted", "")
    refused = session.handle(msg.ChooseIntent("yellow", "yellow-1", choice(symbol="research"))).refusal
    assert "Your research plant is empty" in str(refused.reason)  # the phone hears it at once
    finished(table, "red-1", "red-2")
    # minute 2: the beam station fills, the ship flies on to green's planet
    assert flip(table, "red-1", symbol="b8") == ("accepted", "")
    assert flip(table, "red-2", symbol="ship", destination="planet-3") == ("accepted", "")
    red = session.state.game.player("red")
    assert [c.color if c else None for c in red.building("b7").contents] == ["gray", "gray", None]
    finished(table, "red-1", "red-2")
    # minute 3: all gray counters go onto the control center; green's gray order is fulfilled
    assert flip(table, "red-1", trade=[["gray", 1]] * 3) == ("accepted", "")
    assert flip(table, "red-2") == ("accepted", "")
    red = session.state.game.player("red")
    assert [(c.color, c.value, c.source) for c in red.collected] == [("gray", 1, "green")]
    assert not any(o.color == "gray" for o in red.above)

    # the master clock runs out; the running sandtimers finish; the finished ones are lifted
    wait_until(
        lambda: session.state.game.phase == "ending", timeout_s=8, message="the master clock to run out"
    )
    assert session.snapshot()["scores"] is None
    finished(table, "red-1", "red-2")
    status, body = api(table, "/api/table/action", {"action": {"@": "LiftEveryFinished"}})
    assert status == 200 and body["ok"], body  # the host, from the dashboard
    assert session.state.game.phase == "over"

    scores = session.snapshot()["scores"]
    assert api(table, "/api/state")[1]["scores"] == scores
    assert scores["players"]["red"]["rows"]["gray"] == {
        "value": 1,
        "players": 1,
        "bonus": 0,
        "points": 1,
        "void": False,
    }
    assert scores["players"]["red"]["total"] == 1
    assert scores["players"]["yellow"]["total"] == 0 and scores["players"]["green"]["total"] == 0
    assert scores["ranking"][0] == "red" and scores["winners"] == ["red"]
