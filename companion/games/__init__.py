"""Registry of the games the hub can referee.

Each game lives in its own package under ``companion.games`` and exports one
:class:`~companion.rules.game.GameInfo` as ``GAME``: its names, players and
variants, its rules engine, its table referee and its data. A package is imported
only when its game is asked for, so starting the CLI does not load every engine.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any

from companion.errors import UnknownGameError
from companion.rules.game import GameInfo, Variant
from companion.rules.referee import Referee
from companion.rules.setup import TableSetup

__all__ = [
    "GameInfo",
    "Variant",
    "all_games",
    "find_game",
    "game_names",
    "referee_for",
    "register",
    "unregister",
]

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
"""Canonical name -> (package, aliases). Each package's ``GAME`` repeats its names; a test checks both agree.

Adding a game is one package and one line here (docs/adding-a-game.md). A game shipped in a package of its
own is registered by its distribution instead, as an entry point of the group ``companion.games``
(``name = "package"``), or for the life of a process with :func:`register`."""

ENTRY_POINTS = "companion.games"


def register(name: str, package: str, aliases: tuple[str, ...] = ()) -> None:
    """Make the game of ``package`` known under ``name`` (and ``aliases``) from now on."""
    key = name.strip().lower()
    taken = [n for n in (key, *aliases) if _known(n) not in (None, key)]
    if taken:
        raise UnknownGameError(f"the game name {taken[0]!r} is taken")
    _CATALOG[key] = (package, tuple(a.lower() for a in aliases))


def unregister(name: str) -> None:
    """Forget a game :func:`register` added (the shipped games stay)."""
    if name in _SHIPPED:
        raise UnknownGameError(f"{name!r} is one of the games the hub ships")
    _CATALOG.pop(name, None)


def _known(name: str) -> str | None:
    for canonical, (_, aliases) in _CATALOG.items():
        if name == canonical or name in aliases:
            return canonical
    return None


def _load_entry_points() -> None:
    """Games other distributions register (entry points of the group ``companion.games``), read once."""
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINTS):
        if _known(point.name.lower()) is None:
            _CATALOG[point.name.lower()] = (point.value, ())


_SHIPPED = frozenset(_CATALOG)
_load_entry_points()


def game_names() -> list[str]:
    """Canonical names of the games with rules (the timers-only table is not one)."""
    return [name for name in _CATALOG if name != TIMERS_ONLY]


def _canonical(name: str) -> str:
    canonical = _known(name.strip().lower())
    if canonical is None:
        raise UnknownGameError(_unknown_game(name))
    return canonical


def _unknown_game(name: str) -> str:
    """Every game the hub knows (the timers-only table too), and the nearest name to a misspelling."""
    spellings = {
        spelling: canonical
        for canonical, (_, aliases) in _CATALOG.items()
        for spelling in (canonical, *aliases)
    }
    close = difflib.get_close_matches(name.strip().lower(), list(spellings), n=1, cutoff=0.6)
    hint = f"did you mean {spellings[close[0]]!r}? " if close else ""
    return f"unknown game {name!r}; {hint}the games are: {', '.join(_CATALOG)}"


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
