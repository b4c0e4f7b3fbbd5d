"""Players' phone API with a stand-in referee: actions, refusals in red, intents used at the next flip."""

from __future__ import annotations

from typing import Any

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.games.base import Rejected
from companion.games.sandtimers import FreeTimers
from companion.hub import create_app
from companion.rules import Decision, MenuItem, View
from companion.rules.setup import default_setup
from companion.table.session import TableSession
from tests.conftest import replays


class CountingReferee(FreeTimers):
    """Points for each tap; a flip needs an intent naming a symbol; 'cheat' is against the rules."""

    game = "counting"

    def start(self, setup):
        return {"points": {}, "placed": {}}

    def replay(self, state, action):
        return self._apply(state, action)

    def _apply(self, state, action):
        points = dict(state["points"])
        placed = dict(state["placed"])
        if action["type"] == "point":
            points[action["player"]] = points.get(action["player"], 0) + 1
        elif action["type"] == "place":
            placed[action["node"]] = action["symbol"]
        return {"points": points, "placed": placed}

    def timer_flipped(self, state, seat, *, intent, ran_out):
        if not intent:
            return Rejected("Choose a symbol for this timer first", "Placing sandtimers")
        action = {"type": "place", "node": seat.node, "symbol": intent["symbol"]}
        return Decision(
            self._apply(state, action),
            actions=(action,),
            notes=(f"{seat.player} placed on {intent['symbol']}",),
        )

    def player_action(self, state, player, action: dict[str, Any]):
        if action.get("type") == "cheat":
            return Rejected("That is not allowed", "Rule 1")
        act = {"type": "point", "player": player}
        return Decision(self._apply(state, act), actions=(act,), notes=(f"{player} scored",))

    def menu(self, state, player, *, intents):
        return [
            MenuItem("point", "Score a point", "Actions", action={"type": "point"}),
            MenuItem(
                "ship",
                "Spaceship",
                "Timer 1",
                intent={"node": f"{player}-1", "symbol": "ship"},
                selected=intents.get(f"{player}-1", {}).get("symbol") == "ship",
            ),
        ]

    def view(self, state):
        return View(
            "points",
            (
                {
                    "kind": "lines",
                    "title": "Points",
                    "lines": [f"{k}: {v}" for k, v in sorted(state["points"].items())],
                },
            ),
        )

    def player_view(self, state, player):
        return View(f"{state['points'].get(player, 0)} points")


@pytest.fixture
def app():
    setup = default_setup("t1", players=2, timers=1)
    session = TableSession(setup, clock=FakeClock(), referee=CountingReferee(setup))
    app = create_app({"table": "t1", "players": 2, "timers": 1})
    app.extensions["companion.session"] = session
    return app


def test_a_tap_is_applied_and_logged(app):
    client = app.test_client()
    res = client.post("/api/players/red/action", json={"action": {"type": "point"}})
    assert res.status_code == 200 and res.get_json()["notes"] == ["red scored"]
    session = app.extensions["companion.session"]
    assert session.state.game["points"] == {"red": 1}
    assert client.get("/api/state").get_json()["view"]["panels"][0]["lines"] == ["red: 1"]
    assert replays(session)


def test_a_refused_tap_shows_the_rule_and_changes_nothing(app):
    client = app.test_client()
    res = client.post("/api/players/red/action", json={"action": {"type": "cheat"}})
    assert res.status_code == 409 and res.get_json()["error"] == "That is not allowed (Rule 1)"
    snap = client.get("/api/players/red").get_json()
    assert snap["refusal"]["reason"] == "That is not allowed (Rule 1)"
    assert app.extensions["companion.session"].state.game["points"] == {}


@pytest.mark.parametrize(
    "url, body, status, error",
    [
        ("/api/players/red/action", None, 400, "send a JSON object"),
        ("/api/players/red/action", {"action": "point"}, 400, "send a JSON object"),
        ("/api/players/nobody/action", {"action": {}}, 409, "there is no player 'nobody'"),
        ("/api/players/nobody/intent", {"node": "red-1", "intent": {}}, 404, "there is no player"),
        (
            "/api/players/red/intent",
            {"node": "yellow-1", "intent": {"symbol": "ship"}},
            409,
            "does not belong to red",
        ),
        ("/api/players/red/intent", {"node": 3}, 400, "send a JSON object"),
    ],
)
def test_bad_requests_are_explained(app, url, body, status, error):
    client = app.test_client()
    res = client.post(url, json=body) if body is not None else client.post(url, data="{not json")
    assert res.status_code == status and error in res.get_json()["error"]


def test_intent_is_used_at_the_next_flip(app):
    client = app.test_client()
    session = app.extensions["companion.session"]
    flip = p.validate(
        "event",
        {"v": 1, "kind": "flip", "boot": "0a1b2c3d", "seq": 1, "t_ms": 0, "upper_ms": 60000, "lower_ms": 0},
    )
    [reply] = session.node_message("red-1", flip)
    assert reply.fields["verdict"] == "rejected" and "Choose a symbol" in reply.fields["reason"]
    assert client.get("/api/players/red").get_json()["refusal"]["reason"].startswith("Choose a symbol")
    menu = client.get("/api/players/red").get_json()["menu"]
    assert [m["id"] for m in menu] == ["point", "ship"] and not menu[1]["selected"]
    assert (
        client.post(
            "/api/players/red/intent", json={"node": "red-1", "intent": menu[1]["intent"]}
        ).status_code
        == 200
    )
    assert client.get("/api/players/red").get_json()["menu"][1]["selected"]
    flip2 = p.validate("event", dict(flip.fields(), v=1, kind="flip", seq=2))
    [reply] = session.node_message("red-1", flip2)
    assert reply.fields["verdict"] == "accepted"
    assert session.state.game["placed"] == {"red-1": "ship"}
    assert "red placed on ship" in [e["text"] for e in client.get("/api/state").get_json()["recent"]]


def test_pages_are_served(app):
    client = app.test_client()
    assert b"player.js" in client.get("/play/red").data
    res = client.get("/play/mallory")
    assert res.status_code == 404 and b"/play/red" in res.data
