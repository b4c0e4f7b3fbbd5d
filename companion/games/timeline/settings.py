"""Table settings for Timeline (hand size, player count), read from a JSON data file.

The shipped ``settings.json`` says where each number comes from and marks the ones the
rulebook text does not print as assumptions. A table can load its own file instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from companion.errors import InvalidRecordError


@dataclass(frozen=True)
class TimelineSettings:
    """Numbers a Timeline table is set up with."""

    hand_size: int = 4
    """Cards dealt to each player ("Setup"; players may change it)."""
    min_players: int = 2
    """Fewest players (assumption, see settings.json)."""
    max_players: int = 8
    """Most players (assumption, see settings.json)."""


def _parse(data: Any, source: str) -> TimelineSettings:
    if not isinstance(data, dict):
        raise InvalidRecordError(f"{source}: the settings must be a JSON object")
    values = {}
    for name in ("hand_size", "min_players", "max_players"):
        value = data.get(name, getattr(TimelineSettings, name))
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidRecordError(f"{source}: {name} must be a whole number of at least 1, not {value!r}")
        values[name] = value
    if values["min_players"] > values["max_players"]:
        raise InvalidRecordError(f"{source}: min_players is larger than max_players")
    return TimelineSettings(**values)


def load_settings(path: str | Path | None = None) -> TimelineSettings:
    """Read table settings from ``path``, or the shipped ``settings.json`` when ``path`` is ``None``."""
    if path is None:
        text = (
            resources.files("companion.games.timeline").joinpath("settings.json").read_text(encoding="utf-8")
        )
        source = "settings.json"
    else:
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidRecordError(f"{source}: cannot read the settings: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise InvalidRecordError(f"{source}: the settings are not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRecordError(f"{source}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
    return _parse(data, source)
