"""Replay a JSON Timeline game record through the rules engine (``companion referee timeline FILE``).

Two kinds of record, documented with a full example each in ``docs/games/timeline.md``:

* a game played with the box (``"deck": "table"``): the year of the reference card and, for each
  turn, where the card went and what it showed when turned over (its year, or right/wrong), as the
  table had them; the hub needs no card list;
* a game of the hub deck's cards (``"deck": "espana"`` or a list of cards), dealt by a seed or as
  a real table dealt them, each move naming the card and the gap.

Each move is read by the game's codec (its fields checked against the action's annotations); bad
input raises :class:`InvalidRecordError` with one sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.codec import Codec
from companion.rules.outcome import Accepted

from .box import TimelineBox, TimelineData
from .cards import SHIPPED_DECKS, Card, deck_from_list
from .engine import apply, game_from_deal, new_game, table_game
from .hubdeck import HubPiles
from .model import (
    CardDrawn,
    CardMisplaced,
    CardPlaced,
    DiscardReshuffled,
    GameShared,
    GameWon,
    Laid,
    NameYear,
    PlaceCard,
    PlayoffStarted,
    PutCard,
    RevealCard,
    RoundEnded,
    TimelineState,
)

RECORD_KEYS = ("players", "seed", "hand_size", "deck", "deal", "moves")
DEAL_KEYS = ("hands", "reference", "draw_pile")
MOVE_KEYS = ("player", "card", "gap")
TABLE_DECK = "table"
"""``"deck": "table"``: the game was played with the box; the record gives what the table turned over."""
TABLE_RECORD_KEYS = ("players", "deck", "cards", "hand_size", "reference", "moves")
TABLE_MOVE_KEYS = ("player", "gap", "year", "right")
NAME_KEYS = ("position", "year")

_CODEC = Codec([PlaceCard, PutCard, RevealCard, NameYear])


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


def _start(record: dict[str, Any], box: TimelineBox, decks: Mapping[str, tuple[Card, ...]]) -> TimelineState:
    players = _players(record)
    seed = _whole_number(record.get("seed", 0), "the seed")
    cards = _read_deck(record, decks)
    limits = {"min_players": box.min_players, "max_players": box.max_players}
    deal = record.get("deal")
    if deal is None:
        hand_size = _whole_number(record.get("hand_size", box.hand_size), "hand_size", least=1)
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
    piles = state.piles
    assert isinstance(piles, HubPiles)
    out: dict[str, Any] = {
        "ok": True,
        "player": action.player,
        "card": action.card,
        "year": piles.cards[action.card].year,
        "gap": action.gap,
        "correct": not any(isinstance(e, CardMisplaced) for e in events),
        "drew": None,
        "reshuffled": any(isinstance(e, DiscardReshuffled) for e in events),
    }
    return _round_results(out, events, table=False)


def _round_results(out: dict[str, Any], events: tuple[Any, ...], *, table: bool) -> dict[str, Any]:
    """``out`` with what a move caused after its card: the draws, the end of the round, the play-off."""
    round_over = False
    for event in events:
        if isinstance(event, CardDrawn):
            if not round_over:
                out["drew"] = True if table else event.card
            elif table:
                out.setdefault("playoff_draws", []).append(event.player)
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
    piles = state.piles
    if isinstance(piles, HubPiles):
        shown: dict[str, Any] = {
            "timeline": [piles.cards[c].as_dict() for c in state.timeline_cards()],
            "hands": {p: list(state.hand(p)) for p in state.players},
            "deck_left": piles.deck_size,
            "discard": list(piles.discard),
        }
    else:
        shown = {
            "timeline": list(state.years()),
            "hands": {p: state.held(p) for p in state.players},
            "deck_left": piles.deck_size,
            "discard": piles.discard_size,
        }
    return {
        **shown,
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
    lay out the same cards. ``data`` (default: the shipped box and decks, ``GAME.data``)
    gives the decks a record names and the box's numbers.
    """
    if not isinstance(record, dict):
        raise InvalidRecordError("a Timeline record must be a JSON object with players and moves")
    if data is None:
        from companion.games.timeline import GAME

        data = GAME.data
    if record.get("deck") == TABLE_DECK:
        return table_record(record, box=data.box)
    _check_keys(record, RECORD_KEYS, "the record")
    state = _start(record, data.box, data.decks)
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise InvalidRecordError('"moves" must be a list of {player, card, gap} objects')
    actions = [_read_move(m, n) for n, m in enumerate(moves, start=1)]
    dealt_by_seed = "deal" not in record
    piles = state.piles
    assert isinstance(piles, HubPiles)
    deal = {
        "reference": state.timeline[0].card,
        "hands": {p: list(state.hand(p)) for p in state.players},
        "draw_pile": list(piles.deck),
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


# --- a game played with the box ------------------------------------------------------------------


def _read(kind: type, fields: dict[str, Any], where: str) -> Any:
    try:
        return _CODEC.read({"@": kind.__name__, **fields}, (kind,))
    except InvalidRecordError as exc:
        raise InvalidRecordError(f"{where}: {exc}") from None


def _table_move(move: Any, number: int) -> tuple[Any, ...]:
    """One move of a table record: a turn ``{"player", "gap", "year"?, "right"?}`` (the card put in a gap
    and what it showed) as :class:`PutCard` and :class:`RevealCard`, or the year of a timeline card
    entered later ``{"position", "year"}`` as :class:`NameYear`."""
    where = f"move {number}"
    if not isinstance(move, dict):
        raise InvalidRecordError(f"{where} must be an object with player, gap and year or right")
    if "position" in move:
        _check_keys(move, NAME_KEYS, where)
        missing = [k for k in NAME_KEYS if k not in move]
        if missing:
            raise InvalidRecordError(f"{where} is missing {', '.join(missing)}")
        return (_read(NameYear, {k: move[k] for k in NAME_KEYS}, where),)
    _check_keys(move, TABLE_MOVE_KEYS, where)
    missing = [k for k in ("player", "gap") if k not in move]
    if missing:
        raise InvalidRecordError(f"{where} is missing {', '.join(missing)}")
    if "year" not in move and "right" not in move:
        raise InvalidRecordError(f"{where} needs the year the card showed, or whether it was right")
    put = _read(PutCard, {"player": move["player"], "gap": move["gap"]}, where)
    reveal = _read(
        RevealCard, {"player": move["player"], "year": move.get("year"), "right": move.get("right")}, where
    )
    return (put, reveal)


def _table_result(move: tuple[Any, ...], events: tuple[Any, ...]) -> dict[str, Any]:
    if isinstance(move[0], NameYear):
        return {"ok": True, "position": move[0].position, "year": move[0].year}
    put, reveal = move
    placed = next(e for e in events if isinstance(e, (CardPlaced, CardMisplaced)))
    out: dict[str, Any] = {
        "ok": True,
        "player": put.player,
        "gap": put.gap,
        "year": reveal.year,
        "correct": isinstance(placed, CardPlaced),
        "judged_by": "table" if placed.by_table else "hub",
        "drew": False,
        "reshuffled": any(isinstance(e, DiscardReshuffled) for e in events),
    }
    return _round_results(out, events, table=True)


def _start_table(record: dict[str, Any], box: TimelineBox) -> TimelineState:
    players = _players(record)
    cards = _whole_number(record.get("cards", box.cards), "cards", least=1)
    hand_size = _whole_number(record.get("hand_size", box.hand_size), "hand_size", least=1)
    state = table_game(
        players, cards=cards, hand_size=hand_size, min_players=box.min_players, max_players=box.max_players
    )
    reference = record.get("reference")
    if reference is not None:
        year = _whole_number(reference, "the reference card's year")
        if year == 0:
            raise InvalidRecordError("the reference card's year cannot be 0: the year before 1 is 1 BCE (-1)")
        state = replace(state, timeline=(Laid(year),))
    return state


def table_record(record: dict[str, Any], *, box: TimelineBox) -> dict[str, Any]:
    """Replay a game played with the box (``"deck": "table"``): what the table turned over, move by move.

    A refused move (its card put and turned over as one) leaves the game as it was, the same player
    still to move."""
    _check_keys(record, TABLE_RECORD_KEYS, "the record")
    state = _start_table(record, box)
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise InvalidRecordError('"moves" must be a list of {player, gap, year or right} objects')
    results: list[dict[str, Any]] = []
    for move in [_table_move(m, n) for n, m in enumerate(moves, start=1)]:
        after, refused = state, None
        events: list[Any] = []
        for action in move:
            outcome = apply(after, action)
            if not isinstance(outcome, Accepted):
                refused = outcome
                break
            after, events = outcome.state, events + list(outcome.events)
        if refused is None:
            results.append(_table_result(move, tuple(events)))
            state = after
        else:
            shown = {"player": move[0].player, "gap": move[0].gap} if isinstance(move[0], PutCard) else {}
            results.append({"ok": False, **shown, "reason": str(refused.reason), "rule": str(refused.rule)})
    return {"players": list(state.players), "results": results, **_summary(state)}
