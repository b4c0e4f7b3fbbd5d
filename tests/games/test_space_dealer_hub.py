"""Space Dealer end to end: mosquitto, the hub, simulated sandtimer nodes over MQTT, at 200x speed.

30 game minutes last 9 real seconds and a sandtimer minute 0.3 s. The table plays with its box (the
default): before the clock the phones tell the hub each player's Mines and Depot and the neutral orders
turned up, and a draw is the card the player kept, so red keeps a Robot Factory and a Sabotage Probe.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from companion.games.space_dealer.model import Phase, TimerStatus
from companion.hub import HubConfig
from companion.i18n import render_tree
from companion.node.sim import SimNode
from companion.runtime import RunOptions, Table
from companion.table import messages as msg
from tests.conftest import wait_until

pytestmark = pytest.mark.broker


@pytest.fixture
def table(mosquitto, table_id):
    options = RunOptions(
        hub=HubConfig(
            table=table_id, game="space-dealer", players=3, timers=2, time_scale=200, clock_minutes=30
        ),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    table = Table(options).start()
    try:
        assert table.fleet.wait_connected(10)
        session = table.app.extensions["companion.session"]
        wait_until(
            lambda: all(info.online for info in session.table.links.values()),
            timeout_s=10,
            message="all simulated nodes online",
        )
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


def act(table: Table, player: str, action: dict) -> None:
    """Tap a move on the phone: posted as the game's codec writes it (``{"@": "PlayCard", ...}``)."""
    status, body = api(table, f"/api/players/{player}/action", {"action": action})
    assert status == 200 and body["ok"], body


def flip(table: Table, node: str, job: dict) -> tuple[str, str]:
    """Choose the job on the phone page, turn the simulated node over and wait for the hub's verdict."""
    session = table.app.extensions["companion.session"]
    player = session.setup.seat_of(node).player
    status, body = api(table, f"/api/players/{player}/intent", {"node": node, "intent": job})
    assert status == 200, body
    sim = table.fleet.nodes[node]
    sim.flip()
    wait_until(
        lambda: not any(kind == "flip" for _, kind, _ in sim.core.outbox),
        timeout_s=5,
        message=f"the verdict on {node}",
    )
    return sim.core.last_verdict, sim.core.last_reason


def done(table: Table, *nodes: str) -> None:
    """Wait until the engine has applied these timers' jobs (their nodes reported the sand ran out)."""
    session = table.app.extensions["companion.session"]

    def free() -> bool:
        game = session.state.game
        for node in nodes:
            seat = session.setup.seat_of(node)
            if game.player(seat.player).timers[seat.index - 1].status is not TimerStatus.INACTIVE:
                return False
        return True

    wait_until(free, timeout_s=5, message=f"the sand of {', '.join(nodes)} to run out")


