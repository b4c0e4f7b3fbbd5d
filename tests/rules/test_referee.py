"""The referee contract: a decision is built action by action, each applied once."""

from __future__ import annotations

import pytest

from companion.games.sandtimers import FreeTimers
from companion.rules import Decision, Rejected, Steps
from companion.rules.setup import Seat, default_setup


def test_steps_collect_each_action_once_into_one_decision():
    steps = Steps(state=0)
    steps.add(1, {"type": "a"}, ("A happened",), "a")
    steps.add(2, {"type": "b"}, (), "")
    decision = steps.decision(show=(("red-1", "sabotaged"),))
    assert decision == Decision(
        2,
        actions=({"type": "a"}, {"type": "b"}),
        facts=("A happened",),
        notes=("a",),
        show=(("red-1", "sabotaged"),),
    )
    assert decision.changed and not Decision(5).changed


def test_a_decision_names_everything_after_the_state():
    with pytest.raises(TypeError):
        Decision(1, ({"type": "a"},), ("note",))  # type: ignore[misc]


def test_the_base_referee_answers_every_question_with_nothing_to_do():
    setup = default_setup("t", players=1, timers=1)
    referee = FreeTimers(setup)
    state = referee.start(setup)
    seat = Seat("red", 1, "red-1")
    assert referee.timer_flipped(state, seat, intent=None, ran_out=True) == Decision(state)
    assert referee.timer_emptied(state, seat) == Decision(state)
    assert referee.clock_started(state) == Decision(state) == referee.clock_expired(state)
    assert isinstance(referee.player_action(state, "red", {"type": "x"}), Rejected)
    assert referee.menu(state, "red", intents={}) == [] and referee.scores(state) is None
    assert referee.timer_label(state, seat) == "" and referee.view(state).summary == ""
