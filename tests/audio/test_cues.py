"""The cue schedule (pure): moments for 12- and 30-minute clocks, any length, turning cues off."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.audio.cues import CUE_NAMES, EPSILON_S, Cue, cue_schedule, due_cues, event_cue, next_cue
from companion.audio.phrases import LANGUAGES, PHRASES, phrase, text_key_for_remaining
from companion.errors import ConfigError


def moments(schedule: list[Cue]) -> list[tuple[float, str, float, str]]:
    return [(c.at_elapsed_s, c.name, c.remaining_s, c.text_key) for c in schedule]


COUNTDOWN_12 = [(710.0 + i, "countdown", 10.0 - i, "") for i in range(10)]
COUNTDOWN_30 = [(1790.0 + i, "countdown", 10.0 - i, "") for i in range(10)]


def test_twelve_minute_schedule() -> None:
    assert moments(cue_schedule(12 * 60)) == [
        (0.0, "start", 720.0, "start"),
        (120.0, "remaining", 600.0, "minutes_left:10"),
        (420.0, "remaining", 300.0, "minutes_left:5"),
        (660.0, "warning", 60.0, "minutes_left:1"),
        *COUNTDOWN_12,
        (720.0, "end", 0.0, "time_up"),
    ]


def test_thirty_minute_schedule() -> None:
    assert moments(cue_schedule(30 * 60)) == [
        (0.0, "start", 1800.0, "start"),
        (300.0, "remaining", 1500.0, "minutes_left:25"),
        (600.0, "remaining", 1200.0, "minutes_left:20"),
        (900.0, "remaining", 900.0, "minutes_left:15"),
        (1200.0, "remaining", 600.0, "minutes_left:10"),
        (1500.0, "remaining", 300.0, "minutes_left:5"),
        (1740.0, "warning", 60.0, "minutes_left:1"),
        *COUNTDOWN_30,
        (1800.0, "end", 0.0, "time_up"),
    ]


def test_a_warning_on_an_announcement_moment_replaces_it_and_turning_it_off_brings_the_announcement_back() -> (
    None
):
    with_warning = cue_schedule(1800, warn_at_s=(300, 60))
    at_1500 = [c for c in with_warning if c.at_elapsed_s == 1500]
    assert [(c.name, c.text_key) for c in at_1500] == [("warning", "minutes_left:5")]
    without = cue_schedule(1800, warn_at_s=(300, 60), disabled={"warning"})
    assert [(c.name, c.text_key) for c in without if c.at_elapsed_s == 1500] == [
        ("remaining", "minutes_left:5")
    ]
    assert not [c for c in without if c.name == "warning"]


def test_a_countdown_tick_wins_over_a_warning_at_ten_seconds() -> None:
    schedule = cue_schedule(120, warn_at_s=(10,))
    assert [c.name for c in schedule if c.remaining_s == 10] == ["countdown"]


@pytest.mark.parametrize(
    "length_s, expected",
    [
        (
            5,
            [
                (0.0, "start"),
                (1.0, "countdown"),
                (2.0, "countdown"),
                (3.0, "countdown"),
                (4.0, "countdown"),
                (5.0, "end"),
            ],
        ),
        (7.5, [(0.0, "start"), *[(7.5 - n, "countdown") for n in range(7, 0, -1)], (7.5, "end")]),
        (
            90,
            [(0.0, "start"), (30.0, "warning"), *[(80.0 + i, "countdown") for i in range(10)], (90.0, "end")],
        ),
        (
            600,
            [
                (0.0, "start"),
                (300.0, "remaining"),
                (540.0, "warning"),
                *[(590.0 + i, "countdown") for i in range(10)],
                (600.0, "end"),
            ],
        ),
    ],
)
def test_short_and_odd_lengths(length_s: float, expected: list) -> None:
    assert [(c.at_elapsed_s, c.name) for c in cue_schedule(length_s)] == expected


def test_seven_and_a_half_minutes_announces_minutes_left_not_the_start() -> None:
    schedule = cue_schedule(450)
    assert [(c.at_elapsed_s, c.text_key) for c in schedule if c.name == "remaining"] == [
        (150.0, "minutes_left:5")
    ]


@pytest.mark.parametrize(
    "disabled",
    [
        {"start"},
        {"remaining"},
        {"warning"},
        {"countdown"},
        {"end"},
        {"start", "end", "countdown"},
        set(CUE_NAMES),
    ],
)
def test_disabled_cues_are_not_scheduled(disabled: set[str]) -> None:
    full = cue_schedule(1800)
    schedule = cue_schedule(1800, disabled=disabled)
    assert not [c for c in schedule if c.name in disabled]
    assert [c for c in full if c.name not in disabled] == schedule


def test_enabled_limits_the_cues() -> None:
    assert {c.name for c in cue_schedule(720, enabled={"start", "end"})} == {"start", "end"}


def test_announcements_and_countdown_can_be_turned_off_by_their_settings() -> None:
    schedule = cue_schedule(1800, announce_every_s=None, final_countdown_s=0, warn_at_s=())
    assert moments(schedule) == [(0.0, "start", 1800.0, "start"), (1800.0, "end", 0.0, "time_up")]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"length_s": 0}, "master clock length must be a positive"),
        ({"length_s": "long"}, "master clock length must be a number"),
        ({"length_s": 60, "announce_every_s": -5}, "announcement interval must be a non-negative"),
        ({"length_s": 60, "final_countdown_s": 2.5}, "whole number of seconds"),
        ({"length_s": 60, "warn_at_s": (0,)}, "warning time must be a positive"),
        ({"length_s": 60, "disabled": {"fanfare"}}, "unknown cue 'fanfare'"),
        ({"length_s": 60, "enabled": {"start", "bell"}}, "unknown cue 'bell'"),
    ],
)
def test_bad_settings_are_refused_with_a_sentence(kwargs: dict, message: str) -> None:
    length = kwargs.pop("length_s")
    with pytest.raises(ConfigError, match=message):
        cue_schedule(length, **kwargs)


def test_due_cues_uses_a_half_open_interval() -> None:
    schedule = cue_schedule(720)
    assert [c.name for c in due_cues(schedule, elapsed_before_s=-1, elapsed_now_s=0)] == ["start"]
    assert due_cues(schedule, elapsed_before_s=0, elapsed_now_s=119.9) == []
    assert [c.text_key for c in due_cues(schedule, elapsed_before_s=119.9, elapsed_now_s=120)] == [
        "minutes_left:10"
    ]
    assert due_cues(schedule, elapsed_before_s=120, elapsed_now_s=300) == []
    # A tick a rounding error short of a cue still plays it, and the next tick does not repeat it.
    assert [c.remaining_s for c in due_cues(schedule, elapsed_before_s=700, elapsed_now_s=710 - 1e-9)] == [
        10.0
    ]
    assert due_cues(schedule, elapsed_before_s=710 - 1e-9, elapsed_now_s=710.5) == []


def test_next_cue() -> None:
    schedule = cue_schedule(720)
    assert next_cue(schedule, elapsed_s=-1).name == "start"
    assert next_cue(schedule, elapsed_s=0).at_elapsed_s == 120
    assert next_cue(schedule, elapsed_s=719.5).name == "end"
    assert next_cue(schedule, elapsed_s=720) is None


@settings(max_examples=200, deadline=None)
@given(
    length=st.sampled_from([5.0, 90.0, 720.0, 1800.0, 3600.0]),
    steps=st.lists(st.floats(min_value=0, max_value=400, allow_nan=False), max_size=40),
)
def test_consecutive_ticks_partition_the_schedule(length: float, steps: list[float]) -> None:
    schedule = cue_schedule(length)
    elapsed = [-1.0]
    for step in steps:
        elapsed.append(min(length, elapsed[-1] + step))
    elapsed.append(length)
    got = [
        c
        for a, b in zip(elapsed, elapsed[1:], strict=False)
        for c in due_cues(schedule, elapsed_before_s=a, elapsed_now_s=b)
    ]
    assert got == schedule


def test_event_cues() -> None:
    cue = event_cue("chime", elapsed_s=12.5, remaining_s=707.5)
    assert (cue.name, cue.sound_key, cue.text_key) == ("chime", "chime", "")
    with pytest.raises(ConfigError, match="not an event cue"):
        event_cue("end", elapsed_s=0, remaining_s=0)


def test_sound_keys_and_json_form() -> None:
    schedule = cue_schedule(720)
    assert [c.sound_key for c in schedule[:4]] == [
        "start",
        "minutes_left-10",
        "minutes_left-5",
        "minutes_left-1",
    ]
    assert schedule[-1].to_dict(text="Time is up.") == {
        "name": "end",
        "at_elapsed_s": 720.0,
        "remaining_s": 0.0,
        "text_key": "time_up",
        "sound": "end",
        "text": "Time is up.",
    }
    assert EPSILON_S < 0.001


# --- phrases -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "remaining_s, key",
    [
        (1500, "minutes_left:25"),
        (60, "minutes_left:1"),
        (30, "seconds_left:30"),
        (1, "seconds_left:1"),
        (90, "minutes_seconds_left:1:30"),
        (150.2, "minutes_seconds_left:2:30"),
        (0, "time_up"),
    ],
)
def test_text_key_for_remaining(remaining_s: float, key: str) -> None:
    assert text_key_for_remaining(remaining_s) == key


@pytest.mark.parametrize(
    "language, key, text",
    [
        ("en", "minutes_left:5", "5 minutes left."),
        ("en", "minutes_left:1", "One minute left."),
        ("en", "time_up", "Time is up."),
        ("en", "minutes_seconds_left:1:30", "One minute and 30 seconds left."),
        ("es", "minutes_left:5", "Quedan 5 minutos."),
        ("es", "minutes_left:1", "Queda un minuto."),
        ("es", "start", "Empieza la partida."),
        ("es", "seconds_left:30", "Quedan 30 segundos."),
        ("de", "minutes_left:5", "Noch 5 Minuten."),
        ("de", "minutes_left:1", "Noch eine Minute."),
        ("de", "time_up", "Die Zeit ist um."),
        ("de", "minutes_seconds_left:2:15", "Noch 2 Minuten und 15 Sekunden."),
    ],
)
def test_phrases(language: str, key: str, text: str) -> None:
    assert phrase(key, language) == text


def test_every_language_has_every_phrase() -> None:
    keys = set(PHRASES["en"])
    assert set(LANGUAGES) == set(PHRASES)
    for language in LANGUAGES:
        assert set(PHRASES[language]) == keys, language


@pytest.mark.parametrize(
    "key, language, message",
    [
        ("start", "fr", "no cue phrases for language 'fr'"),
        ("bonus", "en", "unknown cue text key 'bonus'"),
        ("minutes_left:x", "en", "not a whole number"),
        ("minutes_left:0", "en", "unknown cue text key"),
    ],
)
def test_bad_phrase_lookups(key: str, language: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        phrase(key, language)
