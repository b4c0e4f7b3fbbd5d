"""Tone synthesis to 16-bit mono WAV with the standard library only.

Every sound the hub plays that is not speech is made here, from sine waves: no
recorded or copyrighted audio. The same call always gives the same bytes, and
a sound of ``d`` seconds is exactly ``round(d * rate)`` samples long.
"""

from __future__ import annotations

import io
import math
import os
import sys
import threading
import wave
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path

SAMPLE_RATE = 22050
"""Samples per second; espeak-ng speaks at this rate too, so tones and speech join without resampling."""

PEAK = 32767

Partial = tuple[float, float, float]
"""(frequency multiple, relative amplitude, decay per second; 0 = no decay)."""


def n_samples(duration_s: float, rate: int = SAMPLE_RATE) -> int:
    """Number of samples of a sound of ``duration_s`` seconds."""
    if duration_s < 0:
        raise ValueError("a sound cannot last a negative time")
    return int(round(duration_s * rate))


def silence(duration_s: float, *, rate: int = SAMPLE_RATE) -> array:
    return array("h", bytes(2 * n_samples(duration_s, rate)))


def tone(
    freq_hz: float,
    duration_s: float,
    *,
    rate: int = SAMPLE_RATE,
    volume: float = 0.5,
    attack_s: float = 0.01,
    release_s: float = 0.05,
    partials: Sequence[Partial] = ((1.0, 1.0, 0.0),),
) -> array:
    """A note: a sum of sine partials under a linear attack and release envelope.

    ``volume`` is the peak as a fraction of full scale; the partials are
    normalised so their sum never clips.
    """
    n = n_samples(duration_s, rate)
    if not 0 <= volume <= 1:
        raise ValueError("volume must be between 0 and 1")
    attack = max(1, n_samples(attack_s, rate))
    release = max(1, n_samples(release_s, rate))
    norm = sum(abs(amp) for _, amp, _ in partials) or 1.0
    scale = volume * PEAK / norm
    steps = [
        (2 * math.pi * freq_hz * mult / rate, amp * scale, decay / rate)
        for mult, amp, decay in partials
        if freq_hz * mult < rate / 2
    ]
    out = array("h", bytes(2 * n))
    for i in range(n):
        env = 1.0
        if i < attack:
            env = i / attack
        if i >= n - release:
            env = min(env, (n - 1 - i) / release)
        value = 0.0
        for step, amp, decay in steps:
            value += amp * math.exp(-decay * i) * math.sin(step * i) if decay else amp * math.sin(step * i)
        out[i] = max(-PEAK, min(PEAK, int(round(value * env))))
    return out


def join(parts: Iterable[array]) -> array:
    """Sounds one after another."""
    out = array("h")
    for part in parts:
        out.extend(part)
    return out


# --- the cue sounds ------------------------------------------------------------------------
_BELL: tuple[Partial, ...] = ((1.0, 1.0, 2.5), (2.0, 0.45, 4.0), (3.0, 0.2, 6.0))
_WARM: tuple[Partial, ...] = ((1.0, 1.0, 0.0), (2.0, 0.3, 0.0), (3.0, 0.1, 0.0))

START_NOTES = ((392.00, 0.16), (523.25, 0.34))
"""G4 then C5: a rising "go"."""
FANFARE_NOTES = ((523.25, 0.14), (659.25, 0.14), (783.99, 0.14), (1046.50, 0.7))
"""C5 E5 G5 C6: the end of the game."""
CHIME_S = 1.2
BUZZ_S = 0.6
TICK_S = 0.08
DING_S = 0.3
GAP_S = 0.12
"""Silence between a tone and the speech that follows it."""


def start_sound(rate: int = SAMPLE_RATE) -> array:
    return join(tone(f, d, rate=rate, volume=0.65, release_s=0.04, partials=_WARM) for f, d in START_NOTES)


def fanfare(rate: int = SAMPLE_RATE) -> array:
    notes = [
        tone(f, d, rate=rate, volume=0.65, release_s=0.03 if d < 0.5 else 0.3, partials=_WARM)
        for f, d in FANFARE_NOTES
    ]
    return join(notes)


