"""The cue schedule of a master clock: what the hub plays, and at which moment of game time.

Pure: no clock reads, no I/O. A cue's moment is *elapsed game time of the master
clock* (``at_elapsed_s``), so a pause simply stops the schedule and a time scale
stretches it with the clock.

Clock cues, for a master clock of any length ``L``:

- ``start`` at elapsed 0;
- ``remaining``: a regular announcement whenever the time left is a whole
  multiple of ``announce_every_s`` (for 30 minutes: 25, 20, 15, 10 and 5 left);
- ``warning``: an announcement at each time left in ``warn_at_s`` (1 minute by default);
- ``countdown``: a tick at each whole second of the last ``final_countdown_s`` seconds (10 … 1);
- ``end`` when the clock runs out.

Only one cue sounds at a moment. When two fall together the first in
:data:`CLOCK_PRIORITY` wins (a warning at 5 minutes replaces the regular
announcement, a countdown tick replaces a warning at 10 seconds).

Event cues are not scheduled; the hub fires them when a game event happens:
``chime`` when a sandtimer runs out, ``buzz`` when a rule is broken, ``hurry``
when a turn timer of a turn-based game is about to run out.

Any cue can be turned off by name.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.audio.phrases import text_key_for_remaining
from companion.errors import ConfigError

CLOCK_CUES = ("start", "remaining", "warning", "countdown", "end")
EVENT_CUES = ("chime", "buzz", "hurry")
CUE_NAMES = CLOCK_CUES + EVENT_CUES
"""Every cue name; these are the names used to turn cues off."""

CLOCK_PRIORITY = ("end", "start", "countdown", "warning", "remaining")
"""Which cue sounds when several fall on the same moment: the first in this order."""

EPSILON_S = 1e-6
"""Moments closer than this are the same moment (absorbs float rounding of clock arithmetic)."""


@dataclass(frozen=True)
class Cue:
    """One sound the hub plays."""

    at_elapsed_s: float
    """Elapsed master-clock game time at which the cue sounds."""
    name: str
    """One of :data:`CUE_NAMES`."""
    remaining_s: float
    """Master-clock time left at that moment."""
    text_key: str = ""
    """Key of the spoken phrase in :mod:`companion.audio.phrases`; empty for a pure tone."""

    @property
    def sound_key(self) -> str:
        """Name of the sound file that plays this cue (see :mod:`companion.audio.library`).

        Cues whose sound never changes are named after the cue; spoken
        announcements after their phrase (``minutes_left-5``).
        """
        if self.name in ("remaining", "warning"):
            return self.text_key.replace(":", "-")
        return self.name

    def to_dict(self, *, text: str | None = None) -> dict[str, Any]:
        """JSON form for the dashboard; ``text`` is the phrase in the table's language, if any."""
        data: dict[str, Any] = {
            "name": self.name,
            "at_elapsed_s": self.at_elapsed_s,
            "remaining_s": self.remaining_s,
            "text_key": self.text_key,
            "sound": self.sound_key,
        }
        if text is not None:
            data["text"] = text
        return data


def check_cue_names(names: Iterable[str], *, what: str = "cue") -> frozenset[str]:
    """The names as a frozenset; a :class:`ConfigError` names the first unknown one."""
    result = frozenset(names)
    for name in sorted(result):
        if name not in CUE_NAMES:
            raise ConfigError(f"unknown {what} {name!r}; cues are {', '.join(CUE_NAMES)}")
    return result


def active_cue_names(enabled: Iterable[str] | None = None, disabled: Iterable[str] = ()) -> frozenset[str]:
    """Cue names that may sound: ``enabled`` (all when None) minus ``disabled``."""
    on = frozenset(CUE_NAMES) if enabled is None else check_cue_names(enabled)
    return on - check_cue_names(disabled)


def _positive(value: float, what: str, *, allow_zero: bool = False) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{what} must be a number of seconds, not {value!r}") from None
    ok = number >= 0 if allow_zero else number > 0
    if not ok or not math.isfinite(number):
        raise ConfigError(
            f"{what} must be a {'non-negative' if allow_zero else 'positive'} number of seconds"
        )
    return number


