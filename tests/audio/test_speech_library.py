"""Speech with espeak-ng (en/es/de), its cache and fallback, and the built cue library."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from companion.audio import synth
from companion.audio.cues import cue_schedule
from companion.audio.library import FIXED_SOUNDS, build_cue_library, build_cue_sounds
from companion.audio.phrases import LANGUAGES, phrase
from companion.audio.speech import FALLBACK_S, Speaker, find_espeak
from companion.errors import ConfigError

from .wavcheck import assert_valid_wav


@pytest.fixture(scope="module")
def espeak() -> str:
    path = find_espeak()
    if path is None:
        pytest.fail("espeak-ng is not installed: apt-get install -y espeak-ng (.ci/run must install it)")
    return path


class CountingRunner:
    """Wraps subprocess.run and counts the calls, to see the cache at work."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, argv, **kwargs) -> subprocess.CompletedProcess:
        self.calls.append(list(argv))
        return subprocess.run(argv, **kwargs)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("text_key", ["start", "minutes_left:5", "minutes_left:1", "time_up"])
def test_speech_is_produced_in_each_language(
    espeak: str, language: str, text_key: str, tmp_path: Path
) -> None:
    runner = CountingRunner()
    speaker = Speaker(tmp_path, runner=runner)
    said = speaker.say(text_key, language=language)
    assert said.spoken and said.reason == ""
    assert said.text == phrase(text_key, language)
    assert runner.calls[0][:3] == [espeak, "-v", language]
    assert runner.calls[0][-1] == said.text
    duration = assert_valid_wav(said.path)
    assert 0.4 < duration < 5.0
    samples, _ = synth.read_wav(said.path)
    assert max(abs(s) for s in samples) > 1000, "the speech file is not silent"


def test_speech_is_cached_by_text_and_voice(espeak: str, tmp_path: Path) -> None:
    runner = CountingRunner()
    speaker = Speaker(tmp_path, runner=runner)
    first = speaker.say("minutes_left:5", language="en")
    again = speaker.say("minutes_left:5", language="en")
    german = speaker.say("minutes_left:5", language="de")
    assert first.path == again.path != german.path
    assert len(runner.calls) == 2
    assert speaker.cache_path("Noch 5 Minuten.", "de") == german.path
    # A damaged cache entry is rendered again instead of being played.
    first.path.write_bytes(b"garbage")
    assert speaker.say("minutes_left:5", language="en").spoken
    assert len(runner.calls) == 3


