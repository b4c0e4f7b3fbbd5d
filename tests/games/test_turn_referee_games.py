"""The three turn-based games on the shared ``TurnReferee``: facts computed once, logs that read
back, the computer opponent as a variant class, and data handed in rather than read.

* Each accepted engine action is applied exactly once per decision, and the engine's own events
  come back as the decision's facts (counted by wrapping the engine function the referee calls).
* A game played through a ``TableSession`` with a log on disk reads back and folds to the same
  state; every fact and every state value is of a type of ``GAME.state_modules``.
* Space and Time's computer opponent is ``VsComputerReferee``, registered per variant.
* Building a referee and playing never reads a data file: the data is ``GAME.data``.
"""

from __future__ import annotations

import dataclasses
import enum
import random
from typing import Any

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.games import data as data_module
from companion.games import find_game, referee_for
from companion.games.space_and_time import GAME as SAT
from companion.games.space_and_time import legal_moves
from companion.games.space_and_time import table as sat_table
from companion.games.space_and_time.table import SpaceTimeReferee, VsComputerReferee
from companion.games.time_splicers import GAME as SPLICERS
from companion.games.time_splicers import Layout
from companion.games.time_splicers import table as splicers_table
from companion.games.time_splicers.engine import CardPlaced, TurnForfeited
from companion.games.time_splicers.table import SplicersReferee
from companion.games.timeline import GAME as TIMELINE
from companion.games.timeline import TimelineData, TimelineSettings
from companion.games.timeline import table as timeline_table
from companion.games.timeline.engine import CardDrawn, CardMisplaced, RoundEnded
from companion.games.timeline.engine import CardPlaced as TimelinePlaced
from companion.games.timeline.table import TimelineReferee
from companion.rules import Decision
from companion.rules.setup import Seat, make_setup
from companion.table import events as ev
from companion.table import messages as tm
from companion.table.log import EventLog, read_log
from companion.table.session import TableSession
from companion.table.state import fold
from companion.testing import deliver
from tests.conftest import replays

BOOT = "0a1b2c3d"
SAND_MS = 60_000

TIMELINE_DEAL = {
    "hands": {"ana": ["granada", "dos-de-mayo"], "ben": ["conquista-musulmana", "barcelona-92"]},
    "reference": "constitucion-1978",
    "draw_pile": ["armada", "guernica", "trafalgar"],
}
SPLICERS_LAYOUT = Layout(
    start="red-5",
    hands={
        "ana": ("red-6", "blue-5", "quantum-tunnel-1", "green-9"),
        "ben": ("red-3", "yellow-2", "time-freeze-1", "blue-12"),
    },
    deck_top=("green-1", "green-2", "green-3", "green-4", "yellow-7", "yellow-8"),
)


def setup_for(game, players=("ana", "ben"), *, seats=None, variant="", seed=7):
    seated = players if seats is None else seats
    return make_setup(
        table="turns",
        game=game,
        players=tuple(players),
        seats=tuple(Seat(name, 1, f"{name}-1") for name in seated),
        seed=seed,
        sand_s=SAND_MS / 1000,
        variant=variant,
    )


def seat(referee, node):
    return referee.setup.seat_of(node)


def flip(referee, state, node):
    return referee.timer_flipped(state, seat(referee, node), intent=None, ran_out=True)


class Calls:
    """Wraps an engine function of a referee's module and keeps what each call returned."""

    def __init__(self, monkeypatch, module, name):
        self.outcomes: list[Any] = []
        real = getattr(module, name)

        def counted(*args, **kwargs):
            outcome = real(*args, **kwargs)
            self.outcomes.append(outcome)
            return outcome

        monkeypatch.setattr(module, name, counted)

    def __len__(self):
        return len(self.outcomes)

    def clear(self):
        self.outcomes.clear()


def engine_actions(decision: Decision) -> list[dict[str, Any]]:
    """The actions of a decision that the engine applies (starting a turn and hints are the table's)."""
    return [a for a in decision.actions if a["type"] not in ("turn_started", "hints")]


def events_of(outcomes) -> tuple[Any, ...]:
    return tuple(e for outcome in outcomes for e in outcome.events)


# --- each engine action applied once, its events the facts ------------------------------------------


