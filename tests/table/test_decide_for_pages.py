"""What the table decides so that no control on a page misleads: ending early scores the game, an
intent the rules do not offer is refused, only a real undo is offered, and no label goes stale."""

from __future__ import annotations

import logging

from companion.games.sandtimers import FreeTimers
from companion.rules import Decision, Rejected
from companion.rules.setup import default_setup
from companion.rules.text import text
from companion.table import events as ev
from companion.table import messages as m
from companion.table.decide import decide, undo_plan
from companion.table.model import Table, new_table
from companion.table.session import RepeatedWarnings, make_referee
from companion.table.views import TableViews
from tests.table.test_decide import BOOT, flip

SETUP = default_setup("t1", players=2, timers=1)


class Counting(FreeTimers):
    """A game of points: a tap 'score' adds one; 'double' doubles, and needs a point to double."""

    scorable = True

    def start(self, setup):
        return {"points": 0, "over": False}

    def replay(self, state, ctx, action):
        return Decision(self.applied(state, action))

    def applied(self, state, action):
        if action["type"] == "double" and state["points"] == 0:
            raise ValueError("nothing to double")
        points = state["points"] * 2 if action["type"] == "double" else state["points"] + 1
        return dict(state, points=points)

    def player_action(self, state, ctx, player, action):
        if state["over"]:
            return Rejected(text("The game is over"), text("End"))
        if action.get("type") not in ("score", "double"):
            return Rejected(text("Only scoring is allowed here"), text("House rule"))
        return Decision(
            self.applied(state, action),
            actions=(dict(action),),
            notes=(text("{player} scored", player=player),),
        )

    def game_ended_early(self, state, ctx):
        if not self.scorable:
            return Rejected(text("nobody has scored yet"), text("End"))
        return Decision(dict(state, over=True), actions=({"type": "end"},))

    def scores(self, state, ctx):
        if not state["over"]:
            return None
        return {"players": {"red": {"total": state["points"]}}, "ranking": ["red"], "winners": ["red"]}

    def clock_expired(self, state, ctx):
        return Decision(self.applied(state, {"type": "double"}), actions=({"type": "double"},))

    def check_intent(self, state, ctx, seat, intent):
        if intent.get("symbol") not in ("a", "b"):
            return Rejected(text("There is no such symbol"), text("Placing"))
        return None


def table(referee=None) -> Table:
    referee = referee or Counting(SETUP)
    return new_table(SETUP, referee, game=referee.start(SETUP))


def run(t: Table, *messages: m.Message, now_s: float = 0.0):
    outcomes = []
    for message in messages:
        outcome = decide(t, message, now_s=now_s, make_referee=make_referee)
        outcomes.append(outcome)
        t = outcome.table
    return t, outcomes


def test_ending_early_asks_the_rules_to_score_the_game_as_it_stands():
    t, _ = run(table(), m.ClockCommand("start"), m.PlayerAction("red", {"type": "score"}))
    t, [ended] = run(t, m.ClockCommand("abort"), now_s=5.0)
    assert [type(e).__name__ for e in ended.logged] == ["ClockAborted", "GameStepped"]
    assert (
        t.state.clock.phase == "aborted"
        and t.referee.scores(t.state.game, t.state.context)["players"]["red"]["total"] == 1
    )
    snapshot = TableViews().snapshot(t, now_s=5.0, extra={})
    assert snapshot["over"] is True and snapshot["scores"]["winners"] == ["red"]
    _, [late] = run(t, m.PlayerAction("red", {"type": "score"}), now_s=6.0)
    assert late.refusal is not None and str(late.refusal.reason) == "The game is over"


def test_a_game_that_cannot_be_scored_says_why_when_ended_early():
    referee = Counting(SETUP)
    referee.scorable = False
    t, _ = run(table(referee), m.ClockCommand("start"))
    t, [ended] = run(t, m.ClockCommand("abort"), now_s=5.0)
    [aborted] = ended.logged
    assert isinstance(aborted, ev.ClockAborted) and str(aborted.unscored) == "nobody has scored yet"
    snapshot = TableViews().snapshot(t, now_s=5.0, extra={})
    assert snapshot["over"] is True and snapshot["scores"] is None
    assert snapshot["end_reason"] == {"msg": "nobody has scored yet"}
    assert snapshot["events"] == 2
    assert ev.event_from_dict(ev.event_to_dict(aborted)) == aborted


def test_an_intent_the_rules_do_not_offer_is_refused_and_not_kept():
    t, [refused] = run(table(), m.ChooseIntent("red", "red-1", {"symbol": "nowhere"}))
    assert str(refused.refusal.reason) == "There is no such symbol" and t.intents == {}
    t, [kept] = run(t, m.ChooseIntent("red", "red-1", {"symbol": "a"}))
    assert kept.refusal is None and t.intents["red-1"]["symbol"] == "a"


