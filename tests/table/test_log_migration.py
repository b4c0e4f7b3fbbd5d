"""Logs written in format 1 (engine actions, replayed by the rules on every read) still open.

The fixtures in ``tests/data/logs_v1`` are seeded random games (flips, taps, sand running out,
undos, the master clock running out) played on the hub before the log recorded facts; beside
each log are the scores, clock and timers that hub showed at the end. Reading such a log replays
its actions once through today's rules and keeps the result as facts; the game must end exactly as
it did. The views beside them are this version's English views of the same games (the wording
changed when words became message ids), kept so that a change in what a page shows is seen.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.games import referee_for
from companion.i18n import render_tree
from companion.table import events as ev
from companion.table.log import FORMAT, EventLog, read_log
from companion.table.session import TableSession
from companion.table.state import fold

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "logs_v1"
LOGS = sorted(FIXTURES.glob("*.jsonl"))


def expected(path: Path) -> dict:
    return json.loads((path.parent / f"{path.stem}.expected.json").read_text(encoding="utf-8"))


def as_shown(view, recorded):
    """``view`` as the old hub showed it: its texts in English, keys the old hub did not have (the picture)
    left out."""
    shown = render_tree(view, "en")
    return {k: v for k, v in shown.items() if k in recorded}


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_a_format_1_log_reads_as_the_same_game(path):
    saved = read_log(path)
    want = expected(path)
    assert (
        saved.migrated_from == 1 and saved.converted and "replayed once through the rules" in saved.notes[0]
    )
    assert not any(type(e).__name__ == "GameActed" for e in saved.events)
    state = fold(saved.setup, saved.events, saved.start)
    referee = referee_for(state.setup)
    assert as_shown(referee.view(state.game).to_dict(), want["view"]) == want["view"]
    assert render_tree(referee.scores(state.game), "en") == want["scores"]
    players = {
        p: as_shown(referee.player_view(state.game, p).to_dict(), want["players"][p]) for p in want["players"]
    }
    assert players == want["players"]
    assert state.clock.phase == want["clock"]
    timers = [[t.node, t.phase, t.flips, str(t.refused)] for t in state.timers.values()]
    assert sorted(timers) == sorted(want["timers"])


def test_the_fixtures_cover_every_game_and_undo():
    games = {read_log(p).setup.game for p in LOGS}
    assert games == {
        "sandtimers",
        "time-n-space",
        "space-dealer",
        "timeline",
        "space-and-time",
        "time-splicers",
    }
    assert sum('"StepUndone"' in p.read_text() for p in LOGS) >= 8


@pytest.mark.parametrize("name", ["time-n-space-intro", "space-dealer-basic", "timeline-default"])
def test_resuming_a_format_1_log_keeps_the_old_file_and_goes_on_in_format_2(tmp_path, name):
    path = tmp_path / f"{name}.jsonl"
    shutil.copy(FIXTURES / f"{name}.jsonl", path)
    before = fold(*_saved(read_log(path)))
    log = EventLog.open_existing(path, fsync=False)
    backup = tmp_path / f"{name}.v1-backup"
    assert backup.read_bytes() == (FIXTURES / f"{name}.jsonl").read_bytes()
    assert json.loads(path.read_text().splitlines()[0])["format"] == FORMAT
    clock = FakeClock(start_s=10_000.0)
    session = TableSession(log.setup, clock=clock, log=log)
    assert session.state == before
    node = log.setup.seats[0].node
    hello = p.validate(
        "event",
        {
            "v": 1,
            "kind": "hello",
            "boot": "0000beef",
            "t_ms": 1,
            "sand_ms": 60000,
            "node_kind": "sim",
            "firmware": "x",
        },
    )
    session.node_message(node, hello)
    flip = p.validate(
        "event",
        {"v": 1, "kind": "flip", "boot": "0000beef", "seq": 1, "t_ms": 2, "upper_ms": 60000, "lower_ms": 0},
    )
    session.node_message(node, flip)
    session.log.close()
    again = read_log(path)
    assert again.migrated_from == 1 and not again.converted and again.notes == []
    assert fold(*_saved(again)) == session.state
    assert isinstance(again.events[-1], (ev.TimerFlipped, ev.FlipRefused))
    resumed = TableSession(log.setup, clock=clock, log=EventLog.open_existing(path, fsync=False))
    assert resumed.state == session.state  # a second resume appends to the migrated log as it is
    assert backup.read_bytes() == (FIXTURES / f"{name}.jsonl").read_bytes()


def _saved(saved):
    return saved.setup, saved.events, saved.start