def test_timeline_applies_each_placement_once_and_its_events_are_the_facts(monkeypatch):
    setup = setup_for("timeline")
    referee = TimelineReferee(setup, TIMELINE.data, deal=TIMELINE_DEAL)
    applied = Calls(monkeypatch, timeline_table, "apply")
    timed_out = Calls(monkeypatch, timeline_table, "time_out")
    step = flip(referee, referee.start(setup), "ana-1")
    assert len(applied) == len(engine_actions(step)) == 0 and step.facts == ()
    step = referee.player_action(step.state, "ana", {"type": "place", "card": "dos-de-mayo", "gap": 1})
    assert len(applied) == len(engine_actions(step)) == len(step.actions) == 1
    assert step.facts == events_of(applied.outcomes)
    assert [type(f) for f in step.facts] == [CardMisplaced, CardDrawn]
    # the last player of the round times out: the engine's end-of-round rule runs once, as facts
    step = referee.timer_emptied(flip(referee, step.state, "ben-1").state, seat(referee, "ben-1"))
    assert len(timed_out) == len(step.actions) == 1 and len(applied) == 1
    assert step.facts == tuple(timed_out.outcomes[0][1]) and any(
        isinstance(f, RoundEnded) for f in step.facts
    )


def test_timeline_a_tap_that_starts_the_turn_applies_the_placement_once(monkeypatch):
    setup = setup_for("timeline", seats=("ben",))  # ana plays from her phone only
    referee = TimelineReferee(setup, TIMELINE.data, deal=TIMELINE_DEAL)
    applied = Calls(monkeypatch, timeline_table, "apply")
    step = referee.player_action(referee.start(setup), "ana", {"type": "place", "card": "granada", "gap": 0})
    assert [a["type"] for a in step.actions] == ["turn_started", "place"]
    assert len(applied) == len(engine_actions(step)) == 1
    assert step.facts == events_of(applied.outcomes) and isinstance(step.facts[0], TimelinePlaced)


def test_space_and_time_applies_each_swap_once_with_the_computers_answer(monkeypatch):
    setup = setup_for("space-and-time", ("ana",), variant="vs-computer-a-1", seed=5)
    referee = referee_for(setup)
    applied = Calls(monkeypatch, sat_table, "apply")
    step = flip(referee, referee.start(setup), "ana-1")  # the computer opens, then ana's turn starts
    assert [a["type"] for a in step.actions] == ["swap", "turn_started"]
    assert len(applied) == len(engine_actions(step)) == 1 and step.facts == events_of(applied.outcomes)
    applied.clear()
    move = legal_moves(step.state.game)[0]
    step = referee.player_action(step.state, "ana", {"type": "swap", "cells": [list(move[0]), list(move[1])]})
    assert [(a["type"], a["player"]) for a in step.actions] == [("swap", "B"), ("swap", "A")]
    assert len(applied) == len(engine_actions(step)) == len(step.actions) == 2
    assert step.facts == events_of(applied.outcomes)
    applied.clear()
    refused = referee.player_action(step.state, "ana", {"type": "swap", "cells": [[0, 0], [0, 0]]})
    assert str(refused.reason) == "Flip your timer 1 to start your turn first" and len(applied) == 0


def test_space_and_time_refuses_an_illegal_swap_with_one_engine_call(monkeypatch):
    setup = setup_for("space-and-time")
    referee = referee_for(setup)
    applied = Calls(monkeypatch, sat_table, "apply")
    running = flip(referee, referee.start(setup), "ana-1").state
    refused = referee.player_action(running, "ana", {"type": "swap", "cells": [[0, 0], [2, 3]]})
    assert "not neighbours" in str(refused.reason) and len(applied) == 1, (
        "judged by apply, not checked before"
    )
    step = referee.timer_emptied(running, seat(referee, "ana-1"))
    assert step.actions == ({"type": "turn_timed_out", "player": "A"},) and step.facts == ()


def test_time_splicers_applies_each_action_once_and_its_events_are_the_facts(monkeypatch):
    setup = setup_for("time-splicers")
    referee = SplicersReferee(setup, SPLICERS.data, layout=SPLICERS_LAYOUT)
    applied = Calls(monkeypatch, splicers_table, "apply")
    step = flip(referee, referee.start(setup), "ana-1")
    assert len(applied) == 0 and step.facts == ()
    step = referee.player_action(step.state, "ana", {"type": "place", "card": "red-6"})
    assert len(applied) == len(engine_actions(step)) == len(step.actions) == 1
    assert step.facts == events_of(applied.outcomes) and any(isinstance(f, CardPlaced) for f in step.facts)
    applied.clear()
    step = referee.timer_emptied(flip(referee, step.state, "ben-1").state, seat(referee, "ben-1"))
    assert step.actions == ({"type": "time_out", "player": "ben"},)
    assert len(applied) == 1 and step.facts == events_of(applied.outcomes)
    assert isinstance(step.facts[0], TurnForfeited)


