"""Replay a JSON Timeline game record through the rules engine (``companion referee timeline FILE``).

The record format and the output are documented with a full example in
``docs/games/timeline.md``. Each move is read by the game's codec (its fields checked against the
action's annotations); bad input raises :class:`InvalidRecordError` with one sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.codec import Codec
from companion.rules.outcome import Accepted

from .box import TimelineData, TimelineSettings
from .cards import SHIPPED_DECKS, Card, deck_from_list
from .engine import apply, game_from_deal, new_game
from .model import (
    CardDrawn,
    CardMisplaced,
    DiscardReshuffled,
    GameShared,
    GameWon,
    PlaceCard,
    PlayoffStarted,
    RoundEnded,
    TimelineState,
)

RECORD_KEYS = ("players", "seed", "hand_size", "deck", "deal", "moves")
DEAL_KEYS = ("hands", "reference", "draw_pile")
MOVE_KEYS = ("player", "card", "gap")

_CODEC = Codec([PlaceCard])


def _check_keys(obj: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in obj:
        if key not in allowed and not key.startswith("_"):
            raise InvalidRecordError(
                f"{where} has an unknown field {key!r}; known fields: {', '.join(allowed)}"
            )


def _whole_number(value: Any, what: str, *, least: int | None = None) -> int:
    if type(value) is not int or (least is not None and value < least):
        at_least = f" of at least {least}" if least is not None else ""
        raise InvalidRecordError(f"{what} must be a whole number{at_least}, not {value!r}")
    return value


def _read_deck(record: dict[str, Any], decks: Mapping[str, tuple[Card, ...]]) -> tuple[Card, ...]:
    deck = record.get("deck", "espana")
    if isinstance(deck, str):
        if deck not in SHIPPED_DECKS:
            raise InvalidRecordError(f"unknown deck {deck!r}; shipped decks: {', '.join(SHIPPED_DECKS)}")
        return decks[deck]
    return deck_from_list(deck, "the record's deck")


def _players(record: dict[str, Any]) -> list[str]:
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InvalidRecordError('the record needs "players": a list of player names in seating order')
    return players


def _start(
    record: dict[str, Any], settings: TimelineSettings, decks: Mapping[str, tuple[Card, ...]]
) -> TimelineState:
    players = _players(record)
    seed = _whole_number(record.get("seed", 0), "the seed")
    cards = _read_deck(record, decks)
    limits = {"min_players": settings.min_players, "max_players": settings.max_players}
    deal = record.get("deal")
    if deal is None:
        hand_size = _whole_number(record.get("hand_size", settings.hand_size), "hand_size", least=1)
        return new_game(cards, players, seed=seed, hand_size=hand_size, **limits)
    if not isinstance(deal, dict):
        raise InvalidRecordError('"deal" must be an object with hands, reference and draw_pile')
    _check_keys(deal, DEAL_KEYS, "the deal")
    if "hand_size" in record:
        raise InvalidRecordError("give either hand_size or an explicit deal, not both")
    hands = deal.get("hands")
    if not isinstance(hands, dict) or not all(isinstance(h, list) for h in hands.values()):
        raise InvalidRecordError("deal.hands must map each player to a list of card ids")
    if "reference" not in deal:
        raise InvalidRecordError('the deal needs "reference": the id of the face-up starting card')
    draw_pile = deal.get("draw_pile", [])
    if not isinstance(draw_pile, list):
        raise InvalidRecordError("deal.draw_pile must be a list of card ids, top card first")
    return game_from_deal(
        cards, players, hands=hands, reference=deal["reference"], draw_pile=draw_pile, seed=seed, **limits
    )


def _read_move(move: Any, number: int) -> PlaceCard:
    """One move of the record, ``{"player", "card", "gap"}``, as the engine's :class:`PlaceCard`."""
    where = f"move {number}"
    if not isinstance(move, dict):
        raise InvalidRecordError(f"{where} must be an object with player, card and gap")
    _check_keys(move, MOVE_KEYS, where)
    missing = [k for k in MOVE_KEYS if k not in move]
    if missing:
        raise InvalidRecordError(f"{where} is missing {', '.join(missing)}")
    fields = {key: move[key] for key in MOVE_KEYS}
    try:
        action: PlaceCard = _CODEC.read({"@": "PlaceCard", **fields}, (PlaceCard,))
    except InvalidRecordError as exc:
        raise InvalidRecordError(f"{where}: {exc}") from None
    return action


