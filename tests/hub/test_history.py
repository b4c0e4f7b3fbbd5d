"""End-of-game screen, exports and the history of past games, read back from the game logs."""

from __future__ import annotations

import csv
import io

import pytest

from companion.clock import FakeClock
from companion.games.sandtimers import FreeTimers
from companion.hub import create_app
from companion.rules.outcome import Rejected
from companion.rules.text import from_json, text
from companion.table import messages as tm


def score_sheet(sheet):
    """Light mode's move for a sheet, read as the hub reads the phone form's post."""
    from companion.games import find_game

    game = find_game("time-n-space")
    return game.codec.read({"@": "ScoreSheet", "sheet": sheet}, game.moves)


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
    session.handle(tm.ClockCommand("start"))
    clock.advance(12 * 60 + 1)
    session.handle(tm.Tick())
    result = session.handle(tm.PlayerAction("red", score_sheet(SHEET)))
    assert result.refusal is None, result.refusal
    return session


def test_no_scores_before_the_end(app):
    client = app.test_client()
    res = client.get("/api/scores.csv")
    assert res.status_code == 404 and "not over" in res.get_json()["error"]
    assert res.get_json()["message"] == {"msg": "There are no final scores yet: the game is not over"}
    page = client.get("/end").get_data(as_text=True)
    assert "The final scores appear here when the game ends." in page and 'data-over="false"' in page


def test_end_screen_and_exports(app):
    finish_game(app)
    client = app.test_client()
    data = client.get("/api/scores.json").get_json()
    assert data["winners"] == ["red"] and data["players"]["red"]["total"] == 6
    assert str(data["explanation"]) == "red wins with 6 points."
    rows = list(csv.DictReader(io.StringIO(client.get("/api/scores.csv").data.decode())))
    assert [r["player"] for r in rows][0] == "red" and rows[0]["gray_points"] == "6"
    page = client.get("/end").data.decode()
    assert "red wins with 6 points." in page and 'data-player="yellow"' in page and "Export CSV" in page


def test_history_lists_past_games_from_their_logs(app, tmp_path):
    session = finish_game(app)
    first = session.log.path.stem
    session.handle(tm.NewGame(session.setup))  # a second game at the same table
    client = app.test_client()
    games = client.get("/api/history").get_json()["games"]
    assert [g["id"] for g in games] == [first], "the new game is listed once something happens in it"
    session.handle(tm.ClockCommand("start"))
    games = client.get("/api/history").get_json()["games"]
    assert len(games) == 2
    assert next(g for g in games if g["id"] == session.log.path.stem)["status"] == "in progress"
    done = next(g for g in games if g["id"] == first)
    assert done["status"] == "over"
    assert done["winners"] == ["red"] and done["played_s"] == 720.0 and done["game"] == "time-n-space"
    detail = client.get(f"/api/history/{first}").get_json()
    texts = [str(from_json(e["text"])) for e in detail["timeline"]]
    assert texts[0].startswith("master clock started") and "master clock ran out: the game is over" in texts
    assert detail["timeline"][0]["t_s"] == 0
    assert detail["end_s"] == 720.0, "the replay runs to the end of the game"
    assert client.get("/api/history/../../etc/passwd").status_code == 404
    assert client.get("/api/history/hist-20990101-000000").status_code == 404
    assert b"replay" in client.get(f"/history/{first}").data.lower()


def test_a_damaged_log_is_listed_with_its_reason(app, tmp_path):
    (tmp_path / "tables").mkdir(exist_ok=True)
    (tmp_path / "tables" / "hist-20200101-000000.jsonl").write_text("not json at all\n{}\n")
    games = app.test_client().get("/api/history").get_json()["games"]
    broken = next(g for g in games if g["id"] == "hist-20200101-000000")
    assert "line 1 is not valid JSON" in broken["error"]


@pytest.fixture
def timers_app(tmp_path):
    clock = FakeClock()
    app = create_app(
        {
            "table": "free",
            "players": 2,
            "timers": 1,
            "clock_minutes": 1,
            "data_dir": tmp_path,
            "fsync": False,
            "sounds_dir": tmp_path / "sounds",
        },
        clock=clock,
    )
    app.extensions["test.clock"] = clock
    return app


