"""JSON API behind the dashboard; tests and other clients use it too.

Every JSON body is read by :func:`read_json`: bounded in size (:data:`MAX_BODY_BYTES`)
and nesting (:data:`MAX_DEPTH`), strict JSON (no ``NaN``, no unpaired surrogates), and
an object. Bad input is answered ``{"ok": false, "error": "..."}`` with a 4xx before
anything reaches the table. Any other failure under ``/api/`` becomes a JSON 500 with one
sentence; its traceback goes to the hub's log only.
"""

from __future__ import annotations

import json
import logging
import math
import re
from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from companion.errors import CompanionError
from companion.hub.auth import host_only, require_node_owner, require_player
from companion.hub.extensions import bridge_of, fleet_of, session_of
from companion.rules.outcome import Rejected
from companion.table import events as ev

log = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_BODY_BYTES = 64 * 1024
"""Largest JSON body the API reads (a setup or a game action is a few hundred bytes)."""

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects in a JSON body (a game action is at most 4 or 5 deep)."""

INTERNAL_ERROR = (
    "The hub could not answer this request because of an internal error; the hub's log has the details"
)


class BadRequestError(CompanionError, ValueError):
    """A request the API cannot use: answered with ``status`` and the sentence; nothing changes."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _error(message: str, status: int) -> Any:
    return jsonify({"ok": False, "error": message}), status


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def nesting_depth(text: str) -> int:
    """How deeply arrays and objects nest in JSON ``text`` (brackets inside strings do not count).

    Checked before parsing, so a body nested thousands deep never reaches the parser's recursion.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = deepest = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError("numbers must be finite")
    return number


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _has_bad_text(value: Any) -> bool:
    """True if a string in ``value`` (keys included) cannot be written as UTF-8 (an unpaired surrogate)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def parse_json(raw: bytes) -> Any:
    """Strict, bounded JSON: raises :class:`BadRequestError` with the reason, never anything else."""
    if len(raw) > MAX_BODY_BYTES:
        raise BadRequestError(f"the body is larger than {MAX_BODY_BYTES // 1024} KB", 413)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequestError("the body is not UTF-8 text") from None
    if nesting_depth(text) > MAX_DEPTH:
        raise BadRequestError(f"the body is nested more than {MAX_DEPTH} levels deep")
    try:
        value = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise BadRequestError("the body is not valid JSON") from None
    if _has_bad_text(value):
        raise BadRequestError("the body has text that is not valid Unicode")
    return value


def read_json(example: str, *, optional: bool = False) -> dict[str, Any]:
    """The request's JSON object (``example`` shows what to send); ``optional``: no body reads as ``{}``.

    Raises :class:`BadRequestError` for a body that is too large, too deep, not JSON, not
    sent as JSON, or not an object.
    """
    length = request.content_length
    if length is not None and length > MAX_BODY_BYTES:
        raise BadRequestError(
            f"send a JSON object like {example}: the body is larger than {MAX_BODY_BYTES // 1024} KB", 413
        )
    try:
        raw = request.stream.read(MAX_BODY_BYTES + 1)
    except RequestEntityTooLarge:
        raise BadRequestError(f"send a JSON object like {example}: the body is too large", 413) from None
    if not raw and optional:
        return {}
    if not request.is_json:
        raise BadRequestError(f"send a JSON object like {example}, as Content-Type: application/json")
    try:
        value = parse_json(raw)
    except BadRequestError as exc:
        raise BadRequestError(f"send a JSON object like {example}: {exc}", exc.status) from None
    if not isinstance(value, dict):
        raise BadRequestError(f"send a JSON object like {example}")
    return value


@bp.get("/state")
def state() -> Any:
    return jsonify(session_of(current_app).snapshot())


@bp.get("/stats")
def stats() -> Any:
    return jsonify(session_of(current_app).stats.to_dict())


@bp.get("/nodes")
def nodes() -> Any:
    return jsonify([link.to_dict() for link in session_of(current_app).nodes.values()])


@bp.get("/events")
def events() -> Any:
    session = session_of(current_app)
    return jsonify(
        {
            "setup": session.setup.to_dict(),
            "events": [ev.event_to_dict(e, session.log.codec) for e in session.log.events()],
        }
    )


@bp.post("/clock/<action>")
@host_only
def clock(action: str) -> Any:
    session = session_of(current_app)
    handlers = {
        "start": session.start_clock,
        "pause": session.pause_clock,
        "resume": session.resume_clock,
        "abort": session.abort_clock,
    }
    handler = handlers.get(action)
    if handler is None:
        return _error(f"unknown clock action {action!r}; use start, pause, resume or abort", 404)
    result = handler()
    if isinstance(result, Rejected):
        return _error(result.reason, 409)
    return jsonify({"ok": True, "event": ev.event_to_dict(result), "clock": session.snapshot()["clock"]})


