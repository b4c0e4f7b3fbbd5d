"""Registry of the games the hub can referee.

Each game lives in its own package under ``companion.games`` and exports one
:class:`~companion.rules.game.GameInfo` as ``GAME``: its names, players and
variants, its rules engine, its table referee and its data. A package is imported
only when its game is asked for, so starting the CLI does not load every engine.
"""

from __future__ import annotations

import importlib
from typing import Any

from companion.errors import UnknownGameError
from companion.rules.game import GameInfo, Variant
from companion.rules.referee import Referee
from companion.rules.setup import TableSetup

__all__ = ["GameInfo", "Variant", "all_games", "find_game", "game_names", "referee_for"]

TIMERS_ONLY = "sandtimers"
"""The hub's default table: no rules engine, just timers and the master clock."""

_CATALOG: dict[str, tuple[str, tuple[str, ...]]] = {
    TIMERS_ONLY: ("companion.games.sandtimers", ()),
    "time-n-space": ("companion.games.time_n_space", ("tns", "time_n_space")),
    "space-dealer": ("companion.games.space_dealer", ("sd", "space_dealer")),
    "timeline": ("companion.games.timeline", ("timeline-espana",)),
    "space-and-time": ("companion.games.space_and_time", ("sat", "space_and_time")),
    "time-splicers": ("companion.games.time_splicers", ("ts", "time_splicers")),
}
"""Canonical name -> (package, aliases). Each package's ``GAME`` repeats its names; a test checks both agree."""


def game_names() -> list[str]:
    """Canonical names of the games with rules (the timers-only table is not one)."""
    return [name for name in _CATALOG if name != TIMERS_ONLY]


def _canonical(name: str) -> str:
    key = name.strip().lower()
    for canonical, (_, aliases) in _CATALOG.items():
        if key == canonical or key in aliases:
            return canonical
    raise UnknownGameError(f"unknown game {name!r}; choose one of: {', '.join(game_names())}")


def find_game(name: str) -> GameInfo:
    """The game registered under a name or an alias (case-insensitive)."""
    package = _CATALOG[_canonical(name)][0]
    info: Any = getattr(importlib.import_module(package), "GAME", None)
    if not isinstance(info, GameInfo):
        raise UnknownGameError(f"{package} exports no GAME")
    return info


def all_games() -> list[GameInfo]:
    """Every game, the timers-only table first."""
    return [find_game(name) for name in _CATALOG]


def referee_for(setup: TableSetup) -> Referee[Any]:
    """The referee of the setup's game (a setup the game cannot play raises ConfigError)."""
    return find_game(setup.game).make_referee(setup)
