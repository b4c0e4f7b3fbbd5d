"""The rules of Race to 21, pure: ``apply(state, action) -> Accepted | Rejected``.

Each refusal is raised with :func:`~companion.rules.outcome.refuse` wherever the rule is checked;
``apply`` is ``@checked``, the one place a refusal becomes the answer.
"""

from __future__ import annotations

from dataclasses import replace

from companion.rules.outcome import Accepted, checked, refuse
from companion.rules.text import text

from .model import MOST, TARGET, Count, Counted, RaceState, Won

RULE = text("Race to 21: taking turns")


def start(players: tuple[str, ...]) -> RaceState:
    return RaceState(players)


@checked
def apply(state: RaceState, action: Count) -> Accepted[RaceState]:
    """Add 1 to 3 to the count on your turn, never past 21; whoever reaches 21 wins."""
    if state.winner:
        refuse(text("The game is over: {player} reached 21", player=state.winner), RULE)
    if action.player != state.players[state.to_move]:
        refuse(text("It is {player}'s turn", player=state.players[state.to_move]), RULE)
    if not 1 <= action.amount <= MOST:
        refuse(text("Add 1, 2 or 3"), RULE)
    if state.count + action.amount > TARGET:
        refuse(text("The count may not go past 21: add at most {most}", most=TARGET - state.count), RULE)
    count = state.count + action.amount
    events: list[object] = [Counted(action.player, action.amount, count)]
    if count == TARGET:
        events.append(Won(action.player))
        return Accepted(replace(state, count=count, winner=action.player), tuple(events))
    return Accepted(
        replace(state, count=count, to_move=(state.to_move + 1) % len(state.players)), tuple(events)
    )


def pass_turn(state: RaceState) -> RaceState:
    """The turn passes without a move (the turn timer ran out)."""
    return replace(state, to_move=(state.to_move + 1) % len(state.players))
