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
class Variant:
    """A way to play a game, as the setup page offers it."""

    name: str
    title: str
    clock_minutes: float
    """Length of the master clock (turn-based games: a bound on the session)."""


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
    min_players: int = 2
    max_players: int = 4
    timers_per_player: int = 2
    """Sandtimer nodes each player uses (turn-based games: one turn timer)."""
    variants: tuple[Variant, ...] = (Variant("standard", "Standard", 30),)

    def variant(self, name: str) -> Variant:
        """The named variant ("" for the first), or :class:`UnknownGameError`."""
        if not name:
            return self.variants[0]
        for variant in self.variants:
            if variant.name == name:
                return variant
        choices = ", ".join(v.name for v in self.variants)
        raise UnknownGameError(f"{self.title} has no variant {name!r}; choose one of: {choices}")


GAMES: tuple[GameInfo, ...] = (
    GameInfo(
        "time-n-space",
        "Time 'n' Space",
        "companion.games.time_n_space",
        True,
        ("tns", "time_n_space"),
        min_players=3,
        max_players=4,
        timers_per_player=2,
        variants=(
            Variant("intro", "Introductory game", 12),
            Variant("full", "Full game", 30),
            Variant("light", "Timers and scoring only", 30),
        ),
    ),
    GameInfo(
        "space-dealer",
        "Space Dealer",
        "companion.games.space_dealer",
        True,
        ("sd", "space_dealer"),
        min_players=3,
        max_players=8,
        timers_per_player=2,
        variants=(
            Variant("experienced", "With the experienced rules", 30),
            Variant("basic", "Basic game", 30),
        ),
    ),
    GameInfo(
        "timeline",
        "Timeline: España",
        "companion.games.timeline",
        False,
        ("timeline-espana",),
        min_players=2,
        max_players=8,
        timers_per_player=1,
        variants=(Variant("standard", "Standard", 60),),
    ),
    GameInfo(
        "space-and-time",
        "Space and Time",
        "companion.games.space_and_time",
        False,
        ("sat", "space_and_time"),
        min_players=1,
        max_players=2,
        timers_per_player=1,
        variants=(
            Variant("standard", "Two players", 60),
            Variant("vs-computer-b", "Against the computer: it plays B", 60),
            Variant("vs-computer-a", "Against the computer: it plays A and opens", 60),
            Variant("vs-computer-b-1", "Against the computer, easy", 60),
            Variant("vs-computer-b-4", "Against the computer, hard", 60),
        ),
    ),
    GameInfo(
        "time-splicers",
        "Time Splicers",
        "companion.games.time_splicers",
        False,
        ("ts", "time_splicers"),
        min_players=2,
        max_players=6,
        timers_per_player=1,
        variants=(Variant("standard", "Standard", 90),),
    ),
)

TIMERS_ONLY = GameInfo(
    "sandtimers",
    "Sandtimers and master clock only",
    "companion.table.referee",
    True,
    min_players=1,
    max_players=8,
    timers_per_player=2,
    variants=(Variant("intro", "12-minute clock", 12), Variant("full", "30-minute clock", 30)),
)
"""The hub's default table: no rules engine, just timers and the master clock."""


def game_names() -> list[str]:
    """Canonical names of all registered games."""
    return [g.name for g in GAMES]


def find_game(name: str) -> GameInfo:
    """Look a game up by its name or an alias (case-insensitive)."""
    key = name.strip().lower()
    if key == TIMERS_ONLY.name:
        return TIMERS_ONLY
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
