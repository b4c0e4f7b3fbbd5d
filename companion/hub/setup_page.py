"""Setting up a new game: choose the game, players and timers, then pair nodes by flipping them.

A double click on "Set up" must not start two games: the page sends a request id with each
setup and disables the button while it is sent, and the hub answers a repeated id (the API's
request ids) or the same setup sent again within :data:`REPEAT_WINDOW_S`
(:class:`RepeatedSetups`) with the first answer instead of setting the table up again.
"""

from __future__ import annotations

import importlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
    send_file,
    url_for,
)

from companion.errors import CompanionError, UnknownGameError
from companion.games import TIMERS_ONLY, GameInfo, all_games, find_game, referee_for
from companion.hub.api import Answer, answers_of
from companion.hub.auth import access_of, host_only
from companion.hub.bodies import error_body, read_json
from companion.hub.extensions import fleet_of, session_of
from companion.hub.history import current_stage, title_text
from companion.rules.deck import DECK_MODES
from companion.rules.pages import to_json
from companion.rules.setup import (
    DEFAULT_GRACE_S,
    EARLY_LIFTS,
    MAX_NAME_LENGTH,
    PLAYER_COLOURS,
    Seat,
    TableSetup,
    clean_player_names,
    make_setup,
    player_id,
)
from companion.rules.text import Text, TextError, text, verbatim
from companion.table import messages as msg
from companion.table import storage

bp = Blueprint("setup", __name__)


REPEAT_WINDOW_S = 3.0
"""Real seconds in which the same setup sent again is taken for a double click, not a new game."""

"""Each game's drawing for the dashboard (``<game>.js``); every file there is included."""


def _game_dict(info: GameInfo) -> dict[str, Any]:
    return {
        "name": info.name,
        "title": to_json(info.title),
        "uses_sandtimers": info.uses_sandtimers,
        "min_players": info.min_players,
        "max_players": info.max_players,
        "timers_per_player": info.timers_per_player,
        "random_components": info.random_components,
        "variants": [
            {"name": v.name, "title": to_json(v.title), "clock_minutes": v.clock_minutes}
            for v in info.variants
        ],
    }


@bp.get("/api/games")
def games() -> Any:
    return jsonify([_game_dict(g) for g in all_games()])


def _error(message: Text, status: int = 400) -> Any:
    return jsonify(error_body(message)), status


def _message(exc: Exception) -> Text:
    """What a host reads about a setup the hub cannot use."""
    found = getattr(exc, "text", None)  # a TextError's message, translated where it is shown
    return found if isinstance(found, Text) else verbatim(str(exc))


