"""Setting up a new game from the setup page's API: validation, pairing by flips, QR codes."""

from __future__ import annotations

import json
import logging
import threading

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.hub import create_app
from companion.hub.setup_page import REPEAT_WINDOW_S, RepeatedSetups
from companion.rules.text import from_json
from companion.table.session import RepeatedWarnings
from companion.testing import deliver


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
    return list(deliver(session(app), node, msg).commands)


def flip(app, node, seq, boot="0a1b2c3d"):
    msg = p.validate(
        "event",
        {"v": 1, "kind": "flip", "boot": boot, "seq": seq, "t_ms": 0, "upper_ms": 60000, "lower_ms": 0},
    )
    return list(deliver(session(app), node, msg).commands)


SESSION_LOGGER = "companion.table.session"


def error_of(res) -> str:
    """The error a setup answer carries, as the English sentence."""
    body = res.get_json()
    assert body["error"] == str(from_json(body["message"]))
    return body["error"]


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
        ({"game": "sandtimers", "players": ["ana/maria"]}, "“ana/maria” cannot contain “/”"),
        ({"game": "sandtimers", "players": ["ana", "ANA"]}, "Two players are called “ANA”"),
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
    assert res.status_code == 400 and error in error_of(res)
    assert session(app).setup == before and session(app).table.pairing is None


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
    assert session(app).table.pairing.current() == ("ben", 1)
    flip(app, "red-1", 1, boot="0b0b0b0b")
    setup = session(app).setup
    assert session(app).table.pairing is None
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
    assert session(app).table.pairing is None and session(app).setup.players == ("red", "yellow")


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


def test_the_setup_page_preselects_the_game_the_hub_was_started_with():
    app = create_app(
        {"table": "t2", "game": "space-and-time", "variant": "vs-computer-b", "players": 1, "timers": 1},
        clock=FakeClock(),
    )
    page = app.test_client().get("/setup").get_data(as_text=True)
    current = json.loads(
        page.split('<script id="current-setup" type="application/json">')[1].split("</script>")[0]
    )
    assert current["game"] == "space-and-time" and current["variant"] == "vs-computer-b"
    assert current["players"] == ["red"] and current["timers"] == 1
    assert 'data-name-max="' in page


def _setup_body(**extra):
    return {"game": "sandtimers", "players": ["a", "b"], "timers": 1, "pairing": "keep", **extra}


@pytest.fixture
def logged_app(tmp_path):
    app = create_app(
        {"table": "t3", "players": 2, "timers": 1, "data_dir": tmp_path, "fsync": False},
        clock=FakeClock(),
    )
    for node in ("red-1", "yellow-1"):
        hello(app, node)
    return app


def _logs(tmp_path) -> list[str]:
    return sorted(path.name for path in (tmp_path / "tables").glob("*.jsonl"))


def test_a_double_click_on_set_up_starts_one_game(logged_app, tmp_path):
    before = _logs(tmp_path)
    barrier = threading.Barrier(2)
    answers = []

    def post():
        client = logged_app.test_client()
        barrier.wait()
        res = client.post("/api/setup", json=_setup_body(request="click-1"))
        answers.append((res.status_code, res.get_json()))

    threads = [threading.Thread(target=post) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert [status for status, _ in answers] == [200, 200]
    assert answers[0][1] == answers[1][1], "the repeated request gets the first answer"
    assert len(_logs(tmp_path)) == len(before) + 1, "two clicks, one game log"


def test_the_same_setup_sent_twice_at_once_without_an_id_is_one_game(logged_app, tmp_path):
    before = _logs(tmp_path)
    client = logged_app.test_client()
    first = client.post("/api/setup", json=_setup_body())
    second = client.post("/api/setup", json=_setup_body())
    assert first.status_code == second.status_code == 200 and second.get_json()["repeated"]
    assert len(_logs(tmp_path)) == len(before) + 1


def test_a_new_click_is_a_new_game(logged_app, tmp_path):
    now = [0.0]
    logged_app.extensions["companion.setup_repeats"] = RepeatedSetups(monotonic=lambda: now[0])
    before = _logs(tmp_path)
    client = logged_app.test_client()
    assert client.post("/api/setup", json=_setup_body(request="click-1")).status_code == 200
    repeated = client.post("/api/setup", json=_setup_body(request="click-2"))
    assert repeated.get_json()["repeated"], "the same setup a moment later is the same click"
    now[0] += REPEAT_WINDOW_S + 1
    again = client.post("/api/setup", json=_setup_body(request="click-3"))
    assert again.status_code == 200 and not again.get_json().get("repeated")
    assert len(_logs(tmp_path)) == len(before) + 2


def test_a_repeat_is_forgotten_after_the_window_and_a_failure_is_never_repeated():
    now = [0.0]
    repeats = RepeatedSetups(monotonic=lambda: now[0])
    decided = []

    def decide(status=200):
        decided.append(status)
        return {"ok": status == 200}, status

    repeats.answer("x", lambda: decide(400))
    repeats.answer("x", decide)  # the first failed: this one is decided
    assert repeats.answer("x", decide) == ({"ok": True, "repeated": True}, 200)
    assert decided == [400, 200]
    now[0] += REPEAT_WINDOW_S + 0.1
    repeats.answer("x", decide)
    assert decided == [400, 200, 200]


def test_an_unpaired_node_is_reported_once_then_counted(app, caplog):
    now = [0.0]
    session(app).warnings = RepeatedWarnings(every_s=60.0, monotonic=lambda: now[0])
    caplog.set_level(logging.WARNING, logger=SESSION_LOGGER)

    def lines():
        return [r.getMessage() for r in caplog.records if r.name == SESSION_LOGGER]

    hello(app, "esp32-zz")
    hello(app, "esp32-yy")
    for _ in range(11):  # a heartbeat every 5 s for 55 s
        now[0] += 5
        hello(app, "esp32-zz")
        hello(app, "esp32-yy")
    assert len(lines()) == 2, lines()
    assert "esp32-zz" in lines()[0] and "esp32-yy" in lines()[1]
    now[0] += 5  # a minute since it was said: one line sums up the repeats
    hello(app, "esp32-zz")
    assert len(lines()) == 3 and "esp32-zz" in lines()[2] and "12 more times" in lines()[2], lines()
    for _ in range(5):
        now[0] += 5
        hello(app, "esp32-zz")
    assert len(lines()) == 3


def test_names_are_kept_as_typed_and_seats_get_ascii_node_ids(app):
    client = app.test_client()
    res = client.post(
        "/api/setup",
        json={"game": "sandtimers", "players": [" José María ", "李雷"], "timers": 1, "pairing": "flip"},
    )
    assert res.status_code == 200, res.get_json()
    setup = res.get_json()["setup"]
    assert setup["players"] == ["José María", "李雷"]
    nodes = [seat["node"] for seat in setup["seats"]]
    assert (
        nodes[0].startswith("jose-maria-")
        and nodes[1].startswith("player-")
        and all(n.isascii() for n in nodes)
    )
