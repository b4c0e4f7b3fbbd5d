"""Tone synthesis: exact lengths, deterministic bytes, no clipping or clicks, valid WAV files."""

from __future__ import annotations

import hashlib
import math
from array import array
from pathlib import Path

import pytest

from companion.audio import synth

from .wavcheck import assert_valid_wav

RATE = synth.SAMPLE_RATE


@pytest.mark.parametrize("name", sorted(synth.TONES))
def test_each_cue_tone_is_exactly_its_documented_length(name: str, tmp_path: Path) -> None:
    samples = synth.TONES[name]()
    assert len(samples) == synth.n_samples(synth.TONE_DURATIONS_S[name])
    path = synth.write_wav(tmp_path / f"{name}.wav", samples)
    assert_valid_wav(path, expected_s=synth.TONE_DURATIONS_S[name], rate=RATE)


@pytest.mark.parametrize("name", sorted(synth.TONES))
def test_tones_are_audible_unclipped_and_start_and_end_in_silence(name: str) -> None:
    samples = synth.TONES[name]()
    peak = max(abs(s) for s in samples)
    assert 0.2 * synth.PEAK < peak < 0.95 * synth.PEAK
    assert abs(samples[0]) < 0.02 * synth.PEAK and abs(samples[-1]) < 0.02 * synth.PEAK


def test_synthesis_is_deterministic_to_the_byte() -> None:
    first = {name: hashlib.sha256(synth.wav_bytes(make())).hexdigest() for name, make in synth.TONES.items()}
    again = {name: hashlib.sha256(synth.wav_bytes(make())).hexdigest() for name, make in synth.TONES.items()}
    assert first == again
    assert len(set(first.values())) == len(first), "every cue sounds different"


@pytest.mark.parametrize(
    "duration_s, samples", [(0.0, 0), (1.0, RATE), (0.08, 1764), (1 / RATE, 1), (2.5, 55125)]
)
def test_durations_are_exact_to_the_sample(duration_s: float, samples: int) -> None:
    assert len(synth.tone(440.0, duration_s)) == samples
    assert len(synth.silence(duration_s)) == samples


def test_a_sine_tone_has_its_frequency() -> None:
    samples = synth.tone(441.0, 1.0, attack_s=0.001, release_s=0.001)
    crossings = sum(1 for a, b in zip(samples, samples[1:], strict=False) if a < 0 <= b)
    assert crossings in (440, 441)


def test_a_chime_decays_and_a_buzz_does_not() -> None:
    def rms(part: array) -> float:
        return math.sqrt(sum(s * s for s in part) / len(part))

    chime, buzz = synth.chime(), synth.buzz()
    tenth = RATE // 10
    assert rms(chime[tenth : 2 * tenth]) > 3 * rms(chime[-3 * tenth : -2 * tenth])
    # The buzz beats about 6.6 times a second; over whole beats its loudness holds steady.
    beats = int(RATE * 2 / 6.6)
    assert rms(buzz[RATE // 50 : RATE // 50 + beats]) == pytest.approx(
        rms(buzz[RATE // 5 : RATE // 5 + beats]), rel=0.15
    )


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="negative"):
        synth.tone(440, -1)
    with pytest.raises(ValueError, match="volume"):
        synth.tone(440, 1, volume=2)


def test_wav_round_trip_and_resampling(tmp_path: Path) -> None:
    samples = synth.tone(300.0, 0.5)
    path = synth.write_wav(tmp_path / "sub" / "a.wav", samples)
    back, rate = synth.read_wav(path)
    assert (back, rate) == (samples, RATE)
    assert synth.wav_duration_s(path) == 0.5
    assert len(synth.resample(samples, RATE, 16000)) == 8000
    assert synth.resample(samples, RATE, RATE) == samples
    assert not list(tmp_path.glob("sub/.*tmp")), "no temporary file is left behind"


def test_reading_a_file_that_is_not_a_wav_says_so(tmp_path: Path) -> None:
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"not a wav at all")
    with pytest.raises(ValueError, match="not a readable WAV"):
        synth.read_wav(bad)


def test_hubs_in_one_process_can_build_the_same_cue_at_once(tmp_path):
    """A club runs many hubs in one process, and they build the same cue files in one folder."""
    import threading
    from array import array

    from companion.audio.synth import read_wav, write_wav

    target = tmp_path / "start.wav"
    samples = array("h", [0, 1000, -1000, 0] * 200)
    errors: list[BaseException] = []

    def build() -> None:
        try:
            for _ in range(50):
                write_wav(target, samples)
        except BaseException as exc:  # noqa: BLE001 - any failure is the finding
            errors.append(exc)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert read_wav(target)[0] == samples
    assert [p.name for p in tmp_path.iterdir()] == ["start.wav"], "no temporary file is left behind"
