"""HTTP fuzz: every JSON route, fed generated bodies and path parameters, never answers 5xx.

Each example sends one request to one of six hubs (one per game) through Flask's test client:
a shaped body (a setup, a game action or intent taken from the player's live menu and then
mutated, a cue list, an undo), odd JSON (nested thousands deep, ``NaN``, ``1e400``, unpaired
surrogates, a body over the size limit), junk bytes or another content type, and path
parameters from the table's own names or arbitrary text. Flips of the table's nodes and the
master clock moving forward mix in, so the games move on between requests.

For every answer: no 5xx, nothing logged at ERROR (no traceback), and a 4xx changed nothing
(the folded state and the log are as they were). The CI-sized run is 300 requests; set
``COMPANION_FUZZ_EXAMPLES=100000`` for the full-size run (see docs/running.md).
"""

from __future__ import annotations

import json
import logging
import os
import time
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.audio.cues import CUE_NAMES
from companion.clock import FakeClock
from companion.core import protocol as p
from companion.hub import create_app
from companion.hub.bodies import MAX_BODY_BYTES, MAX_DEPTH
from companion.rules.setup import PLAYER_COLOURS
from companion.table import messages as tm
from companion.table.session import ShuttingDown
from companion.testing import deliver

EXAMPLES = int(os.environ.get("COMPANION_FUZZ_EXAMPLES", "300"))

HUBS = [
    {"game": "sandtimers", "players": 3, "timers": 2},
    {"game": "time-n-space", "players": 3, "timers": 2},
    {"game": "space-dealer", "players": 3, "timers": 2},
    {"game": "time-splicers", "players": 3, "timers": 1},
    {"game": "timeline", "players": 3, "timers": 1},
    {"game": "space-and-time", "players": 2, "timers": 1},
]

GAME_NAMES = ["sandtimers", "time-n-space", "space-dealer", "time-splicers", "timeline", "space-and-time"]
VARIANTS = [
    "",
    "intro",
    "full",
    "light",
    "experienced",
    "basic",
    "standard",
    "vs-computer-b",
    "vs-computer-a",
]
ACTION_TYPES = [
    # the action types the games' referees read (grep 'get("type")' in companion/games/*/table.py)
    "lift",
    "lift-together",
    "finish",
    "handover",
    "starting-orders",
    "score-sheet",
    "start_choice",
    "table_started",
    "timer_node",
    "Sabotage",
    "move",
    "portal",
    "place",
    "quantum_tunnel",
    "time_jump",
    "redraw",
    "time_freeze",
    "time_out",
    "hints",
    "swap",
    "computer_move",
    "turn_started",
    "turn_timed_out",
    "RaiseTechLevel",
    "UseCard",
    "MoveShip",
]
FIELD_NAMES = [
    "type",
    "player",
    "timer",
    "t",
    "card",
    "ship",
    "to",
    "from",
    "symbol",
    "node",
    "choice",
    "index",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([0, 1, -1, 2, 3, 99, 2**31, 2**63, 10**30])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
_flat = st.lists(scalars, max_size=3) | st.dictionaries(st.text(max_size=8), scalars, max_size=3)
json_values = scalars | _flat | st.dictionaries(st.text(max_size=8), scalars | _flat, max_size=3)
"""Any JSON value, two levels deep at most (deeper bodies come from ODD_BODIES and the menus)."""


def deep(n: int, kind: str = "[") -> str:
    return "[" * n + "]" * n if kind == "[" else '{"a":' * n + "1" + "}" * n


ODD_BODIES = [
    b"",
    b"null",
    b"[]",
    b'"text"',
    b"0",
    b"{",
    b"{not json",
    b"NaN",
    b'{"action": NaN}',
    b'{"confirm": Infinity}',
    b'{"clock_minutes": -Infinity, "players": ["a", "b"]}',
    b'{"sand_s": 1e400, "players": ["a", "b"]}',
    b'{"action": {"type": "lift", "t": 1e400}}',
    b'{"players": ["' + b"1" * 5000 + b'"]}',
    b'{"seed": ' + b"9" * 5000 + b', "players": ["a", "b"]}',
    b'{"players": ["\\ud800"], "game": "sandtimers"}',
    b'{"action": {"type": "\\udfff"}}',
    b'{"node": "red-1", "intent": {"\\ud800": 1}}',
    b'{"disabled": ["\\ud800"]}',
    b"\xef\xbb\xbf{}",
    b"\xff\xfe\x00{",
    b'{"a": 1, "a": 2}',
    deep(MAX_DEPTH - 1).encode(),
    deep(MAX_DEPTH).encode(),
    deep(MAX_DEPTH + 1).encode(),
    deep(1000).encode(),
    deep(100_000).encode(),
    deep(5000, "{").encode(),
    ('{"action": ' + deep(990, "{") + "}").encode(),
    ('{"node": "red-1", "intent": ' + deep(3000, "{") + "}").encode(),
    ('{"disabled": ' + deep(50_000) + "}").encode(),
    ('{"confirm": true, "x": ' + deep(2000) + "}").encode(),
    (b'{"action": {"type": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}}'),
    ('{"players": ["a", "b"], "pad": "' + "x" * (MAX_BODY_BYTES + 10) + '"}').encode(),
    b"[" * (MAX_BODY_BYTES + 1),
]
CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/problem+json",
    None,
]


