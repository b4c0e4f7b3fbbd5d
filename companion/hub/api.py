"""JSON API behind the dashboard; tests and other clients use it too.

Every POST route reads its body with :func:`~companion.hub.bodies.read_json` (routes that take none too, with
``optional=True``): bounded in size (:data:`MAX_BODY_BYTES`) and nesting (:data:`MAX_DEPTH`),
strict JSON (no ``NaN``, no unpaired surrogates), and an object. Bad input is answered
``{"ok": false, "error": "...", "message": ...}`` with a 4xx before anything reaches the table:
``error`` is the English sentence (scripts, logs), ``message`` the same as a text the pages
translate (``{"msg", "args"}``, see companion/rules/text.py); a refusal by the rules adds its
``reason`` and ``rule``. Any other failure under ``/api/`` becomes a JSON 500 with one sentence;
its traceback goes to the hub's log only.

A player is named in a path by their name or their id (``companion.rules.setup.player_id``);
an unknown player is a 404 on every route. A phone's action, intent or simulated flip carries a
``request`` id (made per tap): the hub keeps its answer (:class:`RecentAnswers`), and the same id
sent again, a double tap or a retry, gets the first answer and changes nothing.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from companion.errors import InvalidRecordError
from companion.games import find_game
from companion.hub.auth import (
    UnknownPlayerError,
    host_only,
    require_node_owner,
    require_player,
    seated_player,
)
from companion.hub.bodies import (
    MAX_BODY_BYTES,
    BadRequestError,
    error_body,
    read_json,
)
from companion.hub.extensions import bridge_of, fleet_of, session_of
from companion.rules.outcome import Rejected
from companion.rules.text import Text, text
from companion.table import events as ev
from companion.table import messages as msg
from companion.table.decide import undo_offer

log = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")

INTERNAL_ERROR_TEXT = text(
    "The hub could not answer this request because of an internal error; the hub's log has the details"
)
INTERNAL_ERROR = str(INTERNAL_ERROR_TEXT)

ANSWERS_KEPT = 64
"""Answers remembered per player (and per simulated node) by request id: far more than a phone
has in flight, so a retried or doubled tap always finds its first answer."""

SCOPES_KEPT = 256
"""Players and nodes whose answers are remembered (the oldest are forgotten first)."""

REQUEST_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
"""A request id: what ``crypto.randomUUID()`` or a counter with a random prefix makes."""

REPEAT_WAIT_S = 10.0
"""How long a repeated request waits for the first one to be answered (it is being decided)."""

Answer = tuple[dict[str, Any], int]
"""A JSON body and its status."""


def refusal_body(refused: Rejected, *, with_rule: bool = True) -> dict[str, Any]:
    """A refusal by the rules: its sentence (with the rule, unless ``with_rule`` is False), and its
    ``reason`` and ``rule`` as texts."""
    message = refused.reason
    if with_rule and refused.rule:
        message = text("{reason} ({rule})", reason=refused.reason, rule=refused.rule)
    return error_body(message, reason=refused.reason.to_json(), rule=refused.rule.to_json())


def _error(message: Text | str, status: int) -> Any:
    return jsonify(error_body(message)), status


def _refused(refused: Rejected, status: int = 409, *, with_rule: bool = True) -> Any:
    return jsonify(refusal_body(refused, with_rule=with_rule)), status


class _Pending:
    """One request id's answer, being decided or decided."""

    def __init__(self, fingerprint: str) -> None:
        self.fingerprint = fingerprint
        self.done = threading.Event()
        self.answer: Answer | None = None


class RecentAnswers:
    """The answers to each player's latest requests, by request id (kept in memory, bounded).

    :meth:`once` decides a request the first time its id is seen; the same id again gets the
    same answer and decides nothing, even while the first is still being decided (a double tap
    sends both at once). Thread-safe; kept in ``app.extensions["companion.answers"]``.
    """

    def __init__(self, *, kept: int = ANSWERS_KEPT, scopes: int = SCOPES_KEPT) -> None:
        self.kept = kept
        self.scopes = scopes
        self._lock = threading.Lock()
        self._answers: OrderedDict[str, OrderedDict[str, _Pending]] = OrderedDict()

    def once(self, scope: str, request_id: str, fingerprint: str, decide: Callable[[], Answer]) -> Answer:
        """``decide()``'s answer for ``request_id`` of ``scope``, decided at most once.

        ``fingerprint`` is what the request asked; the same id asking something else is refused.
        """
        with self._lock:
            answers = self._answers.get(scope)
            if answers is None:
                answers = self._answers[scope] = OrderedDict()
                while len(self._answers) > self.scopes:
                    self._answers.popitem(last=False)
            else:
                self._answers.move_to_end(scope)
            pending = answers.get(request_id)
            first = pending is None
            if pending is None:
                pending = answers[request_id] = _Pending(fingerprint)
                while len(answers) > self.kept:
                    answers.popitem(last=False)
        if first:
            try:
                pending.answer = decide()
            except BaseException:
                with self._lock:
                    if answers.get(request_id) is pending:
                        del answers[request_id]
                raise
            finally:
                pending.done.set()
            return pending.answer
        if pending.fingerprint != fingerprint:
            return error_body(text("This request id was already used for another request")), 409
        if not pending.done.wait(REPEAT_WAIT_S) or pending.answer is None:
            return error_body(INTERNAL_ERROR_TEXT), 500
        return pending.answer


