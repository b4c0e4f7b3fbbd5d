"""Players' phone API with a stand-in referee: actions, refusals in red, intents used at the next flip,
unknown players, and request ids that make a double tap count once."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.games import register, unregister
from companion.hub import create_app
from companion.hub.api import RecentAnswers
from companion.rules.setup import default_setup
from companion.table.session import TableSession
from companion.testing import deliver
from tests.conftest import replays, wait_until
from tests.hub.counting_game import CountingReferee, Symbol


@pytest.fixture
def app():
    register("counting", "tests.hub.counting_game")
    try:
        setup = default_setup("t1", players=2, timers=1, game="counting")
        session = TableSession(setup, clock=FakeClock())
        app = create_app({"table": "t1", "players": 2, "timers": 1})
        app.extensions["companion.session"] = session
        yield app
    finally:
        unregister("counting")


def referee(app) -> CountingReferee:
    return app.extensions["companion.session"].referee


def points(app) -> dict[str, int]:
    return app.extensions["companion.session"].state.game.points_of()


def test_a_tap_is_applied_and_logged(app):
    client = app.test_client()
    res = client.post("/api/players/red/action", json={"action": {"@": "Point"}})
    assert res.status_code == 200
    assert res.get_json()["notes"] == [{"msg": "{player} scored", "args": {"player": "red"}}]
    session = app.extensions["companion.session"]
    assert points(app) == {"red": 1}
    assert client.get("/api/state").get_json()["view"]["panels"][0]["lines"] == ["red: 1"]
    assert replays(session)


def test_a_refused_tap_shows_the_reason_and_the_rule_and_changes_nothing(app):
    client = app.test_client()
    res = client.post("/api/players/red/action", json={"action": {"@": "Cheat"}})
    assert res.status_code == 409
    body = res.get_json()
    assert body["error"] == "That is not allowed (Rule 1)", "the English sentence, for scripts"
    assert body["reason"] == {"msg": "That is not allowed"} and body["rule"] == {"msg": "Rule 1"}
    assert body["message"] == {
        "msg": "{reason} ({rule})",
        "args": {"reason": {"msg": "That is not allowed"}, "rule": {"msg": "Rule 1"}},
    }
    refusal = client.get("/api/players/red").get_json()["refusal"]
    assert refusal["reason"] == {"msg": "That is not allowed"} and refusal["rule"] == {"msg": "Rule 1"}
    assert points(app) == {}


@pytest.mark.parametrize(
    "url, body, status, error",
    [
        ("/api/players/red/action", None, 400, "send a JSON object"),
        ("/api/players/red/action", {"action": "point"}, 400, "send a JSON object"),
        (
            "/api/players/red/intent",
            {"node": "yellow-1", "intent": {"@": "Symbol", "symbol": "ship"}},
            409,
            "does not belong to red",
        ),
        ("/api/players/red/intent", {"node": 3}, 400, "send a JSON object"),
        ("/api/players/red/action", {"action": {"@": "Point"}, "request": 7}, 400, "request id must be"),
        (
            "/api/players/red/action",
            {"action": {"@": "Point"}, "request": "a b"},
            400,
            "request id must be",
        ),
        ("/api/players/red/action", {"action": {"@": "Point"}, "request": "x" * 65}, 400, "request id"),
    ],
)
def test_bad_requests_are_explained(app, url, body, status, error):
    client = app.test_client()
    res = client.post(url, json=body) if body is not None else client.post(url, data="{not json")
    assert res.status_code == status and error in res.get_json()["error"]
    assert points(app) == {}


@pytest.mark.parametrize(
    "method, url, body",
    [
        ("GET", "/api/players/nobody", None),
        ("POST", "/api/players/nobody/action", {"action": {"@": "Point"}}),
        ("POST", "/api/players/nobody/intent", {"node": "red-1", "intent": None}),
        ("POST", "/api/players/nobody/action", None),  # even before the body is read
        ("POST", "/api/players/nobody/token", None),
        ("DELETE", "/api/players/nobody/token", None),
    ],
)
def test_an_unknown_player_is_404_on_every_route(app, method, url, body):
    res = app.test_client().open(url, method=method, json=body)
    assert res.status_code == 404
    answer = res.get_json()
    assert answer["ok"] is False and answer["error"] == "There is no player “nobody” at this table."
    assert answer["message"] == {
        "msg": "There is no player “{player}” at this table.",
        "args": {"player": "nobody"},
    }


def test_a_repeated_request_id_is_applied_once_and_gets_the_first_answer(app):
    client = app.test_client()
    tap = {"action": {"@": "Point"}, "request": "tap-1"}
    first = client.post("/api/players/red/action", json=tap)
    again = client.post("/api/players/red/action", json=tap)
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json()
    assert points(app) == {"red": 1} and referee(app).decided == 1
    assert client.post("/api/players/red/action", json=dict(tap, request="tap-2")).status_code == 200
    assert points(app) == {"red": 2}, "a new tap has a new id"
    plain = {"action": {"@": "Point"}}
    client.post("/api/players/red/action", json=plain)
    client.post("/api/players/red/action", json=plain)
    assert points(app) == {"red": 4}, "a request without an id is applied as it comes"


def test_a_repeated_refusal_is_the_same_refusal(app):
    client = app.test_client()
    cheat = {"action": {"@": "Cheat"}, "request": "c-1"}
    first = client.post("/api/players/red/action", json=cheat)
    again = client.post("/api/players/red/action", json=cheat)
    assert first.status_code == again.status_code == 409 and first.get_json() == again.get_json()
    assert referee(app).decided == 1


def test_ids_belong_to_one_player_and_one_request(app):
    client = app.test_client()
    tap = {"action": {"@": "Point"}, "request": "same"}
    assert client.post("/api/players/red/action", json=tap).status_code == 200
    assert client.post("/api/players/yellow/action", json=tap).status_code == 200
    assert points(app) == {"red": 1, "yellow": 1}, "each player's phone counts its own ids"
    other = client.post("/api/players/red/action", json={"action": {"@": "Cheat"}, "request": "same"})
    assert other.status_code == 409 and "already used for another request" in other.get_json()["error"]
    assert referee(app).decided == 2


def test_an_intent_with_a_repeated_id_is_set_once(app):
    client = app.test_client()
    body = {"node": "red-1", "intent": {"@": "Symbol", "symbol": "ship"}, "request": "i-1"}
    first = client.post("/api/players/red/intent", json=body)
    again = client.post("/api/players/red/intent", json=body)
    assert first.status_code == again.status_code == 200 and first.get_json() == again.get_json()
    session = app.extensions["companion.session"]
    assert dict(session.table.intents) == {"red-1": Symbol("ship")}
    assert not session.log.events(), "intents are live choices, never logged"


def test_a_double_tap_sent_at_once_waits_for_the_first_answer(app):
    """The second request arrives while the first is still being decided: it waits and gets that answer."""
    rules = referee(app)
    rules.gate = threading.Event()
    answers: list[tuple[int, Any]] = []

    def tap() -> None:
        res = app.test_client().post(
            "/api/players/red/action", json={"action": {"@": "Point"}, "request": "double"}
        )
        answers.append((res.status_code, res.get_json()))

    first = threading.Thread(target=tap)
    first.start()
    assert rules.entered.wait(5), "the first tap is being decided"
    second = threading.Thread(target=tap)
    second.start()
    second.join(0.1)
    assert second.is_alive(), "the repeated tap waits for the first answer"
    rules.gate.set()
    first.join(5)
    second.join(5)
    wait_until(lambda: len(answers) == 2, message="both answers")
    assert answers[0] == answers[1] and answers[0][0] == 200
    assert rules.decided == 1 and points(app) == {"red": 1}


def test_answers_are_kept_per_player_and_bounded():
    answers = RecentAnswers(kept=3, scopes=2)
    decided: list[str] = []

    def decide(name: str):
        def run():
            decided.append(name)
            return {"ok": True, "n": len(decided)}, 200

        return run

    for rid in ("a", "b", "c", "d"):
        answers.once("red", rid, "{}", decide(rid))
    assert answers.once("red", "d", "{}", decide("d again")) == ({"ok": True, "n": 4}, 200)
    answers.once("red", "a", "{}", decide("a again"))
    assert decided[-1] == "a again", "the oldest answer was forgotten"
    answers.once("yellow", "a", "{}", decide("yellow"))
    answers.once("green", "a", "{}", decide("green"))
    answers.once("red", "d", "{}", decide("red forgotten"))
    assert decided[-1] == "red forgotten", "only the latest players' answers are kept"


def test_a_failed_decision_is_not_remembered():
    answers = RecentAnswers()

    def broken():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        answers.once("red", "x", "{}", broken)
    assert answers.once("red", "x", "{}", lambda: ({"ok": True}, 200)) == ({"ok": True}, 200)


def test_intent_is_used_at_the_next_flip(app):
    client = app.test_client()
    session = app.extensions["companion.session"]
    flip = p.validate(
        "event",
        {"v": 1, "kind": "flip", "boot": "0a1b2c3d", "seq": 1, "t_ms": 0, "upper_ms": 60000, "lower_ms": 0},
    )
    [reply] = deliver(session, "red-1", flip).commands
    assert reply.fields["verdict"] == "rejected" and "Choose a symbol" in reply.fields["reason"]
    refusal = client.get("/api/players/red").get_json()["refusal"]
    assert refusal["reason"] == {"msg": "Choose a symbol for this timer first"}
    menu = client.get("/api/players/red").get_json()["menu"]
    assert [m["id"] for m in menu] == ["point", "ship"] and not menu[1]["selected"]
    assert menu[1]["label"] == {"msg": "Spaceship"}
    assert (
        client.post(
            "/api/players/red/intent", json={"node": "red-1", "intent": menu[1]["intent"]}
        ).status_code
        == 200
    )
    assert client.get("/api/players/red").get_json()["menu"][1]["selected"]
    flip2 = p.validate("event", dict(flip.fields(), v=1, kind="flip", seq=2))
    [reply] = deliver(session, "red-1", flip2).commands
    assert reply.fields["verdict"] == "accepted"
    assert dict(session.state.game.placed) == {"red-1": "ship"}


def test_pages_are_served(app):
    client = app.test_client()
    page = client.get("/play/red").get_data(as_text=True)
    assert "player.js" in page and 'data-player-id="red"' in page
    res = client.get("/play/mallory")
    assert res.status_code == 404 and b"/play/red" in res.data