def test_a_game_on_the_hub_with_a_third_timer_and_a_sabotage_that_turns_a_node_red(table):
    session = table.app.extensions["companion.session"]
    assert session.referee.game == "space-dealer"
    verdict, reason = flip(table, "red-1", {"@": "RaiseTechLevel"})
    assert verdict == "rejected" and "The game has not started" in reason
    # the refused flip still turned the glass: its sand must run through before red-1 takes a job
    wait_until(lambda: table.fleet.nodes["red-1"].core.sand.is_empty(), message="red-1's sand to run out")
    refused = session.handle(msg.ClockCommand("start")).refusal
    assert refused is not None and "tell the hub what the table dealt" in str(refused.reason)

    # what the box dealt, told from the phones: each player's Mines and Depot, the orders turned up
    for player, mines, depot in (
        ("red", "red", "depot-1"),
        ("yellow", "yellow", "depot-2"),
        ("green", "green", "depot-3"),
    ):
        act(table, player, {"@": "TakeMines", "without": mines})
        act(table, player, {"@": "TakeDepot", "card": depot})
    for field, order in ((1, "gizzi-1"), (3, "gizzi-2"), (5, "gizzi-3")):
        act(table, "red", {"@": "RevealOrder", "field": field, "order": order})
    assert session.handle(msg.ClockCommand("start")).refusal is None

    # red raises the tech level and builds a second Generator; yellow breaks a rule
    generator = next(c for c in session.state.game.player("red").stack if c.startswith("generator"))
    act(table, "red", {"@": "PlayCard", "card": generator})
    assert flip(table, "red-1", {"@": "RaiseTechLevel"}) == ("accepted", "")
    assert flip(table, "red-2", {"@": "BuildCard", "card": generator, "x": 2}) == ("accepted", "")
    verdict, reason = flip(table, "yellow-1", {"@": "BuildCard", "card": "depot-2", "x": 0})
    assert verdict == "rejected" and "Only cards in your planning area can be built" in reason
    done(table, "red-1", "red-2")

    # level 2: a Robot Factory from the common stack; the hub asks for red's third sandtimer
    act(table, "red", {"@": "DrawTechCards", "level": 2})
    act(table, "red", {"@": "KeepDrawnCard", "card": "robot-factory-1"})
    assert flip(table, "red-1", {"@": "BuildCard", "card": "robot-factory-1", "x": -1}) == ("accepted", "")
    assert flip(table, "red-2", {"@": "RaiseTechLevel"}) == ("accepted", "")
    done(table, "red-1", "red-2")
    assert session.table.seat_request == ("red", 3)
    spare = SimNode(
        session.setup.table, "spare-9", table.broker_address, table.clock, sand_ms=60000, heartbeat_s=0.5
    )
    table.fleet.nodes["spare-9"] = spare.start()
    assert spare.connected.wait(10)
    spare.flip()
    wait_until(
        lambda: spare.core.last_verdict is not None, timeout_s=5, message="the verdict on the new node"
    )
    assert session.setup.seat_of("spare-9").index == 3 and spare.core.last_verdict == "accepted"
    wait_until(
        lambda: session.state.game.node_of("red", 3) == "spare-9",
        timeout_s=5,
        message="the pairing flip of the new node to run out",
    )

    # level 3: a Sabotage Probe, built on the new Generator's connection and loaded by the third timer
    act(table, "red", {"@": "DrawTechCards", "level": 3})
    act(table, "red", {"@": "KeepDrawnCard", "card": "sabotage-probe-1"})
    assert flip(table, "red-1", {"@": "BuildCard", "card": "sabotage-probe-1", "x": 2}) == ("accepted", "")
    done(table, "red-1")
    assert flip(table, "spare-9", {"@": "UseCard", "card": "sabotage-probe-1"}) == ("accepted", "")
    done(table, "spare-9")
    red = session.state.game.player("red")
    assert red.built_card("sabotage-probe-1").attack_markers == 1

    # green raises the tech level; red sabotages that timer from the phone: the node turns red
    assert flip(table, "green-1", {"@": "RaiseTechLevel"}) == ("accepted", "")
    act(table, "red", {"@": "Sabotage", "target_player": "green", "target_timer": 0})
    green_1 = table.fleet.nodes["green-1"]
    wait_until(lambda: green_1.show() == "sabotaged", timeout_s=2, message="green-1 to show sabotaged")
    dashboard = render_tree(api(table, "/api/state")[1]["view"], "en")
    attacks = next(p for p in dashboard["panels"] if p["title"] == "Sabotage and rocket blocks")
    assert "green's timer 1 sabotaged by red: runs out with no effect" in attacks["lines"]
    done(table, "green-1")
    assert green_1.show() != "sabotaged"
    game = session.state.game
    assert game.player("green").tech_level == 1  # the effect was voided
    assert game.player("green").timers[0].sabotaged_by is None

    # the master clock runs out; nothing runs any more, so the score is final at once
    wait_until(
        lambda: session.state.game.phase is Phase.OVER,
        timeout_s=12,
        message="the master clock to run out",
    )
    scores = api(table, "/api/state")[1]["scores"]
    assert scores == {
        "players": {name: {"total": 0, "markers": 0} for name in ("red", "yellow", "green")},
        "ranking": ["red", "yellow", "green"],
        "winners": ["red", "yellow", "green"],
    }