class FakeFleet:
    """Simulated nodes without a broker: a flip goes straight into the session, like the bridge's."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.seq: Counter[str] = Counter()
        self.lower_ms = 0

    def flip(self, node: str) -> bool:
        nodes = {seat.node for seat in self.session.setup.seats}
        if node not in nodes:
            return False
        self.seq[node] += 1
        message = p.validate(
            "event",
            {
                "v": 1,
                "kind": "flip",
                "boot": "0a1b2c3d",
                "seq": self.seq[node],
                "t_ms": self.seq[node] * 1000,
                "upper_ms": 60000,
                "lower_ms": self.lower_ms,
            },
        )
        deliver(self.session, node, message)
        return True


LOG_LIMIT = 1500
"""A hub whose log grew longer than this starts again (reading a long log is slow, not wrong)."""


class Hub:
    def __init__(self, config: dict[str, Any], sounds: Any) -> None:
        self.config, self.sounds = config, sounds
        self.renew()

    def renew(self) -> None:
        """A fresh hub for the same game, its master clock started."""
        if hasattr(self, "app"):
            self.close()
        config, sounds = self.config, self.sounds
        self.clock = FakeClock()
        self.fleet = FakeFleet(None)
        self.app = create_app(
            dict(config, table="fuzz", sounds_dir=str(sounds), audio={"speech": False}),
            clock=self.clock,
            fleet=self.fleet,
        )
        self.session = self.app.extensions["companion.session"]
        self.fleet.session = self.session
        self.app.extensions["companion.bridge"] = object()  # restart/identify answer as with a broker
        self.client = self.app.test_client()
        self.session.handle(tm.ClockCommand("start"))

    def close(self) -> None:
        self.app.extensions["companion.shutdown"].set()
        self.session.tell(ShuttingDown())


@pytest.fixture(scope="module")
def hubs(tmp_path_factory) -> Iterator[list[Hub]]:
    sounds = tmp_path_factory.mktemp("sounds")
    made = [Hub(config, sounds) for config in HUBS]
    yield made
    for hub in made:
        hub.close()


def quote(text: str) -> str:
    return urllib.parse.quote(text, safe="")


# Draws never depend on the hubs' state (hypothesis replays draws): a draw picks an index or an
# operation, and the live state (menus, names) only decides what it is applied to.
edits = st.lists(
    st.tuples(
        st.integers(0, 5), st.integers(0, 15), json_values, st.sampled_from(FIELD_NAMES) | st.text(max_size=6)
    ),
    max_size=4,
)


def mutate(value: dict[str, Any], ops: list[tuple[int, int, Any, str]]) -> Any:
    """A live menu's action or intent with some values replaced, dropped, added or nested changed."""
    out: Any = dict(value)
    for op, index, new, field in ops:
        if not isinstance(out, dict):
            break
        keys = list(out)
        key = keys[index % len(keys)] if keys else field
        if op == 0:
            out.pop(key, None)
        elif op == 1:
            out[key] = new
        elif op == 2:
            out[field] = new
        elif op == 3 and isinstance(out.get(key), dict):
            inner = dict(out[key])
            inner_keys = list(inner)
            inner[inner_keys[index % len(inner_keys)] if inner_keys else field] = new
            out[key] = inner
        elif op == 4 and index == 0:
            out = new
    return out


def menu_items(hub: Hub, player: str, part: str) -> list[dict[str, Any]]:
    snap = hub.session.player_snapshot(player) or {}
    items = [item.get(part) for item in snap.get("menu", []) if isinstance(item, dict)]
    return [item for item in items if isinstance(item, dict)]


