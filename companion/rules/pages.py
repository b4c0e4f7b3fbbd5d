"""What a referee gives the pages: a view of the game, and the buttons of a player's phone."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
