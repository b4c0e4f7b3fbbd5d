"""Replay a JSON game record through the Time Splicers engine (``companion referee time-splicers``).

The record format and the output are documented with a full example in
docs/games/time-splicers.md. In short::

    {"players": ["Ann", "Bob"], "seed": "demo",
     "layout": {"start": "red-5", "hands": {...}, "deck": [...]},   # optional
     "deck_file": "my-deck.json",                                    # optional
     "actions": [{"player": "Ann", "action": "place", "card": "red-6"}, ...]}

Structural mistakes raise :class:`~companion.errors.InvalidRecordError` with one
sentence; an action that breaks a rule becomes ``{"ok": false, "reason": ...}`` and the
same player acts again.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.base import Accepted

from .deck import DeckConfig, DeckFileError, load_deck
from .engine import (
    Action,
    EnterPortal,
    ForfeitTurn,
    GameState,
    Layout,
    Move,
    PlaceCard,
    PlaceTimeFreeze,
    RedrawHand,
    UseQuantumTunnel,
    UseTimeJump,
    apply,
    new_game,
)

_RECORD_KEYS = {"players", "seed", "layout", "deck_file", "actions"}
_LAYOUT_KEYS = {
    "start",
    "hands",
    "deck",
    "discard",
    "crystals",
    "tokens",
    "timelines",
    "positions",
    "first_player",
    "reshuffles",
}
_ACTION_FIELDS: dict[str, tuple[set[str], set[str]]] = {
    # action name: (required fields, optional fields), besides "player" and "action"
    "move": ({"to"}, set()),
    "portal": (set(), set()),
    "place": ({"card"}, {"sequence", "relocate_to"}),
    "quantum_tunnel": ({"to"}, set()),
    "time_jump": ({"to"}, {"use"}),
    "redraw": (set(), set()),
    "time_freeze": (set(), set()),
    "time_out": (set(), set()),
}


def _fail(message: str) -> InvalidRecordError:
    return InvalidRecordError(message)


def _str_list(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(f"{where} must be a list of card names")
    return tuple(value)


def _parse_layout(raw: Any) -> Layout:
    if not isinstance(raw, dict):
        raise _fail("'layout' must be an object")
    extra = set(raw) - _LAYOUT_KEYS
    if extra:
        raise _fail(f"'layout' has an unknown field {sorted(extra)[0]!r}")
    start = raw.get("start")
    rows = raw.get("timelines", [])
    if not isinstance(rows, list):
        raise _fail("layout 'timelines' must be a list of lists of card names")
    if start is None and not rows:
        raise _fail("'layout' needs 'start', the name of the face-up starting card, or 'timelines'")
    if start is not None and not isinstance(start, str):
        raise _fail("layout 'start' must be a card name")
    positions = raw.get("positions", {})
    if not isinstance(positions, dict) or not all(isinstance(v, str) for v in positions.values()):
        raise _fail("layout 'positions' must be an object of player name to card name")
    hands = raw.get("hands")
    if not isinstance(hands, dict):
        raise _fail("'layout' needs 'hands', an object of player name to list of cards")
    counts: dict[str, dict[str, int]] = {}
    for key in ("crystals", "tokens"):
        value = raw.get(key, {})
        if not isinstance(value, dict):
            raise _fail(f"layout '{key}' must be an object of player name to a number")
        counts[key] = value
    first = raw.get("first_player")
    if first is not None and not isinstance(first, str):
        raise _fail("layout 'first_player' must be a player name")
    reshuffles = raw.get("reshuffles", [])
    if not isinstance(reshuffles, list):
        raise _fail("layout 'reshuffles' must be a list of lists of card names")
    return Layout(
        start=start,
        first_player=first,
        reshuffle_tops=tuple(_str_list(r, "each layout reshuffle") for r in reshuffles),
        timelines=tuple(_str_list(row, "each layout Timeline") for row in rows),
        positions=dict(positions),
        hands={name: _str_list(cards, f"layout hand of {name!r}") for name, cards in hands.items()},
        deck_top=_str_list(raw.get("deck", []), "layout 'deck'"),
        discard=_str_list(raw.get("discard", []), "layout 'discard'"),
        crystals=counts["crystals"],
        tokens=counts["tokens"],
    )


def _parse_action(raw: Any, i: int) -> Action:
    where = f"action {i}"
    if not isinstance(raw, dict):
        raise _fail(f"{where} must be an object")
    name = raw.get("action")
    if name not in _ACTION_FIELDS:
        raise _fail(f"{where} has action {name!r}; use one of: {', '.join(_ACTION_FIELDS)}")
    player = raw.get("player")
    if not isinstance(player, str):
        raise _fail(f"{where} needs 'player', the name of the player acting")
    required, optional = _ACTION_FIELDS[name]
    for key in raw:
        if key not in required | optional | {"player", "action"}:
            raise _fail(f"{where} ({name}) has an unknown field {key!r}")
    for key in required:
        if not isinstance(raw.get(key), str):
            raise _fail(f"{where} ({name}) needs {key!r}, a card name")
    if name == "move":
        return Move(player, raw["to"])
    if name == "portal":
        return EnterPortal(player)
    if name == "place":
        sequence = raw.get("sequence")
        if sequence is not None and (isinstance(sequence, bool) or not isinstance(sequence, int)):
            raise _fail(f"{where} (place): 'sequence' must be the lowest number of the sequence to collapse")
        relocate = raw.get("relocate_to")
        if relocate is not None and not isinstance(relocate, str):
            raise _fail(f"{where} (place): 'relocate_to' must be a Timeline colour")
        return PlaceCard(player, raw["card"], sequence, relocate)
    if name == "quantum_tunnel":
        return UseQuantumTunnel(player, raw["to"])
    if name == "time_jump":
        use = raw.get("use", "card")
        if use not in ("card", "token"):
            raise _fail(f'{where} (time_jump): \'use\' must be "card" or "token"')
        return UseTimeJump(player, raw["to"], use == "token")
    if name == "redraw":
        return RedrawHand(player)
    if name == "time_out":
        return ForfeitTurn(player)
    return PlaceTimeFreeze(player)


def event_to_dict(event: Any) -> dict[str, Any]:
    """An engine event as JSON: ``{"event": "CardPlaced", ...its fields}``."""
    out: dict[str, Any] = {"event": type(event).__name__}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def summary(state: GameState) -> dict[str, Any]:
    """Crystals, tokens, positions, Timelines, eliminated players and the winner."""
    return {
        "crystals": {p.name: p.crystals for p in state.players},
        "time_jump_tokens": {p.name: p.time_jump_tokens for p in state.players},
        "positions": {p.name: p.position for p in state.players},
        "timelines": {t.colour: list(t.cards) for t in state.timelines},
        "eliminated": [p.name for p in state.players if p.eliminated],
        "next_player": None if state.is_over else state.current_player,
        "winner": state.winner,
    }


def referee_record(record: dict[str, Any]) -> dict[str, Any]:
    """Replay a Time Splicers record and report every action and the final standing."""
    if not isinstance(record, dict):
        raise _fail("a Time Splicers record must be a JSON object")
    extra = set(record) - _RECORD_KEYS
    if extra:
        raise _fail(f"the record has an unknown field {sorted(extra)[0]!r}")
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise _fail("'players' must be a list of player names, in turn order")
    seed = record.get("seed", "0")
    if isinstance(seed, bool) or not isinstance(seed, (str, int)):
        raise _fail("'seed' must be a string or a whole number")
    deck_file = record.get("deck_file")
    if deck_file is not None and not isinstance(deck_file, str):
        raise _fail("'deck_file' must be the path of a deck JSON file")
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise _fail("'actions' must be a list of actions")
    layout = _parse_layout(record["layout"]) if record.get("layout") is not None else None
    parsed = [_parse_action(a, i) for i, a in enumerate(actions)]
    config: DeckConfig
    if deck_file is None:
        from companion.games.time_splicers import GAME

        config = GAME.data
    else:
        try:
            config = load_deck(deck_file)
        except DeckFileError as exc:
            raise _fail(str(exc)) from exc
    state = new_game(players, seed=seed, config=config, layout=layout)
    setup = {
        "start": layout.start if layout is not None else state.players[0].position,
        "hands": {p.name: list(p.hand) for p in state.players},
    }
    results: list[dict[str, Any]] = []
    for i, (raw, action) in enumerate(zip(actions, parsed, strict=True)):
        outcome = apply(state, action)
        entry: dict[str, Any] = {
            "index": i,
            "player": raw["player"],
            "action": raw["action"],
            "ok": outcome.ok,
        }
        if isinstance(outcome, Accepted):
            state = outcome.state
            entry["events"] = [event_to_dict(e) for e in outcome.events]
        else:
            entry["reason"] = str(outcome.reason)  # the record's report is in English
            entry["rule"] = str(outcome.rule)
        results.append(entry)
    return {"setup": setup, "results": results, **summary(state)}
