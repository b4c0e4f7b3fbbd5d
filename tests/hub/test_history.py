"""End-of-game screen, exports and the history of past games, read back from the game logs."""

from __future__ import annotations

import csv
import io

import pytest

from companion.clock import FakeClock
from companion.hub import create_app

SHEET = {
    "players": {
        "red": {
            "collected": [
                {"color": "gray", "value": 2, "from": "yellow"},
                {"color": "gray", "value": 1, "from": "green"},
            ],
            "bonus": [],
            "above": [],
        },
        "yellow": {"collected": [{"color": "blue", "value": 3, "from": "red"}], "bonus": [], "above": []},
        "green": {"collected": [], "bonus": [], "above": [{"color": "brown", "value": 1}]},
    }
}


@pytest.fixture
def app(tmp_path):
    clock = FakeClock()
    app = create_app(
        {
            "table": "hist",
            "game": "time-n-space",
            "variant": "light",
            "players": 3,
            "timers": 2,
            "clock_minutes": 12,
            "data_dir": tmp_path,
            "fsync": False,
            "sounds_dir": tmp_path / "sounds",
        },
        clock=clock,
    )
    app.extensions["test.clock"] = clock
    return app


def finish_game(app):
    session = app.extensions["companion.session"]
    clock = app.extensions["test.clock"]
    session.start_clock()
    clock.advance(12 * 60 + 1)
    session.tick()
    result = session.player_action("red", {"type": "score-sheet", "sheet": SHEET})
    assert getattr(result, "ok", True), result
    return session


def test_no_scores_before_the_end(app):
    client = app.test_client()
    res = client.get("/api/scores.csv")
    assert res.status_code == 404 and "not over" in res.get_json()["error"]
    assert b"not over yet" in client.get("/end").data


def test_end_screen_and_exports(app):
    finish_game(app)
    client = app.test_client()
    data = client.get("/api/scores.json").get_json()
    assert data["winners"] == ["red"] and data["players"]["red"]["total"] == 6
    assert data["explanation"] == "red wins with 6 points."
    rows = list(csv.DictReader(io.StringIO(client.get("/api/scores.csv").data.decode())))
    assert [r["player"] for r in rows][0] == "red" and rows[0]["gray_points"] == "6"
    page = client.get("/end").data.decode()
    assert "red wins with 6 points." in page and 'data-player="yellow"' in page and "Export CSV" in page


def test_history_lists_past_games_from_their_logs(app, tmp_path):
    session = finish_game(app)
    first = session.log.path.stem
    session.reset(session.setup)  # a second game at the same table
    client = app.test_client()
    games = client.get("/api/history").get_json()["games"]
    assert len(games) == 2
    done = next(g for g in games if g["id"] == first)
    assert done["winners"] == ["red"] and done["played_s"] == 720.0 and done["game"] == "time-n-space"
    detail = client.get(f"/api/history/{first}").get_json()
    texts = [e["text"] for e in detail["timeline"]]
    assert texts[0].startswith("master clock started") and "master clock ran out: the game is over" in texts
    assert detail["timeline"][0]["t_s"] == 0
    assert client.get("/api/history/../../etc/passwd").status_code == 404
    assert client.get("/api/history/hist-20990101-000000").status_code == 404
    assert b"replay" in client.get(f"/history/{first}").data.lower()


def test_a_damaged_log_is_listed_with_its_reason(app, tmp_path):
    (tmp_path / "tables").mkdir(exist_ok=True)
    (tmp_path / "tables" / "hist-20200101-000000.jsonl").write_text("not json at all\n{}\n")
    games = app.test_client().get("/api/history").get_json()["games"]
    broken = next(g for g in games if g["id"] == "hist-20200101-000000")
    assert "line 1 is not valid JSON" in broken["error"]
