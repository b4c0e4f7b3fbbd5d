"""The rules every sandtimer table shares: what the master clock allows, as pure functions.

State and a command in, an event or a :class:`Rejected` out. Game referees add
their own checks on top (see ``companion.games``).
"""

from __future__ import annotations

from companion.rules.outcome import Rejected
from companion.table import events as ev
from companion.table.state import TableState

CLOCK_RULE = "Master clock"

REASON_CLOCK_OVER = "The master clock has run out: no sandtimer may be started any more"
REASON_CLOCK_ABORTED = "The game was ended early: no sandtimer may be started any more"
REASON_PAUSED = "The master clock is paused: wait until it is resumed"


def flip_refusal(state: TableState, *, at_s: float, rules_decide_end: bool = False) -> str:
    """Why a flip at ``at_s`` breaks the table's clock rules, or "" when it does not.

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
            return f"The game has ended ({clock.end_reason}): no sandtimer may be started any more"
        return REASON_CLOCK_OVER
    if clock.phase == "paused" and at_s >= since:
        return REASON_PAUSED
    return ""


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
    if reason:
        return ev.FlipRefused(node, at_s, upper_s, lower_s, reason)
    return ev.TimerFlipped(node, at_s, upper_s, lower_s)


def decide_start(state: TableState, *, at_s: float) -> ev.ClockStarted | Rejected:
    if state.clock.phase != "ready":
        return Rejected(f"The master clock cannot start: it is already {state.clock.phase}", CLOCK_RULE)
    return ev.ClockStarted(at_s, state.clock.length_s)


def decide_pause(state: TableState, *, at_s: float) -> ev.ClockPaused | Rejected:
    if state.clock.phase != "running":
        return Rejected(f"Only a running master clock can be paused; it is {state.clock.phase}", CLOCK_RULE)
    return ev.ClockPaused(at_s)


def decide_resume(state: TableState, *, at_s: float) -> ev.ClockResumed | Rejected:
    if state.clock.phase != "paused":
        return Rejected(f"Only a paused master clock can be resumed; it is {state.clock.phase}", CLOCK_RULE)
    return ev.ClockResumed(at_s)


def decide_abort(state: TableState, *, at_s: float) -> ev.ClockAborted | Rejected:
    if state.clock.is_over:
        return Rejected(f"The game is already over ({state.clock.phase})", CLOCK_RULE)
    return ev.ClockAborted(at_s)


def due_expiry(state: TableState, *, now_s: float) -> ev.ClockExpired | None:
    """The expiry event once a running master clock has run out, stamped at the exact moment."""
    expires = state.clock.expires_at_s
    if expires is not None and now_s >= expires:
        return ev.ClockExpired(expires)
    return None
