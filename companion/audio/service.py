"""Everything a hub needs for its cues in one object: settings, sound files, engine, speaker, dashboard feed.

Wiring into a hub (sketch)::

    cues = CueService(CueSettings.from_mapping(config_section), clock=clock,
                      sounds_dir=data_dir / "sounds", emit=lambda cue: session.announce_cue(cue))
    cues.prepare(setup.clock_length_s)              # build the sound files before the game starts
    # on a thread of its own (the hub's cue thread), never inside the session lock:
    cues.update(session.state.clock)
    wait = cues.next_deadline_s(session.state.clock)
    # for an event the session accepted (handed over through a queue, with the clock then):
    cues.on_table_event(event, master, now_s)

``emit`` receives the JSON form of each cue (:meth:`Cue.to_dict` with the
phrase in the table's language) for the dashboard's stream; with
``local_playback`` on, the cue also plays on the hub's speaker.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from companion.audio.cache import trim
from companion.audio.cues import Cue
from companion.audio.engine import CueEngine
from companion.audio.library import CueLibrary, build_cue_library, default_schedules
from companion.audio.phrases import phrase
from companion.audio.players import LocalPlayer
from companion.audio.settings import CueSettings
from companion.clock import Clock
from companion.table.state import MasterClock

log = logging.getLogger(__name__)


class CueService:
    """Cue engine, sound library and local player of one hub, built from :class:`CueSettings`."""

    def __init__(
        self,
        settings: CueSettings,
        *,
        clock: Clock,
        sounds_dir: str | os.PathLike[str],
        emit: Callable[[dict[str, Any]], object] | None = None,
        player: LocalPlayer | None = None,
        cache_limit_bytes: int | None = None,
    ) -> None:
        """``sounds_dir``: where the sounds are built (one folder per language). ``cache_limit_bytes``:
        it is a cache of its own (:mod:`companion.audio.cache`), trimmed to this size after each build;
        None leaves a folder someone chose as it is."""
        self.settings = settings
        self.clock = clock
        self.cache_dir = Path(sounds_dir)
        self.cache_limit_bytes = cache_limit_bytes
        self.sounds_dir = self.cache_dir / settings.language
        self.emit = emit
        self.player = player
        if self.player is None and settings.local_playback and settings.enabled:
            self.player = LocalPlayer(settings.player_command)
        self.library: CueLibrary | None = None
        self._lengths: set[float] = set()
        self._build_lock = threading.Lock()
        self._later: set[float] = set()
        """Lengths whose sounds a background thread is building (each built once)."""
        self.build_in_background = False
        """Never build missing sounds in the caller's thread (a club's shared thread runs every table's
        cues: one table's build must not hold up the others)."""
        self.engine = CueEngine(
            clock=clock, on_cue=self._on_cue, disabled=settings.silenced, schedule_for=self._schedule_for
        )

    # --- sounds --------------------------------------------------------------------------
    def prepare(self, *lengths_s: float) -> CueLibrary:
        """Build (or complete) the sound files for master clocks of these lengths; returns the library."""
        with self._build_lock:
            return self._prepare(lengths_s)

    def _prepare(self, lengths_s: Iterable[float]) -> CueLibrary:
        """:meth:`prepare` with the build lock held."""
        self._lengths.update(float(length) for length in lengths_s)
        schedules = default_schedules() + [self.settings.schedule(length) for length in sorted(self._lengths)]
        language, speech = self.settings.language, self.settings.speech
        try:
            self.library = build_cue_library(self.sounds_dir, language, schedules=schedules, speech=speech)
        except OSError as exc:  # a cache that is missing, full or read-only costs only the build
            failed = self.sounds_dir
            self.cache_limit_bytes = None
            try:
                self.sounds_dir = Path(tempfile.mkdtemp(prefix="companion-sounds-")) / language
                log.warning(
                    "cannot write cue sounds to %s (%s): building them in %s for this run",
                    failed,
                    exc.strerror or exc,
                    self.sounds_dir,
                )
                self.library = build_cue_library(
                    self.sounds_dir, language, schedules=schedules, speech=speech
                )
            except OSError as again:
                log.warning(
                    "cue sounds cannot be written anywhere (%s; %s): the cues go without sound files",
                    exc.strerror or exc,
                    again.strerror or again,
                )
                note = "no folder can take the sound files"
                self.library = CueLibrary(self.sounds_dir, language, {}, {}, {}, False, note)
        if self.cache_limit_bytes is not None:
            trim(self.cache_dir, limit_bytes=self.cache_limit_bytes, keep=self.library.paths.values())
        if self.settings.speech and not self.library.speech:
            log.warning("cues play as tones only: %s", self.library.speech_note)
        if self.player is not None:
            self.player.sounds = self.library.paths
        return self.library

    def _schedule_for(self, length_s: float) -> list[Cue]:
        """The engine's schedule for a clock of ``length_s``, with its sound files.

        A length nobody prepared gets its few missing files built now. If sounds are being
        built already (the hub's start, a new game), the cues do not wait for them: they go
        out on time and their files follow when the build ends.
        """
        schedule = self.settings.schedule(length_s)
        library = self.library
        if library is None or any(cue.sound_key not in library.paths for cue in schedule):
            if not self.build_in_background and self._build_lock.acquire(blocking=False):
                try:
                    self._prepare([length_s])
                finally:
                    self._build_lock.release()
            elif self.build_in_background and length_s in self._later:
                pass  # its build is on the way
            else:
                self._later.add(length_s)
                log.info(
                    "cue sounds are being built; the cues of a %g s clock go on without waiting", length_s
                )
                threading.Thread(
                    target=self._prepare_later, args=(length_s,), name="cue-sounds", daemon=True
                ).start()
        return schedule

    def _prepare_later(self, length_s: float) -> None:
        try:
            self.prepare(length_s)
        except Exception:
            log.exception("the cue sounds could not be built")
        finally:
            self._later.discard(length_s)

    # --- the clock and events ------------------------------------------------------------
    def update(self, master: MasterClock, now_s: float | None = None) -> list[Cue]:
        return self.engine.update(master, now_s)

    def next_deadline_s(self, master: MasterClock, now_s: float | None = None) -> float | None:
        return self.engine.next_deadline_s(master, now_s)

    def on_table_event(
        self, event: object, master: MasterClock | None = None, now_s: float | None = None
    ) -> Cue | None:
        """Chime for a timer that ran out, buzz for a refused flip; other events sound nothing."""
        return self.engine.notify_event(event, master, now_s)

    def rule_broken(self, master: MasterClock | None = None, now_s: float | None = None) -> Cue | None:
        """Buzz for a move a game engine rejected."""
        return self.engine.fire_event("buzz", master, now_s)

    def set_disabled(self, names: Iterable[str]) -> None:
        self.engine.set_disabled(names)

    def payload(self, cue: Cue) -> dict[str, Any]:
        """The dashboard's form of a cue, with its phrase in the table's language."""
        return cue.to_dict(text=phrase(cue.text_key, self.settings.language) if cue.text_key else "")

    def _on_cue(self, cue: Cue) -> None:
        if self.emit is not None:
            try:
                self.emit(self.payload(cue))
            except Exception:
                log.exception("the dashboard feed failed on cue %r", cue.name)
        if self.player is not None:
            self.player.play_cue(cue)

    def close(self) -> None:
        if self.player is not None:
            self.player.close()
