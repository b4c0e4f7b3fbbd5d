"""Old logs' actions as today's: this module exists to read logs of formats 1 and 2.

Those logs wrote each table action of Time Splicers as the game's own JSON, with ``type`` for the
kind and the acting player in it (``{"type": "place", "player": "ana", "card": "red-6"}``). Today a
move never names its player (the one whose turn it is makes it) and the turn's bookkeeping is the
table's, so each old action becomes zero, one or two of today's typed actions, replayed once
through today's rules when such a log is read (every old game was dealt by the hub deck).
"""

from __future__ import annotations

from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.turns import StartTurn, TimeOut

from .model import EnterPortal, Move, PlaceCard, PlaceTimeFreeze, RedrawHand, UseQuantumTunnel, UseTimeJump


def _field(action: dict[str, Any], key: str, kind: type) -> Any:
    value = action.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InvalidRecordError(f"an old {action.get('type')!r} action needs {key!r}")
    return value


def _optional(action: dict[str, Any], key: str, kind: type) -> Any:
    return None if action.get(key) is None else _field(action, key, kind)


def legacy_actions(action: dict[str, Any]) -> tuple[Any, ...]:
    """Today's actions for one action of a format-1 or format-2 log.

    ``turn_started`` and ``time_out`` are the contract's :class:`StartTurn` and :class:`TimeOut`;
    ``game_ended`` (the host or the master clock ended the game) is the table's own bookkeeping now
    and becomes nothing; every other kind is the move of the same name without its player."""
    kind = action.get("type")
    if kind == "turn_started":
        return (StartTurn(_field(action, "player", str)),)
    if kind == "time_out":
        return (TimeOut(_field(action, "player", str)),)
    if kind == "game_ended":
        return ()
    if kind == "move":
        return (Move(_field(action, "to", str)),)
    if kind == "portal":
        return (EnterPortal(),)
    if kind == "place":
        return (
            PlaceCard(
                _field(action, "card", str),
                _optional(action, "sequence", int),
                _optional(action, "relocate_to", str),
            ),
        )
    if kind == "quantum_tunnel":
        return (UseQuantumTunnel(_field(action, "to", str)),)
    if kind == "time_jump":
        use = action.get("use", "card")
        if use not in ("card", "token"):
            raise InvalidRecordError("an old 'time_jump' action uses a card or a token")
        return (UseTimeJump(_field(action, "to", str), use == "token"),)
    if kind == "redraw":
        return (RedrawHand(),)
    if kind == "time_freeze":
        return (PlaceTimeFreeze(),)
    raise InvalidRecordError(f"{kind!r} is not an action of Time Splicers")
