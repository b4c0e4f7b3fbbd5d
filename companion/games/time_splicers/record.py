"""Replay a JSON game record through the Time Splicers engine (``companion referee time-splicers``).

The record format and the output are documented with full examples in
docs/games/time-splicers.md. In short::

    {"players": ["Ann", "Bob"], "deck": "table",                    # "hub" (default): seeded from "seed"
     "layout": {"start": "red-5", "hands": {...}, "deck": [...]},   # optional: the cards as laid out
     "deck_file": "my-deck.csv",                                     # optional: the box's own counts
     "actions": [{"player": "Ann", "action": {"@": "PlaceCard", "card": "red-6"}}, ...]}

Each action is one of the game's moves (or ``ForfeitTurn``) in the codec's form, the same JSON a
phone posts. Structural mistakes raise :class:`~companion.errors.InvalidRecordError` with one
sentence; an action that breaks a rule becomes ``{"ok": false, "reason": ...}`` and the
same player acts again.
"""

from __future__ import annotations

from typing import Any, cast

from companion.errors import InvalidRecordError
from companion.rules.deck import DECK_MODES, DeckMode
from companion.rules.outcome import Rejected

from .components import DeckConfig, DeckFileError, load_components
from .engine import apply
from .model import MOVES, ForfeitTurn, GameState
from .setup import Layout, new_game

RECORD_ACTIONS: tuple[type, ...] = (*MOVES, ForfeitTurn)
"""What a record's action may be: every move of a phone, and a turn timer running out."""

_RECORD_KEYS = {"players", "seed", "deck", "layout", "deck_file", "actions"}
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


def _fail(message: str) -> InvalidRecordError:
    return InvalidRecordError(message)


def _str_list(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(f"{where} must be a list of card names")
    return tuple(value)


def _parse_layout(raw: Any, deck: DeckMode) -> Layout:
    if not isinstance(raw, dict):
        raise _fail("'layout' must be an object")
    extra = set(raw) - _LAYOUT_KEYS
    if extra:
        raise _fail(f"'layout' has an unknown field {sorted(extra)[0]!r}")
    start = raw.get("start")
    rows = raw.get("timelines", [])
    if not isinstance(rows, list):
        raise _fail("layout 'timelines' must be a list of lists of card names")
    if start is None and not rows and deck == "hub":
        raise _fail("'layout' needs 'start', the name of the face-up starting card, or 'timelines'")
    if start is not None and not isinstance(start, str):
        raise _fail("layout 'start' must be a card name")
    positions = raw.get("positions", {})
    if not isinstance(positions, dict) or not all(isinstance(v, str) for v in positions.values()):
        raise _fail("layout 'positions' must be an object of player name to card name")
    hands = raw.get("hands", {} if deck == "table" else None)
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


def _parse_action(raw: Any, i: int, codec: Any) -> tuple[str, Any]:
    where = f"action {i}"
    if not isinstance(raw, dict):
        raise _fail(f"{where} must be an object")
    extra = sorted(set(raw) - {"player", "action"})
    if extra:
        raise _fail(f"{where} has an unknown field {extra[0]!r}")
    player = raw.get("player")
    if not isinstance(player, str):
        raise _fail(f"{where} needs 'player', the name of the player acting")
    move = raw.get("action")
    if not isinstance(move, dict) or not isinstance(move.get("@"), str):
        raise _fail(f'{where} needs \'action\', a move such as {{"@": "PlaceCard", "card": "red-6"}}')
    try:
        return player, codec.read(move, RECORD_ACTIONS)
    except (
        InvalidRecordError,
        TypeError,
        ValueError,
        RecursionError,
    ) as exc:  # a malformed value of any kind
        raise _fail(f"{where}: {exc}") from None


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
    from companion.games.time_splicers import GAME

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
    deck = record.get("deck", "hub")
    if deck not in DECK_MODES:
        raise _fail('\'deck\' is "table" (the players shuffled the box) or "hub" (dealt from the seed)')
    mode = cast(DeckMode, deck)
    deck_file = record.get("deck_file")
    if deck_file is not None and not isinstance(deck_file, str):
        raise _fail("'deck_file' must be the path of a component file")
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise _fail("'actions' must be a list of actions")
    layout = _parse_layout(record["layout"], mode) if record.get("layout") is not None else None
    parsed = [_parse_action(a, i, GAME.codec) for i, a in enumerate(actions)]
    config: DeckConfig
    if deck_file is None:
        config = GAME.data
    else:
        try:
            config = load_components(deck_file)
        except DeckFileError as exc:
            raise _fail(str(exc)) from exc
    state = new_game(players, seed=seed, config=config, layout=layout, deck=mode)
    setup = {
        "start": layout.start if layout is not None else state.players[0].position,
        "hands": {p.name: list(p.hand) for p in state.players},
    }
    results: list[dict[str, Any]] = []
    for i, (player, action) in enumerate(parsed):
        outcome = apply(state, action, by=player)
        entry: dict[str, Any] = {
            "index": i,
            "player": player,
            "action": GAME.codec.encode(action),
            "ok": not isinstance(outcome, Rejected),
        }
        if isinstance(outcome, Rejected):
            entry["reason"] = str(outcome.reason)  # the record's report is in English
            entry["rule"] = str(outcome.rule)
        else:
            state = outcome.state
            entry["events"] = [GAME.codec.encode(e) for e in outcome.events]
        results.append(entry)
    return {"setup": setup, "results": results, **summary(state)}
