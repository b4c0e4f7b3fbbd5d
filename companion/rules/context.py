"""What the table keeps of a game's course beside the game's own state, handed to every referee call.

The table owns this bookkeeping and folds it from its log (whether the master clock has
started, which turn runs, how the game ended, the latest notes), so a referee's state is
the engine's own state and no game declares these fields again. A referee reads the
context; it changes it only through what its :class:`~companion.rules.outcome.Decision`
says (``opens_turn``, ``ends_turn``, ``ends_game``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from companion.rules.text import Text

EndedBy = Literal["", "rules", "clock", "host"]
"""How a game ended: not yet (""), by its rules (a winner is known), by the master clock running
out, or by the host ("End game")."""

RECENT_NOTES = 8
"""How many of the latest step notes the context keeps for the pages."""


@dataclass(frozen=True)
class Context:
    """The table's bookkeeping of one game, as of the step being decided."""

    started: bool = False
    """The master clock has been started."""
    turn_open: bool = False
    """Turn-based games: the player to move started their turn and has not ended it."""
    turns: int = 0
    """Turns started so far."""
    ended_by: EndedBy = ""
    """How the game ended ("" while it goes on): by a step of play ("rules"), by the rules' answer to the
    master clock running out ("clock": a game whose rules end it there says so with ``ends_game``), or by
    the host. A master clock that ran out while the rules still finish the game (the last lifts of Time
    'n' Space) ends nothing yet: see :attr:`clock_over`."""
    clock_over: bool = False
    """The master clock has run out or the host ended the game: no new sandtimer may start (unless the
    rules judge those flips, ``Referee.rules_decide_end``)."""
    recent: tuple[Text, ...] = ()
    """The notes of the latest game steps, oldest first (at most :data:`RECENT_NOTES`)."""

    @property
    def is_over(self) -> bool:
        return self.ended_by != ""

    @property
    def ended_early(self) -> bool:
        """The host ended the game before its rules or its clock did."""
        return self.ended_by == "host"

    def noted(self, note: Text) -> Context:
        """The context with ``note`` the newest of the recent notes."""
        if not note:
            return self
        return replace(self, recent=(*self.recent, note)[-RECENT_NOTES:])

    def with_turn(self, *, opens: bool, ends: bool) -> Context:
        """The context after a step that opened and/or ended a turn (opened first)."""
        ctx = self
        if opens:
            ctx = replace(ctx, turn_open=True, turns=ctx.turns + 1)
        if ends:
            ctx = replace(ctx, turn_open=False)
        return ctx


START = Context()
"""The context of a game before its first event."""
