"""Setting up a new game: choose the game, players and timers, then pair nodes by flipping them."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from companion.errors import CompanionError
from companion.games import TIMERS_ONLY, GameInfo, all_games, find_game, referee_for
from companion.hub.api import read_json
from companion.hub.auth import NO_CODE, access_of, host_only
from companion.hub.extensions import session_of
from companion.rules.setup import DEFAULT_GRACE_S, EARLY_LIFTS, PLAYER_COLOURS, Seat, make_setup

bp = Blueprint("setup", __name__)

NAME = re.compile(r"^[a-z0-9_]{1,16}$")


def _game_dict(info: GameInfo) -> dict[str, Any]:
    return {
        "name": info.name,
        "title": info.title,
        "uses_sandtimers": info.uses_sandtimers,
        "min_players": info.min_players,
        "max_players": info.max_players,
        "timers_per_player": info.timers_per_player,
        "variants": [
            {"name": v.name, "title": v.title, "clock_minutes": v.clock_minutes} for v in info.variants
        ],
    }


@bp.get("/api/games")
def games() -> Any:
    return jsonify([_game_dict(g) for g in all_games()])


def _error(message: str, status: int = 400) -> Any:
    return jsonify({"ok": False, "error": message}), status


def _number(body: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ValueError(f"{key} must be a number from {low:g} to {high:g}")
    return float(value)


@bp.post("/api/setup")
@host_only
def new_game() -> Any:
    """Start a new game at this table. ``pairing``: ``flip`` (pair nodes by flipping) or ``keep``."""
    body = read_json('{"game": "time-n-space", "players": ["ana", "ben", "eva"]}')
    session = session_of(current_app)
    try:
        info = find_game(str(body.get("game", TIMERS_ONLY)))
        variant = info.variant(str(body.get("variant", "")))
        players = body.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ValueError("players must be a list of names")
        players = [p.strip().lower() for p in players]
        bad = [p for p in players if not NAME.match(p)]
        if bad:
            raise ValueError(f"player name {bad[0]!r} must be 1-16 letters, digits or _")
        if len(set(players)) != len(players):
            raise ValueError("two players have the same name")
        if not info.min_players <= len(players) <= info.max_players:
            raise ValueError(f"{info.title} is for {info.min_players} to {info.max_players} players")
        timers = int(_number(body, "timers", info.timers_per_player, 1, 4))
        clock_minutes = _number(body, "clock_minutes", variant.clock_minutes, 0.5, 600)
        sand_s = _number(body, "sand_s", session.setup.sand_s, 1, 3600)
        grace_s = _number(body, "grace_s", DEFAULT_GRACE_S, 0, 10)
        early_lifts = body.get("early_lifts", "refuse")
        if early_lifts not in EARLY_LIFTS:
            raise ValueError(f"early_lifts must be one of {', '.join(EARLY_LIFTS)}")
        seed = int(_number(body, "seed", 0, 0, 2**31))
        colours = body.get("colours", [])
        if not isinstance(colours, list) or not all(isinstance(c, str) for c in colours):
            raise ValueError("colours must be a list of colour names")
        pairing = body.get("pairing", "flip")
        if pairing not in ("flip", "keep"):
            raise ValueError("pairing must be 'flip' or 'keep'")
        seats = tuple(Seat(p, i, f"{p}-{i}") for p in players for i in range(1, timers + 1))
        setup = make_setup(
            table=session.setup.table,
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
        )
        setup = replace(setup, turn_limit=bool(body.get("turn_limit", True)))
        if pairing == "keep":
            known = [n for n, i in session.nodes.items() if i.online]
            known += [n for n, i in session.unpaired.items() if i.online]
            if len(known) < len(seats):
                raise ValueError(f"only {len(known)} timers are connected; this game needs {len(seats)}")
            setup = replace(
                setup, seats=tuple(replace(s, node=n) for s, n in zip(seats, known, strict=False))
            )
        referee_for(setup)  # the game must be playable on the hub before anything changes
    except (CompanionError, ValueError) as exc:
        return _error(str(exc))
    try:
        if pairing == "keep":
            session.reset(setup)
        else:
            session.begin_pairing(setup)
    except CompanionError as exc:
        return _error(str(exc))
    return jsonify({"ok": True, "pairing": pairing, "setup": setup.to_dict()})


@bp.post("/api/setup/cancel")
@host_only
def cancel() -> Any:
    session_of(current_app).cancel_pairing()
    return jsonify({"ok": True})


@bp.get("/setup")
def setup_page() -> str:
    session = session_of(current_app)
    return render_template("setup.html", table=session.setup.table, colours=PLAYER_COLOURS)


@bp.get("/qr/<player>.svg")
@host_only
def qr(player: str) -> Any:
    """A QR code that opens ``player``'s phone page with their token, at ``HubConfig.public_url``
    (else the address this page was loaded from). Only the host sees it: it lets a phone play."""
    import io

    import segno

    session = session_of(current_app)
    if player not in session.setup.players:
        return _error(f"there is no player {player!r} at this table", 404)
    target = access_of(current_app).join_url(player, request.host_url)
    if target is None:
        return _error(NO_CODE.format(player=player), 409)
    out = io.BytesIO()
    segno.make(target, error="m").save(out, kind="svg", scale=6, border=2, dark="#000", light="#fff")
    return Response(out.getvalue(), mimetype="image/svg+xml", headers={"X-Target": target})
