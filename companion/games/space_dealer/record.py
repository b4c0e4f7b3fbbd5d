"""JSON form of Space Dealer actions, and replay of a game record (``companion referee space-dealer``).

An action is a JSON object naming its class in ``"type"`` with the class's fields beside it.
A job (inside ``StartJob``) and a goods holder (in ``TransferGoods`` and ``ReturnGoods``) are
nested objects of the same shape. Goods are ``{"colour": count}`` and converter exchanges are
``[[give, take], ...]``:

    {"type": "StartJob", "player": "red", "timer": 0, "job": {"type": "UseCard", "card": "mine-red-4"}}
    {"type": "TransferGoods", "player": "red", "source": {"type": "InShip", "ship": "red"},
     "target": {"type": "InDepot", "player": "red"}, "goods": {"blue": 2}}

A record is ``{"players": [...], "seed": N, "experienced": true, "actions": [...]}``. The
replay applies every action in order; rejected actions are reported and leave the state
unchanged, just as on the table.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.base import Accepted
from companion.games.space_dealer import actions as A
from companion.games.space_dealer.cards import CardData
from companion.games.space_dealer.engine import SetupError, apply, final_score, setup
from companion.games.space_dealer.state import Goods

ACTION_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        A.PlayCard,
        A.DrawTechCards,
        A.KeepDrawnCard,
        A.StartJob,
        A.TimerRanOut,
        A.PlaceBuiltCard,
        A.AbandonJob,
        A.TransferGoods,
        A.ReturnGoods,
        A.SatisfyOrder,
        A.Sabotage,
        A.LaunchRocket,
        A.GiveCard,
        A.TradeCards,
        A.MasterClockExpired,
        A.GameEndedEarly,
    )
}
JOB_TYPES: dict[str, type] = {
    cls.__name__: cls for cls in (A.RaiseTechLevel, A.BuildCard, A.UseCard, A.MoveShip, A.DiscardCard)
}
HOLDER_TYPES: dict[str, type] = {
    cls.__name__: cls for cls in (A.InShip, A.InDepot, A.OnProbe, A.AtNeutralPlanet)
}

RECORD_KEYS = ("players", "seed", "experienced", "actions")


def _decode(raw: Any, kinds: dict[str, type], where: str) -> Any:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise InvalidRecordError(f'{where} must be an object with a "type" of: {", ".join(kinds)}')
    cls = kinds.get(raw["type"])
    if cls is None:
        raise InvalidRecordError(
            f"{where} has unknown type {raw['type']!r}; expected one of: {', '.join(kinds)}"
        )
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in raw:
        if key != "type" and key not in fields:
            raise InvalidRecordError(f"{where} ({raw['type']}) has an unknown field {key!r}")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in raw:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InvalidRecordError(f"{where} ({raw['type']}) is missing the field {name!r}")
            continue
        values[name] = _field(cls, name, raw[name], f"{where}.{name}")
    return cls(**values)


def _field(cls: type, name: str, value: Any, where: str) -> Any:
    if name == "job" and cls is A.StartJob:
        return _decode(value, JOB_TYPES, where)
    if name in ("source", "target") and cls in (A.TransferGoods, A.ReturnGoods):
        return _decode(value, HOLDER_TYPES, where)
    if name == "goods":
        if not isinstance(value, dict) or not all(
            isinstance(c, str) and isinstance(n, int) and not isinstance(n, bool) and n >= 0
            for c, n in value.items()
        ):
            raise InvalidRecordError(f"{where} must map goods colours to whole numbers")
        return Goods.of(value)
    if name == "exchanges":
        if not isinstance(value, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(c, str) for c in p) for p in value
        ):
            raise InvalidRecordError(f"{where} must be a list of [give, take] colour pairs")
        return tuple(tuple(p) for p in value)
    if isinstance(value, (dict, list)):
        raise InvalidRecordError(f"{where} must be a plain value, not {type(value).__name__}")
    return value


def action_from_json(raw: Any, where: str = "action") -> A.Action:
    """Decode one action; raises :class:`InvalidRecordError` with one sentence on bad input."""
    return _decode(raw, ACTION_TYPES, where)


def job_from_json(raw: Any, where: str = "the job") -> A.Job:
    """Decode a job for a timer (the ``job`` of :class:`~.actions.StartJob`, a phone's intent)."""
    return _decode(raw, JOB_TYPES, where)


def action_to_json(action: Any) -> dict[str, Any]:
    """Encode an action (or a job or holder) in the form :func:`action_from_json` reads."""
    out: dict[str, Any] = {"type": type(action).__name__}
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        if isinstance(value, Goods):
            value = value.as_dict()
        elif dataclasses.is_dataclass(value):
            value = action_to_json(value)
        elif f.name == "exchanges":
            value = [list(p) for p in value]
        out[f.name] = value
    return out


def referee_record(record: dict[str, Any], *, data: CardData) -> dict[str, Any]:
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
    raw_actions = record.get("actions", [])
    if not isinstance(raw_actions, list):
        raise InvalidRecordError('"actions" must be a list of actions')
    actions = [action_from_json(raw, f"action #{i}") for i, raw in enumerate(raw_actions, start=1)]
    try:
        state = setup(players, seed=seed, data=data, experienced=experienced)
    except SetupError as exc:
        raise InvalidRecordError(str(exc)) from exc
    rejected = []
    accepted = 0
    for i, action in enumerate(actions, start=1):
        result = apply(state, action)
        if isinstance(result, Accepted):
            state = result.state
            accepted += 1
        else:
            rejected.append(
                {
                    "action": i,
                    "type": type(action).__name__,
                    "reason": str(result.reason),
                    "rule": str(result.rule),
                }
            )
    return {
        "phase": state.phase.value,
        "accepted": accepted,
        "rejected": rejected,
        "score": final_score(state).to_json(),
    }
