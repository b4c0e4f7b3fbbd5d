"""Audio cues on the hub: the cue service fed by the master clock and table events,
the sound files served to the dashboard, and the switches that turn cues off.

Nothing on the table's path waits for audio. The session's listener (called inside
the session lock) only puts the table's events on a queue; the cue thread
(:class:`CueWorker`, started by ``start_services``) fires the event cues, the master
clock's cues and the turn warnings, and sleeps until the next one is due. Building
sounds (seconds for a long clock with speech) can only hold up that thread.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Flask, abort, current_app, jsonify, send_file

from companion.audio.cache import LIMIT_BYTES, sounds_cache
from companion.audio.cues import CUE_NAMES
from companion.audio.engine import cue_name_for_event
from companion.audio.service import CueService
from companion.audio.settings import CueSettings
from companion.clock import Clock
from companion.errors import CompanionError
from companion.games import find_game
from companion.hub.auth import host_only
from companion.hub.bodies import read_json
from companion.hub.ticker import MAX_WAIT_S, ROUNDS_WAIT_S
from companion.table.model import ActionRefused, TableReset, is_logged
from companion.table.session import Changed, CuePlayed, News, TableSession

if TYPE_CHECKING:
    from companion.hub.rounds import Rounds

log = logging.getLogger(__name__)

bp = Blueprint("cues", __name__)


def init_cues(
    app: Flask,
    session: TableSession,
    clock: Clock,
    *,
    audio: dict[str, Any] | None,
    sounds_dir: Path | None,
    rounds: Rounds | None = None,
) -> CueService:
    """Attach a cue service to the app; cues reach pages as ``event: cue`` on the live stream.

    ``sounds_dir`` None builds the sounds in the cache folder (:mod:`companion.audio.cache`, bounded),
    never beside the game logs."""
    settings = CueSettings.from_mapping(audio)
    limit: int | None = None
    if sounds_dir is None:
        sounds_dir, limit = sounds_cache(), LIMIT_BYTES
    service = CueService(
        settings,
        clock=clock,
        sounds_dir=sounds_dir,
        emit=lambda payload: session.tell(CuePlayed(payload)),
        cache_limit_bytes=limit,
    )
    app.extensions["companion.cues"] = service
    app.extensions["companion.cue_worker"] = CueWorker(
        service, session, TurnWarnings(service, session), rounds=rounds
    )
    app.register_blueprint(bp)
    return service


_STOP = object()
_WAKE = object()


class CueWorker:
    """The cue thread: table events come through a queue, cues go out from here and nowhere else.

    :meth:`on_change` is the session's listener: inside the session lock it only notes what
    sounds (a timer that ran out chimes, a refused flip or tap buzzes, a new game builds its
    sounds) with the clock at that moment, and wakes the thread. The thread fires those
    cues in order, then the master clock's cues and the turn warnings that are due
    (:func:`cue_step`), and sleeps until the next deadline (at most ``MAX_WAIT_S``).
    """

    def __init__(
        self,
        service: CueService,
        session: TableSession,
        turns: TurnWarnings | None = None,
        *,
        rounds: Rounds | None = None,
    ) -> None:
        """``rounds``: run on a club's shared thread instead of one of its own."""
        self.service = service
        self.session = session
        self.turns = turns
        self.rounds = rounds
        if rounds is not None:
            service.build_in_background = True
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._running = False
        self._clock_seen: object = None
        """The master clock the thread last looked at (a frozen value: a new one is a change)."""
        session.add_listener(self.on_change)

    # --- the session's side: inside the session lock, so only note and wake -----------------
    def on_change(self, news: News) -> None:
        if not isinstance(news, Changed) or not self._running:
            return
        session = self.session
        master, now = session.state.clock, session.clock.now_s()
        queued = False
        for event in news.events:
            if isinstance(event, ActionRefused):
                self._queue.put(("buzz", master, now))
            elif isinstance(event, TableReset):
                self._queue.put(("prepare", event.setup.clock_length_s))
            elif is_logged(event) and cue_name_for_event(event) is not None:
                self._queue.put(("event", event, master, now))
            else:
                continue
            queued = True
        # The deadlines move only with the master clock or, in a turn-based game, a turn timer: a
        # change that touched neither (most node reports) leaves the thread asleep, so it never
        # competes with the next report for the interpreter.
        if queued or master is not self._clock_seen or (self.turns is not None and self.turns.watching()):
            self._clock_seen = master
            self._queue.put(_WAKE)
            if self.rounds is not None:
                self.rounds.wake(self)

    # --- the cue thread ---------------------------------------------------------------------
    def start(self) -> CueWorker:
        if self._running:
            return self
        # The clock as it is now, before the thread's first look: a clock started before that look
        # would otherwise be taken for a resumed game and lose its start cue. (Only the phase: the
        # first update may build sound files, which is the thread's work.)
        if self.session.state.clock.phase == "ready":
            self.service.engine.reset()
        self._running = True
        if self.rounds is not None:
            self.rounds.add(self)
        elif self._thread is None:
            self._thread = threading.Thread(target=self._run, name="cue-worker", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        self._running = False  # the listener stops queueing at once
        if self.rounds is not None:
            self.rounds.remove(self)
        thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(_STOP)
            thread.join(timeout_s)

    def run_once(self) -> float | None:
        """(On a club's shared thread) fire what was queued and what is due; real seconds to the next."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is _STOP:
                return None
            if item is not _WAKE:
                self._fire(item)
        try:
            due = cue_step(self.service, self.session, self.turns)
        except Exception:
            log.exception("the cues of the master clock failed")
            due = None
        scale = getattr(self.session.clock, "scale", 1.0) or 1.0
        return ROUNDS_WAIT_S if due is None else min(ROUNDS_WAIT_S, due / scale)

    def _run(self) -> None:
        scale = getattr(self.session.clock, "scale", 1.0) or 1.0
        wait_s = 0.0
        while True:
            items: list[object] = []
            try:
                items.append(self._queue.get(timeout=max(0.001, wait_s)))
            except queue.Empty:
                pass
            while True:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            for item in items:
                if item is _STOP:
                    return
                if item is not _WAKE:
                    self._fire(item)
            try:
                due = cue_step(self.service, self.session, self.turns)
            except Exception:
                log.exception("the cues of the master clock failed")
                due = None
            wait_s = MAX_WAIT_S if due is None else min(MAX_WAIT_S, due / scale)

    def _fire(self, item: Any) -> None:
        try:
            match item:
                case ("buzz", master, now):
                    self.service.rule_broken(master, now)
                case ("prepare", length_s):
                    prepare_in_background(self.service, length_s)
                case ("event", event, master, now):
                    self.service.on_table_event(event, master, now)
        except Exception:
            log.exception("a cue failed")


def prepare_in_background(service: CueService, length_s: float) -> threading.Thread:
    """Build the cue sounds for a clock of ``length_s`` without holding up the hub."""

    def build() -> None:
        try:
            service.prepare(length_s)
        except Exception:
            log.exception("the cue sounds could not be built")

    thread = threading.Thread(target=build, name="cue-sounds", daemon=True)
    thread.start()
    return thread


def cue_step(service: CueService, session: TableSession, turns: TurnWarnings | None = None) -> float | None:
    """Fire the cues that are due; game seconds until the next one (for the cue thread)."""
    clock = session.state.clock
    service.update(clock)
    deadlines = [service.next_deadline_s(clock)]
    if turns is not None:
        deadlines.append(turns.step())
    due = [d for d in deadlines if d is not None]
    return min(due) if due else None


class TurnWarnings:
    """The ``hurry`` cue of turn-based games: once per turn, when the turn timer's sand is nearly out."""

    def __init__(self, service: CueService, session: TableSession) -> None:
        self.service = service
        self.session = session
        self._fired: set[tuple[str, int]] = set()
        self._turn_based: tuple[object, bool] = (None, False)
        """(the setup it was read from, whether its game is turn-based): read once per game, not per change."""

    def watching(self) -> bool:
        """Whether this table's turn timers can warn at all (a turn-based game with a turn limit and
        a warning time)."""
        setup = self.session.setup
        if self._turn_based[0] is not setup:
            try:
                turn_based = not find_game(setup.game).uses_sandtimers
            except CompanionError:
                turn_based = False
            self._turn_based = (setup, turn_based)
        return self._turn_based[1] and setup.turn_limit and self.service.settings.turn_warning_s > 0

    def step(self) -> float | None:
        """Fire what is due; game seconds until the next warning could fall due."""
        if not self.watching():
            return None
        session = self.session
        warn_at = self.service.settings.turn_warning_s
        state = session.state
        if state.paused:
            return None
        now = session.clock.now_s()
        next_due: float | None = None
        for node, timer in state.timers.items():
            if timer.phase != "running":
                continue
            left = timer.upper_at(now, paused=False)
            key = (node, timer.flips)
            if 0 < left <= warn_at and key not in self._fired:
                self._fired.add(key)
                self.service.engine.fire_event("hurry", state.clock, now)
            elif left > warn_at:
                wait = left - warn_at
                next_due = wait if next_due is None else min(next_due, wait)
        return next_due


def _service() -> CueService:
    service = current_app.extensions.get("companion.cues")
    if service is None:
        abort(404)
    return service


@bp.get("/api/audio")
def audio_settings() -> Any:
    service = _service()
    library = service.library
    return jsonify(
        {
            "cues": list(CUE_NAMES),
            "disabled": sorted(service.engine.disabled),
            "language": service.settings.language,
            "local_playback": service.player is not None,
            "speech": bool(library and library.speech),
            "speech_note": library.speech_note if library else "",
            "sounds": sorted(library.paths) if library else [],
        }
    )


@bp.post("/api/audio")
@host_only
def set_audio() -> Any:
    """Turn cues off or on: ``{"disabled": ["remaining", "chime"]}``."""
    body = read_json('{"disabled": [cue names]}')
    names = body.get("disabled")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return jsonify({"ok": False, "error": 'send {"disabled": [cue names]}'}), 400
    unknown = sorted(set(names) - set(CUE_NAMES))
    if unknown:
        return jsonify(
            {"ok": False, "error": f"unknown cue {unknown[0]!r}; cues are {', '.join(CUE_NAMES)}"}
        ), 400
    _service().set_disabled(names)
    return jsonify({"ok": True, "disabled": sorted(names)})


@bp.get("/sounds/<key>.wav")
def sound(key: str) -> Any:
    library = _service().library
    path = library.paths.get(key) if library else None
    if path is None or not Path(path).exists():
        abort(404)
    return send_file(path, mimetype="audio/wav", max_age=3600)
