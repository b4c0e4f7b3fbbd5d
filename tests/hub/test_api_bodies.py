"""JSON bodies are read with bounds: odd or deep JSON gets a clear 4xx, never a 5xx, a traceback or a change.

Every POST, PUT and DELETE route of the app is found from its URL map and fed the same odd bodies, so a
route added later is covered without being listed here.
"""

from __future__ import annotations

import logging

import pytest

from companion.clock import FakeClock
from companion.core import protocol
from companion.hub import create_app
from companion.hub.api import INTERNAL_ERROR
from companion.hub.bodies import MAX_BODY_BYTES, MAX_DEPTH
from companion.table import messages as tm

ROUTES = [
    "/api/setup",
    "/api/players/red/action",
    "/api/players/red/intent",
    "/api/undo",
    "/api/audio",
]


def deep(n: int) -> str:
    return "[" * n + "]" * n


@pytest.fixture
def app(tmp_path):
    app = create_app(
        {"table": "bodies", "players": 2, "timers": 1, "sounds_dir": tmp_path, "audio": {"speech": False}},
        clock=FakeClock(),
    )
    app.extensions["companion.session"].handle(tm.ClockCommand("start"))
    return app


BAD = [
    (deep(20_000), 400, "nested more than 32 levels"),
    ('{"action": ' + '{"a":' * 5000 + "1" + "}" * 5000 + "}", 400, "nested more than 32 levels"),
    ('{"a": ' + deep(MAX_DEPTH) + "}", 400, "nested more than 32 levels"),
    ('{"action": {"type": "x", "n": NaN}}', 400, "not valid JSON"),
    ('{"confirm": Infinity}', 400, "not valid JSON"),
    ('{"node": "red-1", "intent": {"n": 1e400}}', 400, "not valid JSON"),
    ('{"node": "red-1", "intent": {"\\ud800": 1}}', 400, "not valid Unicode"),
    ("{not json", 400, "not valid JSON"),
    ("[1, 2]", 400, "send a JSON object like"),
    ('{"pad": "' + "x" * MAX_BODY_BYTES + '"}', 413, "larger than 64 KB"),
]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("body, status, reason", BAD, ids=[r for _, _, r in BAD])
def test_odd_json_gets_a_clear_4xx_and_changes_nothing(app, caplog, route, body, status, reason):
    session = app.extensions["companion.session"]
    state, logged, setup = session.state, len(session.log), session.setup
    disabled = app.extensions["companion.cues"].engine.disabled
    with caplog.at_level(logging.WARNING):
        res = app.test_client().post(
            route, data=body.encode("utf-8", "surrogatepass"), content_type="application/json"
        )
    assert res.status_code == status, res.get_data()
    answer = res.get_json()
    assert answer["ok"] is False and reason in answer["error"]
    assert "Traceback" not in res.get_data(as_text=True)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert session.state == state and len(session.log) == logged and session.setup == setup
    assert session.table.pairing is None and app.extensions["companion.cues"].engine.disabled == disabled


@pytest.mark.parametrize("route", ROUTES)
def test_a_body_not_sent_as_json_is_refused(app, route):
    res = app.test_client().post(route, data='{"confirm": true}', content_type="text/plain")
    assert res.status_code == 400 and "Content-Type: application/json" in res.get_json()["error"]


def test_json_nested_to_the_limit_is_read(app):
    """A body nested exactly to the limit is parsed and reaches the game, which answers what it thinks
    of the move (a table of timers only has none): the refusal is the game's, not the reader's."""
    body = '{"action": {"a": ' + "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2) + "}}"
    protocol.loads(body, MAX_BODY_BYTES, max_depth=MAX_DEPTH)
    with pytest.raises(protocol.PayloadTooDeepError):
        protocol.loads(body, MAX_BODY_BYTES, max_depth=MAX_DEPTH - 1)
    res = app.test_client().post("/api/players/red/action", data=body, content_type="application/json")
    assert res.status_code == 400 and "not a move of this game" in res.get_json()["error"]


def test_brackets_inside_strings_do_not_count():
    text = '{"a": "[[[[{{{{", "b": ["]]]", "\\"[["]}'
    assert protocol.loads(text, max_depth=2) == {"a": "[[[[{{{{", "b": ["]]]", '"[[']}
    with pytest.raises(protocol.PayloadTooDeepError):
        protocol.loads(text, max_depth=1)


