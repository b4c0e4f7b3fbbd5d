"""The referee contract: a decision is built action by action, each applied once."""

from __future__ import annotations

import pytest

from companion.games.sandtimers import FreeTimers
from companion.rules import Decision, Rejected, Steps
from companion.rules.context import Context
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
    ctx = Context()
    assert referee.timer_flipped(state, ctx, seat, intent=None, ran_out=True) == Decision(state)
    assert referee.timer_emptied(state, ctx, seat) == Decision(state)
    assert referee.clock_started(state, ctx) == Decision(state) == referee.clock_expired(state, ctx)
    assert referee.game_ended_early(state, ctx) == Decision(state)
    assert isinstance(referee.player_action(state, ctx, "red", object()), Rejected)
    assert referee.menu(state, ctx, "red", intents={}) == [] and referee.scores(state, ctx) is None
    assert referee.timer_label(state, ctx, seat) == "" and referee.view(state, ctx).summary == ""
    assert referee.replay(state, ctx, object()) == Decision(state)


def test_a_refusal_raised_anywhere_inside_the_rules_is_answered_at_the_checked_boundary():
    from companion.rules.outcome import IllegalAction, checked, refuse
    from companion.rules.text import text

    def deep(n: int) -> int:
        if n > 2:
            refuse(text("Too many"), text("Rule 3"))
        return n

    @checked
    def apply(n: int) -> int:
        return deep(n) + 1

    assert apply(1) == 2
    assert apply(5) == Rejected(text("Too many"), text("Rule 3"))
    with pytest.raises(IllegalAction) as raised:
        deep(5)
    assert raised.value.rejected.reason == text("Too many") and str(raised.value) == "Too many (Rule 3)"
