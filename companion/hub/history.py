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

from flask import Blueprint, Response, current_app, jsonify, render_template

from companion.errors import CompanionError
from companion.games import find_game, referee_for
from companion.hub.bodies import error_body
from companion.hub.extensions import session_of
from companion.i18n import render
from companion.i18n.web import EXTENSION, request_language
from companion.rules.pages import to_json
from companion.rules.setup import TableSetup
from companion.rules.text import Text, text
from companion.table import events as ev
from companion.table.log import LOG_NAME, SavedGame, log_order, read_log
from companion.table.played import game_played
from companion.table.results import explain, game_times, played_s, score_label, scores_csv
from companion.table.state import fold
from companion.table.story import Stage, stage_of
from companion.table.views import describe, worth_telling

log = logging.getLogger(__name__)

bp = Blueprint("history", __name__)

GAME_ID = LOG_NAME
"""A game of the history is named by its log file (see companion.table.log.LOG_NAME)."""

NO_SCORES_YET = text("There are no final scores yet: the game is not over")


class GameNotFoundError(CompanionError, LookupError):
    """No game of the history has that id."""


def title_text(title: Text | str) -> Text:
    """A game's or variant's title as a text: a plain title is its own message id (the catalogs
    translate it, or keep a published name)."""
    return title if isinstance(title, Text) else Text(title)


def _tables_dir() -> Path | None:
    data_dir = current_app.config["COMPANION"].data_dir
    return Path(data_dir) / "tables" if data_dir else None


def summarise(saved: SavedGame, *, game_id: str, current: bool = False) -> dict[str, Any]:
    """What the history lists about one game (folding its log never asks the rules; scoring does).

    ``status``: ``over``; ``in progress`` (the table's current game, started and not over); ``parked``
    (an earlier game left paused when a new one was set up: ``companion run --resume`` takes it up);
    ``unfinished`` (an earlier game left running: the hub stopped or an older version replaced it);
    ``not started``. ``how`` and ``result`` say how it ended and who won, as the end screen does."""
    setup, events = saved.setup, saved.events
    state = fold(setup, events, saved.start)
    referee = referee_for(state.setup)
    scores = referee.scores(state.game, state.context)
    stage = stage_of(state, referee, scores)
    started, ended = game_times(events)
    phase = state.clock.phase
    if stage.key == "over":
        status = "over"
    elif phase == "ready":
        status = "not started"
    elif current:
        status = "in progress"
    elif phase == "paused":
        status = "parked"
    else:
        status = "unfinished"
    info = find_game(setup.game)
    try:
        variant_title: Any = to_json(title_text(info.variant(setup.variant).title)) if setup.variant else ""
    except CompanionError:
        variant_title = setup.variant
    return {
        "id": game_id,
        "table": setup.table,
        "game": setup.game,
        "title": to_json(title_text(info.title)),
        "variant": setup.variant,
        "variant_title": variant_title,
        "date": _date_of(game_id),
        "players": list(setup.players),
        "events": len(events),
        "clock": phase,
        "status": status,
        "played_s": round(played_s(state, events), 1),
        "started_at_s": started,
        "ended_at_s": ended,
        "scores": to_json(scores),
        "winners": (scores or {}).get("winners", []),
        "explanation": to_json(explain(scores, referee.score_words())) if scores else "",
        "how": stage.how.to_json() if status == "over" else "",
        "result": stage.result.to_json() if status == "over" else "",
    }


STAMP = re.compile(r"-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(?:-\d+)?$")


def _date_of(game_id: str) -> str:
    """When a game's log was started, from its name (``<table>-YYYYmmdd-HHMMSS``), as ISO local time."""
    match = STAMP.search(game_id)
    if match is None:
        return ""
    y, mo, d, h, mi, se = match.groups()
    return f"{y}-{mo}-{d}T{h}:{mi}:{se}"


def _timeline(setup: TableSetup, events: list[ev.Event]) -> tuple[list[dict[str, Any]], float]:
    """Each event at its game time from the first event (the replay clock starts at 0:00), and the
    time the game ended (its last event when it did not)."""
    if not events:
        return [], 0.0
    origin = events[0].at_s
    _, ended = game_times(events)
    end_s = (ended if ended is not None else events[-1].at_s) - origin
    timeline = [
        {"t_s": round(e.at_s - origin, 3), "type": type(e).__name__, "text": to_json(describe(e, setup))}
        for e in worth_telling(events, started=False)
    ]
    return timeline, round(max(0.0, end_s), 3)


def _load(game_id: str) -> SavedGame:
    session = session_of(current_app)
    if session.log.path is not None and session.log.path.stem == game_id or game_id == "current":
        return SavedGame(session.log.setup, session.log.start, session.log.events())
    path = _path_of(game_id)
    if path is None:
        raise GameNotFoundError(game_id)
    return read_log(path)


def _path_of(game_id: str) -> Path | None:
    """The log of a past game, or None when the history has no game of that id."""
    folder = _tables_dir()
    if folder is None or not GAME_ID.match(game_id):
        return None
    path = folder / f"{game_id}.jsonl"
    return path if path.is_file() else None


def _exists(game_id: str) -> bool:
    session = session_of(current_app)
    current = game_id == "current" or (session.log.path is not None and session.log.path.stem == game_id)
    return current or _path_of(game_id) is not None


