"""Local playback on the hub's own speaker (a Raspberry Pi with ``aplay``).

``play()`` only queues the file and returns at once; one worker thread plays
the queue in order through the command (``aplay -q FILE`` by default), so cues
never overlap on a sound card that cannot mix and the caller (the cue thread) is
never held up. A missing player program or audio device is logged, not raised:
the game goes on without sound.
"""

from __future__ import annotations

import logging
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from companion.audio.cues import Cue
from companion.audio.library import CueLibrary

log = logging.getLogger(__name__)

DEFAULT_COMMAND = ("aplay", "-q")
PLAY_TIMEOUT_S = 60.0
"""No cue is this long; a player that hangs is stopped after it."""

_STOP = object()


class LocalPlayer:
    """Plays WAV files with ``command + [file]`` in a subprocess, one after another.

    ``sounds`` maps sound keys to files (a :class:`CueLibrary` or a dict) for
    :meth:`play_cue`. A file that waited longer than ``max_delay_s`` real seconds
    in the queue is dropped, so a stalled device never plays stale cues late.
    """

    def __init__(
        self,
        command: Sequence[str] = DEFAULT_COMMAND,
        *,
        sounds: CueLibrary | Mapping[str, Path] | None = None,
        max_delay_s: float = 3.0,
        popen: Callable[..., subprocess.Popen] = subprocess.Popen,
    ) -> None:
        if not command:
            raise ValueError("the player command is empty")
        self.command = tuple(str(part) for part in command)
        self.sounds = sounds.paths if isinstance(sounds, CueLibrary) else (sounds or {})
        self.max_delay_s = max_delay_s
        self._popen = popen
        self._queue: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        self.failures = 0
        """Plays that failed (no program, no device, bad file)."""
        self._warned = False

    def play(self, path: str | os.PathLike[str]) -> None:
        """Queue ``path`` for playing and return immediately."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="cue-player", daemon=True)
                self._thread.start()
            self._pending += 1
            self._idle.clear()
            self._queue.put((Path(path), time.monotonic()))

    def play_cue(self, cue: Cue) -> bool:
        """Queue the sound of ``cue``; False (and a log line) if there is none."""
        path = self.sounds.get(cue.sound_key)
        if path is None:
            log.warning("no sound file for cue %r (sound %r)", cue.name, cue.sound_key)
            return False
        self.play(path)
        return True

    __call__ = play_cue
    """A player is itself an ``on_cue`` callback for :class:`companion.audio.engine.CueEngine`."""

    def wait_idle(self, timeout_s: float = 5.0) -> bool:
        """Block until the queue is played out (for tests and shutdown)."""
        return self._idle.wait(timeout_s)

    def close(self, timeout_s: float = 5.0) -> None:
        with self._lock:
            thread = self._thread
            self._thread = None
        if thread is not None and thread.is_alive():
            self._queue.put(_STOP)
            thread.join(timeout_s)

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            path, queued_at = item
            late = time.monotonic() - queued_at
            if late > self.max_delay_s:
                log.warning("dropped cue sound %s: it waited %.1f s for the player", path.name, late)
            else:
                self._play_now(path)
            with self._lock:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.set()

    def _play_now(self, path: Path) -> None:
        argv = [*self.command, str(path)]
        try:
            proc = self._popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
        except OSError as exc:
            self._fail(f"cannot run {self.command[0]!r} ({exc}); cues are silent on this hub")
            return
        try:
            _, err = proc.communicate(timeout=PLAY_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            self._fail(f"{self.command[0]} did not finish {path.name} within {PLAY_TIMEOUT_S:.0f} s")
            return
        if proc.returncode != 0:
            lines = (err or "").strip().splitlines()
            detail = lines[-1] if lines else f"exit status {proc.returncode}"
            self._fail(f"{self.command[0]} could not play {path.name} (no audio device?): {detail}")

    def _fail(self, message: str) -> None:
        if not self._warned:
            log.warning(message)
            self._warned = True
        else:
            log.debug(message)
        self.failures += 1  # counted after it is said: a reader that sees the count finds the words
