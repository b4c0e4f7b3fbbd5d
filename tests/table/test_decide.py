"""The pure decide step: what a message causes, as events to log and commands to send in order."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from companion.core import protocol as p
from companion.games.sandtimers import FreeTimers
from companion.rules import Decision, Rejected
from companion.rules.setup import default_setup
from companion.table import commands as cmd
from companion.table import events as ev
from companion.table import messages as m
from companion.table.decide import decide
from companion.table.model import Table, fold_table, new_table
from companion.table.session import make_referee

SETUP = default_setup("t1", players=2, timers=1)
BOOT = "0a1b2c3d"


class Sabotage(FreeTimers):
    """A flip of red-1 lights yellow-1 and may end the game; a tap 'score' adds a point."""

    def start(self, setup):
        return 0

    def replay(self, state, ctx, action):
        return state + 1

    def timer_flipped(self, state, ctx, seat, *, intent, ran_out):
        if seat.node != "red-1":
            return Decision(state)
        end = "red scored the last point" if state >= 2 else ""
        return Decision(
            state + 1,
            actions=({"type": "hit"},),
            notes=("red hit",),
            show=(("yellow-1", "sabotaged"),),
            ends_game=end,
        )

    def player_action(self, state, ctx, player, action):
        if action.get("type") != "score":
            return Rejected("Only scoring is allowed here", "House rule")
        return Decision(state + 1, actions=({"type": "score"},), notes=(f"{player} scored",))


def table(referee=None) -> Table:
    referee = referee or Sabotage(SETUP)
    return new_table(SETUP, referee, game=referee.start(SETUP))


def flip(node: str, seq: int, t_ms: int = 0) -> m.NodeReport:
    return m.NodeReport(
        node,
        m.report_of(
            p.validate(
                "event",
                {
                    "v": 1,
                    "kind": "flip",
                    "boot": BOOT,
                    "seq": seq,
                    "t_ms": t_ms,
                    "upper_ms": 60000,
                    "lower_ms": 0,
                },
            )
        ),
    )


def run(t: Table, *messages: m.Message, now_s: float = 0.0) -> tuple[Table, list]:
    outcomes = []
    for message in messages:
        outcome = decide(t, message, now_s=now_s, make_referee=make_referee)
        outcomes.append(outcome)
        t = outcome.table
    return t, outcomes


def test_a_flip_acks_first_then_shows_then_tells_the_table_the_game_ended():
    t, _ = run(table(), m.ClockCommand("start"), flip("red-1", 1), flip("red-1", 2))
    outcome = decide(t, flip("red-1", 3), now_s=5.0)
    assert [type(c).__name__ for c in outcome.commands] == ["Ack", "Show", "PublishTableState"]
    ack, show, state = outcome.commands
    assert ack == cmd.Ack("red-1", BOOT, 3, "accepted") and show == cmd.Show("yellow-1", "sabotaged")
    assert state.clock == "expired" and state.remaining_ms > 0
    logged = [type(e).__name__ for e in outcome.logged]
    assert logged == ["TimerFlipped", "GameStepped", "ClockExpired"]


def test_the_outcome_is_the_fold_of_its_events_and_the_table_it_was_given_is_untouched():
    rng = random.Random(4)
    t = table()
    seqs = {"red-1": 0, "yellow-1": 0}
    for step in range(120):
        roll = rng.random()
        if roll < 0.5:
            node = rng.choice(list(seqs))
            seqs[node] += rng.choice([0, 1, 1, 1, 2])  # repeats and gaps too
            message: m.Message = flip(node, max(1, seqs[node]), t_ms=step * 1000)
        elif roll < 0.7:
            message = m.PlayerAction(
                rng.choice(["red", "yellow", "ghost"]), {"type": rng.choice(["score", "x"])}
            )
        elif roll < 0.8:
            message = m.ClockCommand(rng.choice(["start", "pause", "resume"]))
        elif roll < 0.9:
            message = m.Undo()
        else:
            message = m.Tick()
        before = t
        outcome = decide(t, message, now_s=float(step))
        again = decide(t, message, now_s=float(step))
        assert outcome == again  # no hidden input: the same message on the same table decides the same
        folded = before
        for event in outcome.events:
            folded = fold_table(folded, event)
        assert folded == outcome.table
        assert t is before
        t = outcome.table


def test_a_repeated_report_gets_the_first_verdict_again_and_changes_nothing_logged():
    t, [_, _, first] = run(table(), m.ClockCommand("start"), m.ClockCommand("pause"), flip("yellow-1", 1))
    assert first.commands[0].verdict == "rejected"
    outcome = decide(t, flip("yellow-1", 1), now_s=3.0)
    assert outcome.logged == [] and outcome.counts == ("flip", "duplicate")
    assert outcome.commands == (cmd.Ack("yellow-1", BOOT, 1, "rejected", first.commands[0].reason),)


def test_a_refused_tap_is_logged_with_its_reason_and_answered():
    outcome = decide(table(), m.PlayerAction("red", {"type": "cheat"}), now_s=1.0)
    assert outcome.refusal == Rejected("Only scoring is allowed here", "House rule")
    assert [type(e).__name__ for e in outcome.events] == ["ActionRefused", "RefusalShown"]
    refusal = outcome.table.refusals["red"]
    assert (str(refusal.reason), str(refusal.rule)) == ("Only scoring is allowed here", "House rule")
    assert outcome.commands == ()


def test_an_undo_records_the_change_it_made_and_a_second_undo_goes_further_back():
    t, _ = run(table(), m.PlayerAction("red", {"type": "score"}), m.PlayerAction("yellow", {"type": "score"}))
    assert t.state.game == 2
    t, [undo] = run(t, m.Undo())
    [undone] = undo.logged
    assert isinstance(undone, ev.StepUndone) and str(undone.note) == "yellow scored" and t.state.game == 1
    t, _ = run(t, m.Undo())
    assert t.state.game == 0
    _, [nothing] = run(t, m.Undo())
    assert nothing.refusal is not None and nothing.events == ()


def test_node_commands_are_only_for_known_nodes():
    assert decide(table(), m.NodeCommand("red-1", "restart"), now_s=0).commands == (cmd.Restart("red-1"),)
    assert decide(table(), m.NodeCommand("red-1", "identify"), now_s=0).commands == (
        cmd.Show("red-1", "identify"),
    )
    refused = decide(table(), m.NodeCommand("blue-7", "restart"), now_s=0)
    assert refused.commands == () and "unknown node" in str(refused.refusal.reason)


def test_pairing_seats_nodes_in_turn_and_the_last_one_starts_the_new_game():
    new = replace(default_setup("t1", players=2, timers=1, game="sandtimers"), sand_s=30.0)
    t, outcomes = run(table(), m.BeginPairing(new), flip("spare-1", 1), flip("spare-2", 1))
    assert [c.kind for c in outcomes[1].commands] == ["ack", "show"]
    last = outcomes[2]
    assert [c.kind for c in last.commands] == ["ack", "show", "config", "config", "table"]
    assert [s.node for s in t.setup.seats] == ["spare-1", "spare-2"] and t.setup.sand_s == 30.0
    assert t.pairing is None and isinstance(t.referee, FreeTimers) and t.state.events == 0


@pytest.mark.parametrize(
    "module", ["decide", "model", "state", "clock_rules", "events", "commands", "messages", "nodes", "views"]
)
def test_the_decide_step_reads_no_clock_and_does_no_io(module):
    import ast
    from pathlib import Path

    import companion.table

    source = Path(companion.table.__file__).with_name(f"{module}.py").read_text()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    allowed_io = {"threading"} if module == "views" else set()  # the views' cache has a lock, nothing else
    forbidden = {
        "time",
        "random",
        "os",
        "socket",
        "threading",
        "subprocess",
        "pathlib",
        "io",
        "flask",
        "paho",
    }
    assert imported & (forbidden - allowed_io) == set()


def test_one_forged_report_far_ahead_cannot_make_the_hub_ignore_a_node():
    t, _ = run(table(), m.ClockCommand("start"), flip("red-1", 1))
    forged = decide(t, flip("red-1", 2**53), now_s=1.0)
    assert forged.commands[0].verdict == "rejected" and "jumps" in forged.commands[0].reason
    assert forged.logged == [] and forged.rejects[0][0] == "sequence_jump"
    t = forged.table
    real = decide(t, flip("red-1", 2, t_ms=2000), now_s=2.0)
    assert (
        real.commands[0].verdict == "accepted"
        and [type(e).__name__ for e in real.logged][0] == "TimerFlipped"
    )


def test_a_late_report_never_seen_is_applied_and_a_new_boot_keeps_the_old_verdicts():
    t, _ = run(table(), flip("red-1", 1), flip("red-1", 3))  # 2 is still on its way
    late = decide(t, flip("red-1", 2), now_s=1.0)
    assert late.counts == ("flip", "out_of_order") and late.logged and late.commands[0].verdict == "accepted"
    t = late.table
    reboot = m.NodeReport(
        "red-1",
        m.report_of(
            p.validate(
                "event",
                {
                    "v": 1,
                    "kind": "flip",
                    "boot": "ffff0000",
                    "seq": 1,
                    "t_ms": 5,
                    "upper_ms": 60000,
                    "lower_ms": 0,
                },
            )
        ),
    )
    t = decide(t, reboot, now_s=2.0).table
    again = decide(t, flip("red-1", 3), now_s=3.0)  # the old boot's report, resent once more
    assert again.counts == ("flip", "duplicate") and again.logged == []


def test_a_quiet_running_clock_is_checkpointed_so_a_crash_gives_back_little():
    t, _ = run(table(), m.ClockCommand("start"), now_s=10.0)
    assert decide(t, m.Tick(), now_s=14.0).logged == []
    outcome = decide(t, m.Tick(), now_s=15.0)
    assert outcome.logged == [ev.ClockCheckpoint(15.0)] and outcome.commands == ()
    assert outcome.table.state.last_at_s == 15.0
    paused, _ = run(t, m.ClockCommand("pause"), now_s=11.0)
    assert decide(paused, m.Tick(), now_s=100.0).logged == []  # a paused game loses nothing


def test_a_refused_tap_is_shown_and_counted_but_never_written():
    outcomes = [decide(table(), m.PlayerAction("red", {"type": "cheat"}), now_s=float(i)) for i in range(500)]
    assert all(o.logged == [] and o.refusal is not None for o in outcomes)


def test_losing_the_broker_takes_every_node_offline_and_shows_on_the_table():
    t, _ = run(table(), flip("red-1", 1), m.BrokerStatus(True))
    assert t.link("red-1").online and t.broker.online is True
    t, [lost] = run(t, m.BrokerStatus(False, "connection refused"), now_s=9.0)
    assert not t.link("red-1").online and t.broker.to_dict() == {
        "online": False,
        "since_s": 9.0,
        "detail": "connection refused",
    }
    assert lost.logged == []


def test_a_node_that_dropped_buffered_events_says_so_and_the_table_counts_it():
    heartbeat = m.NodeReport(
        "red-1",
        m.report_of(
            p.validate(
                "event",
                {
                    "v": 1,
                    "kind": "heartbeat",
                    "boot": BOOT,
                    "t_ms": 9,
                    "upper_ms": 0,
                    "lower_ms": 0,
                    "queued": 64,
                    "dropped": 236,
                },
            )
        ),
    )
    outcome = decide(table(), heartbeat, now_s=1.0)
    assert outcome.table.link("red-1").dropped == 236
    assert outcome.rejects == (
        ("dropped_events", "node 'red-1' had to drop 236 buffered events (its buffer was full)"),
    )


class Strict(FreeTimers):
    """A flip counts only when its sand ran through."""

    def start(self, setup):
        return 0

    def timer_flipped(self, state, ctx, seat, *, intent, ran_out):
        if not ran_out:
            return Rejected("The sand has not run through yet", "Sandtimers")
        return Decision(state + 1, actions=({"type": "lift"},), notes=(f"{seat.player} lifted",))


def early_flip(node: str, seq: int, t_ms: int = 0) -> m.NodeReport:
    return m.NodeReport(
        node,
        m.report_of(
            p.validate(
                "event",
                {
                    "v": 1,
                    "kind": "flip",
                    "boot": BOOT,
                    "seq": seq,
                    "t_ms": t_ms,
                    "upper_ms": 20000,
                    "lower_ms": 40000,
                },
            )
        ),
    )


def strict_table(**setup) -> Table:
    config = replace(SETUP, **{"grace_s": 2.0, **setup})
    return new_table(config, Strict(config), game=0)


def test_a_knocked_sandtimer_turned_back_within_the_grace_window_flags_nothing():
    t, [knock] = run(strict_table(), early_flip("red-1", 1), now_s=10.0)
    assert knock.commands == () and knock.logged == [] and "red" not in knock.table.refusals
    t, [back] = run(t, early_flip("red-1", 2, t_ms=800), now_s=10.8)
    assert [type(e).__name__ for e in back.logged] == ["TimerKnocked"]
    assert [(c.seq, c.verdict) for c in back.commands] == [(1, "accepted"), (2, "accepted")]
    assert t.held == {} and t.refusals == {} and t.state.timers["red-1"].flips == 0
    again = decide(t, early_flip("red-1", 1), now_s=11.0)  # a resent report of the knock
    assert again.commands[0].verdict == "accepted" and again.logged == []


def test_a_refusal_not_turned_back_is_flagged_when_the_grace_window_ends_dated_when_it_happened():
    t, _ = run(strict_table(), early_flip("red-1", 1, t_ms=0), now_s=10.0)
    assert decide(t, m.Tick(), now_s=11.9).commands == ()
    late = decide(t, m.Tick(), now_s=12.0)
    [refused] = late.logged
    assert isinstance(refused, ev.FlipRefused) and refused.at_s == 10.0 and refused.seq == 1
    assert late.commands == (cmd.Ack("red-1", BOOT, 1, "rejected", str(refused.reason)),)
    assert late.table.refusals["red"].reason == refused.reason and late.table.held == {}


def test_a_table_can_let_early_lifts_count_with_a_warning_or_silently():
    from companion.table.views import describe

    for policy in ("warn", "ignore"):
        t = strict_table(early_lifts=policy)
        outcome = decide(t, early_flip("red-1", 1), now_s=1.0)
        flipped = outcome.logged[0]
        assert outcome.commands[0].verdict == "accepted" and flipped.early and outcome.table.state.game == 1
        said = str(describe(flipped, outcome.table.setup))
        assert ("before the sand ran through" in said) == (policy == "warn")
    refused = decide(strict_table(grace_s=0.0), early_flip("red-1", 1), now_s=1.0)
    assert refused.commands[0].verdict == "rejected"  # the default: the rules refuse it at once


def test_the_setup_checks_its_strictness_settings():
    from companion.errors import ConfigError
    from companion.rules.setup import make_setup

    with pytest.raises(ConfigError, match="early lifts are refuse, warn, ignore"):
        make_setup(table="t", early_lifts="punish")
    with pytest.raises(ConfigError, match="0 to 10 seconds"):
        make_setup(table="t", grace_s=30)


def test_a_node_that_goes_quiet_shows_offline_and_comes_back_when_heard():
    t, _ = run(table(), flip("red-1", 1), now_s=0.0)
    assert decide(t, m.Tick(), now_s=20.0).table.link("red-1").online
    quiet = decide(t, m.Tick(), now_s=20.5).table
    assert not quiet.link("red-1").online
    assert decide(quiet, flip("red-1", 2), now_s=21.0).table.link("red-1").online


def test_a_node_that_said_it_dropped_events_may_jump_that_much_further():
    hello = m.NodeReport(
        "red-1",
        m.report_of(
            p.validate(
                "event",
                {
                    "v": 1,
                    "kind": "hello",
                    "boot": BOOT,
                    "t_ms": 0,
                    "sand_ms": 60000,
                    "node_kind": "sim",
                    "firmware": "x",
                    "dropped": 2000,
                },
            )
        ),
    )
    t, _ = run(table(), flip("red-1", 1), hello)
    outcome = decide(t, flip("red-1", 2 + 64 + 2000), now_s=1.0)  # 64 still buffered after 2,000 dropped
    assert outcome.commands[0].verdict == "accepted" and outcome.logged
