"""The shared referee of the turn-based games (``companion.rules.turns.TurnReferee``) on a toy game.

The toy: players take turns adding to a total; the first to reach 10 wins. It supplies only
the hooks a game supplies (``step``, who is to move, whether it is over, why it is closed,
what a time-out does, and moves of its own), so every check here is of the plumbing the
turn-based games share. Whether a turn runs is the table's (the ``Context``), never the game's.
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

import companion.rules.turns as turns_module
from companion.errors import InvalidRecordError
from companion.games import find_game
from companion.rules import Decision, Rejected
from companion.rules.codec import Codec
from companion.rules.context import Context
from companion.rules.outcome import refuse
from companion.rules.setup import Seat, make_setup
from companion.rules.text import PLACEHOLDER, Text, text
from companion.rules.turns import RULE_TURN_TIMER, Applied, StartTurn, TimeOut, TurnReferee, TurnSteps
from companion.testing import SimulatedTable

RULE = text("Toy rulebook, Turns")


def english(texts) -> tuple[str, ...]:
    """The English sentences of some texts."""
    return tuple(str(t) for t in texts)


@dataclass(frozen=True)
class Added:
    """An engine event of the toy game."""

    player: str
    amount: int
    total: int


@dataclass(frozen=True)
class Add:
    """The toy's logged action: ``player`` adds ``amount``."""

    player: str
    amount: int


@dataclass(frozen=True)
class Toy:
    total: int = 0
    to_move: str = "ana"


class ToyReferee(TurnReferee[Toy]):
    title = text("Toy")
    turn_rule = RULE
    what_next = text("add something")

    def __init__(self, setup, *, robot=""):
        super().__init__(setup)
        self.robot = robot
        self.steps_run: list[Any] = []

    def start(self, setup):
        return Toy(to_move=setup.players[0])

    def _next(self, player):
        players = self.setup.players
        return players[(players.index(player) + 1) % len(players)]

    def step(self, state: Toy, ctx: Context, action: Any) -> Applied[Toy]:
        self.steps_run.append(action)
        if action.player != state.to_move:
            refuse(text("not {player}'s turn", player=action.player), RULE)
        if not 1 <= action.amount <= 3:
            refuse(text("add 1 to 3"), RULE)
        total = state.total + action.amount
        won = text("{player} reached 10", player=action.player) if total >= 10 else None
        return Applied(
            replace(state, total=total, to_move=self._next(action.player)),
            (Added(action.player, action.amount, total),),
            [text("{player} added {amount}", player=action.player, amount=action.amount)],
            ends_turn=True,
            ends_game=won,
        )

    def time_out(self, state, ctx, player):
        self.steps_run.append(TimeOut(player))
        return Applied(
            replace(state, to_move=self._next(player)), notes=[text("{player} timed out", player=player)]
        )

    def player_to_move(self, state):
        return state.to_move

    def is_over(self, state, ctx):
        return state.total >= 10 or ctx.is_over

    def closed(self, state, ctx, player):
        return (
            Rejected(text("The game is over"), RULE)
            if state.total >= 10
            else super().closed(state, ctx, player)
        )

    def follow_up(self, steps: TurnSteps[Toy]) -> None:
        """A robot player adds 1 at once whenever it is its turn."""
        while self.robot and steps.state.to_move == self.robot and steps.state.total < 10:
            self.take(steps, Add(self.robot, 1))

    def player_action(self, state, ctx, player, action):
        return self.play(state, ctx, player, Add(player, action["amount"]))


def toy(*, players=("ana", "ben"), seats=("ana", "ben"), timers=1, turn_limit=True, robot=""):
    setup = make_setup(
        table="toy",
        players=tuple(players),
        seats=tuple(Seat(p, i, f"{p}-{i}") for p in seats for i in range(1, timers + 1)),
        turn_limit=turn_limit,
    )
    referee = ToyReferee(setup, robot=robot)
    return referee, referee.start(setup)


OPEN = Context(started=True, turn_open=True, turns=1)


READY = Context()


def flip(referee, state, node, ctx=READY):
    return referee.timer_flipped(state, ctx, referee.setup.seat_of(node), intent=None, ran_out=True)


def after(ctx: Context, step: Decision) -> Context:
    """The table's bookkeeping after a decision (as the table folds it)."""
    return ctx.with_turn(opens=step.opens_turn, ends=step.ends_turn)


def test_a_flip_of_the_player_to_move_starts_their_turn():
    referee, state = toy()
    step = flip(referee, state, "ana-1")
    started = text("{player} started their turn", player="ana")
    assert step == Decision(Toy(), actions=(StartTurn("ana"),), notes=(started,), opens_turn=True)
    assert english(step.notes) == ("ana started their turn",)
    assert after(Context(), step).turn_open and after(Context(), step).turns == 1


