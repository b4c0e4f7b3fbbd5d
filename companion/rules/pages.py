"""What a referee gives the pages: a view of the game, and the buttons of a player's phone."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.rules.text import Text

Encode = Callable[[Any], Any]
"""How a game's typed value (an action, an intent) becomes JSON for a page: the game's codec."""


def to_json(value: Any) -> Any:
    """``value`` with every :class:`Text` inside (dicts, lists, tuples) in its JSON form."""
    if isinstance(value, Text):
        return value.to_json()
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value


@dataclass(frozen=True)
class MenuItem:
    """One button on a player's phone page."""

    id: str
    """Stable identifier (tests and the page use it)."""
    label: Text | str
    group: Text | str
    """Heading the button is listed under, e.g. ``text("Timer {index}: next symbol", index=1)``."""
    action: Any = None
    """Applied at once when tapped (a free action, a choice, what the table drew): one of the game's
    typed moves, posted back by the page as the game's codec wrote it."""
    intent: Any = None
    """Remembered for the timer ``node`` and used at its next flip (the game's typed intent)."""
    node: str = ""
    """The timer an intent is for."""
    selected: bool = False
    """This is the current choice (the preselected default, or what the player picked)."""
    search: bool = False
    """The group is long (a pile's possible contents): the page lets the player search it."""

    def to_dict(self, encode: Encode) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": to_json(self.label),
            "group": to_json(self.group),
            "action": None if self.action is None else encode(self.action),
            "intent": None if self.intent is None else encode(self.intent),
            "node": self.node,
            "selected": self.selected,
            "search": self.search,
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
    saving posts the move ``{"@": action_type, "sheet": {"players": {player: entry}}}``); a grid whose
    panel has ``select`` and ``action_type`` posts ``{"@": action_type, "cells": [[r, c], ...]}``
    once that many cells are tapped.
    """

    summary: Text | str = ""
    panels: tuple[dict[str, Any], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    """More for the pages, e.g. ``"picture"``: what the dashboard draws (``static/pictures/<game>.js``).

    Words anywhere in the view are :class:`Text` (a plain string is shown as it is: a name, a number)."""

    def to_dict(self) -> dict[str, Any]:
        return {"summary": to_json(self.summary), "panels": to_json(list(self.panels)), **to_json(self.extra)}