def answers_of(app: Flask) -> RecentAnswers:
    answers: RecentAnswers = app.extensions["companion.answers"]
    return answers


def _once(scope: str, body: dict[str, Any], decide: Callable[[], Answer]) -> Any:
    """Answer a phone's request once per ``request`` id (a request without an id is decided as it comes)."""
    request_id = body.get("request")
    if request_id is None:
        answer, status = decide()
    elif not isinstance(request_id, str) or not REQUEST_ID.match(request_id):
        raise BadRequestError(
            "the request id must be 1-64 characters of letters, digits, '.', ':', '_' or '-'"
        )
    else:
        fingerprint = json.dumps({k: v for k, v in body.items() if k != "request"}, sort_keys=True)
        answer, status = answers_of(current_app).once(scope, request_id, fingerprint, decide)
    return jsonify(answer), status


@bp.get("/state")
def state() -> Any:
    return jsonify(session_of(current_app).snapshot())


@bp.get("/stats")
def stats() -> Any:
    """The session's message counts, and what the MQTT bridge dropped as a flood (``rate_limited``)."""
    body = session_of(current_app).stats.to_dict()
    rate_limit = getattr(current_app.extensions.get("companion.bridge"), "rate_limit", None)
    if rate_limit is not None:  # a hub with a broker
        body["rate_limited"] = rate_limit.to_dict()
    return jsonify(body)


@bp.get("/nodes")
def nodes() -> Any:
    return jsonify([link.to_dict() for link in session_of(current_app).table.seated_links()])


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
    read_json("{}", optional=True)
    session = session_of(current_app)
    if action not in msg.CLOCK_ACTIONS:
        return _error(f"unknown clock action {action!r}; use start, pause, resume or abort", 404)
    outcome = session.handle(msg.ClockCommand(action))
    if outcome.refusal is not None:
        return _refused(outcome.refusal, with_rule=False)
    event = next(e for e in outcome.events if isinstance(e, ev.CLOCK_EVENTS))
    return jsonify({"ok": True, "event": ev.event_to_dict(event), "clock": session.snapshot()["clock"]})


@bp.get("/players/<player>")
def player(player: str) -> Any:
    """A player's phone view; ``player`` is their name or id."""
    snapshot = session_of(current_app).player_snapshot(seated_player(player))
    if snapshot is None:  # a new game began under the request
        raise UnknownPlayerError(player)
    return jsonify(snapshot)


def _move(scope: str, message_of: Callable[[Any], msg.Message]) -> Any:
    """A move of the game sent as ``{"action": {...}, "request": "r1"}``, read by the game's codec and
    decided as ``message_of(action)``; answered once per request id within ``scope``."""
    example = '{"action": {...}, "request": "r1"}'
    body = read_json(example)
    if not isinstance(body.get("action"), dict):
        return _error(f"send a JSON object like {example}", 400)
    session = session_of(current_app)
    game = find_game(session.setup.game)
    try:
        action = game.codec.read(body["action"], game.moves)
    except InvalidRecordError as exc:
        return _error(text("That is not a move of this game: {reason}", reason=str(exc)), 400)

    def decide() -> Answer:
        outcome = session.handle(message_of(action))
        if outcome.refusal is not None:
            return refusal_body(outcome.refusal), 409
        notes = outcome.decision.notes if outcome.decision is not None else ()
        return {"ok": True, "notes": [note.to_json() for note in notes]}, 200

    return _once(scope, body, decide)


@bp.post("/players/<player>/action")
def player_action(player: str) -> Any:
    """A tap on a player's phone: ``{"action": {...}, "request": "r1"}`` applied through the game's rules.

    Only that player's phone (their token) or the host may send it; a repeated ``request`` id gets
    the first answer."""
    name = seated_player(player)
    require_player(name)
    return _move(name, lambda action: msg.PlayerAction(name, action))


