"""Registry of the games the hub can referee.

Each game lives in its own package under ``companion.games`` and is imported only
when chosen, so starting the hub or the CLI does not load every rules engine.

A game package may provide, at its top level:

``score_record(record: dict) -> dict``
    Final scoring of a JSON score sheet (``companion score GAME FILE``).
``referee_record(record: dict) -> dict``
    Replay of a JSON game record through the rules engine (``companion referee GAME FILE``).

Both raise :class:`companion.errors.InvalidRecordError` with one clear sentence when
the input breaks the documented format.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from companion.errors import UnknownGameError


@dataclass(frozen=True)
class GameInfo:
    """What the hub knows about a game before importing its engine."""

    name: str
    """Canonical name used on the command line and in the API, e.g. ``time-n-space``."""
    title: str
    """Name shown to players."""
    module: str
    """Dotted path of the package holding the engine."""
    uses_sandtimers: bool
    """True for real-time games whose actions are timed by sandtimers."""
    aliases: tuple[str, ...] = ()


GAMES: tuple[GameInfo, ...] = (
    GameInfo("time-n-space", "Time 'n' Space", "companion.games.time_n_space", True, ("tns", "time_n_space")),
    GameInfo("space-dealer", "Space Dealer", "companion.games.space_dealer", True, ("sd", "space_dealer")),
    GameInfo("timeline", "Timeline: España", "companion.games.timeline", False, ("timeline-espana",)),
    GameInfo("space-and-time", "Space and Time", "companion.games.space_and_time", False, ("sat", "space_and_time")),
    GameInfo("time-splicers", "Time Splicers", "companion.games.time_splicers", False, ("ts", "time_splicers")),
)


def game_names() -> list[str]:
    """Canonical names of all registered games."""
    return [g.name for g in GAMES]


def find_game(name: str) -> GameInfo:
    """Look a game up by its name or an alias (case-insensitive)."""
    key = name.strip().lower()
    for game in GAMES:
        if key == game.name or key in game.aliases:
            return game
    raise UnknownGameError(f"unknown game {name!r}; choose one of: {', '.join(game_names())}")


def load_game(name: str) -> ModuleType:
    """Import and return the engine package of a game."""
    info = find_game(name)
    try:
        return importlib.import_module(info.module)
    except ModuleNotFoundError as exc:
        if exc.name and info.module.startswith(exc.name):
            raise UnknownGameError(f"the {info.title} engine is not installed in this build") from exc
        raise
