"""Replay of a JSON game record for ``companion referee space-and-time FILE``.

Record format (issue 7, "Space and Time, exactly")::

    {"boards": [round1_board, round2_board], "moves": [[[r1, c1], [r2, c2]], ...]}

The boards are given as the table dealt them (each a list of 4 rows of 6 ranks); the Day board
may be left out of a record whose game never reaches the Day round. A move is the cells of a
:class:`~.model.Swap`, read by the game's codec (``{"@": "Swap", "cells": ...}``, the form the
phones post, is read as well).

Output::

    {"results": [{"ok": true, "player": "A", "trophies": [ranks]} | {"ok": false, "reason": "..."}],
     "trophies": {"A": n, "B": n}, "winner": "A" | "B" | null}

A move naming a cell off the board is an illegal move (refused, same player again);
a move that is not two ``[row, column]`` pairs of whole numbers makes the file malformed.
Top-level keys starting with ``_`` are comments and ignored.
"""

from __future__ import annotations

import json
from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.codec import Codec
from companion.rules.outcome import Rejected

from . import model
from .engine import apply, new_game
from .model import GameState, Swap, TrophyTaken

_KEYS = ("boards", "moves")
_CODEC = Codec.of_modules(model)


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_move(number: int, move: object) -> Swap:
    """Move ``number`` of a record as a :class:`~.model.Swap`, checked by the codec."""
    data = move if isinstance(move, dict) else {"@": "Swap", "cells": move}
    try:
        swap: Swap = _CODEC.read(data, (Swap,))
    except InvalidRecordError as exc:
        raise InvalidRecordError(
            f"move {number} is {_short(move)}, not a pair of cells [[row, column], [row, column]] ({exc})"
        ) from None
    return swap


def parse_record(record: object) -> tuple[GameState, list[Swap]]:
    """Check the record's shape and both starting boards; return the new game and the moves."""
    if not isinstance(record, dict):
        raise InvalidRecordError('a Space and Time record must be a JSON object with "boards" and "moves"')
    unknown = [k for k in record if k not in _KEYS and not str(k).startswith("_")]
    if unknown:
        raise InvalidRecordError(
            f'unknown key {unknown[0]!r} in the record; expected only "boards" and "moves"'
        )
    for key in _KEYS:
        if key not in record:
            raise InvalidRecordError(f'the record has no "{key}" list')
    boards = record["boards"]
    if not isinstance(boards, list) or len(boards) not in (1, 2):
        raise InvalidRecordError(
            '"boards" must list the starting boards as dealt: the Night board, then the Day board'
        )
    moves = record["moves"]
    if not isinstance(moves, list):
        raise InvalidRecordError('"moves" must be a list of swaps [[row, column], [row, column]]')
    state = new_game(*boards)
    return state, [read_move(n, m) for n, m in enumerate(moves, start=1)]


def referee_record(record: dict[str, Any]) -> dict[str, Any]:
    """Replay a record through the rules and report each move, the trophies and the winner.

    Illegal moves (and any move after the end) are refused with a reason and leave the
    same player to move (issue 7). Raises :class:`InvalidRecordError` for a malformed
    record or an invalid starting board.
    """
    state, moves = parse_record(record)
    results: list[dict[str, Any]] = []
    for number, move in enumerate(moves, start=1):
        if state.is_dealing:
            raise InvalidRecordError(
                f"move {number} comes in the Day round, but the record gives no Day board"
            )
        player = state.to_move
        outcome = apply(state, move)
        if isinstance(outcome, Rejected):
            results.append({"ok": False, "reason": str(outcome.reason)})  # English, like the CLI
            continue
        state = outcome.state
        taken = [e.rank for e in outcome.events if isinstance(e, TrophyTaken)]
        results.append({"ok": True, "player": player, "trophies": taken})
    return {
        "results": results,
        "trophies": {"A": state.trophy_count("A"), "B": state.trophy_count("B")},
        "winner": state.winner,
    }