def test_flips_that_cannot_start_a_turn_are_refused_with_the_timer_rules():
    referee, state = toy(timers=2)
    assert flip(referee, state, "ben-1") == Rejected(
        text("It is {player}'s turn, not {other}'s", player="ana", other="ben"), RULE
    )
    refused = flip(referee, state, "ana-2")
    assert str(refused.reason) == "Timer 2 is not used in Toy: flip timer 1 to start your turn"
    assert refused.reason.arg("game") == text("Toy") and refused.rule == RULE_TURN_TIMER
    again = flip(referee, state, "ana-1", OPEN)
    assert str(again.reason) == "Your turn is already running: flipping again restarts nothing; add something"
    assert str(again) == f"{again.reason} (Turn timer)"
    over = replace(state, total=10)
    assert flip(referee, over, "ana-1") == Rejected(text("The game is over"), RULE)
    assert flip(referee, state, "ana-1", Context(ended_by="host")) == Rejected(
        text("The game was ended early"), RULE_TURN_TIMER
    )


def test_the_refusals_are_message_ids_with_arguments_not_sentences():
    """Every refusal and note is a message id with its arguments, so each page can translate it."""
    referee, state = toy(timers=2)
    refusals = [
        flip(referee, state, "ben-1"),
        flip(referee, state, "ana-2"),
        flip(referee, state, "ana-1", OPEN),
    ]
    running = flip(referee, state, "ana-1")
    tapper, idle = toy(seats=("ana",))
    refusals.append(tapper.player_action(idle, Context(), "ana", {"amount": 1}))
    for refused in refusals:
        assert isinstance(refused, Rejected)
        assert isinstance(refused.reason, Text) and not refused.reason.verbatim
        assert "ana" not in refused.reason.msgid and "ben" not in refused.reason.msgid
    assert [n.msgid for n in running.notes] == ["{player} started their turn"]


def test_plain_string_titles_and_rules_still_work():
    """A game that gives its title and rule as strings (shown as they are) keeps working."""

    class Plain(ToyReferee):
        title = "Plain"
        turn_rule = "Plain rules"
        what_next = "go on"

    setup = toy(timers=2)[0].setup
    referee = Plain(setup)
    state = referee.start(setup)
    assert str(flip(referee, state, "ben-1")) == "It is ana's turn, not ben's (Plain rules)"
    assert str(flip(referee, state, "ana-2").reason).startswith("Timer 2 is not used in Plain:")


def test_a_tap_needs_the_turn_started_unless_the_player_has_no_timer():
    referee, state = toy(seats=("ana",))
    refused = referee.player_action(state, Context(), "ana", {"amount": 2})
    assert str(refused.reason) == "Flip your timer 1 to start your turn first"
    step = referee.player_action(state, OPEN, "ana", {"amount": 2})
    assert step.actions == (Add("ana", 2),) and step.ends_turn and not step.opens_turn
    assert step.facts == (Added("ana", 2, 2),) and step.state.to_move == "ben"
    # ben has no sandtimer at this table: his tap starts his turn and plays it, as one decision
    ctx = after(OPEN, step)
    step = referee.player_action(step.state, ctx, "ben", {"amount": 3})
    assert step.actions == (StartTurn("ben"), Add("ben", 3)) and step.opens_turn and step.ends_turn
    assert step.facts == (Added("ben", 3, 5),) and after(ctx, step).turns == 2
    assert english(step.notes) == ("ben started their turn", "ben added 3")


def test_each_action_is_applied_once_and_a_rejection_stops_the_decision():
    referee, state = toy()
    referee.steps_run.clear()
    step = referee.decide(state, Context(), StartTurn("ana"), Add("ana", 1))
    assert len(referee.steps_run) == 1 and len(step.actions) == 2
    assert step.facts == (Added("ana", 1, 1),) and step.opens_turn and step.ends_turn
    referee.steps_run.clear()
    refused = referee.decide(state, Context(), StartTurn("ana"), Add("ana", 9))
    assert refused == Rejected(text("add 1 to 3"), RULE) and referee.steps_run == [Add("ana", 9)]
    with pytest.raises(ValueError, match="cannot end a turn and then open"):
        referee.decide(state, Context(), StartTurn("ana"), Add("ana", 1), StartTurn("ben"))


def test_the_step_that_ends_the_game_says_so():
    referee, state = toy()
    step = referee.decide(replace(state, total=8), OPEN, Add("ana", 3))
    assert str(step.ends_game) == "ana reached 10"


