"""Replay of a Space Dealer game record (``companion referee space-dealer FILE``).

A record is ``{"players": [...], "deck": "table", "experienced": true, "actions": [...]}`` for a game
played with the box: its actions carry everything the table drew, turned up or was dealt, each as it
happened (each player's Mines and Depot, every neutral order turned up, every card kept from a draw).
With ``"deck": "hub"`` (the default, and the form of earlier versions) the hub's deal of ``"seed"``
is the box, and the hub turns up the draws and the neutral orders itself. Every action is written as
the game's codec writes it (the same form as the hub's log and the phones), for example::

    {"@": "StartJob", "player": "red", "timer": 0, "job": {"@": "UseCard", "card": "mine-red-4"}}
    {"@": "Act", "player": "red", "move": {"@": "TransferGoods",
      "source": {"@": "InShip", "ship": "red"}, "target": {"@": "InDepot", "player": "red"},
      "goods": {"@": "Goods", "items": [["blue", 2]]}}}

The replay applies every action in order; rejected actions are reported and leave the state
unchanged, just as on the table.
"""

from __future__ import annotations

from typing import Any

from companion.errors import InvalidRecordError
from companion.games.space_dealer import hubdeck
from companion.games.space_dealer import model as M
from companion.games.space_dealer.board import final_score
from companion.games.space_dealer.cards import CardData
from companion.games.space_dealer.dealing import SetupError, setup
from companion.games.space_dealer.engine import apply
from companion.games.space_dealer.model import GameState
from companion.rules.codec import Codec
from companion.rules.outcome import Accepted

RECORD_KEYS = ("players", "deck", "seed", "experienced", "actions")
ACTIONS: tuple[type, ...] = (M.Act, M.StartJob, M.TimerRanOut, M.MasterClockExpired, M.GameEndedEarly)
"""What a record's actions may be: the engine's actions."""


def read_actions(raw_actions: Any, codec: Codec) -> list[M.Action]:
    """The record's actions, each read and checked by the codec (one sentence naming the action if not)."""
    if not isinstance(raw_actions, list):
        raise InvalidRecordError('"actions" must be a list of actions')
    actions = []
    for i, raw in enumerate(raw_actions, start=1):
        if isinstance(raw, dict) and "type" in raw and "@" not in raw:
            raise InvalidRecordError(
                f'action #{i} names its class in "type", as records did before; write it as the log does, '
                f'with the class in "@": {{"@": "{raw["type"]}", ...}}'
            )
        try:
            actions.append(codec.read(raw, ACTIONS))
        except InvalidRecordError as exc:
            raise InvalidRecordError(f"action #{i}: {exc}") from None
    return actions


def replay_record(record: Any) -> dict[str, Any]:
    """Replay a game record with the shipped cards (``GAME.referee_record``)."""
    from companion.games.space_dealer import GAME

    return referee_record(record, data=GAME.data, codec=GAME.codec)


def referee_record(record: Any, *, data: CardData, codec: Codec) -> dict[str, Any]:
    """Replay a game record through the rules with the card ``data``; report rejected actions and the final score."""
    if not isinstance(record, dict):
        raise InvalidRecordError('the record must be a JSON object with "players", "seed" and "actions"')
    for key in record:
        if key not in RECORD_KEYS:
            raise InvalidRecordError(
                f"the record has an unknown field {key!r}; known fields: {', '.join(RECORD_KEYS)}"
            )
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InvalidRecordError('the record needs "players": a list of player names in seating order')
    seed = record.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidRecordError(f"the seed must be a whole number, not {seed!r}")
    experienced = record.get("experienced", True)
    if not isinstance(experienced, bool):
        raise InvalidRecordError('"experienced" must be true or false')
    deck = record.get("deck", "hub")
    if deck not in ("hub", "table"):
        raise InvalidRecordError(
            f'"deck" is "table" (the box on the table) or "hub" (the hub\'s deal), not {deck!r}'
        )
    actions = read_actions(record.get("actions", []), codec)
    try:
        if deck == "hub":
            state = hubdeck.deal(players, seed=seed, data=data, experienced=experienced)
        else:
            state = setup(players, data=data, experienced=experienced)
    except SetupError as exc:
        raise InvalidRecordError(str(exc)) from exc
    rejected = []
    accepted = 0
    for i, action in enumerate(actions, start=1):
        result = apply(state, action)
        if isinstance(result, Accepted):
            state = _hub_turns(hubdeck.follow(result.state, result.events), action)
            accepted += 1
        else:
            kind = type(action.move if isinstance(action, M.Act) else action).__name__
            rejected.append(
                {"action": i, "type": kind, "reason": str(result.reason), "rule": str(result.rule)}
            )
    return {
        "phase": state.phase.value,
        "accepted": accepted,
        "rejected": rejected,
        "score": final_score(state).to_json(),
    }


def _hub_turns(state: GameState, action: M.Action) -> GameState:
    """With the hub deck, what the hub turns up after ``action`` (a draw's cards, the next neutral order)."""
    player = action.player if isinstance(action, (M.Act, M.StartJob, M.TimerRanOut)) else ""
    for _ in range(64):
        supplied = hubdeck.inputs(state, player)
        if not supplied:
            break
        result = apply(state, supplied[0])
        if not isinstance(result, Accepted):
            raise InvalidRecordError(f"the hub deck cannot turn up what the rules wait for: {result}")
        state = hubdeck.follow(result.state, result.events)
    return state