def test_an_empty_undo_body_still_asks_for_confirmation(app):
    res = app.test_client().post("/api/undo")
    assert res.status_code == 409 and "no accepted action" in res.get_json()["error"]


def test_an_unexpected_failure_is_a_json_500_and_the_traceback_goes_to_the_log(app, caplog, monkeypatch):
    session = app.extensions["companion.session"]

    def broken() -> dict:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(session, "snapshot", broken)
    with caplog.at_level(logging.ERROR):
        res = app.test_client().get("/api/state")
    assert res.status_code == 500
    assert res.get_json() == {"ok": False, "error": INTERNAL_ERROR, "message": {"msg": INTERNAL_ERROR}}
    assert "secret detail" not in res.get_data(as_text=True)
    [record] = [r for r in caplog.records if r.name == "companion.hub.api"]
    assert record.exc_info is not None and "GET /api/state" in record.getMessage()


def test_pages_keep_flasks_own_error_page(app, monkeypatch):
    session = app.extensions["companion.session"]
    monkeypatch.setattr(
        type(session), "setup", property(lambda self: (_ for _ in ()).throw(RuntimeError("x")))
    )
    res = app.test_client().get("/setup")
    assert res.status_code == 500 and res.mimetype == "text/html"


def test_unknown_api_paths_and_methods_answer_json(app):
    client = app.test_client()
    missing = client.get("/api/nothing-here")
    assert missing.status_code == 404 and missing.get_json()["ok"] is False
    wrong = client.delete("/api/state")
    assert wrong.status_code == 405 and wrong.get_json()["ok"] is False


WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

TAKES_NO_BODY = {"/api/setup/cancel"}
"""Routes that ignore any body: they must still never fail, but need not read it."""

FORMS = {"/host"}
"""HTML forms (not JSON): a JSON body is no PIN, so it is a wrong one (403), never a 5xx."""

PATH_VALUES = {"player": "red", "node": "red-1", "action": "start"}


def write_routes(app) -> list[tuple[str, str]]:
    """(method, path) of every route that changes something, with the table's own names in the path."""
    found = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) & WRITE_METHODS):
            path = rule.rule
            for name in rule.arguments:
                path = path.replace(f"<{name}>", PATH_VALUES.get(name, "x"))
            found.append((method, path))
    return found


def test_every_write_route_is_found(app):
    routes = write_routes(app)
    for expected in [("POST", r) for r in ROUTES] + [
        ("POST", "/api/host"),
        ("POST", "/api/sim/red-1/flip"),
        ("POST", "/api/clock/start"),
        ("POST", "/api/players/red/token"),
        ("DELETE", "/api/players/red/token"),
        ("POST", "/api/nodes/red-1/identify"),
        ("POST", "/host"),
    ]:
        assert expected in routes


FUZZ = [
    (deep(20_000), "nested more than 32 levels"),
    ('{"a": ' + '{"b": ' * 3000 + "1" + "}" * 3000 + "}", "nested more than 32 levels"),
    ('{"pad": "' + "x" * (MAX_BODY_BYTES + 10) + '"}', "larger than 64 KB"),
    ('{"n": NaN}', "not valid JSON"),
    ('{"\\ud800": 1}', "not valid Unicode"),
    ("\ufeff{]", "not valid JSON"),
]


@pytest.mark.parametrize("body, reason", FUZZ, ids=[r for _, r in FUZZ])
def test_every_write_route_answers_odd_bodies_with_a_clear_4xx(app, caplog, body, reason):
    """A deeply nested or oversized body is a JSON 4xx that names the problem on every JSON route: no 500
    page, no RecursionError in the terminal, nothing changed."""
    session = app.extensions["companion.session"]
    state, logged, setup = session.state, len(session.log), session.setup
    client = app.test_client()
    for method, path in write_routes(app):
        with caplog.at_level(logging.WARNING):
            res = client.open(
                path,
                method=method,
                data=body.encode("utf-8", "surrogatepass"),
                content_type="application/json",
            )
        where = f"{method} {path}"
        assert res.status_code < 500, where
        assert "Traceback" not in res.get_data(as_text=True), where
        if path in FORMS:
            assert res.status_code == 403, where
        elif path not in TAKES_NO_BODY:
            assert res.status_code in (400, 413), where
            answer = res.get_json()
            assert answer["ok"] is False and reason in answer["error"], where
        assert session.state == state and len(session.log) == logged and session.setup == setup, where
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert "RecursionError" not in caplog.text
