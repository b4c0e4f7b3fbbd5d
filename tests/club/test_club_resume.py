"""A club started again goes on with the tables it had in play: after a crash by itself, after a clean
stop when asked (``--resume``); the lobby says which tables were resumed. (The real crash, kill -9 of
a ``companion club`` process while nodes play on, is tests/faults/test_club_kill.py.)"""

from __future__ import annotations

import json
import logging

import pytest

from companion.club import Club, ClubOptions, ClubPlan
from companion.club_record import FILE
from companion.hub import HubConfig
from companion.table.messages import ClockCommand

pytestmark = pytest.mark.broker


def club_of(mosquitto, tmp_path, *, resume=None, simulate=False) -> Club:
    defaults = HubConfig(data_dir=tmp_path, fsync=False, time_scale=10.0)
    options = ClubOptions(
        defaults=defaults, broker_url=str(mosquitto.address), http_port=None, simulate=simulate, resume=resume
    )
    return Club(options)


def plan(tmp_path, *items: str):
    return ClubPlan.parse(items, HubConfig(data_dir=tmp_path, fsync=False, time_scale=10.0)).tables


def play(club: Club, table: str) -> int:
    session = club.tables[table].session
    session.handle(ClockCommand("start"))
    return len(session.log)


def logs(tmp_path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "tables").glob("*.jsonl"))


def test_after_a_crash_every_table_in_play_goes_on_with_its_game(mosquitto, tmp_path):
    with club_of(mosquitto, tmp_path).start(plan(tmp_path, "red", "blue:timeline:3")) as first:
        played = {table: play(first, table) for table in ("red", "blue")}
        first.add_table(
            HubConfig.from_mapping({"table": "lobbyadded", "data_dir": tmp_path, "language": "de"})
        )
        record = json.loads((tmp_path / FILE).read_text())
        assert record == {
            "running": True,
            "tables": {
                "blue": {"language": "en"},
                "lobbyadded": {"language": "de"},
                "red": {"language": "en"},
            },
        }
    before = logs(tmp_path)
    (tmp_path / FILE).write_text(json.dumps(record))  # what a club that was killed leaves behind
    with club_of(mosquitto, tmp_path).start(plan(tmp_path, "red", "blue:timeline:3")) as again:
        tables = {t["table"]: t for t in again.lobby.test_client().get("/api/tables").get_json()["tables"]}
        assert {name: t["resumed"] for name, t in tables.items()} == {
            "red": {"events": played["red"]},
            "blue": {"events": played["blue"]},
            "lobbyadded": {"events": 0},
        }
        assert again.tables["blue"].session.setup.game == "timeline"
        assert again.tables["lobbyadded"].app.config["COMPANION"].language == "de"
        assert all(again.tables[t].session.state.clock.phase == "paused" for t in ("red", "blue"))
        assert logs(tmp_path) == before, "no new game for a resumed table"


def test_after_a_clean_stop_tables_start_anew_unless_resume_is_asked(mosquitto, tmp_path):
    with club_of(mosquitto, tmp_path).start(plan(tmp_path, "red")) as first:
        play(first, "red")
    assert json.loads((tmp_path / FILE).read_text()) == {
        "running": False,
        "tables": {"red": {"language": "en"}},
    }
    with club_of(mosquitto, tmp_path).start(plan(tmp_path, "red")) as fresh:
        assert (
            fresh.tables["red"].resumed is None and fresh.tables["red"].session.state.clock.phase == "ready"
        )
    newest = logs(tmp_path)[-1]
    with club_of(mosquitto, tmp_path, resume=True).start() as resumed:
        assert list(resumed.tables) == ["red"] and resumed.tables["red"].resumed == 0
        assert resumed.tables["red"].session.log.path.name == newest
    with club_of(mosquitto, tmp_path, resume=False).start() as none:
        assert none.tables == {}


def test_a_table_that_cannot_be_resumed_is_said_in_one_line_and_starts_anew(mosquitto, tmp_path, caplog):
    (tmp_path / FILE).write_text(json.dumps({"running": True, "tables": {"green": {}, "Bad Name": {}}}))
    with (
        caplog.at_level(logging.WARNING),
        club_of(mosquitto, tmp_path).start(plan(tmp_path, "green")) as club,
    ):
        assert club.tables["green"].resumed is None
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert (
        len(said) == 1
        and said[0].startswith("table green cannot be resumed (no saved game")
        and "starts anew" in said[0]
    )


def test_a_broken_record_resumes_nothing_and_says_so(mosquitto, tmp_path, caplog):
    (tmp_path / FILE).write_text("{not json")
    with caplog.at_level(logging.WARNING), club_of(mosquitto, tmp_path).start(plan(tmp_path, "red")) as club:
        assert club.tables["red"].resumed is None
    assert "cannot read the club's record" in caplog.text
    assert json.loads((tmp_path / FILE).read_text())["tables"] == {"red": {"language": "en"}}


@pytest.mark.browser
def test_the_lobby_says_which_tables_were_resumed(browser, mosquitto, tmp_path):
    with club_of(mosquitto, tmp_path).start(plan(tmp_path, "red", "blue")) as first:
        play(first, "red")
    with club_of(mosquitto, tmp_path, resume=True).start(plan(tmp_path, "green")) as club:
        page = browser.new_page()
        page.goto(club.url + "?lang=es")
        page.wait_for_selector(
            "#tables li[data-table='red'] .resumed:text('reanudada tras un reinicio (1 suceso)')"
        )
        assert page.locator("#tables li[data-table='blue'] .resumed").inner_text() == (
            "reanudada tras un reinicio (0 sucesos)"
        )
        assert page.locator("#tables li[data-table='green'] .resumed").is_hidden()
        page.close()