def cue_schedule(
    length_s: float,
    *,
    announce_every_s: float | None = 300.0,
    final_countdown_s: int = 10,
    warn_at_s: Iterable[float] = (60.0,),
    enabled: Iterable[str] | None = None,
    disabled: Iterable[str] = (),
) -> list[Cue]:
    """The clock cues of a master clock of ``length_s`` seconds, ordered by moment.

    ``announce_every_s=None`` (or 0) turns the regular announcements off;
    ``final_countdown_s=0`` the countdown. Cues not in ``enabled`` (default: all)
    or in ``disabled`` are left out before same-moment cues are merged, so a
    disabled warning lets the regular announcement at that moment sound.
    """
    length = _positive(length_s, "the master clock length")
    every = _positive(announce_every_s or 0.0, "the announcement interval", allow_zero=True)
    countdown_n = int(_positive(final_countdown_s, "the final countdown", allow_zero=True))
    if countdown_n != final_countdown_s:
        raise ConfigError("the final countdown must be a whole number of seconds")
    warn = sorted({_positive(w, "a warning time") for w in warn_at_s})
    active = active_cue_names(enabled, disabled)

    candidates: list[tuple[str, float]] = [("start", length), ("end", 0.0)]
    if every > 0:
        k = 1
        while k * every < length - EPSILON_S:
            candidates.append(("remaining", k * every))
            k += 1
    candidates += [("warning", w) for w in warn if w < length - EPSILON_S]
    candidates += [("countdown", float(n)) for n in range(1, countdown_n + 1) if n < length + EPSILON_S]

    by_moment: dict[float, tuple[str, float]] = {}
    for name, remaining in candidates:
        if name not in active:
            continue
        key = round(length - remaining, 6)
        held = by_moment.get(key)
        if held is None or CLOCK_PRIORITY.index(name) < CLOCK_PRIORITY.index(held[0]):
            by_moment[key] = (name, remaining)

    schedule = []
    for _, (name, remaining) in sorted(by_moment.items()):
        schedule.append(
            Cue(
                at_elapsed_s=length - remaining,
                name=name,
                remaining_s=remaining,
                text_key=_text_key(name, remaining),
            )
        )
    return schedule


def _text_key(name: str, remaining_s: float) -> str:
    if name == "start":
        return "start"
    if name == "end":
        return "time_up"
    if name in ("remaining", "warning"):
        return text_key_for_remaining(remaining_s)
    return ""


def due_cues(schedule: Sequence[Cue], *, elapsed_before_s: float, elapsed_now_s: float) -> list[Cue]:
    """Cues whose moment falls in ``(elapsed_before_s, elapsed_now_s]``, in order.

    A caller that passes each ``elapsed_now_s`` as the next call's
    ``elapsed_before_s`` gets every cue exactly once, however irregular its
    ticks: the intervals never overlap and leave no gap. Both ends are shifted by
    :data:`EPSILON_S` so a tick that lands a rounding error short of a cue
    still plays it. Start from a negative ``elapsed_before_s`` to include the start cue.
    """
    low = elapsed_before_s + EPSILON_S
    high = elapsed_now_s + EPSILON_S
    return [cue for cue in schedule if low < cue.at_elapsed_s <= high]


def next_cue(schedule: Sequence[Cue], *, elapsed_s: float) -> Cue | None:
    """The first cue that :func:`due_cues` would give after ``elapsed_s``, or None."""
    for cue in schedule:
        if cue.at_elapsed_s > elapsed_s + EPSILON_S:
            return cue
    return None


def event_cue(name: str, *, elapsed_s: float, remaining_s: float) -> Cue:
    """An event cue (``chime``, ``buzz`` or ``hurry``) at the current master-clock moment."""
    if name not in EVENT_CUES:
        raise ConfigError(f"{name!r} is not an event cue; event cues are {', '.join(EVENT_CUES)}")
    return Cue(
        at_elapsed_s=elapsed_s,
        name=name,
        remaining_s=remaining_s,
        text_key="hurry" if name == "hurry" else "",
    )
