"""The actions of Space and Time as logs of formats 1 and 2 wrote them, read as today's typed actions.

This module exists only to read those older logs (``GameInfo.legacy_actions``): they kept each
game action as a JSON object of the game's own (players by letter), which the table replays once
through today's rules when it opens such a log. New logs hold the typed actions of
:mod:`.model` through the game's codec.
"""

from __future__ import annotations

from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.turns import StartTurn, TimeOut

from .model import EndEarly, ShowHints, Swap


def legacy_actions(action: dict[str, Any]) -> tuple[Any, ...]:
    """Today's actions of one old action: ``turn_started`` and ``turn_timed_out`` (the player's letter),
    ``swap`` with its cells, ``hints`` and ``ended_early``."""
    kind = action.get("type")
    if kind == "turn_started":
        return (StartTurn(_letter(action)),)
    if kind == "turn_timed_out":
        return (TimeOut(_letter(action)),)
    if kind == "swap":
        cells = action.get("cells")
        if not (isinstance(cells, list) and len(cells) == 2 and all(_is_cell(c) for c in cells)):
            raise InvalidRecordError(f"a swap needs two cells [row, column], not {cells!r}")
        (r1, c1), (r2, c2) = cells
        return (Swap(((r1, c1), (r2, c2))),)
    if kind == "hints":
        show = action.get("show")
        if not isinstance(show, bool):
            raise InvalidRecordError(f"the hints are shown (true) or hidden (false), not {show!r}")
        return (ShowHints(show),)
    if kind == "ended_early":
        return (EndEarly(),)
    raise InvalidRecordError(f"unknown Space and Time action {kind!r}")


def _letter(action: dict[str, Any]) -> str:
    player = action.get("player")
    if player not in ("A", "B"):
        raise InvalidRecordError(f"an old action names its player A or B, not {player!r}")
    return str(player)


def _is_cell(cell: Any) -> bool:
    return (
        isinstance(cell, list)
        and len(cell) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in cell)
    )