def _number(body: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise TextError(text("{field} must be a number from {low} to {high}", field=key, low=low, high=high))
    return float(value)


def _players(body: dict[str, Any], info: GameInfo) -> list[str]:
    """The names as typed (trimmed), each usable and no two alike (:func:`clean_player_names`)."""
    players = body.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise TextError(text("players must be a list of names"))
    names = list(clean_player_names(players))
    if not info.min_players <= len(names) <= info.max_players:
        raise TextError(
            text(
                "{game} is for {low} to {high} players",
                game=info.title,
                low=info.min_players,
                high=info.max_players,
            )
        )
    return names


def _setup_from(body: dict[str, Any], current: TableSetup, connected: list[str]) -> tuple[TableSetup, str]:
    """The setup a request asks for and how its timers are paired; raises on anything unusable."""
    info = find_game(str(body.get("game", TIMERS_ONLY)))
    variant = info.variant(str(body.get("variant", "")))
    players = _players(body, info)
    timers = int(_number(body, "timers", info.timers_per_player, 1, 4))
    clock_minutes = _number(body, "clock_minutes", variant.clock_minutes, 0.5, 600)
    sand_s = _number(body, "sand_s", current.sand_s, 1, 3600)
    grace_s = _number(body, "grace_s", DEFAULT_GRACE_S, 0, 10)
    early_lifts = body.get("early_lifts", "refuse")
    if early_lifts not in EARLY_LIFTS:
        raise TextError(text("early_lifts must be one of {choices}", choices=tuple(EARLY_LIFTS)))
    seed = int(_number(body, "seed", 0, 0, 2**31))
    deck = body.get("deck", current.deck if current.game == info.name else "table")
    if deck not in DECK_MODES:
        raise TextError(text("deck must be one of {choices}", choices=tuple(DECK_MODES)))
    colours = body.get("colours", [])
    if not isinstance(colours, list) or not all(isinstance(c, str) for c in colours):
        raise TextError(text("colours must be a list of colour names"))
    pairing = body.get("pairing", "flip")
    if pairing not in ("flip", "keep"):
        raise TextError(text("pairing must be 'flip' or 'keep'"))
    seats = tuple(Seat(p, i, f"{player_id(p)}-{i}") for p in players for i in range(1, timers + 1))
    setup = make_setup(
        table=current.table,
        game=info.name,
        clock_length_s=clock_minutes * 60,
        sand_s=sand_s,
        players=tuple(players),
        seats=seats,
        variant=variant.name,
        seed=seed,
        colours=tuple(colours),
        grace_s=grace_s,
        early_lifts=early_lifts,
        deck=deck,
        components=current.components if current.game == info.name else "",
    )
    setup = replace(setup, turn_limit=bool(body.get("turn_limit", True)))
    if pairing == "keep":
        if len(connected) < len(seats):
            raise TextError(
                text(
                    "only {connected} timers are connected; this game needs {needed}",
                    connected=len(connected),
                    needed=len(seats),
                )
            )
        setup = replace(
            setup, seats=tuple(replace(s, node=n) for s, n in zip(seats, connected, strict=False))
        )
    referee_for(setup)  # the game must be playable on the hub before anything changes
    return setup, pairing


class RepeatedSetups:
    """The same setup sent again a moment later is a double click: it gets the first answer.

    A setup is the same when it asks for exactly what the last one that succeeded asked, within
    :data:`REPEAT_WINDOW_S` (whatever its request id: a page sends a new id per click). One
    setup is decided at a time, so two requests sent at the same moment cannot both start a game.
    A repeated request id is answered before this, by the API's :class:`RecentAnswers`.
    """

    def __init__(self, *, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._last: tuple[str, float, Answer] | None = None
        """(what the last successful setup asked, when, its answer)"""

    def answer(self, asked: str, decide: Callable[[], Answer]) -> Answer:
        with self._lock:
            now = self._monotonic()
            if self._last is not None:
                last_asked, at, (body, status) = self._last
                if last_asked == asked and now - at <= REPEAT_WINDOW_S:
                    return dict(body, repeated=True), status
            body, status = decide()
            if status == 200:
                self._last = (asked, now, (body, status))
            return body, status


def _repeats(app: Flask) -> RepeatedSetups:
    repeats: RepeatedSetups = app.extensions.setdefault("companion.setup_repeats", RepeatedSetups())
    return repeats


@bp.post("/api/setup")
@host_only
def new_game() -> Any:
    """Start a new game at this table. ``pairing``: ``flip`` (pair nodes by flipping) or ``keep``;
    ``request``: an id the page makes per click, so a repeated request starts nothing more."""
    body = read_json('{"game": "<game>", "players": ["ana", "ben", "eva"], "request": "r1"}')
    session = session_of(current_app)

    def decide() -> Answer:
        table = session.table
        connected = [link.node for link in (*table.seated_links(), *table.unpaired()) if link.online]
        try:
            setup, pairing = _setup_from(body, session.setup, connected)
        except (CompanionError, ValueError) as exc:
            return error_body(_message(exc)), 400
        if not table.storage.ok:  # nothing can be started or left (ended, parked) until it is written
            return error_body(table.storage.message or storage.FULL), 400
        if table.pairing is None and current_stage().key in IN_PROGRESS:
            previous = body.get("previous")
            if previous not in PREVIOUS:
                return _ask_first(), 409
            left = _leave(previous)
            if left is not None:
                return error_body(left.reason), 409
        started = msg.NewGame(setup) if pairing == "keep" else msg.BeginPairing(setup)
        refused = session.handle(started).refusal
        if refused is not None:
            return error_body(refused.reason), 400
        return {"ok": True, "pairing": pairing, "setup": setup.to_dict()}, 200

    asked = json.dumps({k: v for k, v in body.items() if k != "request"}, sort_keys=True)
    request_id = body.get("request")

    def once() -> Answer:
        return _repeats(current_app).answer(asked, decide)

    if isinstance(request_id, str) and request_id:
        answer, status = answers_of(current_app).once("setup", request_id[:100], asked, once)
    else:
        answer, status = once()
    return jsonify(answer), status


IN_PROGRESS = ("playing", "paused", "last-lifts")
"""The stages of a game a new setup must not throw away without asking."""
PREVIOUS = ("end", "park")
"""What a new setup does with a game in progress: end it (scored as it stands) or park it (paused, in
the history to be resumed with ``companion run --resume``)."""


def _ask_first() -> dict[str, Any]:
    """The question a new setup answers first when a game is in progress."""
    session = session_of(current_app)
    info = find_game(session.setup.game)
    question = text(
        "A game of {game} is in progress at this table. What should happen to it?",
        game=title_text(info.title),
    )
    choices = [
        {"value": "end", "label": text("End it now and score it as it stands").to_json()},
        {"value": "park", "label": text("Park it: keep it paused in the history, to resume later").to_json()},
    ]
    return error_body(question, ask={"question": question.to_json(), "choices": choices})


def _leave(previous: str) -> Any:
    """End or park the game in progress; the refusal when the clock will not do it."""
    session = session_of(current_app)
    if previous == "end":
        return session.handle(msg.ClockCommand("abort")).refusal
    if session.state.clock.phase == "running":
        return session.handle(msg.ClockCommand("pause")).refusal
    return None


@bp.post("/api/setup/cancel")
@host_only
def cancel() -> Any:
    session_of(current_app).handle(msg.CancelPairing())
    return jsonify({"ok": True})


@bp.get("/setup")
def setup_page() -> str:
    session = session_of(current_app)
    setup = session.setup
    timers = max((s.index for s in setup.seats), default=1)
    current = {
        "game": setup.game,
        "variant": setup.variant,
        "players": list(setup.players),
        "colours": list(setup.colours),
        "timers": timers,
        "clock_minutes": setup.clock_length_s / 60,
        "sand_s": setup.sand_s,
        "deck": setup.deck,  # the page offers the deck the table plays with again
    }
    return render_template(
        "setup.html",
        table=setup.table,
        colours=PLAYER_COLOURS,
        current=current,
        simulated=fleet_of(current_app) is not None,
        name_max_length=MAX_NAME_LENGTH,
    )


@bp.get("/qr/<player>.svg")
@host_only
def qr(player: str) -> Any:
    """A QR code that opens ``player``'s phone page with their token, at ``HubConfig.public_url``
    (else the address this page was loaded from). Only the host sees it: it lets a phone play."""
    import io

    import segno

    session = session_of(current_app)
    if player not in session.setup.players:
        return _error(text("There is no player {player} at this table", player=player), 404)
    target = access_of(current_app).join_url(player, request.host_url)
    if target is None:
        return _error(text("{player} has no phone code now: issue a new one first", player=player), 409)
    out = io.BytesIO()
    segno.make(target, error="m").save(out, kind="svg", scale=6, border=2, dark="#000", light="#fff")
    return Response(out.getvalue(), mimetype="image/svg+xml", headers={"X-Target": target})


def picture_scripts() -> list[str]:
    """The URLs of the picture registry and of every game's drawing (its package's ``picture.js``), in
    the registry's order: a new game's picture is included without editing any template."""
    return [url_for("static", filename="pictures.js")] + [
        url_for("setup.game_picture", game=info.name) for info in all_games() if _picture_of(info) is not None
    ]


def _picture_of(info: GameInfo) -> Path | None:
    if not info.package:
        return None
    path = Path(importlib.import_module(info.package).__file__ or "").parent / "picture.js"
    return path if path.is_file() else None


@bp.get("/games/<game>/picture.js")
def game_picture(game: str) -> Any:
    """A game's drawing, served from its package."""
    try:
        info = find_game(game)
    except UnknownGameError:
        return Response("// no such game\n", status=404, mimetype="text/javascript")
    path = _picture_of(info)
    if path is None:
        return Response("// this game has no picture\n", status=404, mimetype="text/javascript")
    return send_file(path, mimetype="text/javascript", max_age=300)


@bp.app_context_processor
def pictures_context() -> dict[str, Any]:
    """Templates include the game pictures with ``{% for src in picture_scripts() %}``."""
    return {"picture_scripts": picture_scripts}
