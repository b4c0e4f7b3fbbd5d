"""What a rules engine or a referee answers: an accepted step, or a rejection with its reason.

Engines are pure: ``apply(state, action) -> Accepted | Rejected``. They never read a
clock, draw global randomness or do I/O; time facts (a sandtimer ran out, the master
clock expired) arrive as actions, and randomness is a seed carried in the state.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any, Generic, TypeVar

from companion.rules.text import Text, as_text

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

    reason: Text
    """What a player reads, as a message id with arguments, e.g. ``text("The sand has not run through yet")``."""
    rule: Text = Text("")
    """The rulebook section the reason comes from, e.g. ``text("General rules for placing and using the
    sandtimers")``."""

    ok = False

    def __post_init__(self) -> None:
        # a plain string is kept verbatim (shown untranslated); tests/test_messages.py keeps them out of games
        if not isinstance(self.reason, Text):
            object.__setattr__(self, "reason", as_text(self.reason))
        if not isinstance(self.rule, Text):
            object.__setattr__(self, "rule", as_text(self.rule))

    def __str__(self) -> str:
        return f"{self.reason} ({self.rule})" if self.rule else str(self.reason)


Result = Accepted[Any] | Rejected


@dataclass(frozen=True)
class Decision:
    """A step a referee accepted: the game state after it and what happened, computed once.

    The table logs ``facts`` (the engine's own events) with the change the step made to
    the state, and ``actions`` (what was asked of the engine, as JSON) so that an undo can
    decide the later steps again; it never runs the rules to read a log back.
    """

    state: Any
    """The game state after the step."""
    _: KW_ONLY
    actions: tuple[dict[str, Any], ...] = ()
    """The engine actions the step applied, in the game's JSON form."""
    facts: tuple[Any, ...] = ()
    """The engine's events, in order (frozen dataclasses of the game's own types)."""
    notes: tuple[Text, ...] = ()
    """What happened, for the dashboard (``text("{player} fulfilled ...", ...)``)."""
    show: tuple[tuple[str, str], ...] = ()
    """(node, pattern) to show on nodes now, e.g. ``("blue-1", "sabotaged")`` (protocol ``show`` patterns)."""
    add_seat: tuple[str, int] | None = None
    """(player, timer index) that gets a new sandtimer: the hub asks the table to flip the new node."""
    end_clock: Text | None = None
    """Why the rules ended the game now (e.g. "{player} placed their last victory-point marker"): the
    master clock stops; None to go on."""

    def __post_init__(self) -> None:
        # plain strings are kept verbatim (shown untranslated); tests/test_messages.py keeps them out of games
        if not all(isinstance(n, Text) for n in self.notes):
            object.__setattr__(self, "notes", tuple(as_text(n) for n in self.notes))
        if isinstance(self.end_clock, str):
            object.__setattr__(self, "end_clock", as_text(self.end_clock) if self.end_clock else None)

    @property
    def changed(self) -> bool:
        """True when the step did something to log (actions or facts)."""
        return bool(self.actions or self.facts)


Step = Decision | Rejected
"""What every referee call answers."""
