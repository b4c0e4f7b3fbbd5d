"""The contract between a game's rules and the table: what a *referee* answers.

The table owns time (sand, master clock), nodes, the log and the game's course (the
:class:`~companion.rules.context.Context`: started, turns, how it ended, the latest
notes); a referee translates what happens at the table into the game engine's actions
and answers with a :class:`~companion.rules.outcome.Decision` (the state after the step
and the facts that came out, computed once) or a :class:`~companion.rules.outcome.Rejected`:

* a node flipped -> the engine actions that flip means (for Time 'n' Space: lift the
  finished timer with the player's choices, then place it on the chosen symbol), or
  a rejection that turns the node red;
* a node ran out, the master clock started or expired -> time facts for the engine;
* a tap on a phone page -> a free action, a choice, or what the table drew or revealed.

Every call gets the game's state and the table's context. Referees are pure: no clock,
no I/O, no global randomness. The pages ask them for ``view``, ``player_view``,
``menu``, ``scores`` and ``timer_label``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from companion.rules.context import Context
from companion.rules.outcome import Decision, Rejected, Step
from companion.rules.pages import MenuItem, View
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, text

S = TypeVar("S")


class Referee(Generic[S]):
    """A game's rules as the table consults them; every method has a do-nothing default.

    ``S`` is the game's own state (the engine's state: the table keeps its bookkeeping in
    the :class:`Context`).
    """

    game: ClassVar[str] = ""
    rules_decide_end: ClassVar[bool] = False
    """True when the rules judge flips made after the master clock ran out (else the table refuses them)."""

    def __init__(self, setup: TableSetup) -> None:
        self.setup = setup

    def start(self, setup: TableSetup) -> S:
        """The game state at the start (seeded from the setup)."""
        raise NotImplementedError

    def replay(self, state: S, ctx: Context, action: Any) -> Decision:
        """Apply a logged action again, as the step that logged it did. Only an undo does this (and the
        reading of an old log), to decide again the steps after the one it takes back;
        :class:`~companion.errors.InvalidRecordError` when it no longer applies."""
        raise NotImplementedError

    # --- what happens at the table --------------------------------------------------------------
    def clock_started(self, state: S, ctx: Context) -> Step:
        return Decision(state)

    def clock_expired(self, state: S, ctx: Context) -> Step:
        return Decision(state)

    def game_ended_early(self, state: S, ctx: Context) -> Step:
        """The host ended the game before its time ("End game", confirmed): the game is scored as it
        stands, like when the master clock runs out; a :class:`Rejected` says plainly why it cannot be."""
        return self.clock_expired(state, ctx)

    def check_intent(self, state: S, ctx: Context, seat: Seat, intent: Any) -> Rejected | None:
        """Why a phone's choice for a timer's next flip (``intent``) is not one the rules offer, or None."""
        return None

    def timer_flipped(self, state: S, ctx: Context, seat: Seat, *, intent: Any, ran_out: bool) -> Step:
        """A node was turned over. ``ran_out``: its upper bulb was empty before the flip."""
        return Decision(state)

    def timer_emptied(self, state: S, ctx: Context, seat: Seat) -> Step:
        return Decision(state)

    def player_action(self, state: S, ctx: Context, player: str, action: Any) -> Step:
        return Rejected(text("This table plays with timers only: there are no game actions"), text("Table"))

    # --- what the pages show -------------------------------------------------------------------
    def menu(self, state: S, ctx: Context, player: str, *, intents: dict[str, Any]) -> list[MenuItem]:
        return []

    def view(self, state: S, ctx: Context) -> View:
        return View()

    def player_view(self, state: S, ctx: Context, player: str) -> View:
        return View()

    def scores(self, state: S, ctx: Context) -> dict[str, Any] | None:
        """Final scoring once the game is over, else None."""
        return None

    def timer_label(self, state: S, ctx: Context, seat: Seat) -> Text | str:
        """What a sandtimer sits on, shown under it on the dashboard and the phone
        (``text("production plant {plant}", plant="b2")``); "" for nothing."""
        return ""


@dataclass
class Steps:
    """One decision built action by action: each engine action is applied exactly once.

    ``add`` records an accepted action with the state after it; ``decision`` returns
    everything recorded as one :class:`Decision`.
    """

    state: Any
    actions: list[Any] = field(default_factory=list)
    facts: list[Any] = field(default_factory=list)
    notes: list[Text] = field(default_factory=list)

    def add(self, state: Any, action: Any, facts: tuple[Any, ...] = (), note: Text | None = None) -> None:
        self.state = state
        self.actions.append(action)
        self.facts.extend(facts)
        if note:
            self.notes.append(note)

    def decision(self, **extra: Any) -> Decision:
        return Decision(
            self.state, actions=tuple(self.actions), facts=tuple(self.facts), notes=tuple(self.notes), **extra
        )