def test_the_pages_get_the_latest_happenings_from_the_table(monkeypatch):
    """The latest notes are the table's (``ctx.recent``, folded from the log), never the game's state."""
    timers_only = find_game(
        "sandtimers"
    )  # the toy plays at a timers-only table: its log knows the toy's types
    monkeypatch.setitem(timers_only.__dict__, "codec", Codec([Added, Add, Toy, StartTurn, TimeOut]))
    table = SimulatedTable(referee=ToyReferee(toy()[0].setup), setup=toy()[0].setup)
    table.start()
    for amount in (1, 2, 1):
        for player in ("ana", "ben"):
            assert table.flip(f"{player}-1").refusal is None
            assert table.tap(player, {"amount": amount}).refusal is None
    assert english(table.ctx.recent)[-4:] == (
        "ana started their turn",
        "ana added 1",
        "ben started their turn",
        "ben added 1",
    )
    assert table.ctx.turns == 6 and not table.ctx.turn_open


def test_the_sand_running_out_times_the_turn_out_only_with_the_turn_limit_on():
    referee, state = toy()
    ben = referee.setup.seat_of("ben-1")
    ana = referee.setup.seat_of("ana-1")
    assert referee.timer_emptied(state, Context(), ana) == Decision(state), "the turn has not started"
    assert referee.timer_emptied(state, OPEN, ben) == Decision(state), "not ben's turn"
    step = referee.timer_emptied(state, OPEN, ana)
    assert step.actions == (TimeOut("ana"),) and step.state.to_move == "ben" and step.ends_turn
    relaxed, state = toy(turn_limit=False)
    assert relaxed.timer_emptied(state, OPEN, ana) == Decision(state)


def test_the_games_own_moves_follow_each_decision_and_come_before_a_flip():
    referee, state = toy(players=("ana", "robot"), seats=("ana",), robot="robot")
    step = referee.player_action(state, OPEN, "ana", {"amount": 3})
    assert step.actions == (Add("ana", 3), Add("robot", 1))
    assert step.facts == (Added("ana", 3, 3), Added("robot", 1, 4)) and step.state.to_move == "ana"
    # the robot opens when the clock starts or, before that, when the human flips
    referee, state = toy(players=("robot", "ana"), seats=("ana",), robot="robot")
    opened = referee.clock_started(state, Context())
    assert opened.actions == (Add("robot", 1),)
    step = flip(referee, state, "ana-1")
    assert step.actions == (Add("robot", 1), StartTurn("ana")) and step.opens_turn
    assert referee.clock_started(opened.state, Context()) == Decision(opened.state)


def test_a_logged_action_replays_or_names_the_game_when_it_no_longer_applies():
    referee, state = toy()
    started = referee.replay(state, Context(), StartTurn("ana"))
    assert started.opens_turn and english(started.notes) == ("ana started their turn",)
    added = referee.replay(state, OPEN, Add("ana", 2))
    assert added.ends_turn and added.state.total == 2
    with pytest.raises(InvalidRecordError, match="a logged Toy action cannot be replayed: not ben's turn"):
        referee.replay(state, OPEN, Add("ben", 1))


def test_can_play_is_the_menu_rule():
    referee, state = toy(seats=("ana",))
    assert not referee.can_play(state, Context(), "ana"), "ana must flip first"
    assert referee.can_play(state, OPEN, "ana")
    ben_to_move = replace(state, to_move="ben")
    assert referee.can_play(ben_to_move, Context(), "ben") and not referee.can_play(ben_to_move, OPEN, "ana")
    assert not referee.can_play(replace(ben_to_move, total=10), Context(), "ben")
    assert not referee.can_play(ben_to_move, Context(ended_by="host"), "ben")


def test_the_turn_referee_imports_only_the_rules_contract_and_the_standard_library():
    tree = ast.parse(Path(turns_module.__file__).read_text(encoding="utf-8"))
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    ours = {m for m in imported if m and m.split(".")[0] == "companion"}
    assert all(m.startswith("companion.rules.") or m == "companion.errors" for m in ours), ours
    assert all(m.split(".")[0] in sys.stdlib_module_names or m.split(".")[0] == "companion" for m in imported)


@pytest.mark.parametrize("lang", ["es", "de"])
def test_the_turn_timers_words_are_in_their_own_catalogs(lang):
    """turns.py's messages are translated in companion/i18n/turns.<lang>.json, and only they."""
    source = Path(turns_module.__file__)
    ids = {
        node.args[0].value
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "text"
    }
    catalog = source.parents[1] / "i18n" / f"turns.{lang}.json"
    entries = json.loads(catalog.read_text(encoding="utf-8"))
    assert set(entries) == ids
    for msgid, translation in entries.items():
        assert translation and set(PLACEHOLDER.findall(translation)) == set(PLACEHOLDER.findall(msgid))