@bp.get("/players/<player>")
def player(player: str) -> Any:
    snapshot = session_of(current_app).player_snapshot(player)
    if snapshot is None:
        return _error(f"there is no player {player!r} at this table", 404)
    return jsonify(snapshot)


@bp.post("/players/<player>/action")
def player_action(player: str) -> Any:
    """A tap on a player's phone: ``{"action": {...}}`` applied through the game's rules.

    Only that player's phone (their token) or the host may send it."""
    require_player(player)
    example = '{"action": {...}}'
    body = read_json(example)
    if not isinstance(body.get("action"), dict):
        return _error(f"send a JSON object like {example}", 400)
    result = session_of(current_app).player_action(player, body["action"])
    if isinstance(result, Rejected):
        return _error(str(result), 409)
    return jsonify({"ok": True, "notes": list(result.notes)})


@bp.post("/players/<player>/intent")
def player_intent(player: str) -> Any:
    """What a timer should do at its next flip: ``{"node": "red-1", "intent": {...} | null}``.

    Only that player's phone (their token) or the host may send it."""
    require_player(player)
    example = '{"node": "red-1", "intent": {...}}'
    body = read_json(example)
    if not isinstance(body.get("node"), str) or not isinstance(body.get("intent"), (dict, type(None))):
        return _error(f"send a JSON object like {example}", 400)
    session = session_of(current_app)
    if player not in session.setup.players:
        return _error(f"there is no player {player!r} at this table", 404)
    refused = session.set_intent(player, body["node"], body["intent"])
    if refused is not None:
        return _error(str(refused), 409)
    return jsonify({"ok": True})


@bp.get("/undo")
def undo_preview() -> Any:
    preview = session_of(current_app).undo_preview()
    return jsonify({"ok": preview is not None, "undo": preview})


@bp.post("/undo")
@host_only
def undo() -> Any:
    """Take back the latest accepted action; needs ``{"confirm": true}``."""
    body = read_json('{"confirm": true}', optional=True)
    session = session_of(current_app)
    if body.get("confirm") is not True:
        preview = session.undo_preview()
        message = f"Confirm to undo: {preview}" if preview else "There is no accepted action to undo"
        return _error(message, 409)
    result = session.undo()
    if isinstance(result, Rejected):
        return _error(result.reason, 409)
    return jsonify({"ok": True, "undone": result.note})


@bp.post("/nodes/<node>/restart")
@host_only
def restart_node(node: str) -> Any:
    """Ask a node to restart (its sand survives on the hub; the node resends what it had not delivered)."""
    return _command_node(node, "restart")


@bp.post("/sim/<node>/flip")
def sim_flip(node: str) -> Any:
    """Flip a simulated node, as a player would turn the glass over (the host, or the phone of the
    player whose timer it is)."""
    require_node_owner(node)
    fleet = fleet_of(current_app)
    if fleet is None:
        return _error("no simulated nodes run on this hub", 404)
    if not fleet.flip(node):
        return _error(f"no simulated node {node!r}", 404)
    return jsonify({"ok": True, "node": node})


@bp.post("/nodes/<node>/identify")
@host_only
def identify(node: str) -> Any:
    """Make a node blink so a player can find it."""
    return _command_node(node, "identify")


def _command_node(node: str, what: str) -> Any:
    refused = session_of(current_app).command_node(node, what)
    if refused is not None:
        return _error(refused.reason, 404)
    if bridge_of(current_app) is None:
        return _error("the hub is not connected to a broker", 503)
    return jsonify({"ok": True})


def _is_api() -> bool:
    return request.path.startswith("/api/")


def init_app(app: Flask) -> None:
    """Register the API, and JSON error bodies for any /api/ path (unrouted ones included)."""
    app.register_blueprint(bp)
    app.config.setdefault("MAX_CONTENT_LENGTH", MAX_BODY_BYTES)

    def json_or_default(status: int, message: str) -> Any:
        def handler(exc: Exception) -> Any:
            if _is_api():
                return _error(message, status)
            return exc

        return handler

    app.register_error_handler(404, json_or_default(404, "no such API endpoint"))
    app.register_error_handler(405, json_or_default(405, "this endpoint does not accept that method"))

    @app.errorhandler(BadRequestError)
    def bad_request(exc: BadRequestError) -> Any:
        return _error(str(exc), exc.status)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        if _is_api() and exc.code is not None:
            return _error(exc.description or exc.name, exc.code)
        return exc

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> Any:
        """Anything else under /api/: one sentence for the client, the traceback for the hub's log."""
        if not _is_api():
            raise exc
        log.error("%s %s failed", request.method, request.path, exc_info=exc)
        return _error(INTERNAL_ERROR, 500)