@bp.get("/api/history")
def history() -> Any:
    session = session_of(current_app)
    folder = _tables_dir()
    games = []
    # newest first by the folder's own order (its sequence numbers), not by the dates in the names
    found = folder.glob("*.jsonl") if folder and folder.exists() else []
    paths = sorted(found, key=log_order, reverse=True)
    current = session.log.path.stem if session.log.path is not None else "current"
    if session.log.path is None:
        games.append(summarise(_load("current"), game_id="current", current=True))
    for path in paths:
        try:
            games.append(summarise(read_log(path), game_id=path.stem, current=path.stem == current))
        except (CompanionError, ValueError) as exc:
            games.append({"id": path.stem, "error": str(exc)})
        except Exception as exc:  # one damaged file must not hide the others
            log.exception("cannot summarise %s", path)
            reason = text("this log cannot be read ({kind})", kind=type(exc).__name__)
            games.append({"id": path.stem, "error": reason.to_json()})
    # a game nothing happened in (set up, never played) is no game of the history
    games = [g for g in games if "error" in g or g["events"] > 0]
    return jsonify({"games": games, "stored": folder is not None})


@bp.get("/api/history/<game_id>")
def history_game(game_id: str) -> Any:
    try:
        saved = _load(game_id)
        session = session_of(current_app)
        live = game_id == "current" or (session.log.path is not None and session.log.path.stem == game_id)
        summary = summarise(saved, game_id=game_id, current=live)
    except GameNotFoundError:
        return jsonify(error_body(_no_game(game_id))), 404
    except CompanionError as exc:
        return jsonify({"ok": False, "error": str(exc)}), 422
    summary["timeline"], summary["end_s"] = _timeline(saved.setup, saved.events)
    summary["setup"] = saved.setup.to_dict()
    return jsonify(summary)


@bp.get("/api/history/<game_id>/played")
def history_played(game_id: str) -> Any:
    """The picture of a game that was played (``current``: the table's game), drawn from its log."""
    try:
        saved = _load(game_id)
    except GameNotFoundError:
        return jsonify(error_body(_no_game(game_id))), 404
    except CompanionError as exc:
        return jsonify({"ok": False, "error": str(exc)}), 422
    session = session_of(current_app)
    live = game_id == "current" or (session.log.path is not None and session.log.path.stem == game_id)
    referee = session.referee if live else referee_for(saved.setup)
    return jsonify(game_played(saved.setup, saved.start, saved.events, referee))


def _no_game(game_id: str) -> Text:
    return text("There is no game {game} in the history", game=game_id)


@bp.get("/history")
def history_page() -> str:
    return render_template("history.html")


@bp.get("/history/<game_id>")
def replay_page(game_id: str) -> Any:
    if not _exists(game_id):
        return _not_found(_no_game(game_id))
    return render_template("replay.html", game_id=game_id)


@bp.get("/history/<path:rest>")
def unknown_history_page(rest: str) -> Any:
    """Any other address under /history: a page in the reader's language saying so, with a 404."""
    return _not_found(text("There is no page {page} in the history", page="/history/" + rest))


def _not_found(message: Text) -> Any:
    return render_template("history.html", missing=_render(message)), 404


def _language() -> str:
    return request_language(current_app) if EXTENSION in current_app.extensions else "en"


def _render(message: Text | str) -> str:
    """A text in the page's language (a plain string as it is)."""
    return render(message, _language())


def _current_scores() -> dict[str, Any] | None:
    session = session_of(current_app)
    return session.referee.scores(session.state.game, session.state.context)


@bp.get("/api/scores.json")
def scores_json() -> Any:
    scores = _current_scores()
    if scores is None:
        return jsonify(error_body(NO_SCORES_YET)), 404
    session = session_of(current_app)
    return Response(
        json.dumps(
            {
                "table": session.setup.table,
                "game": session.setup.game,
                "explanation": str(explain(scores, session.referee.score_words())),
                **to_json(scores),
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
        return jsonify(error_body(NO_SCORES_YET)), 404
    session = session_of(current_app)
    return Response(
        scores_csv(scores),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{session.setup.table}-scores.csv"'},
    )


def end_state() -> tuple[Text, Text | None]:
    """How the current game stands for the end screen, in the words of the dashboard and the phones
    (:mod:`companion.table.story`): (the stage and how it came to it, who won and why or None while
    there is nothing to say), so the screen never says "not over" of a game that is."""
    stage = current_stage()
    said = text("{title}. {how}", title=stage.title, how=stage.how) if stage.how else stage.title
    if stage.key != "over":
        return said, text("The final scores appear here when the game ends.")
    return said, stage.result or None


def current_stage() -> Stage:
    session = session_of(current_app)
    state, referee = session.state, session.referee
    return stage_of(state, referee, referee.scores(state.game, state.context))


@bp.get("/end")
def end_page() -> str:
    session = session_of(current_app)
    scores = _current_scores()
    standing, explanation = end_state()
    return render_template(
        "end.html",
        table=session.setup.table,
        game=session.setup.game,
        scores=scores,
        over=current_stage().key == "over",
        standing=_render(standing),
        explanation=_render(explanation) if explanation is not None else "",
        word=lambda value: _render(value) if isinstance(value, Text) else value,
        label=lambda key: _render(score_label(session.referee.score_words(), key)),
    )
