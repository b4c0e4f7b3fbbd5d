"""How a game's rules engine plugs into a table session.

The session owns time (sand, master clock) and the event log; a *table referee*
translates what happens at the table into the game engine's actions and back:

* a node flipped -> the engine actions that flip means (for Time 'n' Space:
  lift the finished timer with the player's choices, then place it on the
  chosen symbol), or a rejection that turns the node red;
* a node ran out, the master clock started or expired -> time facts for the engine;
* a tap on a phone page -> a free action or a choice.

Everything a referee accepts comes back as engine actions in JSON, which the
session logs as ``GameActed`` events; replaying them through :meth:`replay`
rebuilds the game state, so the game survives a hub restart and can be undone.
Referees are pure: no clock, no I/O.

A game package provides ``table_referee(setup) -> TableReferee`` to take part.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.games import find_game
from companion.games.base import Rejected
from companion.table.state import Seat, TableSetup


@dataclass(frozen=True)
class Decision:
    """An accepted step: the new game state and the engine actions (JSON) to log."""

    state: Any
    actions: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    """What happened, in words for the dashboard ("red fulfilled a gray 2 of green")."""
    show: tuple[tuple[str, str], ...] = ()
    """(node, pattern) to show on nodes now, e.g. ``("blue-1", "sabotaged")`` (protocol ``show`` patterns)."""
    add_seat: tuple[str, int] | None = None
    """(player, timer index) that gets a new sandtimer: the hub asks the table to flip the new node."""
    end_clock: str = ""
    """Why the rules ended the game now (e.g. "red placed their last victory-point marker"): the master clock
    stops; "" to go on."""


@dataclass(frozen=True)
class MenuItem:
    """One button on a player's phone page."""

    id: str
    """Stable identifier (tests and the page use it)."""
    label: str
    group: str
    """Heading the button is listed under, e.g. "Timer 1: next symbol"."""
    action: dict[str, Any] | None = None
    """Applied at once when tapped (a free action, a choice)."""
    intent: dict[str, Any] | None = None
    """Remembered for a timer and used at its next flip; must name the ``node``."""
    selected: bool = False
    """This is the current choice (the preselected default, or what the player picked)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "group": self.group,
            "action": self.action,
            "intent": self.intent,
            "selected": self.selected,
        }


@dataclass(frozen=True)
class View:
    """What a page shows of the game: a one-line summary and panels.

    Panel kinds: ``{"kind": "lines", "title", "lines": [str]}``,
    ``{"kind": "grid", "title", "rows": [[str]], "highlight": [[r, c]]}``,
    ``{"kind": "table", "title", "columns": [str], "rows": [[str|number]]}``,
    ``{"kind": "ring", "title", "players": [str], "fields": [{"label", "owner", "markers": [player],
    "ships": [player], "arriving": [player]}]}`` (a ring of fields drawn as a picture),
    ``{"kind": "counter-sheet", "title", "player", "others", "colors", "values", "entry", "action_type"}``
    (a form for the counters a player collected, holds as bonus and still has above their board;
    saving posts ``{"type": action_type, "sheet": {"players": {player: entry}}}``).
    """

    summary: str = ""
    panels: tuple[dict[str, Any], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.summary, "panels": list(self.panels), **self.extra}


Step = Decision | Rejected


class TableReferee(Protocol):
    """The rules of one game as the table session consults them.

    A referee may set ``rules_decide_end = True`` to judge flips made after the
    master clock ran out itself (otherwise the table refuses them), and may define
    ``timer_label(state, seat) -> str``: what a sandtimer sits on, shown under it
    on the dashboard and the phone ("production plant b2", "raise tech level").
    """

    game: str

    def start(self, setup: TableSetup) -> Any:
        """The game state at the start (seeded from the setup)."""

    def replay(self, state: Any, action: dict[str, Any]) -> Any:
        """Apply a logged action again (it was accepted before, so it must succeed)."""

    def clock_started(self, state: Any) -> Step: ...

    def timer_flipped(self, state: Any, seat: Seat, *, intent: dict[str, Any] | None, ran_out: bool) -> Step:
        """A node was turned over. ``ran_out``: its upper bulb was empty before the flip."""

    def timer_emptied(self, state: Any, seat: Seat) -> Step: ...

    def clock_expired(self, state: Any) -> Step: ...

    def player_action(self, state: Any, player: str, action: dict[str, Any]) -> Step: ...

    def menu(self, state: Any, player: str, *, intents: dict[str, dict[str, Any]]) -> list[MenuItem]: ...

    def view(self, state: Any) -> View: ...

    def player_view(self, state: Any, player: str) -> View: ...

    def scores(self, state: Any) -> dict[str, Any] | None:
        """Final scoring once the game is over, else None."""


class FreeTimers:
    """No game rules: sandtimers and master clock only (the hub's default table)."""

    game = "sandtimers"

    def start(self, setup: TableSetup) -> None:
        return None

    def replay(self, state: Any, action: dict[str, Any]) -> None:
        return None

    def clock_started(self, state: Any) -> Step:
        return Decision(state)

    def timer_flipped(self, state: Any, seat: Seat, *, intent: dict[str, Any] | None, ran_out: bool) -> Step:
        return Decision(state)

    def timer_emptied(self, state: Any, seat: Seat) -> Step:
        return Decision(state)

    def clock_expired(self, state: Any) -> Step:
        return Decision(state)

    def player_action(self, state: Any, player: str, action: dict[str, Any]) -> Step:
        return Rejected("This table plays with timers only: there are no game actions", "Table")

    def menu(self, state: Any, player: str, *, intents: dict[str, dict[str, Any]]) -> list[MenuItem]:
        return []

    def view(self, state: Any) -> View:
        return View()

    def player_view(self, state: Any, player: str) -> View:
        return View()

    def scores(self, state: Any) -> dict[str, Any] | None:
        return None


def referee_for(setup: TableSetup) -> TableReferee:
    """The referee of the setup's game: the game package's ``table_referee(setup)``."""
    if setup.game == FreeTimers.game:
        return FreeTimers()
    info = find_game(setup.game)
    module = importlib.import_module(info.module)
    factory = getattr(module, "table_referee", None)
    if factory is None:
        from companion.errors import UnknownGameError

        raise UnknownGameError(f"{info.title} cannot be played on the hub yet (no table referee)")
    return factory(setup)
