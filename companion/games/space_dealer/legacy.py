"""Space Dealer's actions as logs of formats 1 and 2 wrote them, read as today's typed actions.

This module exists only to read those old logs (``GAME.legacy_actions``): the hub of their time
logged each engine action as ``{"type": "ClassName", field: ...}`` with the acting player inside
(``player``, or ``attacker`` for attacks), goods as ``{"colour": count}``, converter exchanges as
``[[give, take], ...]`` and timers numbered from 0, plus three pieces of its own bookkeeping:
``start_choice`` (a secret start, today ``Act(player, ChooseStart(...))``), ``table_started``
(today the table's own context: nothing) and ``timer_node`` (a node learnt during the game, today
:class:`~.model.TimerNodeKnown`). The hub of that time turned up a draw's two cards and the next
neutral order at once; today the hub deck enters them after the draw or the delivery, so an old
draw or delivery is followed by :class:`~.model.HubDeckTurn`. Today's log, phones and records use
the game's codec instead.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.space_dealer import model as M

_MOVES: dict[str, type] = {cls.__name__: cls for cls in M.MOVES if cls is not M.ChooseStart}
_JOBS: dict[str, type] = {cls.__name__: cls for cls in M.JOBS}
_HOLDERS: dict[str, type] = {cls.__name__: cls for cls in (M.InShip, M.InDepot, M.OnProbe, M.AtNeutralPlanet)}
_ACTOR = {"Sabotage": "attacker", "LaunchRocket": "attacker"}
"""The old field naming the acting player, where it was not ``player``."""


def legacy_action(raw: dict[str, Any]) -> tuple[Any, ...]:
    """Today's typed actions for one old logged action (:class:`InvalidRecordError` if it is not one)."""
    kind = raw.get("type")
    if kind == "table_started":
        return ()
    if kind == "start_choice":
        side = raw.get("side", "left")
        if side not in ("left", "right"):
            raise InvalidRecordError(f"a start choice puts the Generator left or right, not {side!r}")
        return (M.Act(_text(raw, "player"), M.ChooseStart(side, _text(raw, "mine", ""))),)
    if kind == "timer_node":
        return (M.TimerNodeKnown(_text(raw, "player"), _int(raw, "timer"), _text(raw, "node")),)
    if kind == "StartJob":
        job = _decode(raw.get("job"), _JOBS, "the job")
        return (M.StartJob(_text(raw, "player"), _int(raw, "timer"), job),)
    if kind == "TimerRanOut":
        return (M.TimerRanOut(_text(raw, "player"), _int(raw, "timer")),)
    if kind == "MasterClockExpired":
        return (M.MasterClockExpired(),)
    if kind == "GameEndedEarly":
        return (M.GameEndedEarly(),)
    if kind in _MOVES:
        actor = _ACTOR.get(kind, "player")
        rest = {k: v for k, v in raw.items() if k != actor}
        act = M.Act(_text(raw, actor), _decode(rest, _MOVES, "the action"))
        if kind in ("DrawTechCards", "SatisfyOrder"):  # the hub of that time turned up the cards at once
            return (act, M.HubDeckTurn(act.player))
        return (act,)
    raise InvalidRecordError(f"{kind!r} is not a Space Dealer action")


def _text(raw: dict[str, Any], key: str, default: str | None = None) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str):
        raise InvalidRecordError(f"{key} must be text, not {value!r}")
    return value


def _int(raw: dict[str, Any], key: str) -> int:
    value = raw.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidRecordError(f"{key} must be a whole number, not {value!r}")
    return value


def _decode(raw: Any, kinds: dict[str, type], where: str) -> Any:
    if not isinstance(raw, dict) or raw.get("type") not in kinds:
        raise InvalidRecordError(f"{where} is not one of: {', '.join(kinds)}")
    cls = kinds[raw["type"]]
    names = {f.name for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "type":
            continue
        if key not in names:
            raise InvalidRecordError(f"{where} ({raw['type']}) has an unknown field {key!r}")
        values[key] = _value(cls, key, value)
    try:
        return cls(**values)
    except TypeError as exc:
        raise InvalidRecordError(f"{where} ({raw['type']}) does not fit: {exc}") from None


def _value(cls: type, key: str, value: Any) -> Any:
    if key in ("source", "target") and cls in (M.TransferGoods, M.ReturnGoods):
        return _decode(value, _HOLDERS, key)
    if key == "goods":
        if not isinstance(value, dict) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in value.values()
        ):
            raise InvalidRecordError("goods must map colours to whole numbers")
        return M.Goods.of(value)
    if key == "exchanges":
        if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
            raise InvalidRecordError("exchanges must be [give, take] pairs")
        return tuple((str(g), str(t)) for g, t in value)
    return value