def chime(rate: int = SAMPLE_RATE) -> array:
    """A bell of three decaying partials on E6, for a sandtimer that ran out."""
    return tone(1318.51, CHIME_S, rate=rate, volume=0.7, attack_s=0.004, release_s=0.2, partials=_BELL)


def buzz(rate: int = SAMPLE_RATE) -> array:
    """A low, rough buzz for a broken rule: odd harmonics of 110 Hz beating against 116.6 Hz."""
    square_ish: tuple[Partial, ...] = (
        (1.0, 1.0, 0.0),
        (3.0, 1 / 3, 0.0),
        (5.0, 1 / 5, 0.0),
        (7.0, 1 / 7, 0.0),
        (1.06, 0.5, 0.0),
    )
    return tone(110.0, BUZZ_S, rate=rate, volume=0.75, attack_s=0.01, release_s=0.08, partials=square_ish)


def tick(rate: int = SAMPLE_RATE) -> array:
    """A short wooden tick for each second of the final countdown."""
    return tone(
        1000.0,
        TICK_S,
        rate=rate,
        volume=0.65,
        attack_s=0.002,
        release_s=0.05,
        partials=((1.0, 1.0, 30.0), (2.0, 0.3, 50.0)),
    )


def ding(rate: int = SAMPLE_RATE) -> array:
    """A soft "attention" note before a spoken announcement."""
    return tone(880.0, DING_S, rate=rate, volume=0.5, attack_s=0.005, release_s=0.15, partials=_BELL)


TONE_DURATIONS_S = {
    "start": sum(d for _, d in START_NOTES),
    "end": sum(d for _, d in FANFARE_NOTES),
    "chime": CHIME_S,
    "buzz": BUZZ_S,
    "countdown": TICK_S,
    "ding": DING_S,
}
"""Length in seconds of each tone (before any speech is appended)."""

TONES = {"start": start_sound, "end": fanfare, "chime": chime, "buzz": buzz, "countdown": tick, "ding": ding}


# --- WAV files -----------------------------------------------------------------------------
def wav_bytes(samples: array, *, rate: int = SAMPLE_RATE) -> bytes:
    """A complete 16-bit mono little-endian WAV file."""
    data = samples
    if sys.byteorder == "big":
        data = array("h", samples)
        data.byteswap()
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(data.tobytes())
    return buffer.getvalue()


def write_wav(path: str | os.PathLike[str], samples: array, *, rate: int = SAMPLE_RATE) -> Path:
    """Write a WAV atomically (a reader never sees half a file)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(
        f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp"
    )  # one per thread: hubs in one process (a club) build the same cue at once
    try:
        temp.write_bytes(wav_bytes(samples, rate=rate))
        os.replace(temp, target)
    except OSError:
        temp.unlink(missing_ok=True)  # a full disk leaves no half file behind
        raise
    return target


def read_wav(path: str | os.PathLike[str]) -> tuple[array, int]:
    """Samples and rate of a 16-bit mono WAV; ``ValueError`` for any other format."""
    try:
        with wave.open(str(path), "rb") as src:
            if src.getnchannels() != 1 or src.getsampwidth() != 2:
                raise ValueError(f"{path} is not 16-bit mono")
            rate = src.getframerate()
            frames = src.readframes(src.getnframes())
    except (wave.Error, EOFError) as exc:
        raise ValueError(f"{path} is not a readable WAV file ({exc})") from exc
    samples = array("h", frames)
    if sys.byteorder == "big":
        samples.byteswap()
    return samples, rate


def resample(samples: array, from_rate: int, to_rate: int) -> array:
    """Linear-interpolation resampling, enough for speech joined to a tone."""
    if from_rate == to_rate or not samples:
        return array("h", samples)
    n = int(round(len(samples) * to_rate / from_rate))
    out = array("h", bytes(2 * n))
    last = len(samples) - 1
    for i in range(n):
        pos = i * from_rate / to_rate
        j = min(int(pos), last)
        frac = pos - j
        nxt = samples[min(j + 1, last)]
        out[i] = int(round(samples[j] * (1 - frac) + nxt * frac))
    return out


def wav_duration_s(path: str | os.PathLike[str]) -> float:
    with wave.open(str(path), "rb") as src:
        return src.getnframes() / src.getframerate()
