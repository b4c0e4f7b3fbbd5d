"""Cue settings from a hub config: defaults, turning cues off, and one-sentence errors."""

from __future__ import annotations

import pytest

from companion.audio.cues import CUE_NAMES, cue_schedule
from companion.audio.settings import CueSettings
from companion.errors import ConfigError


def test_defaults_give_the_standard_schedule() -> None:
    settings = CueSettings.from_mapping(None)
    assert settings == CueSettings() == CueSettings.from_mapping({})
    assert settings.schedule(1800) == cue_schedule(1800)
    assert (settings.language, settings.local_playback, settings.player_command) == (
        "en",
        False,
        ("aplay", "-q"),
    )


def test_a_full_section() -> None:
    settings = CueSettings.from_mapping(
        {
            "disabled": ["remaining", "buzz"],
            "announce_every_s": 600,
            "warn_at_s": [120, 60],
            "final_countdown_s": 5,
            "language": "es",
            "speech": False,
            "local_playback": True,
            "player_command": "aplay -q -D plughw:1,0",
        }
    )
    assert settings.disabled == frozenset({"remaining", "buzz"})
    assert settings.player_command == ("aplay", "-q", "-D", "plughw:1,0")
    schedule = settings.schedule(1800)
    assert [c.name for c in schedule].count("countdown") == 5
    assert [c.remaining_s for c in schedule if c.name == "warning"] == [120.0, 60.0]
    assert "remaining" not in {c.name for c in schedule}
    assert settings.silenced == {"remaining", "buzz"}


def test_all_audio_off() -> None:
    settings = CueSettings.from_mapping({"enabled": False})
    assert settings.schedule(720) == []
    assert settings.silenced == frozenset(CUE_NAMES)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"volume": 3}, "unknown audio settings: volume"),
        ({"enabled": "yes"}, "'enabled' must be true or false"),
        ({"disabled": "start"}, "'disabled' must be a list of cue names"),
        ({"disabled": ["start", "gong"]}, "unknown cue 'gong'"),
        ({"warn_at_s": 60}, "'warn_at_s' must be a list of seconds"),
        ({"warn_at_s": [-1]}, "warning time must be a positive"),
        ({"announce_every_s": "often"}, "announcement interval must be a number"),
        ({"final_countdown_s": 2.5}, "whole number of seconds"),
        ({"language": "fr"}, "no cue phrases for language 'fr'"),
        ({"player_command": ""}, "'player_command' must be a command"),
        ({"player_command": ["aplay", 3]}, "'player_command' must be a command"),
    ],
)
def test_bad_settings_are_refused_with_one_sentence(data: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        CueSettings.from_mapping(data)


def test_a_section_that_is_not_a_table() -> None:
    with pytest.raises(ConfigError, match="must be a table"):
        CueSettings.from_mapping(["start"])  # type: ignore[arg-type]
