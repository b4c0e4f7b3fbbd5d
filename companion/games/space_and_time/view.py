"""JSON picture of a Space and Time game for the dashboard and phone pages.

Pure: it only reads the state. The molecule hints (swaps that would win a trophy for the
player to move) are included only on request, as issue 7 asks.
"""

from __future__ import annotations

from typing import Any

from companion.games.space_and_time.engine import (
    PLAYERS,
    RANK_NAMES,
    ROUND_NAMES,
    GameState,
    molecule_completing_moves,
)


def snapshot(state: GameState, *, show_molecules: bool = False) -> dict[str, Any]:
    """The table as plain JSON: board, round, roles, whose turn, trophies, winner.

    ``last_swap`` is the pair of cells the player to move may not swap back (rulebook,
    *No reversing*). With ``show_molecules`` the list ``molecule_moves`` gives each legal
    swap that completes a molecule of a still-free rank, with the ranks it would win.
    """
    view: dict[str, Any] = {
        "board": [list(row) for row in state.board],
        "round": state.round,
        "round_name": ROUND_NAMES[state.round],
        "roles": {p: state.role_of(p) for p in PLAYERS},
        "to_move": None if state.is_over else state.to_move,
        "last_swap": sorted([list(cell) for cell in state.last_swap]) if state.last_swap else None,
        "trophies": [
            [{"rank": rank, "name": RANK_NAMES[rank], "holder": holder} for rank, holder in enumerate(rnd)]
            for rnd in state.trophies
        ],
        "totals": {p: state.trophy_count(p) for p in PLAYERS},
        "winner": state.winner,
    }
    if show_molecules:
        view["molecule_moves"] = [
            {"cells": [list(move[0]), list(move[1])], "ranks": list(ranks)}
            for move, ranks in molecule_completing_moves(state)
        ]
    return view