# --- logs on disk read back; every type is the codec's ------------------------------------------------


def msg(kind, **fields):
    return p.validate("event", dict({"v": 1, "kind": kind, "boot": BOOT}, **fields))


class Table:
    """A session with a log on disk, and the node side (hello, flips, run-outs)."""

    def __init__(self, setup, path):
        self.clock = FakeClock(start_s=100.0)
        self.setup = setup
        self.path = path
        self.session = TableSession(
            setup, clock=self.clock, log=EventLog.for_new_game(setup, path, fsync=False)
        )
        self.referee = self.session.referee
        self.seq = {}
        for s in setup.seats:
            deliver(
                self.session,
                s.node,
                msg("hello", t_ms=self.ms(), sand_ms=SAND_MS, node_kind="sim", firmware="x"),
            )

    def ms(self):
        return int(self.clock.now_s() * 1000)

    def _node(self, kind, node, **fields):
        self.seq[node] = self.seq.get(node, 0) + 1
        [reply] = deliver(
            self.session, node, msg(kind, seq=self.seq[node], t_ms=self.ms(), **fields)
        ).commands
        return reply.fields

    @property
    def state(self):
        return self.session.state.game

    def mover(self):
        return self.referee.player_to_move(self.state)

    def flip(self):
        """The player to move flips their timer (a computer to move has none: its opponent flips)."""
        seated = {s.player for s in self.setup.seats}
        player = self.mover() if self.mover() in seated else self.setup.seats[0].player
        return self._node("flip", f"{player}-1", upper_ms=SAND_MS, lower_ms=0)

    def time_out(self):
        self.clock.advance(SAND_MS / 1000)
        return self._node("empty", f"{self.mover()}-1")

    def tap(self, rng):
        player = self.mover()
        menu = [i for i in self.session.player_snapshot(player)["menu"] if i["action"]]
        return self.session.handle(tm.PlayerAction(player, rng.choice(menu)["action"]))

    def check_log(self):
        """The log on disk reads back to the same game, facts included; every type is the codec's."""
        codec = find_game(self.setup.game).codec
        steps = [e for e in self.session.log.events() if isinstance(e, ev.GameStepped)]
        assert any(step.facts for step in steps), "the engine's events are logged as facts"
        for value in (self.state, *(f for step in steps for f in step.facts)):
            unknown = {t for t in types_in(value) if t not in codec}
            assert unknown == set(), f"types missing from GAME.state_modules: {unknown}"
        self.session.log.close()
        saved = read_log(self.path)
        assert [e.facts for e in saved.events if isinstance(e, ev.GameStepped)] == [s.facts for s in steps]
        assert fold(saved.setup, saved.events, saved.start) == self.session.state
        resumed = TableSession(
            self.setup, clock=self.clock, log=EventLog.open_existing(self.path, fsync=False)
        )
        assert resumed.state == self.session.state
        resumed.log.close()


def types_in(value) -> set[type]:
    """Every dataclass and enum type in a value, however deep."""
    found: set[type] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, enum.Enum):
            found.add(type(item))
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            found.add(type(item))
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
        elif isinstance(item, (tuple, list, set, frozenset)):
            stack.extend(item)
        elif hasattr(item, "items"):
            for key, inner in item.items():
                stack.extend((key, inner))
    return found


@pytest.mark.parametrize("seed", range(3))
def test_timeline_played_at_random_reads_back_from_its_log_on_disk(tmp_path, seed):
    rng = random.Random(seed)
    table = Table(
        setup_for("timeline", ("ana", "ben", "cleo"), variant="hand-2", seed=seed), tmp_path / "t.jsonl"
    )
    for _ in range(40):
        if table.state.game.is_over:
            break
        assert table.flip()["verdict"] == "accepted"
        if rng.random() < 0.2:
            table.time_out()
        else:
            assert isinstance(table.tap(rng), Decision)
    table.check_log()


