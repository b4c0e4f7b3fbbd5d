"""Builds the WAV file of every cue into a directory, for the hub's speaker and the dashboard.

A cue's file is its tone, then (when speech is on) a short gap and the spoken
phrase: ``start`` = rising notes + "The game starts now", ``end`` = fanfare +
"Time is up", each announcement = a soft ding + "Five minutes left",
``countdown`` = a tick, ``chime`` and ``buzz`` = tones alone. Files are named
by :attr:`companion.audio.cues.Cue.sound_key`. A ``cues.json`` manifest lists
them with their durations and the phrase text, so the dashboard can fall back
to the browser's speech synthesis when the hub has no speech engine.
"""

from __future__ import annotations

import json
import os
import threading
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from companion.audio import synth
from companion.audio.cues import Cue, cue_schedule
from companion.audio.phrases import check_language, phrase
from companion.audio.speech import Speaker
from companion.rules.setup import FULL_CLOCK_S, INTRO_CLOCK_S

FIXED_SOUNDS = ("start", "end", "countdown", "chime", "buzz", "hurry")
"""Sounds every library has, whatever the schedule."""
MANIFEST = "cues.json"


@dataclass(frozen=True)
class CueLibrary:
    """The cue files of one language in one directory."""

    directory: Path
    language: str
    paths: Mapping[str, Path]
    """Sound key → WAV file."""
    durations_s: Mapping[str, float]
    texts: Mapping[str, str]
    """Sound key → the phrase spoken in it ('' for a tone alone)."""
    speech: bool
    """True when the files contain speech; False when speech was off or unavailable."""
    speech_note: str = ""
    """Why there is no speech, when there is none."""

    def path_for(self, cue: Cue) -> Path | None:
        """The file that plays ``cue``, or None if this library has no sound for it."""
        return self.paths.get(cue.sound_key)


def default_schedules() -> list[list[Cue]]:
    """Schedules of the introductory (12 min) and full (30 min) game with the default cue settings."""
    return [cue_schedule(INTRO_CLOCK_S), cue_schedule(FULL_CLOCK_S)]


def _sound_plan(schedules: Iterable[Sequence[Cue]]) -> dict[str, tuple[str, str]]:
    """Sound key → (tone name, text key)."""
    plan = {
        "start": ("start", "start"),
        "end": ("end", "time_up"),
        "countdown": ("countdown", ""),
        "chime": ("chime", ""),
        "buzz": ("buzz", ""),
        "hurry": ("ding", "hurry"),
    }
    for schedule in schedules:
        for cue in schedule:
            if cue.sound_key not in plan:
                plan[cue.sound_key] = ("ding", cue.text_key)
    return plan


def build_cue_library(
    out_dir: str | os.PathLike[str],
    language: str = "en",
    *,
    schedules: Iterable[Sequence[Cue]] | None = None,
    speech: bool = True,
    speaker: Speaker | None = None,
) -> CueLibrary:
    """Write every cue file for ``schedules`` (default: 12 and 30 minutes) into ``out_dir``.

    With ``speech=False`` the files hold tones only (the dashboard may speak the
    manifest's text itself). Speech is rendered by ``speaker`` (espeak-ng, cached
    in ``out_dir/.speech-cache`` by default); when it is unavailable the tones
    stand alone and :attr:`CueLibrary.speech_note` says why.
    """
    check_language(language)
    directory = Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    plan = _sound_plan(default_schedules() if schedules is None else schedules)
    if speech and speaker is None:
        speaker = Speaker(directory / ".speech-cache")
    rate = synth.SAMPLE_RATE
    built = _files_already_built(directory, language, speech)
    tones: dict[str, array[Any]] = {}
    speech_used = speech
    note = "" if speech else "speech turned off"
    paths: dict[str, Path] = {}
    durations: dict[str, float] = {}
    texts: dict[str, str] = {}
    recipes: dict[str, str] = {}
    for key, (tone_name, text_key) in sorted(plan.items()):
        text = phrase(text_key, language) if text_key else ""
        recipes[key] = recipe = f"{tone_name}|{text_key}|{rate}"
        held = built.get(key)
        if held is not None and held.get("recipe") == recipe:
            paths[key], durations[key], texts[key] = directory / held["file"], held["duration_s"], text
            continue
        if tone_name not in tones:
            tones[tone_name] = synth.TONES[tone_name](rate)
        parts = [tones[tone_name]]
        if text and speech and speaker is not None:
            said = speaker.say(text_key, language=language)
            if said.spoken:
                voice, voice_rate = synth.read_wav(said.path)
                parts += [synth.silence(synth.GAP_S, rate=rate), synth.resample(voice, voice_rate, rate)]
            else:
                speech_used = False
                note = said.reason
        samples = synth.join(parts)
        paths[key] = synth.write_wav(directory / f"{key}.wav", samples, rate=rate)
        durations[key] = len(samples) / rate
        texts[key] = text
    manifest = {
        "language": language,
        "speech": speech_used,
        "speech_note": note,
        "sounds": {
            k: {"file": paths[k].name, "duration_s": durations[k], "text": texts[k], "recipe": recipes[k]}
            for k in sorted(paths)
        },
    }
    written = (
        directory / f".{MANIFEST}.{os.getpid()}.{threading.get_ident()}.tmp"
    )  # hubs of a club build at once
    try:
        written.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(written, directory / MANIFEST)
    except OSError:
        written.unlink(missing_ok=True)
        raise
    return CueLibrary(
        directory,
        language,
        MappingProxyType(paths),
        MappingProxyType(durations),
        MappingProxyType(texts),
        speech_used,
        note,
    )


def _files_already_built(directory: Path, language: str, speech: bool) -> dict[str, dict[str, Any]]:
    """The sounds a previous build left in ``directory`` that can be kept: those of a manifest in the
    same language whose speech came out as asked (a table starting in a club whose sounds exist,
    or a new game, then writes nothing). A missing or unreadable manifest keeps none."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        if manifest.get("language") != language or manifest.get("speech") is not speech:
            return {}
        sounds = manifest["sounds"]
        return {
            key: entry
            for key, entry in sounds.items()
            if isinstance(entry, dict)
            and isinstance(entry.get("file"), str)
            and "/" not in entry["file"]
            and isinstance(entry.get("duration_s"), (int, float))
            and (directory / entry["file"]).is_file()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def build_cue_sounds(
    out_dir: str | os.PathLike[str],
    language: str = "en",
    *,
    schedules: Iterable[Sequence[Cue]] | None = None,
    speech: bool = True,
    speaker: Speaker | None = None,
) -> dict[str, Path]:
    """Sound key → WAV file of every cue (see :func:`build_cue_library`)."""
    return dict(
        build_cue_library(out_dir, language, schedules=schedules, speech=speech, speaker=speaker).paths
    )
