"""What a game package tells the hub about itself: names, players, variants, rules and data.

Each package under ``companion.games`` exports one :class:`GameInfo` as ``GAME``;
``companion.games.find_game`` finds it by name or alias.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from companion.errors import UnknownGameError
from companion.rules.codec import Codec
from companion.rules.deck import Pile
from companion.rules.referee import Referee
from companion.rules.setup import TableSetup
from companion.rules.turns import StartTurn, TimeOut

RefereeFactory = Callable[[TableSetup, Any], Referee[Any]]
"""Builds a referee from the setup and the game's data."""


@dataclass(frozen=True)
class Variant:
    """A way to play a game, as the setup page offers it."""

    name: str
    title: str
    clock_minutes: float
    """Length of the master clock (turn-based games: a bound on the session)."""
    referee: RefereeFactory | None = None
    """The variant's own referee class, when it plays differently; None for the game's."""


@dataclass(frozen=True, eq=False)
class GameInfo:
    """One game: what the setup page offers, its rules engine, its table referee and its data."""

    name: str
    """Canonical name used on the command line and in the API, e.g. ``sandtimers``."""
    title: str
    """Name shown to players."""
    uses_sandtimers: bool
    """True for real-time games whose actions are timed by sandtimers."""
    referee: RefereeFactory
    """The table referee of the game (a variant may bring its own)."""
    aliases: tuple[str, ...] = ()
    min_players: int = 2
    max_players: int = 4
    timers_per_player: int = 2
    """Sandtimer nodes each player uses (turn-based games: one turn timer)."""
    variants: tuple[Variant, ...] = (Variant("standard", "Standard", 30),)
    package: str = ""
    """The game's package (``__name__`` of its ``__init__``): its picture, catalogs and data live there."""
    rules_version: int = 1
    """Raised whenever a rule of the engine or referee changes; every logged step records it."""
    load_data: Callable[[], Any] = field(default=lambda: None)
    """Reads the game's shipped data (cards, components); called once, see :attr:`data`."""
    state_modules: tuple[str, ...] = ()
    """Modules whose dataclasses and enums make up the game's state, actions and events (for the log's
    codec; the contract's own values, such as :class:`~companion.rules.turns.StartTurn`, are always known)."""
    moves: tuple[type, ...] = ()
    """The actions a phone may post (the game's typed moves, read with :meth:`Codec.read`)."""
    intents: tuple[type, ...] = ()
    """The choices a phone may store for a timer's next flip (typed, read with :meth:`Codec.read`)."""
    random_components: bool = False
    """The game has piles, decks or hidden choices: the table chooses a table deck or the hub deck."""
    load_components: Callable[[str], Any] | None = None
    """Reads a table's own component file (``--components FILE``) in place of the shipped data; a
    broken file raises an error naming the file, line and field."""
    legacy_actions: Callable[[dict[str, Any]], tuple[Any, ...]] | None = None
    """Turns one action as logs of format 1 and 2 wrote it (the game's old JSON) into today's typed
    actions, so those logs replay through the rules once when they are read."""
    score_record: Callable[[Any], dict[str, Any]] | None = None
    """Final scoring of a JSON score sheet (``companion score GAME FILE``)."""
    referee_record: Callable[[Any], dict[str, Any]] | None = None
    """Replay of a JSON game record through the rules engine (``companion referee GAME FILE``)."""
    data_message_ids: Callable[[Any], Iterable[str]] = field(default=lambda data: ())
    """Message ids the game reads from its data (e.g. card titles), given :attr:`data`: the catalogs
    translate them like the ids written in the code (``tests/test_messages.py`` checks both)."""

    def message_ids(self) -> tuple[str, ...]:
        """Every message id of the game that is not a ``text("...")`` literal in its code: its title (the
        pages show it through the catalogs), its variants' titles and the ids in its data."""
        return (self.title, *(v.title for v in self.variants), *self.data_message_ids(self.data))

    @cached_property
    def data(self) -> Any:
        """The game's data, read once per process and handed to every referee and new game."""
        return self.load_data()

    @cached_property
    def codec(self) -> Codec:
        import importlib

        codec = Codec.of_modules(*(importlib.import_module(m) for m in self.state_modules))
        for contract_type in (StartTurn, TimeOut, Pile):
            codec.register(contract_type)
        return codec

    def variant(self, name: str) -> Variant:
        """The named variant ("" for the first), or :class:`UnknownGameError`."""
        if not name:
            return self.variants[0]
        for variant in self.variants:
            if variant.name == name:
                return variant
        choices = ", ".join(v.name for v in self.variants)
        raise UnknownGameError(f"{self.title} has no variant {name!r}; choose one of: {choices}")

    def make_referee(self, setup: TableSetup) -> Referee[Any]:
        """The referee of a table set up for this game (its variant's, if it has one), with the game's
        data: the shipped one, or the table's own component file (``setup.components``)."""
        factory = self.referee
        for variant in self.variants:
            if variant.name == setup.variant and variant.referee is not None:
                factory = variant.referee
        return factory(setup, self.data_for(setup))

    def data_for(self, setup: TableSetup) -> Any:
        """The game's data for ``setup``: its own component file, read once per file and version of it,
        or the data the game ships. A broken file raises the game's error naming the file, line and field."""
        if not setup.components:
            return self.data
        if self.load_components is None:
            raise UnknownGameError(f"{self.title} has no component file to replace: leave out --components")
        import os

        try:
            stamp = (setup.components, os.stat(setup.components).st_mtime_ns)
        except OSError:  # the game's reader says in one sentence why it cannot read the file
            return self.load_components(setup.components)
        known = self._components.get(stamp)
        if known is None:
            known = self._components[stamp] = self.load_components(setup.components)
        return known

    @cached_property
    def _components(self) -> dict[tuple[str, int], Any]:
        return {}
