"""The rules every sandtimer table shares: what the master clock allows, as pure functions.

State and a command in, an event or a :class:`Rejected` out. Game referees add
their own checks on top (see ``companion.games``).
"""

from __future__ import annotations

from companion.rules.outcome import Rejected
from companion.rules.text import Text, text
from companion.table import events as ev
from companion.table.state import TableState

CLOCK_RULE = text("Master clock")

REASON_CLOCK_OVER = text("The master clock has run out: no sandtimer may be started any more")
REASON_CLOCK_ABORTED = text("The game was ended early: no sandtimer may be started any more")
REASON_PAUSED = text("The master clock is paused: wait until it is resumed")

PHASES = {
    "ready": text("ready"),
    "running": text("running"),
    "paused": text("paused"),
    "expired": text("expired"),
    "aborted": text("ended early"),
}
"""The master clock's phases in words."""


def phase_text(phase: str) -> Text:
    return PHASES.get(phase, Text(phase, verbatim=True))


def flip_refusal(state: TableState, *, at_s: float, rules_decide_end: bool = False) -> Text | None:
    """Why a flip at ``at_s`` breaks the table's clock rules, or None when it does not.

    ``at_s`` is when the node was flipped, which may be before the report arrived
    (a node buffers events while offline): a flip made before the clock ran out counts.
    """
    clock = state.clock
    since = clock.changed_at_s if clock.changed_at_s is not None else float("-inf")
    if clock.phase == "aborted" and at_s >= since:
        return REASON_CLOCK_ABORTED
    expires = clock.expires_at_s
    if (
        (clock.phase == "expired" and at_s >= since) or (expires is not None and at_s >= expires)
    ) and not rules_decide_end:
        if clock.phase == "expired" and clock.end_reason:
            return text(
                "The game has ended ({reason}): no sandtimer may be started any more", reason=clock.end_reason
            )
        return REASON_CLOCK_OVER
    if clock.phase == "paused" and at_s >= since:
        return REASON_PAUSED
    return None


def decide_flip(
    state: TableState,
    *,
    node: str,
    at_s: float,
    upper_s: float,
    lower_s: float,
    rules_decide_end: bool = False,
) -> ev.TimerFlipped | ev.FlipRefused:
    """A node reports a flip: accept it, or record it as refused with the reason."""
    reason = flip_refusal(state, at_s=at_s, rules_decide_end=rules_decide_end)
    if reason is not None:
        return ev.FlipRefused(node, at_s, upper_s, lower_s, reason)
    return ev.TimerFlipped(node, at_s, upper_s, lower_s)


def decide_start(state: TableState, *, at_s: float) -> ev.ClockStarted | Rejected:
    if state.clock.phase != "ready":
        return Rejected(
            text("The master clock cannot start: it is already {phase}", phase=phase_text(state.clock.phase)),
            CLOCK_RULE,
        )
    return ev.ClockStarted(at_s, state.clock.length_s)


def decide_pause(state: TableState, *, at_s: float) -> ev.ClockPaused | Rejected:
    if state.clock.phase != "running":
        return Rejected(
            text(
                "Only a running master clock can be paused; it is {phase}",
                phase=phase_text(state.clock.phase),
            ),
            CLOCK_RULE,
        )
    return ev.ClockPaused(at_s)


def decide_resume(state: TableState, *, at_s: float) -> ev.ClockResumed | Rejected:
    if state.clock.phase != "paused":
        return Rejected(
            text(
                "Only a paused master clock can be resumed; it is {phase}",
                phase=phase_text(state.clock.phase),
            ),
            CLOCK_RULE,
        )
    return ev.ClockResumed(at_s)


def decide_abort(state: TableState, *, at_s: float, finished: bool = True) -> ev.ClockAborted | Rejected:
    """End the game now. After the master clock ran out a game may still be finishing (Time 'n' Space:
    the sandtimers still standing are lifted); ``finished`` False lets the host end that too."""
    if state.clock.phase == "aborted" or (state.clock.phase == "expired" and finished):
        return Rejected(
            text("The game is already over ({phase})", phase=phase_text(state.clock.phase)), CLOCK_RULE
        )
    return ev.ClockAborted(at_s)


def due_expiry(state: TableState, *, now_s: float) -> ev.ClockExpired | None:
    """The expiry event once a running master clock has run out, stamped at the exact moment."""
    expires = state.clock.expires_at_s
    if expires is not None and now_s >= expires:
        return ev.ClockExpired(expires)
    return None