def test_without_espeak_a_tone_stands_in_and_the_reason_is_given(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    speaker = Speaker(tmp_path, command=str(tmp_path / "no-espeak-here"))
    assert not speaker.available
    said = speaker.say("time_up", language="es")
    assert not said.spoken
    assert "espeak-ng is not installed" in said.reason
    assert said.text == "Se acabó el tiempo."
    assert_valid_wav(said.path, expected_s=FALLBACK_S)
    assert "speech unavailable" in caplog.text


def test_an_espeak_that_fails_is_reported_not_raised(tmp_path: Path) -> None:
    def failing(argv, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.CompletedProcess(argv, 1, "", "Error: voice does not exist\n")

    speaker = Speaker(tmp_path, command="/bin/sh", runner=failing)
    said = speaker.speak("hello", voice="xx")
    assert not said.spoken
    assert said.reason == "espeak-ng failed with exit status 1: Error: voice does not exist"


def test_an_unknown_language_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no cue phrases for language 'it'"):
        Speaker(tmp_path).say("start", language="it")


# --- the library ---------------------------------------------------------------------------
SPOKEN_12_AND_30 = {
    "minutes_left-25",
    "minutes_left-20",
    "minutes_left-15",
    "minutes_left-10",
    "minutes_left-5",
    "minutes_left-1",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_build_cue_sounds_with_speech(espeak: str, language: str, tmp_path: Path) -> None:
    library = build_cue_library(tmp_path / language, language)
    assert set(library.paths) == set(FIXED_SOUNDS) | SPOKEN_12_AND_30
    assert library.speech and library.speech_note == ""
    speaker = Speaker(tmp_path / language / ".speech-cache")
    tone_of = {"start": "start", "end": "end", "countdown": "countdown", "chime": "chime", "buzz": "buzz"}
    for key, path in library.paths.items():
        tone = synth.TONE_DURATIONS_S[tone_of.get(key, "ding")]
        text = library.texts[key]
        expected = tone
        if text:
            assert text == phrase(
                {"start": "start", "end": "time_up"}.get(key, key.replace("-", ":")), language
            )
            voice_path = speaker.cache_path(text, language)
            expected += synth.GAP_S + synth.wav_duration_s(voice_path)
        duration = assert_valid_wav(path, expected_s=expected, rate=synth.SAMPLE_RATE)
        assert library.durations_s[key] == pytest.approx(duration, abs=1e-9)
    manifest = json.loads((tmp_path / language / "cues.json").read_text(encoding="utf-8"))
    assert manifest["language"] == language and manifest["speech"] is True
    assert manifest["sounds"]["minutes_left-1"]["text"] == phrase("minutes_left:1", language)


def test_tone_only_library_has_exact_lengths_and_every_cue_of_a_schedule(tmp_path: Path) -> None:
    schedule = cue_schedule(90, warn_at_s=(45, 60))
    library = build_cue_library(tmp_path, "en", schedules=[schedule], speech=False)
    assert not library.speech and library.speech_note == "speech turned off"
    for cue in schedule:
        assert library.path_for(cue) is not None, cue
    assert set(library.paths) == set(FIXED_SOUNDS) | {"minutes_left-1", "seconds_left-45"}
    for key, path in library.paths.items():
        tone = {"start": "start", "end": "end", "countdown": "countdown", "chime": "chime", "buzz": "buzz"}
        assert_valid_wav(
            path, expected_s=synth.TONE_DURATIONS_S[tone.get(key, "ding")], rate=synth.SAMPLE_RATE
        )
    assert library.texts["seconds_left-45"] == "45 seconds left."


def test_library_without_espeak_falls_back_to_tones(tmp_path: Path) -> None:
    speaker = Speaker(tmp_path / "cache", command=str(tmp_path / "missing"))
    paths = build_cue_sounds(tmp_path / "out", "de", speaker=speaker)
    library = build_cue_library(tmp_path / "out", "de", speaker=speaker)
    assert paths == dict(library.paths)
    assert not library.speech and "not installed" in library.speech_note
    assert_valid_wav(paths["end"], expected_s=synth.TONE_DURATIONS_S["end"])


def test_building_twice_gives_the_same_files(tmp_path: Path) -> None:
    first = {k: p.read_bytes() for k, p in build_cue_sounds(tmp_path / "a", speech=False).items()}
    second = {k: p.read_bytes() for k, p in build_cue_sounds(tmp_path / "b", speech=False).items()}
    assert first == second


def test_a_second_build_keeps_the_files_a_first_one_made(tmp_path: Path) -> None:
    """A club's tables share one sounds folder: the first table builds the files, every other table
    (and every new game) finds them and writes nothing. A longer schedule adds only its own files;
    a different language or speech setting builds anew."""
    first = build_cue_library(tmp_path, "en", speech=False)
    written = {key: path.stat().st_mtime_ns for key, path in first.paths.items()}
    again = build_cue_library(tmp_path, "en", speech=False)
    assert dict(again.paths) == dict(first.paths)
    assert dict(again.durations_s) == dict(first.durations_s)
    assert {key: path.stat().st_mtime_ns for key, path in again.paths.items()} == written

    longer = build_cue_library(
        tmp_path,
        "en",
        speech=False,
        schedules=[cue_schedule(12 * 60), cue_schedule(30 * 60), cue_schedule(45 * 60)],
    )
    new_keys = set(longer.paths) - set(first.paths)
    assert new_keys
    assert all(longer.paths[key].stat().st_mtime_ns == written[key] for key in first.paths)
    for key in new_keys:
        assert_valid_wav(longer.paths[key])

    (tmp_path / first.paths["start"].name).unlink()  # a file gone is built again
    rebuilt = build_cue_library(tmp_path, "en", speech=False)
    assert rebuilt.paths["start"].is_file()
    assert rebuilt.durations_s["start"] == first.durations_s["start"]


def test_a_broken_manifest_means_every_file_is_built_again(tmp_path: Path) -> None:
    first = build_cue_library(tmp_path, "en", speech=False)
    first.paths["chime"].write_bytes(b"not a sound")
    (tmp_path / "cues.json").write_text("{not json", encoding="utf-8")
    again = build_cue_library(tmp_path, "en", speech=False)
    assert_valid_wav(again.paths["chime"])
    assert json.loads((tmp_path / "cues.json").read_text(encoding="utf-8"))["sounds"]["chime"]["recipe"]
