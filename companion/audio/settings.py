"""Cue settings of a hub, from its config: which cues sound, when, in which language, and where.

A config section such as::

    {"disabled": ["remaining"], "announce_every_s": 300, "warn_at_s": [60], "final_countdown_s": 10,
     "language": "de", "speech": true, "local_playback": true, "player_command": ["aplay", "-q"]}

becomes a checked :class:`CueSettings`; every key is optional and a bad value
is refused with one sentence (:class:`~companion.errors.ConfigError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from companion.audio.cues import CUE_NAMES, Cue, check_cue_names, cue_schedule
from companion.audio.phrases import check_language
from companion.errors import ConfigError


@dataclass(frozen=True)
class CueSettings:
    """How a hub plays its cues."""

    enabled: bool = True
    """False silences every cue."""
    disabled: frozenset[str] = frozenset()
    """Cue names turned off (see :data:`companion.audio.cues.CUE_NAMES`)."""
    announce_every_s: float | None = 300.0
    """Regular announcements at each multiple of this time left; None or 0 for none."""
    warn_at_s: tuple[float, ...] = (60.0,)
    final_countdown_s: int = 10
    language: str = "en"
    speech: bool = True
    """Speak announcements with espeak-ng (tones only when False or when espeak-ng is missing)."""
    local_playback: bool = False
    """Also play cues on the hub's own speaker (a Raspberry Pi with a speaker)."""
    player_command: tuple[str, ...] = ("aplay", "-q")
    """Command that plays one WAV file, given as its last argument."""
    turn_warning_s: float = 10.0
    """Turn-based games: the ``hurry`` cue sounds when this much sand is left on the turn timer."""

    def schedule(self, length_s: float) -> list[Cue]:
        """The clock cues of a master clock of ``length_s`` with these settings."""
        if not self.enabled:
            return []
        return cue_schedule(
            length_s,
            announce_every_s=self.announce_every_s,
            warn_at_s=self.warn_at_s,
            final_countdown_s=self.final_countdown_s,
            disabled=self.disabled,
        )

    @property
    def silenced(self) -> frozenset[str]:
        """Every cue name that must not sound, event cues included."""
        return frozenset(CUE_NAMES) if not self.enabled else self.disabled

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> CueSettings:
        """Checked settings from a config section (None or {} gives the defaults)."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise ConfigError("the audio settings must be a table of keys and values")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown audio settings: {', '.join(unknown)}")
        values: dict[str, Any] = {}
        for key in ("enabled", "speech", "local_playback"):
            if key in data:
                if not isinstance(data[key], bool):
                    raise ConfigError(f"audio setting {key!r} must be true or false")
                values[key] = data[key]
        if "disabled" in data:
            names = data["disabled"]
            if isinstance(names, str) or not isinstance(names, list | tuple | set | frozenset):
                raise ConfigError("audio setting 'disabled' must be a list of cue names")
            values["disabled"] = check_cue_names(names)
        if "warn_at_s" in data:
            warn = data["warn_at_s"]
            if isinstance(warn, str) or not isinstance(warn, list | tuple):
                raise ConfigError("audio setting 'warn_at_s' must be a list of seconds")
            values["warn_at_s"] = tuple(warn)
        if "announce_every_s" in data:
            values["announce_every_s"] = data["announce_every_s"]
        if "final_countdown_s" in data:
            values["final_countdown_s"] = data["final_countdown_s"]
        if "turn_warning_s" in data:
            value = data["turn_warning_s"]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ConfigError("audio setting 'turn_warning_s' must be a number of seconds, 0 or more")
            values["turn_warning_s"] = float(value)
        if "language" in data:
            values["language"] = check_language(str(data["language"]))
        if "player_command" in data:
            command = data["player_command"]
            if isinstance(command, str):
                command = command.split()
            if not command or not all(isinstance(part, str) and part for part in command):
                raise ConfigError("audio setting 'player_command' must be a command such as \"aplay -q\"")
            values["player_command"] = tuple(command)
        settings = cls(**values)
        # cue_schedule checks the timing values and explains what is wrong with them.
        cue_schedule(
            1800.0,
            announce_every_s=settings.announce_every_s,
            warn_at_s=settings.warn_at_s,
            final_countdown_s=settings.final_countdown_s,
        )
        return settings