@bp.post("/table/action")
@host_only
def table_action() -> Any:
    """The host's move for the whole table (one of the dashboard's host actions, asked first):
    ``{"action": {...}, "request": "r1"}``; a repeated ``request`` id gets the first answer."""
    return _move("host:table", msg.TableAction)


@bp.post("/players/<player>/intent")
def player_intent(player: str) -> Any:
    """What a timer should do at its next flip: ``{"node": "red-1", "intent": {...} | null, "request": "r1"}``.

    Only that player's phone (their token) or the host may send it; a repeated ``request`` id gets
    the first answer."""
    name = seated_player(player)
    require_player(name)
    example = '{"node": "red-1", "intent": {...}, "request": "r1"}'
    body = read_json(example)
    if not isinstance(body.get("node"), str) or not isinstance(body.get("intent"), (dict, type(None))):
        return _error(f"send a JSON object like {example}", 400)
    session = session_of(current_app)
    intent = None
    if body["intent"] is not None:
        game = find_game(session.setup.game)
        try:
            intent = game.codec.read(body["intent"], game.intents)
        except InvalidRecordError as exc:
            return _error(text("That is not a choice of this game: {reason}", reason=str(exc)), 400)

    def decide() -> Answer:
        refused = session.handle(msg.ChooseIntent(name, body["node"], intent)).refusal
        if refused is not None:
            return refusal_body(refused), 409
        return {"ok": True}, 200

    return _once(name, body, decide)


@bp.get("/undo")
def undo_preview() -> Any:
    preview = undo_offer(session_of(current_app).table)
    return jsonify({"ok": preview is not None, "undo": preview.to_json() if preview is not None else None})


@bp.post("/undo")
@host_only
def undo() -> Any:
    """Take back the latest accepted action; needs ``{"confirm": true}``."""
    body = read_json('{"confirm": true}', optional=True)
    session = session_of(current_app)
    if body.get("confirm") is not True:
        preview = undo_offer(session.table)
        if preview:
            return _error(text("Confirm to undo: {note}", note=preview), 409)
        return _error(text("There is no accepted action to undo"), 409)
    step = body.get("step")
    if step is not None and (isinstance(step, bool) or not isinstance(step, int)):
        return _error(text("step must be the number of a step the undo list offers"), 400)
    outcome = session.handle(msg.Undo(step))
    if outcome.refusal is not None:
        return _refused(outcome.refusal, with_rule=False)
    undone = next(e for e in outcome.events if isinstance(e, ev.StepUndone))
    return jsonify({"ok": True, "undone": undone.note.to_json()})


@bp.post("/nodes/<node>/restart")
@host_only
def restart_node(node: str) -> Any:
    """Ask a node to restart (its sand survives on the hub; the node resends what it had not delivered)."""
    read_json("{}", optional=True)
    return _command_node(node, "restart")


@bp.post("/sim/<node>/flip")
def sim_flip(node: str) -> Any:
    """Flip a simulated node, as a player would turn the glass over (the host, or the phone of the
    player whose timer it is); a repeated ``request`` id flips it only once."""
    require_node_owner(node)
    body = read_json('{"request": "r1"}', optional=True)
    fleet = fleet_of(current_app)
    if fleet is None:
        return _error(text("no simulated nodes run on this hub"), 404)

    def decide() -> Answer:
        if not fleet.flip(node):
            return error_body(text("no simulated node {node}", node=node)), 404
        return {"ok": True, "node": node}, 200

    return _once("sim:" + node, body, decide)


@bp.post("/nodes/<node>/identify")
@host_only
def identify(node: str) -> Any:
    """Make a node blink so a player can find it."""
    read_json("{}", optional=True)
    return _command_node(node, "identify")


def _command_node(node: str, what: msg.NodeRequest) -> Any:
    refused = session_of(current_app).handle(msg.NodeCommand(node, what)).refusal
    if refused is not None:
        return _refused(refused, 404, with_rule=False)
    if bridge_of(current_app) is None:
        return _error(text("the hub is not connected to a broker"), 503)
    return jsonify({"ok": True})


def _is_api() -> bool:
    return request.path.startswith("/api/")


def init_app(app: Flask) -> None:
    """Register the API, and JSON error bodies for any /api/ path (unrouted ones included)."""
    app.register_blueprint(bp)
    app.config.setdefault("MAX_CONTENT_LENGTH", MAX_BODY_BYTES)
    app.extensions["companion.answers"] = RecentAnswers()

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
        return _error(INTERNAL_ERROR_TEXT, 500)