_picks = st.integers(0, 63) | st.integers(0, 63) | st.integers(0, 63) | st.text(max_size=20)


def name(data: st.DataObject, known: list[str]) -> str:
    """One of ``known`` (three times in four) or any text."""
    pick = data.draw(_picks)
    if isinstance(pick, str):
        return pick
    return known[pick % len(known)] if known else str(pick)


_names = st.from_regex(r"\A[a-z0-9_]{1,16}\Z") | st.text(max_size=18)
_numbers = st.integers(-5, 100) | st.floats(allow_nan=False, allow_infinity=False) | json_values
setups = st.fixed_dictionaries(
    {},
    optional={
        "game": st.sampled_from(GAME_NAMES) | json_values,
        "variant": st.sampled_from(VARIANTS) | json_values,
        "players": st.lists(_names, max_size=9) | json_values,
        "timers": _numbers,
        "clock_minutes": _numbers,
        "sand_s": _numbers,
        "seed": _numbers,
        "colours": st.lists(st.sampled_from(PLAYER_COLOURS) | st.text(max_size=8), max_size=9) | json_values,
        "pairing": st.sampled_from(["flip", "keep"]) | json_values,
        "turn_limit": json_values,
    },
)
typed_fields = st.lists(st.tuples(st.sampled_from(FIELD_NAMES), st.integers(0, 7), json_values), max_size=4)


def action_body(data: st.DataObject, hub: Hub, player: str) -> Any:
    kind = data.draw(st.integers(0, 3))
    if kind == 0:  # one of the player's menu actions, edited
        pick, ops = data.draw(st.integers(0, 63)), data.draw(edits)
        items = menu_items(hub, player, "action")
        if items:
            return {"action": mutate(items[pick % len(items)], ops)}
        return {"action": mutate({"type": ACTION_TYPES[pick % len(ACTION_TYPES)]}, ops)}
    if kind == 1:  # an action type a referee reads, with fields it might read
        typed = {"type": data.draw(st.sampled_from(ACTION_TYPES))}
        players = list(hub.session.setup.players)
        for field, index, value in data.draw(typed_fields):
            typed[field] = players[index % len(players)] if index < 3 else index - 4 if index < 6 else value
        return {"action": typed}
    anything = data.draw(json_values)
    return {"action": anything} if kind == 2 else anything


def intent_body(data: st.DataObject, hub: Hub, player: str) -> Any:
    kind = data.draw(st.integers(0, 5))
    if kind == 0:
        return data.draw(json_values)
    node = name(data, [seat.node for seat in hub.session.setup.seats])
    if kind <= 3:  # one of the player's menu intents, edited
        pick, ops = data.draw(st.integers(0, 63)), data.draw(edits)
        items = menu_items(hub, player, "intent")
        if items:
            return {"node": node, "intent": mutate(items[pick % len(items)], ops)}
    return {"node": node, "intent": data.draw(st.none() | json_values)}


def raw_body(data: st.DataObject, shaped: Any) -> tuple[bytes, str | None]:
    """The body as bytes and its Content-Type: mostly the shaped JSON, sometimes odd bytes."""
    kind = data.draw(st.integers(0, 129))
    content_type = "application/json" if kind % 13 else data.draw(st.sampled_from(CONTENT_TYPES))
    if kind < 13:
        return data.draw(st.sampled_from(ODD_BODIES)), content_type
    if kind < 26:
        return data.draw(st.binary(max_size=64)), content_type
    return json.dumps(shaped).encode(), content_type


