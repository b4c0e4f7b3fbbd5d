"""Which log is the newest: the folder's own sequence, never the wall clock in the name.

A Pi without a real-time clock starts with a clock hours behind until NTP answers; a game begun
then is named with an older date than the games before it. The wall clock here is injected and
steps back; ``tests/faults/test_clock_step.py`` does the same with ``faketime`` and real processes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.errors import InvalidRecordError
from companion.rules.setup import default_setup
from companion.table.log import EventLog, latest_log, log_order, new_log_path, table_logs

NOON = 1_796_126_400.0  # 2026-12-01 12:00 UTC


class Wall:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def start_game(folder: Path, table: str, wall: Wall) -> Path:
    setup = default_setup(table, players=2, timers=1)
    path = new_log_path(folder / "tables", table, wall=wall)
    EventLog.for_new_game(setup, path, fsync=False).close()
    return path


def test_a_game_begun_after_the_clock_stepped_back_is_still_the_newest(tmp_path):
    wall = Wall(NOON)
    first = start_game(tmp_path, "red", wall)
    wall.t -= 3 * 3600  # the clock steps back three hours
    second = start_game(tmp_path, "red", wall)
    wall.t += 6 * 3600
    third_other_table = start_game(tmp_path, "blue", wall)
    wall.t -= 5 * 3600
    fourth = start_game(tmp_path, "red", wall)
    assert second.name[11:26] < first.name[11:26], "its date is older: the clock stepped back"
    assert latest_log(tmp_path, "red") == fourth
    assert table_logs(tmp_path, "red") == [first, second, fourth]
    assert [log_order(p)[0] for p in (first, second, third_other_table, fourth)] == [1, 2, 3, 4]


def test_logs_from_before_the_sequence_come_first_and_names_of_other_tables_are_not_mixed_in(tmp_path):
    tables = tmp_path / "tables"
    tables.mkdir()
    setup = default_setup("red", players=2, timers=1)
    legacy = [tables / "red-20991231-235959.jsonl", tables / "red-20261201-120000-2.jsonl"]
    for path in legacy:
        EventLog.for_new_game(setup, path, fsync=False).close()
    other = default_setup("red-2", players=2, timers=1)
    EventLog.for_new_game(other, tables / "red-2-20991231-235959.jsonl", fsync=False).close()
    new = start_game(tmp_path, "red", Wall(NOON - 86400 * 365))
    assert table_logs(tmp_path, "red") == [legacy[1], legacy[0], new]
    assert latest_log(tmp_path, "red") == new
    assert latest_log(tmp_path, "red-2").name == "red-2-20991231-235959.jsonl"


def test_resume_latest_never_picks_a_log_that_holds_no_game(tmp_path):
    wall = Wall(NOON)
    played = start_game(tmp_path, "red", wall)
    empty = new_log_path(tmp_path / "tables", "red", wall=wall)  # a start on a full disk, by an older hub
    cut = new_log_path(tmp_path / "tables", "red", wall=wall)
    cut.write_bytes(played.read_bytes().split(b"\n")[0][:40])  # its header cut short by a crash
    assert empty.stat().st_size == 0 and log_order(cut) > log_order(empty) > log_order(played)
    assert latest_log(tmp_path, "red") == played
    for path in (played, empty, cut):
        path.unlink()
    with pytest.raises(InvalidRecordError, match="no saved game of table 'red'"):
        latest_log(tmp_path, "red")


def test_two_hubs_never_get_the_same_name(tmp_path):
    folder = tmp_path / "tables"
    wall = Wall(NOON)
    names = {new_log_path(folder, "red", wall=wall) for _ in range(5)}
    assert len(names) == 5 and all(p.exists() for p in names)
    assert sorted(log_order(p)[0] for p in names) == [1, 2, 3, 4, 5]


def test_the_history_lists_games_newest_first_by_the_folders_order(tmp_path):
    from companion.clock import FakeClock
    from companion.hub import create_app
    from companion.table import events as ev

    wall = Wall(NOON)
    names = []
    for step_s in (0, -3 * 3600, +1800):  # the second game began while the clock was 3 h behind
        wall.t += step_s
        setup = default_setup("hist", players=2, timers=1)
        path = new_log_path(tmp_path / "tables", "hist", wall=wall)
        log = EventLog.for_new_game(setup, path, fsync=False)
        log.append(ev.ClockStarted(1.0, 720.0))
        log.close()
        names.append(path.stem)
    app = create_app({"table": "hist", "data_dir": tmp_path, "fsync": False}, clock=FakeClock())
    listed = [g["id"] for g in app.test_client().get("/api/history").get_json()["games"]]
    assert listed == names[::-1], "newest first, though the second game's date is the oldest"
    assert app.test_client().get(f"/api/history/{names[1]}").status_code == 200
