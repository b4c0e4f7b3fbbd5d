"""Spoken announcements: espeak-ng renders a phrase to a WAV, cached by text and voice.

When espeak-ng is not installed (or fails), the announcement becomes a short
two-note tone instead and the result says why speech was unavailable; nothing
raises, so a hub without a speech engine still plays every cue.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from companion.audio import synth
from companion.audio.phrases import check_language, phrase

log = logging.getLogger(__name__)

VOICES = {"en": "en", "es": "es", "de": "de"}
"""espeak-ng voice of each phrase language."""
DEFAULT_SPEED_WPM = 150
TIMEOUT_S = 30.0


def find_espeak() -> str | None:
    """Path of espeak-ng (or the older espeak), or None."""
    return shutil.which("espeak-ng") or shutil.which("espeak")


@dataclass(frozen=True)
class Speech:
    """A phrase rendered to a WAV file."""

    path: Path
    text: str
    spoken: bool
    """True for speech; False when a tone stands in for it."""
    reason: str = ""
    """Why speech was unavailable (empty when ``spoken``)."""


FALLBACK_S = 0.36
"""Length of the tone that stands in for speech: two 0.16 s notes 0.04 s apart."""


def fallback_tone(rate: int = synth.SAMPLE_RATE):
    """Two short notes that stand in for a phrase when no speech engine is available."""
    return synth.join(
        [
            synth.tone(660.0, 0.16, rate=rate, volume=0.4),
            synth.silence(0.04, rate=rate),
            synth.tone(660.0, 0.16, rate=rate, volume=0.4),
        ]
    )


Runner = Callable[..., subprocess.CompletedProcess]


class Speaker:
    """Renders phrases with espeak-ng into ``cache_dir``, one file per (text, voice, speed).

    ``command`` is the espeak-ng executable (found on PATH when None); tests pass
    a missing path to see the fallback.
    """

    def __init__(
        self,
        cache_dir: str | os.PathLike[str],
        *,
        command: str | None = None,
        speed_wpm: int = DEFAULT_SPEED_WPM,
        runner: Runner = subprocess.run,
    ) -> None:
        self.cache_dir = Path(cache_dir)
        self.command = command if command is not None else find_espeak()
        self.speed_wpm = int(speed_wpm)
        self._run = runner
        self._warned = False

    @property
    def available(self) -> bool:
        """Whether a speech engine can be called at all."""
        command = self.command
        if not command:
            return False
        return os.path.exists(command) or shutil.which(command) is not None

    def cache_path(self, text: str, voice: str) -> Path:
        key = hashlib.sha256(f"{voice}\0{self.speed_wpm}\0{text}".encode()).hexdigest()[:20]
        return self.cache_dir / f"speech-{voice}-{key}.wav"

    def say(self, text_key: str, *, language: str = "en") -> Speech:
        """The phrase of ``text_key`` in ``language`` as a WAV (speech, or a tone standing in)."""
        check_language(language)
        return self.speak(phrase(text_key, language), voice=VOICES[language])

    def speak(self, text: str, *, voice: str = "en") -> Speech:
        """``text`` spoken by ``voice``, from the cache when it was rendered before."""
        target = self.cache_path(text, voice)
        if target.exists():
            try:
                synth.read_wav(target)
                return Speech(target, text, spoken=True)
            except ValueError:
                target.unlink(missing_ok=True)
        reason = self._render(text, voice, target)
        if not reason:
            return Speech(target, text, spoken=True)
        if not self._warned:
            log.warning("speech unavailable, cues use tones instead: %s", reason)
            self._warned = True
        stand_in = self.cache_dir / "speech-unavailable.wav"
        synth.write_wav(stand_in, fallback_tone())
        return Speech(stand_in, text, spoken=False, reason=reason)

    def _render(self, text: str, voice: str, target: Path) -> str:
        """Render into ``target``; return why it failed, or an empty string."""
        if not self.available:
            return "espeak-ng is not installed (apt-get install espeak-ng)"
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(
            f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp"
        )  # one per thread (a club)
        argv: Sequence[str] = [
            str(self.command),
            "-v",
            voice,
            "-s",
            str(self.speed_wpm),
            "-w",
            str(temp),
            text,
        ]
        try:
            done = self._run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            temp.unlink(missing_ok=True)
            return f"espeak-ng could not run ({exc})"
        if done.returncode != 0:
            temp.unlink(missing_ok=True)
            detail = (done.stderr or "").strip().splitlines()
            return f"espeak-ng failed with exit status {done.returncode}" + (
                f": {detail[-1]}" if detail else ""
            )
        try:
            samples, _ = synth.read_wav(temp)
        except (ValueError, OSError) as exc:
            temp.unlink(missing_ok=True)
            return f"espeak-ng wrote no usable WAV ({exc})"
        if not samples:
            temp.unlink(missing_ok=True)
            return f"espeak-ng produced no sound for voice {voice!r}"
        os.replace(temp, target)
        return ""
