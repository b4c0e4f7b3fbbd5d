"""Audio cues on the hub: the cue service fed by the master clock and table events,
the sound files served to the dashboard, and the switches that turn cues off."""

from __future__ import annotations

import logging
import tempfile
import threading
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, abort, current_app, jsonify, request, send_file

from companion.audio.cues import CUE_NAMES
from companion.audio.service import CueService
from companion.audio.settings import CueSettings
from companion.clock import Clock
from companion.errors import CompanionError
from companion.games import find_game
from companion.table.model import ActionRefused, TableReset, is_logged
from companion.table.session import TableSession

log = logging.getLogger(__name__)

bp = Blueprint("cues", __name__)


def init_cues(
    app: Flask, session: TableSession, clock: Clock, *, audio: dict[str, Any] | None, sounds_dir: Path | None
) -> CueService:
    """Attach a cue service to the app; cues reach pages as ``event: cue`` on the live stream."""
    settings = CueSettings.from_mapping(audio)
    if sounds_dir is None:
        sounds_dir = Path(tempfile.mkdtemp(prefix="companion-sounds-"))
    service = CueService(
        settings, clock=clock, sounds_dir=sounds_dir, emit=lambda payload: session.broadcast("cue", payload)
    )

    def on_change(kind: str, data: dict[str, Any]) -> None:
        if kind != "change":
            return
        for event in data["events"]:
            if isinstance(event, ActionRefused):
                service.rule_broken(session.state.clock)
            elif isinstance(event, TableReset):
                prepare_in_background(service, event.setup.clock_length_s)
            elif is_logged(event):
                service.on_table_event(event, session.state.clock)

    session.add_listener(on_change)
    app.extensions["companion.cues"] = service
    app.register_blueprint(bp)
    return service


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
    """Fire the cues that are due; game seconds until the next one (for the ticker)."""
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

    def step(self) -> float | None:
        """Fire what is due; game seconds until the next warning could fall due."""
        session = self.session
        setup = session.setup
        try:
            turn_based = not find_game(setup.game).uses_sandtimers
        except CompanionError:
            return None
        warn_at = self.service.settings.turn_warning_s
        if not turn_based or not setup.turn_limit or warn_at <= 0:
            return None
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
def set_audio() -> Any:
    """Turn cues off or on: ``{"disabled": ["remaining", "chime"]}``."""
    body = request.get_json(silent=True)
    names = body.get("disabled") if isinstance(body, dict) else None
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
