"""Game history and the end-of-game screen.

Past games are their event logs (``<data_dir>/tables/*.jsonl``): the log is the
one record of a game, so the history folds each log again instead of keeping a
second copy of the results.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, render_template

from companion.errors import CompanionError
from companion.games import referee_for
from companion.hub.extensions import session_of
from companion.rules.setup import TableSetup
from companion.table import events as ev
from companion.table.log import SavedGame, read_log
from companion.table.results import explain, game_times, played_s, scores_csv
from companion.table.state import fold
from companion.table.views import describe

log = logging.getLogger(__name__)

bp = Blueprint("history", __name__)

GAME_ID = re.compile(r"^[a-z0-9_-]+-\d{8}-\d{6}(-\d+)?$")


def _tables_dir() -> Path | None:
    data_dir = current_app.config["COMPANION"].data_dir
    return Path(data_dir) / "tables" if data_dir else None


def summarise(saved: SavedGame, *, game_id: str) -> dict[str, Any]:
    """What the history lists about one game (folding its log never asks the rules; scoring does)."""
    setup, events = saved.setup, saved.events
    state = fold(setup, events, saved.start)
    scores = referee_for(state.setup).scores(state.game)
    started, ended = game_times(events)
    return {
        "id": game_id,
        "table": setup.table,
        "game": setup.game,
        "variant": setup.variant,
        "players": list(setup.players),
        "events": len(events),
        "clock": state.clock.phase,
        "played_s": round(played_s(state, events), 1),
        "started_at_s": started,
        "ended_at_s": ended,
        "scores": scores,
        "winners": (scores or {}).get("winners", []),
        "explanation": explain(scores) if scores else "",
    }


def _timeline(setup: TableSetup, events: list[ev.Event]) -> list[dict[str, Any]]:
    started, _ = game_times(events)
    origin = started if started is not None else (events[0].at_s if events else 0.0)
    return [
        {"t_s": round(e.at_s - origin, 3), "type": type(e).__name__, "text": describe(e, setup)}
        for e in events
    ]


def _load(game_id: str) -> SavedGame:
    session = session_of(current_app)
    if session.log.path is not None and session.log.path.stem == game_id or game_id == "current":
        return SavedGame(session.log.setup, session.log.start, session.log.events())
    folder = _tables_dir()
    if folder is None or not GAME_ID.match(game_id):
        abort(404)
    path = folder / f"{game_id}.jsonl"
    if not path.exists():
        abort(404)
    return read_log(path)


@bp.get("/api/history")
def history() -> Any:
    session = session_of(current_app)
    folder = _tables_dir()
    games = []
    paths = sorted(folder.glob("*.jsonl"), reverse=True) if folder and folder.exists() else []
    if session.log.path is None:
        games.append(summarise(_load("current"), game_id="current"))
    for path in paths:
        try:
            games.append(summarise(read_log(path), game_id=path.stem))
        except (CompanionError, ValueError) as exc:
            games.append({"id": path.stem, "error": str(exc)})
        except Exception as exc:  # one damaged file must not hide the others
            log.exception("cannot summarise %s", path)
            games.append({"id": path.stem, "error": f"this log cannot be read ({type(exc).__name__})"})
    return jsonify({"games": games, "stored": folder is not None})


@bp.get("/api/history/<game_id>")
def history_game(game_id: str) -> Any:
    try:
        saved = _load(game_id)
        summary = summarise(saved, game_id=game_id)
    except CompanionError as exc:
        return jsonify({"ok": False, "error": str(exc)}), 422
    summary["timeline"] = _timeline(saved.setup, saved.events)
    summary["setup"] = saved.setup.to_dict()
    return jsonify(summary)


@bp.get("/history")
def history_page() -> str:
    return render_template("history.html")


@bp.get("/history/<game_id>")
def replay_page(game_id: str) -> str:
    return render_template("replay.html", game_id=game_id)


def _current_scores() -> dict[str, Any] | None:
    session = session_of(current_app)
    return session.referee.scores(session.state.game)


@bp.get("/api/scores.json")
def scores_json() -> Any:
    scores = _current_scores()
    if scores is None:
        return jsonify({"ok": False, "error": "there are no final scores yet: the game is not over"}), 404
    session = session_of(current_app)
    return Response(
        json.dumps(
            {
                "table": session.setup.table,
                "game": session.setup.game,
                "explanation": explain(scores),
                **scores,
            },
            indent=2,
        ),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{session.setup.table}-scores.json"'},
    )


@bp.get("/api/scores.csv")
def scores_csv_export() -> Any:
    scores = _current_scores()
    if scores is None:
        return jsonify({"ok": False, "error": "there are no final scores yet: the game is not over"}), 404
    session = session_of(current_app)
    return Response(
        scores_csv(scores),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{session.setup.table}-scores.csv"'},
    )


@bp.get("/end")
def end_page() -> str:
    session = session_of(current_app)
    scores = _current_scores()
    return render_template(
        "end.html",
        table=session.setup.table,
        game=session.setup.game,
        scores=scores,
        explanation=explain(scores) if scores else "",
    )
