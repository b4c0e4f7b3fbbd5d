"""JSON API behind the dashboard; tests and other clients use it too."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request

from companion.hub.extensions import bridge_of, fleet_of, session_of
from companion.rules.outcome import Rejected
from companion.table import events as ev

bp = Blueprint("api", __name__, url_prefix="/api")


def _error(message: str, status: int) -> Any:
    return jsonify({"ok": False, "error": message}), status


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


def _json_body() -> dict[str, Any] | None:
    data = request.get_json(silent=True)
    return data if isinstance(data, dict) else None


@bp.get("/players/<player>")
def player(player: str) -> Any:
    snapshot = session_of(current_app).player_snapshot(player)
    if snapshot is None:
        return _error(f"there is no player {player!r} at this table", 404)
    return jsonify(snapshot)


@bp.post("/players/<player>/action")
def player_action(player: str) -> Any:
    """A tap on a player's phone: ``{"action": {...}}`` applied through the game's rules."""
    body = _json_body()
    if body is None or not isinstance(body.get("action"), dict):
        return _error('send a JSON object like {"action": {...}}', 400)
    result = session_of(current_app).player_action(player, body["action"])
    if isinstance(result, Rejected):
        return _error(str(result), 409)
    return jsonify({"ok": True, "notes": list(result.notes)})


@bp.post("/players/<player>/intent")
def player_intent(player: str) -> Any:
    """What a timer should do at its next flip: ``{"node": "red-1", "intent": {...} | null}``."""
    body = _json_body()
    if (
        body is None
        or not isinstance(body.get("node"), str)
        or not isinstance(body.get("intent"), (dict, type(None)))
    ):
        return _error('send a JSON object like {"node": "red-1", "intent": {...}}', 400)
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
def undo() -> Any:
    """Take back the latest accepted action; needs ``{"confirm": true}``."""
    body = _json_body() or {}
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
def restart_node(node: str) -> Any:
    """Ask a node to restart (its sand survives on the hub; the node resends what it had not delivered)."""
    return _command_node(node, "restart")


@bp.post("/sim/<node>/flip")
def sim_flip(node: str) -> Any:
    """Flip a simulated node, as a player would turn the glass over."""
    fleet = fleet_of(current_app)
    if fleet is None:
        return _error("no simulated nodes run on this hub", 404)
    if not fleet.flip(node):
        return _error(f"no simulated node {node!r}", 404)
    return jsonify({"ok": True, "node": node})


@bp.post("/nodes/<node>/identify")
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


def init_app(app: Any) -> None:
    """Register the API, and JSON error bodies for any /api/ path (unrouted ones included)."""
    app.register_blueprint(bp)

    def json_or_default(status: int, message: str) -> Any:
        def handler(exc: Exception) -> Any:
            if request.path.startswith("/api/"):
                return _error(message, status)
            return exc

        return handler

    app.register_error_handler(404, json_or_default(404, "no such API endpoint"))
    app.register_error_handler(405, json_or_default(405, "this endpoint does not accept that method"))
