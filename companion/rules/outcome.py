"""What a rules engine or a referee answers: an accepted step, or a rejection with its reason.

Engines are pure: ``apply(state, action) -> Accepted | Rejected``. They never read a
clock, draw global randomness or do I/O; time facts (a sandtimer ran out, the master
clock expired) arrive as actions, and so does everything the table drew or revealed.

One way for a refusal to travel: anywhere inside an engine or a referee a broken rule
is raised with :func:`refuse` (an :class:`IllegalAction`), and the function the table
calls is wrapped in :func:`checked`, which answers the :class:`Rejected` it carries.
Nothing returns a refusal by hand through the layers in between.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import Any, Generic, NoReturn, ParamSpec, TypeVar

from companion.errors import CompanionError
from companion.rules.text import Text, as_text

S = TypeVar("S")
P = ParamSpec("P")
R = TypeVar("R")


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


class IllegalAction(CompanionError, ValueError):
    """A rule refused an action: raised anywhere inside the rules, answered as its :attr:`rejected`."""

    def __init__(self, rejected: Rejected) -> None:
        super().__init__(str(rejected))
        self.rejected = rejected


def refuse(reason: Text | str, rule: Text | str = "") -> NoReturn:
    """Stop the action: ``reason`` is what the player reads, ``rule`` the rulebook section it enforces."""
    raise IllegalAction(Rejected(as_text(reason), as_text(rule)))


def checked(fn: Callable[P, R]) -> Callable[P, R | Rejected]:
    """``fn`` with every :func:`refuse` inside it answered as the :class:`Rejected` it carries.

    The one boundary between raising a refusal and returning one: an engine's public ``apply``
    and a referee's answers to the table are ``checked``."""

    @functools.wraps(fn)
    def answer(*args: P.args, **kwargs: P.kwargs) -> R | Rejected:
        try:
            return fn(*args, **kwargs)
        except IllegalAction as exc:
            return exc.rejected

    return answer


@dataclass(frozen=True)
class Decision:
    """A step a referee accepted: the game state after it and what happened, computed once.

    The table logs ``facts`` (the engine's own events) with the change the step made to
    the state, and ``actions`` (what was asked of the engine, as the game's own typed
    values) so that an undo can decide the later steps again; it never runs the rules to
    read a log back.
    """

    state: Any
    """The game state after the step."""
    _: KW_ONLY
    actions: tuple[Any, ...] = ()
    """The actions the step applied, as the game's frozen dataclasses (encoded by the game's codec)."""
    facts: tuple[Any, ...] = ()
    """The engine's events, in order (frozen dataclasses of the game's own types)."""
    notes: tuple[Text, ...] = ()
    """What happened, for the dashboard (``text("{player} fulfilled ...", ...)``)."""
    show: tuple[tuple[str, str], ...] = ()
    """(node, pattern) to show on nodes now, e.g. ``("blue-1", "sabotaged")`` (protocol ``show`` patterns)."""
    add_seat: tuple[str, int] | None = None
    """(player, timer index) that gets a new sandtimer: the hub asks the table to flip the new node."""
    opens_turn: bool = False
    """The step started the turn of the player to move (turn-based games; the table counts turns)."""
    ends_turn: bool = False
    """The step ended the running turn (applied after :attr:`opens_turn` when a step does both)."""
    ends_game: Text | None = None
    """Why the rules ended the game with this step (e.g. "{player} placed their last victory-point
    marker"): the master clock stops and the table scores it; None to go on. The table never asks
    the scores to find out."""

    def __post_init__(self) -> None:
        # plain strings are kept verbatim (shown untranslated); tests/test_messages.py keeps them out of games
        if not all(isinstance(n, Text) for n in self.notes):
            object.__setattr__(self, "notes", tuple(as_text(n) for n in self.notes))
        if isinstance(self.ends_game, str):
            object.__setattr__(self, "ends_game", as_text(self.ends_game) if self.ends_game else None)

    @property
    def changed(self) -> bool:
        """True when the step did something to log (actions or facts)."""
        return bool(self.actions or self.facts)


Step = Decision | Rejected
"""What every referee call answers."""
