"""Shapes shared by every rules engine: an action is either accepted or rejected.

Engines are pure: ``apply(state, action) -> Accepted | Rejected``. They never read a
clock, draw global randomness or do I/O; time facts (a sandtimer ran out, the master
clock expired) arrive as actions, and randomness is a seed carried in the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

S = TypeVar("S")


@dataclass(frozen=True)
class Accepted(Generic[S]):
    """The action was legal: the new state and what happened, as past-tense events."""

    state: S
    """State after the action."""
    events: tuple[Any, ...] = ()
    """Events the action produced, in order (e.g. ``OrderFulfilled``)."""

    ok = True


@dataclass(frozen=True)
class Rejected:
    """The action broke a rule; the state is unchanged."""

    reason: str
    """A sentence a player understands, e.g. "The sand has not run through yet"."""
    rule: str = ""
    """The rulebook section the reason comes from, e.g. "General rules for placing and using the sandtimers"."""

    ok = False

    def __str__(self) -> str:
        return f"{self.reason} ({self.rule})" if self.rule else self.reason


Result = Accepted[Any] | Rejected