def test_only_an_undo_that_would_work_is_offered():
    views = TableViews()
    t, _ = run(table(), m.ClockCommand("start"), m.PlayerAction("red", {"type": "score"}))
    assert [u["note"] for u in views.snapshot(t, now_s=0, extra={})["undo"]] == [
        {"msg": "{player} scored", "args": {"player": "red"}}
    ]
    plan = undo_plan(t)
    assert not isinstance(plan, Rejected) and plan[1]["points"] == 0
    # the rules double the points when the clock runs out: that step needs red's point
    t, _ = run(t, m.Tick(), now_s=t.state.clock.length_s + 1)
    assert t.state.game["points"] == 2
    assert isinstance(undo_plan(t), Rejected)
    assert views.snapshot(t, now_s=0, extra={})["undo"] == []
    t2, [refused] = run(t, m.Undo())
    assert "later moves depend on it" in str(refused.refusal.reason) and t2.state.game["points"] == 2


def test_a_refusal_from_before_the_game_is_gone_when_the_clock_starts():
    t, _ = run(table(), m.PlayerAction("red", {"type": "cheat"}))
    assert "red" in t.refusals
    t, _ = run(t, m.ClockCommand("start"))
    assert t.refusals == {}


def test_a_timer_lifted_after_the_end_does_not_count_sand():
    t, _ = run(table(FreeTimers(SETUP)), m.ClockCommand("start"), flip("red-1", 1))
    t, _ = run(t, m.ClockCommand("abort"), now_s=10.0)
    t, _ = run(t, flip("yellow-1", 1, t_ms=0), now_s=12.0)
    views = TableViews().snapshot(t, now_s=12.0, extra={})
    timers = {timer["node"]: timer for p in views["players"] for timer in p["timers"]}
    assert timers["red-1"]["counting"] is True  # flipped during the game: its sand runs out as usual
    assert timers["yellow-1"]["counting"] is False and timers["yellow-1"]["refused_at_s"] is not None


def test_a_repeated_warning_is_said_once_then_counted(caplog):
    now = [0.0]
    warnings = RepeatedWarnings(every_s=60.0, monotonic=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="companion.table.session"):
        for second in range(0, 12 * 60, 5):  # a node not paired, heard every 5 s for 12 minutes
            now[0] = float(second)
            warnings.warn("unknown_node", "status of node 'blue-9', which is not paired")
        warnings.warn("unknown_node", "status of node 'blue-8', which is not paired")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 13, lines  # said once, a count each minute after, and once for the other node
    assert lines[0].endswith("which is not paired") and "more times" in lines[1]
    assert BOOT  # the shared report helpers come from test_decide


def test_a_game_still_finishing_after_the_clock_ran_out_can_be_ended():
    t, _ = run(table(), m.ClockCommand("start"), m.PlayerAction("red", {"type": "score"}))
    t, _ = run(t, m.Tick(), now_s=t.state.clock.length_s + 1)
    assert t.state.clock.phase == "expired" and t.referee.scores(t.state.game, t.state.context) is None
    t, [ended] = run(t, m.ClockCommand("abort"), now_s=t.state.clock.length_s + 2)
    assert ended.refusal is None and t.referee.scores(t.state.game, t.state.context) is not None
    _, [again] = run(t, m.ClockCommand("abort"), now_s=t.state.clock.length_s + 3)
    assert again.refusal is not None and "already over" in str(again.refusal.reason)


def test_an_undo_confirmed_for_one_step_does_not_take_back_another():
    t, _ = run(table(), m.PlayerAction("red", {"type": "score"}))
    [offered] = TableViews().snapshot(t, now_s=0, extra={})["undo"]
    t, _ = run(t, m.PlayerAction("yellow", {"type": "score"}))  # lands while the host's dialog is open
    t2, [stale] = run(t, m.Undo(offered["step"]))
    assert "can no longer be undone" in str(stale.refusal.reason) and t2.state.game["points"] == 2
    [latest] = TableViews().snapshot(t, now_s=0, extra={})["undo"]
    t3, [done] = run(t, m.Undo(latest["step"]))
    assert done.refusal is None and t3.state.game["points"] == 1


def test_a_long_game_remembers_a_bounded_number_of_steps_for_undo():
    """A step costs the same at the thousandth step as at the first: the table keeps the latest
    UNDO_DEPTH steps (each with the state it was decided on) and counts the rest."""
    from companion.table.state import UNDO_DEPTH

    t = table()
    for _ in range(UNDO_DEPTH + 40):
        t, _ = run(t, m.PlayerAction("red", {"type": "score"}))
    assert t.state.step_count == UNDO_DEPTH + 40 and len(t.state.steps) == UNDO_DEPTH
    assert t.state.steps[-1].index == t.state.events - 1
    t, [undone] = run(t, m.Undo())
    assert undone.refusal is None and t.state.game["points"] == UNDO_DEPTH + 39