def test_after_the_clock_runs_out_the_timers_only_table_says_it_is_over_and_keeps_no_score(timers_app):
    session = timers_app.extensions["companion.session"]
    session.handle(tm.ClockCommand("start"))
    timers_app.extensions["test.clock"].advance(61)
    session.handle(tm.Tick())
    assert session.state.clock.phase == "expired"
    client = timers_app.test_client()
    page = client.get("/end").get_data(as_text=True)
    assert "not over" not in page and 'data-over="true"' in page
    assert "The game is over. The master clock ran out." in page and "This table keeps no score" in page
    spanish = client.get("/end?lang=es").get_data(as_text=True)
    assert (
        "La partida ha terminado. El reloj maestro se agotó." in spanish and "Esta mesa no lleva" in spanish
    )


def test_a_game_ended_early_that_cannot_be_scored_says_why(timers_app, monkeypatch):
    def cannot(self, state, ctx):
        return Rejected(text("nobody has placed a card yet"), text("Scoring"))

    monkeypatch.setattr(FreeTimers, "game_ended_early", cannot)
    session = timers_app.extensions["companion.session"]
    session.handle(tm.ClockCommand("start"))
    session.handle(tm.ClockCommand("abort"))
    page = timers_app.test_client().get("/end").get_data(as_text=True)
    assert "The host ended the game early." in page  # the stage, in the dashboard's and phones' words
    assert "It cannot be scored: nobody has placed a card yet" in page
    assert 'data-over="true"' in page


def test_starting_a_game_adds_no_empty_game_to_the_history(timers_app):
    session = timers_app.extensions["companion.session"]
    client = timers_app.test_client()
    assert client.get("/api/history").get_json()["games"] == []
    session.handle(tm.NewGame(session.setup))  # set up again, nothing played
    assert client.get("/api/history").get_json()["games"] == []
    session.handle(tm.ClockCommand("start"))
    [game] = client.get("/api/history").get_json()["games"]
    assert game["status"] == "in progress" and game["id"] == session.log.path.stem
    session.handle(tm.ClockCommand("abort"))
    [game] = client.get("/api/history").get_json()["games"]
    assert game["status"] == "over"


def test_unknown_history_pages_are_404_in_the_readers_language(timers_app):
    client = timers_app.test_client()
    for path in ("/history/free-20990101-000000", "/history/x/y", "/history/nothing-here"):
        res = client.get(path + "?lang=es")
        assert res.status_code == 404, path
        page = res.get_data(as_text=True)
        assert 'lang="es"' in page and "en el historial" in page, path
    assert client.get("/history").status_code == 200


def test_the_replay_clock_starts_at_zero_even_with_events_before_the_clock(timers_app):
    session = timers_app.extensions["companion.session"]
    clock = timers_app.extensions["test.clock"]
    session.handle(tm.ClockCommand("start"))
    clock.advance(20)
    session.handle(tm.ClockCommand("pause"))
    clock.advance(1200)  # twenty minutes of pause
    session.handle(tm.ClockCommand("resume"))
    clock.advance(50)
    session.handle(tm.Tick())
    detail = timers_app.test_client().get("/api/history/" + session.log.path.stem).get_json()
    times = [e["t_s"] for e in detail["timeline"]]
    assert times[0] == 0 and min(times) >= 0 and times == sorted(times)
    assert detail["end_s"] == max(times) > 1200


def test_a_game_ended_early_shows_the_scores_as_it_stood(timers_app, monkeypatch):
    def scores(self, state, ctx):
        if not timers_app.extensions["companion.session"].state.clock.is_over:
            return None
        return {
            "players": {"red": {"total": 3}, "yellow": {"total": 1}},
            "ranking": ["red", "yellow"],
            "winners": ["red"],
        }

    monkeypatch.setattr(FreeTimers, "scores", scores)
    session = timers_app.extensions["companion.session"]
    session.handle(tm.ClockCommand("start"))
    session.handle(tm.ClockCommand("abort"))
    client = timers_app.test_client()
    page = client.get("/end").get_data(as_text=True)
    assert "The game is over. The host ended the game early." in page
    assert 'data-player="red"' in page and "red wins with 3 points." in page
    page = client.get("/end?lang=de").get_data(as_text=True)
    assert "Das Spiel ist vorbei. Der Gastgeber hat das Spiel vorzeitig beendet." in page