def _result(state: TimelineState, action: PlaceCard, events: tuple[Any, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ok": True,
        "player": action.player,
        "card": action.card,
        "year": state.piles.cards[action.card].year,
        "gap": action.gap,
        "correct": not any(isinstance(e, CardMisplaced) for e in events),
        "drew": None,
        "reshuffled": any(isinstance(e, DiscardReshuffled) for e in events),
    }
    round_over = False
    for event in events:
        if isinstance(event, CardDrawn):
            if not round_over:
                out["drew"] = event.card
            else:
                out.setdefault("playoff_draws", {})[event.player] = event.card
        elif isinstance(event, RoundEnded):
            round_over = True
            out["round_ended"] = event.round
        elif isinstance(event, PlayoffStarted):
            out["playoff"] = list(event.players)
            out["eliminated"] = list(event.eliminated)
        elif isinstance(event, GameWon):
            out["winner"] = event.player
        elif isinstance(event, GameShared):
            out["shared_by"] = list(event.players)
    return out


def _summary(state: TimelineState) -> dict[str, Any]:
    return {
        "timeline": [state.piles.cards[c].as_dict() for c in state.timeline_cards()],
        "hands": {p: list(state.hand(p)) for p in state.players},
        "deck_left": state.piles.deck_size,
        "discard": list(state.piles.discard),
        "round": state.round,
        "playoff": state.playoff,
        "eliminated": list(state.eliminated),
        "next_player": state.to_move,
        "winner": state.winner,
        "shared_by": list(state.shared_by),
    }


def referee_record(record: dict[str, Any], *, data: TimelineData | None = None) -> dict[str, Any]:
    """Replay a Timeline game record and report each move and the final position.

    A rejected move leaves the game unchanged and the same player still to move, as at
    the table; moves after the end are rejected too. When the record gives a seed rather
    than an explicit deal, the output also shows the deal the seed made, so players can
    lay out the same cards. ``data`` (default: the shipped decks and settings, ``GAME.data``)
    gives the decks a record names and the settings.
    """
    if not isinstance(record, dict):
        raise InvalidRecordError("a Timeline record must be a JSON object with players and moves")
    _check_keys(record, RECORD_KEYS, "the record")
    if data is None:
        from companion.games.timeline import GAME

        data = GAME.data
    state = _start(record, data.settings, data.decks)
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise InvalidRecordError('"moves" must be a list of {player, card, gap} objects')
    actions = [_read_move(m, n) for n, m in enumerate(moves, start=1)]
    dealt_by_seed = "deal" not in record
    deal = {
        "reference": state.timeline[0].card,
        "hands": {p: list(state.hand(p)) for p in state.players},
        "draw_pile": list(state.piles.deck),
    }
    results: list[dict[str, Any]] = []
    for action in actions:
        outcome = apply(state, action)
        if isinstance(outcome, Accepted):
            results.append(_result(state, action, outcome.events))
            state = outcome.state
        else:
            results.append(
                {
                    "ok": False,
                    "player": action.player,
                    "card": action.card,
                    "reason": str(outcome.reason),  # a record's output is English, like the CLI
                    "rule": str(outcome.rule),
                }
            )
    out: dict[str, Any] = {"players": list(state.players)}
    if dealt_by_seed:
        out["deal"] = deal
    return {**out, "results": results, **_summary(state)}
