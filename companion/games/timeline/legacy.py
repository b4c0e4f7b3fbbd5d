"""Timeline's actions as hubs before log format 3 wrote them, read as today's typed actions.

This module exists only to read logs of formats 1 and 2 (``GAME.legacy_actions``): their steps
replay once through today's rules when such a log is opened. Those hubs wrote four actions as JSON:
``{"type": "turn_started", "player"}``, ``{"type": "place", "player", "card", "gap"}``,
``{"type": "turn_timed_out", "player"}`` and ``{"type": "ended_early"}``; the last one is the
table's own bookkeeping today (the host's "End game"), so it reads as nothing.
"""

from __future__ import annotations

from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.codec import Codec
from companion.rules.turns import StartTurn, TimeOut

from .model import PlaceCard

OLD_NAMES: dict[str, type] = {"turn_started": StartTurn, "turn_timed_out": TimeOut, "place": PlaceCard}
"""The old ``type`` of each action that is still an action today."""

_CODEC = Codec(OLD_NAMES.values())


def actions(old: dict[str, Any]) -> tuple[Any, ...]:
    """Today's actions for one action of an old log (its fields checked by the codec);
    :class:`InvalidRecordError` for one Timeline never wrote."""
    kind = old.get("type")
    if kind == "ended_early":
        return ()
    cls = OLD_NAMES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InvalidRecordError(f"{kind!r} is not an action Timeline ever logged")
    fields = {key: value for key, value in old.items() if key != "type"}
    return (_CODEC.read({"@": cls.__name__, **fields}, (cls,)),)
