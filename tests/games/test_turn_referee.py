"""The shared referee of the turn-based games (``companion.rules.turns.TurnReferee``) on a toy game.

The toy: players take turns adding to a total; the first to reach 10 wins. It supplies only
the hooks a game supplies (``step``, who is to move, whether it is over, why it is closed,
the turn-start and time-out actions, and moves of its own), so every check here is of the
plumbing the three turn-based games share.
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
from companion.rules import Decision, Rejected, Steps
from companion.rules.setup import Seat, make_setup
from companion.rules.text import PLACEHOLDER, Text, text
from companion.rules.turns import RULE_TURN_TIMER, Applied, TurnReferee
from companion.table import messages as tm

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
class Toy:
    total: int = 0
    to_move: str = "ana"
    turn_open: bool = False
    turns: int = 0
    last: tuple[str, ...] = ()


class ToyReferee(TurnReferee[Toy]):
    title = text("Toy")
    turn_rule = RULE
    what_next = text("add something")
    last_notes = 3

    def __init__(self, setup, *, robot=""):
        super().__init__(setup)
        self.robot = robot
        self.steps_run: list[dict[str, Any]] = []

    def start(self, setup):
        return Toy(to_move=setup.players[0])

    def _next(self, player):
        players = self.setup.players
        return players[(players.index(player) + 1) % len(players)]

    def step(self, state: Toy, action: dict[str, Any]) -> Applied[Toy] | Rejected:
        self.steps_run.append(action)
        kind, player = action["type"], action["player"]
        if player != state.to_move:
            return Rejected(text("not {player}'s turn", player=player), RULE)
        if kind == "turn_started":
            return self.open_turn(state, player)
        if kind == "add":
            amount = action["amount"]
            if not 1 <= amount <= 3:
                return Rejected(text("add 1 to 3"), RULE)
            total = state.total + amount
            after = replace(state, total=total, to_move=self._next(player), turn_open=False)
            return (
                after,
                (Added(player, amount, total),),
                [text("{player} added {amount}", player=player, amount=amount)],
            )
        if kind == "timed_out":
            timed_out = text("{player} timed out", player=player)
            return replace(state, to_move=self._next(player), turn_open=False), (), [timed_out]
        return Rejected(text("unknown {kind}", kind=kind), RULE)

    def player_to_move(self, state):
        return state.to_move

    def is_over(self, state):
        return state.total >= 10

    def closed(self, state, player):
        return Rejected(text("The game is over"), RULE) if state.total >= 10 else None

    def turn_start(self, state):
        return {"type": "turn_started", "player": state.to_move}

    def turn_time_out(self, state):
        return {"type": "timed_out", "player": state.to_move}

    def follow_up(self, steps: Steps) -> None:
        """A robot player adds 1 at once whenever it is its turn."""
        while self.robot and steps.state.to_move == self.robot and steps.state.total < 10:
            assert self.take(steps, {"type": "add", "player": self.robot, "amount": 1}) is None

    def player_action(self, state, ctx, player, action):
        return self.play(state, player, dict(action, player=player))


def toy(*, players=("ana", "ben"), seats=("ana", "ben"), timers=1, turn_limit=True, robot=""):
    setup = make_setup(
        table="toy",
        players=tuple(players),
        seats=tuple(Seat(p, i, f"{p}-{i}") for p in seats for i in range(1, timers + 1)),
        turn_limit=turn_limit,
    )
    referee = ToyReferee(setup, robot=robot)
    return referee, referee.start(setup)


def flip(referee, state, node):
    return referee.timer_flipped(state, referee.setup.seat_of(node), intent=None, ran_out=True)


def test_a_flip_of_the_player_to_move_starts_their_turn():
    referee, state = toy()
    step = flip(referee, state, "ana-1")
    started = text("{player} started their turn", player="ana")
    assert step == Decision(
        Toy(turn_open=True, turns=1, last=(started,)),
        actions=({"type": "turn_started", "player": "ana"},),
        notes=(started,),
    )
    assert english(step.notes) == ("ana started their turn",)


def test_flips_that_cannot_start_a_turn_are_refused_with_the_timer_rules():
    referee, state = toy(timers=2)
    assert flip(referee, state, "ben-1") == Rejected(
        text("It is {player}'s turn, not {other}'s", player="ana", other="ben"), RULE
    )
    refused = flip(referee, state, "ana-2")
    assert str(refused.reason) == "Timer 2 is not used in Toy: flip timer 1 to start your turn"
    assert refused.reason.arg("game") == text("Toy") and refused.rule == RULE_TURN_TIMER
    running = flip(referee, state, "ana-1").state
    again = flip(referee, running, "ana-1")
    assert str(again.reason) == "Your turn is already running: flipping again restarts nothing; add something"
    assert str(again) == f"{again.reason} (Turn timer)"
    over = replace(state, total=10)
    assert flip(referee, over, "ana-1") == Rejected(text("The game is over"), RULE)


def test_the_refusals_are_message_ids_with_arguments_not_sentences():
    """Every refusal and note is a message id with its arguments, so each page can translate it."""
    referee, state = toy(timers=2)
    refusals = [flip(referee, state, "ben-1"), flip(referee, state, "ana-2")]
    running = flip(referee, state, "ana-1")
    refusals.append(flip(referee, running.state, "ana-1"))
    tapper, idle = toy(seats=("ana",))
    refusals.append(tapper.handle(tm.PlayerAction(idle, "ana", {"type": "add", "amount": 1})))
    for refused in refusals:
        assert isinstance(refused, Rejected)
        assert isinstance(refused.reason, Text) and not refused.reason.verbatim
        assert "ana" not in refused.reason.msgid and "ben" not in refused.reason.msgid
    assert [n.msgid for n in running.notes] == ["{player} started their turn"]


def test_plain_string_titles_and_rules_of_a_game_not_yet_converted_still_work():
    """A game that still gives its title and rule as strings (shown as they are) keeps working."""

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
    refused = referee.player_action(state, "ana", {"type": "add", "amount": 2})
    assert str(refused.reason) == "Flip your timer 1 to start your turn first"
    running = flip(referee, state, "ana-1").state
    step = referee.player_action(running, "ana", {"type": "add", "amount": 2})
    assert step.actions == ({"type": "add", "amount": 2, "player": "ana"},)
    assert step.facts == (Added("ana", 2, 2),) and step.state.to_move == "ben"
    # ben has no sandtimer at this table: his tap starts his turn and plays it, as one decision
    step = referee.player_action(step.state, "ben", {"type": "add", "amount": 3})
    assert [a["type"] for a in step.actions] == ["turn_started", "add"]
    assert step.facts == (Added("ben", 3, 5),) and step.state.turns == 2
    assert english(step.notes) == ("ben started their turn", "ben added 3")


def test_each_action_is_applied_once_and_a_rejection_stops_the_decision():
    referee, state = toy()
    referee.steps_run.clear()
    step = referee.decide(
        state,
        {"type": "turn_started", "player": "ana"},
        {"type": "add", "player": "ana", "amount": 1},
        {"type": "turn_started", "player": "ben"},
        {"type": "add", "player": "ben", "amount": 2},
    )
    assert len(referee.steps_run) == len(step.actions) == 4
    assert step.facts == (Added("ana", 1, 1), Added("ben", 2, 3))
    referee.steps_run.clear()
    refused = referee.decide(
        state, {"type": "turn_started", "player": "ana"}, {"type": "add", "player": "ana", "amount": 9}
    )
    assert refused == Rejected(text("add 1 to 3"), RULE) and len(referee.steps_run) == 2


def test_the_pages_keep_only_the_latest_happenings():
    referee, state = toy()
    for amount in (1, 2, 1):
        for player in ("ana", "ben"):
            state = referee.decide(
                state,
                {"type": "turn_started", "player": player},
                {"type": "add", "player": player, "amount": amount},
            ).state
    assert english(state.last) == ("ana added 1", "ben started their turn", "ben added 1")


def test_the_sand_running_out_times_the_turn_out_only_with_the_turn_limit_on():
    referee, state = toy()
    ben = referee.setup.seat_of("ben-1")
    ana = referee.setup.seat_of("ana-1")
    assert referee.timer_emptied(state, ana) == Decision(state), "the turn has not started"
    running = flip(referee, state, "ana-1").state
    assert referee.timer_emptied(running, ben) == Decision(running), "not ben's turn"
    step = referee.timer_emptied(running, ana)
    assert step.actions == ({"type": "timed_out", "player": "ana"},) and step.state.to_move == "ben"
    relaxed, state = toy(turn_limit=False)
    running = flip(relaxed, state, "ana-1").state
    assert relaxed.timer_emptied(running, ana) == Decision(running)


def test_the_games_own_moves_follow_each_decision_and_come_before_a_flip():
    referee, state = toy(players=("ana", "robot"), seats=("ana",), robot="robot")
    step = flip(referee, state, "ana-1")
    step = referee.player_action(step.state, "ana", {"type": "add", "amount": 3})
    assert [(a["type"], a["player"]) for a in step.actions] == [("add", "ana"), ("add", "robot")]
    assert step.facts == (Added("ana", 3, 3), Added("robot", 1, 4)) and step.state.to_move == "ana"
    # the robot opens when the clock starts or, before that, when the human flips
    referee, state = toy(players=("robot", "ana"), seats=("ana",), robot="robot")
    opened = referee.clock_started(state)
    assert opened.actions == ({"type": "add", "player": "robot", "amount": 1},)
    step = flip(referee, state, "ana-1")
    assert [a["type"] for a in step.actions] == ["add", "turn_started"] and step.state.turn_open
    assert referee.clock_started(opened.state) == Decision(opened.state)


def test_a_logged_action_replays_or_names_the_game_when_it_no_longer_applies():
    referee, state = toy()
    started = referee.replay(state, {"type": "turn_started", "player": "ana"})
    assert started.turn_open and english(started.last) == ("ana started their turn",)
    with pytest.raises(InvalidRecordError, match="a logged Toy action cannot be replayed: not ben's turn"):
        referee.replay(state, {"type": "add", "player": "ben", "amount": 1})


def test_can_play_is_the_menu_rule():
    referee, state = toy(seats=("ana",))
    assert not referee.can_play(state, "ana"), "ana must flip first"
    assert referee.can_play(flip(referee, state, "ana-1").state, "ana")
    ben_to_move = replace(state, to_move="ben")
    assert referee.can_play(ben_to_move, "ben") and not referee.can_play(ben_to_move, "ana")
    assert not referee.can_play(replace(ben_to_move, total=10), "ben")


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
