"""A stand-in game for the phone API's tests: a point per tap, a flip needs a chosen symbol, "cheat" is
against the rules. Registered for those tests only (``register("counting", "tests.hub.counting_game")``)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from companion.rules import Decision, MenuItem, View
from companion.rules.game import GameInfo
from companion.rules.outcome import Rejected
from companion.rules.referee import Referee
from companion.rules.text import text


@dataclass(frozen=True)
class Tally:
    points: tuple[tuple[str, int], ...] = ()
    placed: tuple[tuple[str, str], ...] = ()

    def points_of(self) -> dict[str, int]:
        return dict(self.points)


@dataclass(frozen=True)
class Point:
    """A phone's move: score a point."""


@dataclass(frozen=True)
class Cheat:
    """A phone's move the rules refuse."""


@dataclass(frozen=True)
class Symbol:
    """A phone's choice for a timer: the symbol it goes on at its next flip."""

    symbol: str


@dataclass(frozen=True)
class Planet:
    """A phone's choice for a timer: the planet it goes to at its next flip (a long list to choose from)."""

    planet: str


@dataclass(frozen=True)
class Scored:
    """The logged action: ``player`` scored."""

    player: str


@dataclass(frozen=True)
class Placed:
    """The logged action: the timer ``node`` went on ``symbol``."""

    node: str
    symbol: str


def _apply(state: Tally, action: Any) -> Tally:
    if isinstance(action, Scored):
        points = dict(state.points)
        points[action.player] = points.get(action.player, 0) + 1
        return Tally(tuple(sorted(points.items())), state.placed)
    placed = dict(state.placed)
    placed[action.node] = action.symbol
    return Tally(state.points, tuple(sorted(placed.items())))


class CountingReferee(Referee[Tally]):
    game = "counting"

    def __init__(self, setup: Any) -> None:
        super().__init__(setup)
        self.decided = 0
        self.gate: threading.Event | None = None
        """When set up, a tap waits for it inside the rules (a slow decision)."""
        self.entered = threading.Event()

    def start(self, setup: Any) -> Tally:
        return Tally()

    def replay(self, state: Tally, ctx: Any, action: Any) -> Decision:
        return Decision(_apply(state, action), actions=(action,))

    def timer_flipped(self, state, ctx, seat, *, intent, ran_out):
        if intent is None:
            return Rejected(text("Choose a symbol for this timer first"), text("Placing sandtimers"))
        action = Placed(seat.node, intent.symbol)
        note = text("{player} placed on {symbol}", player=seat.player, symbol=intent.symbol)
        return Decision(_apply(state, action), actions=(action,), notes=(note,))

    def player_action(self, state, ctx, player, action):
        self.decided += 1
        self.entered.set()
        if self.gate is not None:
            self.gate.wait(5)
        if isinstance(action, Cheat):
            return Rejected(text("That is not allowed"), text("Rule 1"))
        act = Scored(player)
        return Decision(_apply(state, act), actions=(act,), notes=(text("{player} scored", player=player),))

    def menu(self, state, ctx, player, *, intents):
        chosen = intents.get(f"{player}-1")
        return [
            MenuItem("point", text("Score a point"), text("Actions"), action=Point()),
            MenuItem(
                "ship",
                text("Spaceship"),
                text("Timer {index}", index=1),
                intent=Symbol("ship"),
                node=f"{player}-1",
                selected=chosen == Symbol("ship"),
            ),
        ]

    def view(self, state, ctx):
        lines = [f"{k}: {v}" for k, v in sorted(state.points)]
        return View(text("points"), ({"kind": "lines", "title": text("Points"), "lines": lines},))

    def player_view(self, state, ctx, player):
        return View(text("{count} point", "{count} points", count=state.points_of().get(player, 0)))


GAME = GameInfo(
    name="counting",
    title="Counting",
    uses_sandtimers=True,
    referee=lambda setup, data: CountingReferee(setup),
    package=__name__,
    timers_per_player=1,
    state_modules=(__name__,),
    moves=(Point, Cheat),
    intents=(Symbol, Planet),
)