@pytest.mark.parametrize(("players", "variant"), [(("ana", "ben"), ""), (("ana",), "vs-computer-a-1")])
def test_space_and_time_played_at_random_reads_back_from_its_log_on_disk(tmp_path, players, variant):
    rng = random.Random(3)
    table = Table(setup_for("space-and-time", players, variant=variant, seed=3), tmp_path / "s.jsonl")
    for _ in range(30):
        if table.state.game.is_over:
            break
        assert table.flip()["verdict"] == "accepted"
        if rng.random() < 0.15:
            table.time_out()
            continue
        if rng.random() < 0.2:
            table.session.handle(
                tm.PlayerAction(table.mover(), {"type": "hints", "show": not table.state.hints})
            )
        move = rng.choice(legal_moves(table.state.game))
        step = table.session.handle(
            tm.PlayerAction(table.mover(), {"type": "swap", "cells": [list(c) for c in move]})
        )
        assert isinstance(step, Decision)
    table.check_log()


@pytest.mark.parametrize("seed", range(3))
def test_time_splicers_played_at_random_reads_back_from_its_log_on_disk(tmp_path, seed):
    rng = random.Random(seed)
    table = Table(setup_for("time-splicers", ("ana", "ben", "cleo"), seed=seed), tmp_path / "ts.jsonl")
    for _ in range(25):
        if table.state.game.is_over:
            break
        assert table.flip()["verdict"] == "accepted"
        for _ in range(4):
            if not table.state.turn_open:
                break
            if rng.random() < 0.1:
                table.time_out()
                break
            assert isinstance(table.tap(rng), Decision)
        if table.state.turn_open:
            table.time_out()
    table.check_log()
    assert replays(table.session)


# --- the computer opponent is a variant's class -----------------------------------------------------


@pytest.mark.parametrize(
    ("players", "variant", "computer", "difficulty"),
    [
        (("ana", "ben"), "standard", None, 2),
        (("ana",), "standard", "B", 2),  # one person plays the computer
        (("ana",), "vs-computer-b", "B", 2),
        (("ana",), "vs-computer-a", "A", 2),
        (("ana",), "vs-computer-b-1", "B", 1),
        (("ana",), "vs-computer-b-4", "B", 4),
        (("ana",), "vs-computer-a-3", "A", 3),  # not offered on the setup page, still understood
    ],
)
def test_space_and_time_plays_the_computer_with_its_own_referee_class(players, variant, computer, difficulty):
    referee = referee_for(setup_for("space-and-time", players, variant=variant))
    assert type(referee) is (SpaceTimeReferee if computer is None else VsComputerReferee)
    assert (referee.computer, referee.difficulty) == (computer, difficulty)


def test_the_computer_variants_are_registered_with_their_referee():
    registered = {v.name: v.referee for v in SAT.variants}
    assert registered["standard"] is None
    for name in ("vs-computer-a", "vs-computer-b", "vs-computer-b-1", "vs-computer-b-4"):
        made = registered[name](setup_for("space-and-time", ("ana",), variant=name), SAT.data)
        assert isinstance(made, VsComputerReferee) and made.computer == name[12].upper()


# --- data is handed in ------------------------------------------------------------------------------


def test_referees_and_engines_read_no_data_file(monkeypatch):
    for game in (TIMELINE, SAT, SPLICERS):
        assert game.data is not None  # read once, before the files go away

    def no_reading(*args, **kwargs):
        raise AssertionError("a referee or engine read a data file")

    from companion.games.space_and_time import ai
    from companion.games.time_splicers import deck
    from companion.games.timeline import cards, settings

    for module in (data_module, cards, settings, ai, deck):
        for name in ("read_shipped", "read_file"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, no_reading)
    for setup in (
        setup_for("timeline", variant="hand-3"),
        setup_for("space-and-time", ("ana",), variant="vs-computer-a"),
        setup_for("time-splicers"),
    ):
        referee = referee_for(setup)
        step = flip(referee, referee.start(setup), "ana-1")
        assert isinstance(step, Decision) and step.state.turn_open


def test_timeline_gets_its_hand_size_from_the_variant_or_the_data():
    assert referee_for(setup_for("timeline", variant="hand-3")).hand_size == 3
    assert referee_for(setup_for("timeline")).hand_size == TIMELINE.data.settings.hand_size == 4
    small = TimelineData(TIMELINE.data.decks, TimelineSettings(hand_size=2))
    setup = setup_for("timeline")
    state = TimelineReferee.for_table(setup, small).start(setup)
    assert len(state.game.hand("ana")) == 2