def draw_request(data: st.DataObject, hub: Hub) -> tuple[str, str, bytes | None, str | None]:
    """(method, path, body, content type) of one request to ``hub``."""
    session = hub.session
    players = list(session.setup.players)
    nodes = [seat.node for seat in session.setup.seats]
    route = data.draw(
        st.sampled_from(
            [
                "setup",
                "cancel",
                "action",
                "action",
                "action",
                "intent",
                "intent",
                "undo",
                "clock",
                "restart",
                "identify",
                "audio",
                "flip",
                "flip",
                "flip",
                "history",
                "get",
                "unrouted",
            ]
        )
    )
    player = quote(name(data, players))
    if route == "setup":
        return ("POST", "/api/setup", *raw_body(data, data.draw(setups)))
    if route == "cancel":
        return ("POST", "/api/setup/cancel", *raw_body(data, data.draw(json_values)))
    if route == "action":
        plain = name(data, players)
        return ("POST", f"/api/players/{quote(plain)}/action", *raw_body(data, action_body(data, hub, plain)))
    if route == "intent":
        plain = name(data, players)
        return ("POST", f"/api/players/{quote(plain)}/intent", *raw_body(data, intent_body(data, hub, plain)))
    if route == "undo":
        body = data.draw(st.just({"confirm": True}) | st.fixed_dictionaries({"confirm": json_values}))
        return ("POST", "/api/undo", *raw_body(data, body))
    if route == "clock":
        action = quote(name(data, ["start", "pause", "resume", "abort"]))
        return ("POST", f"/api/clock/{action}", *raw_body(data, data.draw(json_values)))
    if route in ("restart", "identify"):
        return ("POST", f"/api/nodes/{quote(name(data, nodes))}/{route}", None, None)
    if route == "audio":
        body = {"disabled": data.draw(st.lists(st.sampled_from(CUE_NAMES) | st.text(max_size=8), max_size=4))}
        if data.draw(st.booleans()):
            body = {"disabled": []}  # keep the cues on most of the time
        return ("POST", "/api/audio", *raw_body(data, body))
    if route == "flip":
        hub.clock.advance(data.draw(st.sampled_from([0.0, 1.0, 30.0, 61.0, 200.0])))
        hub.fleet.lower_ms = data.draw(st.sampled_from([0, 0, 1000]))
        return ("POST", f"/api/sim/{quote(name(data, nodes))}/flip", None, None)
    if route == "history":
        game_id = name(data, ["current", "fuzz-20260101-000000", "../../etc/passwd", "a" * 300])
        return ("GET", f"/api/history/{quote(game_id)}", None, None)
    if route == "get":
        path = data.draw(
            st.sampled_from(
                [
                    "/api/state",
                    "/api/stats",
                    "/api/nodes",
                    "/api/events",
                    "/api/undo",
                    "/api/audio",
                    "/api/games",
                    "/api/history",
                    "/api/scores.json",
                    "/api/scores.csv",
                    f"/api/players/{player}",
                    f"/api/stream?player={quote('x' + player)}",
                ]
            )
        )
        return ("GET", path, None, None)
    method = data.draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]))
    path = data.draw(
        st.sampled_from(
            ["/api/setup", "/api/undo", "/api/state", "/api/clock/start", "/api/players/red/action"]
        )
        | st.text(max_size=20).map(lambda t: "/api/" + quote(t))
    )
    return (method, path, None, None)


STATS: Counter[str] = Counter()
TIMES: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def report_counts() -> Iterator[None]:
    start = time.perf_counter()
    yield
    took = time.perf_counter() - start
    total = sum(v for k, v in STATS.items() if k.startswith("status "))
    by_status = ", ".join(f"{k[7:]}: {v}" for k, v in sorted(STATS.items()) if k.startswith("status "))
    print(f"\nHTTP fuzz: {total} requests in {took:.1f} s ({by_status})")
    print("request time per route:", {k: round(v, 2) for k, v in TIMES.most_common(8)})


@pytest.mark.timeout(max(120, EXAMPLES // 100))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_no_route_answers_5xx_logs_a_traceback_or_changes_anything_when_it_refuses(hubs, caplog, data):
    hub = data.draw(st.sampled_from(hubs))
    if len(hub.session.log) > LOG_LIMIT:
        hub.renew()
    method, path, body, content_type = draw_request(data, hub)
    session = hub.session
    state, log, logged = session.state, session.log, len(session.log)
    headers = {} if content_type is None else {"Content-Type": content_type}
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        started = time.perf_counter()
        res = hub.client.open(path, method=method, data=body, headers=headers, buffered=False)
        TIMES[path.split("/")[2] if path.count("/") >= 2 else path] += time.perf_counter() - started
        try:
            status = res.status_code
            live = status == 200 and res.mimetype == "text/event-stream"  # an open stream: not read
            answer = b"" if live else res.get_data()
        finally:
            res.close()
    STATS[f"status {status}"] += 1
    where = f"{method} {path} {body[:200] if body else body!r} -> {status} {answer[:300]!r}"
    assert status < 500, where
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, f"{where}: logged {errors[0].getMessage()}"
    if 400 <= status < 500:
        assert session.log is log and len(session.log) == logged, where
        assert session.state is state or session.state == state, where
        if path.startswith("/api/"):
            error = json.loads(answer) if answer else None
            assert isinstance(error, dict) and error["ok"] is False and error["error"], where
