"""Logs written in formats 1 and 2 still open, as the same games.

The fixtures in ``tests/data/logs_v1`` (engine actions replayed on every read) and
``tests/data/logs_v2`` (facts, changes and each game's own JSON actions, its state in the
referee's wrapper) are seeded random games of every game and variant (flips, taps, sand
running out, undos, the master clock running out), played on the hub of their time. Beside
each log is what that hub showed at the end. Reading such a log replays its actions once
through today's rules (translated by the game's ``legacy_actions``) and keeps the result as
facts; the game must end exactly as it did: the same scores, clock, timers and pages.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from companion.games import referee_for
from companion.i18n import render, render_tree
from companion.table import events as ev
from companion.table.log import FORMAT, EventLog, read_log
from companion.table.state import fold
from companion.testing import SimulatedTable

DATA = Path(__file__).resolve().parents[1] / "data"
LOGS = sorted((DATA / "logs_v1").glob("*.jsonl")) + sorted((DATA / "logs_v2").glob("*.jsonl"))


def expected(path: Path) -> dict:
    return json.loads((path.parent / f"{path.stem}.expected.json").read_text(encoding="utf-8"))


def as_shown(view, recorded):
    """``view`` as the old hub showed it: its texts in English, only the keys the old hub had, and without
    the name of the move a form posts (``action_type``: a move is named by its class since format 3)."""
    shown = render_tree(view, "en")
    return without_action_type({k: v for k, v in shown.items() if k in recorded})


def without_action_type(value):
    if isinstance(value, dict):
        return {k: without_action_type(v) for k, v in value.items() if k != "action_type"}
    if isinstance(value, list):
        return [without_action_type(v) for v in value]
    return value


OLD_TILE = re.compile(r"\b[a-z][a-z ]*? II tile (t\d+)")
"""How the old hubs named a Time 'n' Space tile: its kind and its id ("production plant II tile t04")."""


def tiles_as_printed(value, game):
    """``value`` (an old hub's view) with each tile named as the box prints it, as the hub names it now
    (issue 19: no page names a tile id): the only change of presentation these views went through."""
    if isinstance(value, dict):
        return {k: tiles_as_printed(v, game) for k, v in value.items()}
    if isinstance(value, list):
        return [tiles_as_printed(v, game) for v in value]
    if isinstance(value, str) and hasattr(game, "tile"):
        from companion.games.time_n_space.words import tile_words

        return OLD_TILE.sub(lambda m: render(tile_words(game.tile(m[1])), "en") + " tile", value)
    return value


def name_of(path: Path) -> str:
    return f"{path.parent.name[-2:]}-{path.stem}"


@pytest.mark.parametrize("path", LOGS, ids=[name_of(p) for p in LOGS])
def test_an_old_log_reads_as_the_same_game(path):
    saved = read_log(path)
    want = expected(path)
    version = 1 if path.parent.name == "logs_v1" else 2
    assert saved.migrated_from == version and saved.converted
    assert "replayed once through the rules" in saved.notes[0]
    state = fold(saved.setup, saved.events, saved.start)
    referee = referee_for(state.setup)
    ctx = state.context
    scores = render_tree(referee.scores(state.game, ctx), "en")  # the keys the old hub had (no unit, labels)
    assert (scores and {k: v for k, v in scores.items() if k in want["scores"]}) == want["scores"]
    assert state.clock.phase == want["clock"]
    timers = [[t.node, t.phase, t.flips, str(t.refused)] for t in state.timers.values()]
    assert sorted(timers) == sorted(want["timers"])
    view = as_shown(referee.view(state.game, ctx).to_dict(), {"summary", "panels"})
    old_view = without_action_type({k: v for k, v in want["view"].items() if k in ("summary", "panels")})
    assert view == tiles_as_printed(old_view, state.game)
    players = {
        p: as_shown(referee.player_view(state.game, ctx, p).to_dict(), {"summary", "panels"})
        for p in want["players"]
    }
    assert players == {
        p: tiles_as_printed(
            without_action_type({k: v for k, v in shown.items() if k in ("summary", "panels")}), state.game
        )
        for p, shown in want["players"].items()
    }
    if "steps" in want:
        assert state.step_count == want["steps"]
        assert sum(s.undone for s in state.steps) == want["undone"]


def test_the_fixtures_cover_every_game_and_undo():
    for folder in ("logs_v1", "logs_v2"):
        logs = sorted((DATA / folder).glob("*.jsonl"))
        games = {read_log(p).setup.game for p in logs}
        assert games == {
            "sandtimers",
            "time-n-space",
            "space-dealer",
            "timeline",
            "space-and-time",
            "time-splicers",
        }
        assert sum('"StepUndone"' in p.read_text() for p in logs) >= 8


@pytest.mark.parametrize(
    "folder,name",
    [
        ("logs_v1", "time-n-space-intro"),
        ("logs_v1", "space-dealer-basic"),
        ("logs_v2", "timeline-default"),
        ("logs_v2", "time-splicers-default"),
    ],
)
def test_resuming_an_old_log_keeps_the_old_file_and_goes_on_in_todays_format(tmp_path, folder, name):
    source = DATA / folder / f"{name}.jsonl"
    path = tmp_path / f"{name}.jsonl"
    shutil.copy(source, path)
    version = int(folder[-1])
    before = fold(*_saved(read_log(path)))
    log = EventLog.open_existing(path, fsync=False)
    backup = tmp_path / f"{name}.v{version}-backup"
    assert backup.read_bytes() == source.read_bytes()
    assert json.loads(path.read_text().splitlines()[0])["format"] == FORMAT
    table = SimulatedTable.resumed(log, start_s=10_000.0)
    assert table.state == before
    node = log.setup.seats[0].node
    table.hello(node, boot="0000beef")
    table.flip(node)
    table.close()
    again = read_log(path)
    assert again.migrated_from == version and not again.converted and again.notes == []
    assert fold(*_saved(again)) == table.state
    assert isinstance(again.events[-1], (ev.TimerFlipped, ev.FlipRefused))
    resumed = SimulatedTable.resumed(EventLog.open_existing(path, fsync=False), start_s=10_000.0)
    assert resumed.state == table.state  # a second resume appends to the migrated log as it is
    assert backup.read_bytes() == source.read_bytes()


def _saved(saved):
    return saved.setup, saved.events, saved.start
