"""Setting up a new game from the setup page's API: validation, pairing by flips, QR codes."""

from __future__ import annotations

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.hub import create_app


@pytest.fixture
def app():
    app = create_app({"table": "t1", "players": 2, "timers": 2}, clock=FakeClock())
    return app


def session(app):
    return app.extensions["companion.session"]


def hello(app, node, boot="0a1b2c3d"):
    msg = p.validate(
        "event",
        {
            "v": 1,
            "kind": "hello",
            "boot": boot,
            "t_ms": 0,
            "sand_ms": 60000,
            "node_kind": "sim",
            "firmware": "x",
        },
    )
    return session(app).node_message(node, msg)


def flip(app, node, seq, boot="0a1b2c3d"):
    msg = p.validate(
        "event",
        {"v": 1, "kind": "flip", "boot": boot, "seq": seq, "t_ms": 0, "upper_ms": 60000, "lower_ms": 0},
    )
    return session(app).node_message(node, msg)


def test_games_are_listed_with_variants(app):
    games = app.test_client().get("/api/games").get_json()
    names = [g["name"] for g in games]
    assert names[0] == "sandtimers" and "time-n-space" in names and "space-and-time" in names
    tns = next(g for g in games if g["name"] == "time-n-space")
    assert [v["name"] for v in tns["variants"]] == ["intro", "full", "light"]
    assert tns["variants"][0]["clock_minutes"] == 12


@pytest.mark.parametrize(
    "body, error",
    [
        ({"game": "chess", "players": ["a", "b"]}, "unknown game 'chess'"),
        ({"game": "sandtimers", "players": "ana"}, "players must be a list"),
        ({"game": "sandtimers", "players": ["Ana Maria"]}, "must be 1-16 letters"),
        ({"game": "sandtimers", "players": ["ana", "ANA"]}, "same name"),
        ({"game": "space-and-time", "players": ["a", "b", "c"]}, "is for 1 to 2 players"),
        (
            {"game": "space-and-time", "players": ["a", "b"], "variant": "vs-computer-b"},
            "is played by one person",
        ),
        ({"game": "sandtimers", "variant": "blitz", "players": ["a"]}, "has no variant 'blitz'"),
        ({"game": "sandtimers", "players": ["a"], "sand_s": -1}, "sand_s must be a number"),
        ({"game": "sandtimers", "players": ["a"], "timers": True}, "timers must be a number"),
        ({"game": "sandtimers", "players": ["a"], "pairing": "magic"}, "pairing must be"),
        (
            {"game": "sandtimers", "players": ["a", "b", "c"], "pairing": "keep"},
            "only 0 timers are connected",
        ),
        (
            {"game": "sandtimers", "players": ["a", "b"], "colours": ["red", "mauve"]},
            "unknown colour 'mauve'",
        ),
        ({"game": "sandtimers", "players": ["a", "b"], "colours": ["red", "red"]}, "same colour"),
        ({"game": "sandtimers", "players": ["a", "b"], "colours": ["red"]}, "one colour per player"),
        ({"game": "sandtimers", "players": ["a"], "colours": "red"}, "colours must be a list"),
    ],
)
def test_bad_setups_are_explained_and_change_nothing(app, body, error):
    before = session(app).setup
    res = app.test_client().post("/api/setup", json=body)
    assert res.status_code == 400 and error in res.get_json()["error"]
    assert session(app).setup == before and session(app).pairing is None


def test_pairing_by_flipping_assigns_seats_in_order(app):
    client = app.test_client()
    hello(app, "red-1")
    hello(app, "esp32-a1")  # a node the current game does not know
    res = client.post(
        "/api/setup",
        json={
            "game": "sandtimers",
            "variant": "full",
            "players": ["ana", "ben"],
            "timers": 1,
            "pairing": "flip",
        },
    )
    assert res.status_code == 200
    pairing = client.get("/api/state").get_json()["pairing"]
    assert pairing["current"] == {"player": "ana", "index": 1}
    replies = flip(app, "esp32-a1", 1)
    assert [r.kind for r in replies] == ["ack", "show"] and replies[1].fields == {"pattern": "identify"}
    assert flip(app, "esp32-a1", 1)[0].fields["verdict"] == "accepted"  # a duplicate pairs nothing more
    assert session(app).pairing.current() == ("ben", 1)
    flip(app, "red-1", 1, boot="0b0b0b0b")
    setup = session(app).setup
    assert session(app).pairing is None
    assert [(s.player, s.node) for s in setup.seats] == [("ana", "esp32-a1"), ("ben", "red-1")]
    assert setup.clock_length_s == 30 * 60
    state = client.get("/api/state").get_json()
    assert [pl["name"] for pl in state["players"]] == ["ana", "ben"]
    assert state["events"] == 0 and state["clock"]["phase"] == "ready"


def test_keep_pairs_the_connected_timers(app):
    for node in ("red-1", "red-2", "yellow-1"):
        hello(app, node)
    res = app.test_client().post(
        "/api/setup", json={"game": "sandtimers", "players": ["a", "b", "c"], "timers": 1, "pairing": "keep"}
    )
    assert res.status_code == 200
    assert [s.node for s in session(app).setup.seats] == ["red-1", "red-2", "yellow-1"]


def test_cancel_leaves_the_old_game(app):
    client = app.test_client()
    client.post("/api/setup", json={"game": "sandtimers", "players": ["a"], "pairing": "flip"})
    client.post("/api/setup/cancel")
    assert session(app).pairing is None and session(app).setup.players == ("red", "yellow")


def test_unknown_nodes_are_remembered_for_pairing_but_refused_for_play(app):
    hello(app, "esp32-zz")
    [reply] = flip(app, "esp32-zz", 1)
    assert reply.fields["verdict"] == "rejected"
    state = app.test_client().get("/api/state").get_json()
    assert [n["node"] for n in state["unpaired"]] == ["esp32-zz"]
    assert state["stats"]["counts"]["rejected_unknown_node"] == 2


def test_qr_code_opens_the_players_page(app):
    client = app.test_client()
    res = client.get("/qr/red.svg", base_url="http://192.168.1.20:8080")
    assert res.status_code == 200 and res.mimetype == "image/svg+xml"
    token = app.extensions["companion.auth"].token_of("red")  # the code carries red's token (auth.py)
    assert res.headers["X-Target"] == f"http://192.168.1.20:8080/play/red?t={token}"
    assert b"<svg" in res.data
    assert client.get("/qr/mallory.svg").status_code == 404
    assert b"setup.js" in client.get("/setup").data


def test_players_get_the_colours_they_chose_or_free_ones(app):
    client = app.test_client()
    for node in ("red-1", "red-2", "yellow-1"):
        hello(app, node)
    res = client.post(
        "/api/setup",
        json={
            "game": "sandtimers",
            "players": ["ana", "ben", "blue"],
            "timers": 1,
            "colours": ["green", "purple", "orange"],
            "pairing": "keep",
        },
    )
    assert res.status_code == 200
    state = client.get("/api/state").get_json()
    assert [(p["name"], p["colour"]) for p in state["players"]] == [
        ("ana", "green"),
        ("ben", "purple"),
        ("blue", "orange"),
    ]
    client.post(
        "/api/setup", json={"game": "sandtimers", "players": ["ana", "blue"], "timers": 1, "pairing": "keep"}
    )
    state = client.get("/api/state").get_json()
    assert [(p["name"], p["colour"]) for p in state["players"]] == [("ana", "red"), ("blue", "blue")]
