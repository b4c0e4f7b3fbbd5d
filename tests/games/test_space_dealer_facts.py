"""Space Dealer decisions as facts: each engine action applied once, its events logged, the log read back
without the rules; the two variants as referee classes; the card data handed in, read once.

Three players (red, yellow, green), seed 0: red's Mine is ``mine-yellow-1``; the TechLevel 2 stack starts
with a Multi-Mine and a Robot Factory (see test_space_dealer_table.py).
"""

from __future__ import annotations

import inspect
import random
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest

from companion.errors import ConfigError
from companion.games import referee_for
from companion.games.space_dealer import GAME, dealing, engine, hubdeck, referee
from companion.games.space_dealer import events as happened
from companion.games.space_dealer import model as A
from companion.games.space_dealer.cards import PACKAGE, SHIPPED, CardDataError, load_card_data
from companion.games.space_dealer.model import GameState
from companion.games.space_dealer.referee import BasicSpaceDealerReferee, SpaceDealerReferee
from companion.rules import Decision, Rejected, Step
from companion.rules.context import Context
from companion.rules.setup import Seat, TableSetup, default_setup
from companion.table import events as ev
from companion.table.log import EventLog
from companion.table.session import TableSession
from companion.table.state import fold
from companion.testing import SimulatedTable
from tests.conftest import replays

RAISE = A.RaiseTechLevel()
ON = Context(started=True)
"""The table's context once the master clock has started."""


def table_setup(variant: str = "", seed: int = 0) -> TableSetup:
    setup = default_setup(
        "sd", players=3, timers=2, game="space-dealer", variant=variant, seed=seed, clock_length_s=30 * 60
    )
    return replace(setup, deck="hub")


# --- each engine action applied once ---------------------------------------------------------------------


@pytest.fixture
def engine_calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every action the referee's decisions hand to the engine (the phones' previews are not decisions)."""
    calls: list[object] = []

    def counted(game: GameState, action: A.Action) -> object:
        calls.append(action)
        return engine.apply(game, action)

    monkeypatch.setattr(referee, "apply", counted)
    return calls


def engine_run(game: GameState, actions: tuple[object, ...]) -> tuple[GameState, tuple[object, ...]]:
    """The engine actions of a decision applied again by hand (the hub deck keeping its own order after
    each): the state after them and their events."""
    events: list[object] = []
    for action in actions:
        if isinstance(action, A.TimerNodeKnown):
            continue  # the table's own bookkeeping
        result = engine.apply(game, action)  # type: ignore[arg-type]
        assert result.ok, result
        game, events = hubdeck.follow(result.state, result.events), events + list(result.events)  # type: ignore[union-attr]
    return game, tuple(events)


def decided(step: Step, before: GameState, calls: list[object]) -> Decision:
    """One decision: one engine call per engine action it holds, and the engine's own events as its facts."""
    assert isinstance(step, Decision), step
    engine_actions = [a for a in step.actions if not isinstance(a, A.TimerNodeKnown)]
    assert len(calls) == len(engine_actions)
    game, events = engine_run(before, step.actions)
    assert step.facts == events and all(type(f).__module__ == happened.__name__ for f in step.facts)
    assert replace(step.state, seats_asked=game.seats_asked, nodes=game.nodes) == game
    calls.clear()
    return step


def kinds(decision: Decision) -> list[str]:
    return [type(f).__name__ for f in decision.facts]


def types(decision: Decision) -> list[str]:
    return [type(a.move if isinstance(a, A.Act) else a).__name__ for a in decision.actions]


def test_every_decision_applies_each_engine_action_once_and_returns_the_engines_events(engine_calls):
    setup = table_setup()
    ref = GAME.make_referee(setup)
    red1 = Seat("red", 1, "red-1")
    state = ref.start(setup)

    started = ref.clock_started(state, Context())
    assert isinstance(started, Decision) and not started.changed and started.state is state  # the table's own
    assert engine_calls == []

    # a job flip: one StartJob, applied once
    flip = decided(ref.timer_flipped(state, ON, red1, intent=RAISE, ran_out=True), state, engine_calls)
    assert types(flip) == ["StartJob"] and kinds(flip) == ["JobStarted"]
    state = flip.state

    # the sand runs out: the job completes, applied once
    emptied = decided(ref.timer_emptied(state, ON, red1), state, engine_calls)
    assert types(emptied) == ["TimerRanOut"] and kinds(emptied) == ["TimerDone", "TechLevelRaised"]
    assert emptied.state.player("red").tech_level == 2

    # a missed "empty" report: the flip completes the job, then starts the next: two actions, two calls
    # (the timer's status after the first is read from the state already decided, not probed)
    use_mine = A.UseCard("mine-yellow-1")
    again = decided(ref.timer_flipped(state, ON, red1, intent=use_mine, ran_out=True), state, engine_calls)
    assert types(again) == ["TimerRanOut", "StartJob"]
    assert kinds(again) == ["TimerDone", "TechLevelRaised", "JobStarted"]
    state = again.state

    # a phone action
    tap = decided(ref.player_action(state, ON, "red", A.PlayCard("depot-3")), state, engine_calls)
    assert types(tap) == ["PlayCard"] and kinds(tap) == ["CardPlanned"]
    assert tap.actions == (A.Act("red", A.PlayCard("depot-3")),)
    state = tap.state

    # a refused action asks the engine once and changes nothing
    refused = ref.player_action(state, ON, "red", A.PlayCard("depot-1"))  # green's card
    assert isinstance(refused, Rejected) and len(engine_calls) == 1
    engine_calls.clear()

    # the master clock running out
    expired = decided(ref.clock_expired(state, ON), state, engine_calls)
    assert types(expired) == ["MasterClockExpired"] and "GameEnded" in kinds(expired)


def test_a_robot_factorys_seat_request_is_decided_once_with_its_facts(engine_calls):
    setup = table_setup()
    ref = GAME.make_referee(setup)
    red1 = Seat("red", 1, "red-1")
    state = ref.start(setup)
    build = A.BuildCard("robot-factory-1", -1)
    for step in (
        lambda s: ref.timer_flipped(s, ON, red1, intent=RAISE, ran_out=True),
        lambda s: ref.timer_emptied(s, ON, red1),
        lambda s: ref.player_action(s, ON, "red", A.DrawTechCards(2)),
        lambda s: ref.player_action(s, ON, "red", A.KeepDrawnCard("robot-factory-1")),
        lambda s: ref.timer_flipped(s, ON, red1, intent=build, ran_out=True),
    ):
        state = decided(step(state), state, engine_calls).state
    built = decided(ref.timer_emptied(state, ON, red1), state, engine_calls)
    assert types(built) == ["TimerRanOut"] and built.add_seat == ("red", 3)
    assert kinds(built) == ["TimerDone", "CardBuilt", "TimerAdded"]
    assert built.state.seats_asked == (("red", 3),)
    # the new node's first report: bookkeeping only, no engine call
    learnt = decided(ref.timer_emptied(built.state, ON, Seat("red", 3, "spare-7")), built.state, engine_calls)
    assert learnt.facts == () and learnt.actions == (A.TimerNodeKnown("red", 3, "spare-7"),)
    assert learnt.state.node_of("red", 3) == "spare-7"


# --- variants are classes ------------------------------------------------------------------------------------


def test_each_variant_is_a_referee_class_registered_in_game():
    assert {v.name: v.referee for v in GAME.variants} == {
        "experienced": SpaceDealerReferee,
        "basic": BasicSpaceDealerReferee,
    }
    assert type(referee_for(table_setup())) is SpaceDealerReferee  # the default
    assert type(referee_for(table_setup("experienced"))) is SpaceDealerReferee
    basic = referee_for(table_setup("basic"))
    assert type(basic) is BasicSpaceDealerReferee
    game = basic.start(table_setup("basic"))
    assert not game.experienced and game.attack_pool == 0 and not game.order_cards
    with pytest.raises(ConfigError, match="no variant turbo"):
        referee_for(table_setup("turbo"))
    dealt_experienced = referee_for(table_setup()).start(table_setup())
    with pytest.raises(ConfigError, match="not dealt for the basic game"):
        BasicSpaceDealerReferee(table_setup("basic"), GAME.data, game=dealt_experienced)
    with pytest.raises(ConfigError, match="experienced rules has no variant basic"):
        SpaceDealerReferee(table_setup("basic"), GAME.data)  # the log would say basic, the play experienced


def test_the_basic_game_offers_no_neutral_planet_for_goods():
    experienced, basic = referee_for(table_setup()), referee_for(table_setup("basic"))
    game = experienced.start(table_setup())
    assert [(place, str(name)) for place, name in experienced.neutral_places(game, 1)] == [
        (A.AtNeutralPlanet(1), "neutral planet")
    ]
    assert experienced.neutral_places(game, 0) == []  # a player's planet
    assert basic.neutral_places(game, 1) == []


# --- the card data is handed in, read once ------------------------------------------------------------------


def test_the_card_data_is_read_once_and_handed_to_the_referee_and_engine(tmp_path: Path):
    assert GAME.data is GAME.data
    setup = table_setup()
    referee = GAME.make_referee(setup)
    assert isinstance(referee, SpaceDealerReferee) and referee.data is GAME.data
    assert referee.start(setup).data is GAME.data
    text = resources.files(PACKAGE).joinpath(SHIPPED).read_text(encoding="utf-8")
    copy = tmp_path / "cards.toml"
    copy.write_text(text, encoding="utf-8")
    assert GAME.data == load_card_data(copy)  # a user's copy is parsed the same way
    for deal in (dealing.setup, hubdeck.deal):
        data = inspect.signature(deal).parameters["data"]
        assert data.default is inspect.Parameter.empty  # the rules load nothing themselves
    wrong = tmp_path / "cards.txt"
    wrong.write_text(text, encoding="utf-8")
    with pytest.raises(CardDataError, match=r"card data .*cards.txt: data files are .json, .toml or .csv"):
        load_card_data(wrong)


# --- every fact and state type survives the log on disk --------------------------------------------------------


class Hub:
    """A Space Dealer table with an on-disk log, driven like the nodes and phones drive the hub
    (:class:`~companion.testing.SimulatedTable`: each node reports when its own sand runs out)."""

    def __init__(self, path: Path, *, variant: str = "") -> None:
        self.setup = table_setup(variant)
        self.sim = SimulatedTable(self.setup, log_path=path, start_s=0.0)
        self.session = self.sim.session
        for seat in self.setup.seats:
            self.sim.hello(seat.node)

    def flip(self, node: str, job: object | None = None) -> str:
        if job is not None:
            player = self.session.setup.seat_of(node).player  # type: ignore[union-attr]
            assert self.sim.choose(player, node, job).refusal is None
        outcome = self.sim.flip(node)
        return next(c.verdict for c in outcome.commands if type(c).__name__ == "Ack")

    def run(self, seconds: float = 60) -> None:
        """Time passes; every node whose sand has run through reports it."""
        self.sim.advance(seconds)

    def running(self, node: str) -> bool:
        return self.sim._node(node).sand.is_running()

    def menu(self, player: str):
        return self.sim.menu(player)

    def tap(self, player: str, item_id: str) -> None:
        [item] = [i for i in self.menu(player) if item_id in (i.id, str(i.label))]
        if item.intent is not None:
            assert self.sim.choose(player, item.node, item.intent).refusal is None
        else:
            assert self.sim.tap(player, item.action).refusal is None

    def pair_requested_seat(self) -> None:
        if self.session.table.seat_request is not None:
            self.flip("extra-" + self.session.table.seat_request[0])

    def random_steps(self, rng: random.Random, n: int) -> None:
        """Phone taps, flips and sand running out, in random order."""
        for _ in range(n):
            roll = rng.random()
            if roll < 0.45:
                player = rng.choice(self.setup.players)
                menu = self.menu(player)
                if menu:
                    item = rng.choice(menu)
                    if item.intent is not None:
                        self.sim.choose(player, item.node, item.intent)
                    else:
                        self.sim.tap(player, item.action)
            elif roll < 0.8:
                node = rng.choice([s.node for s in self.session.setup.seats])
                if not self.running(node):  # a node is flipped once its sand has run out
                    self.flip(node)
            else:
                self.run(20)
            self.pair_requested_seat()


def _stepped(events: list[ev.Event]) -> list[ev.GameStepped]:
    return [e for e in events if isinstance(e, ev.GameStepped)]


def _reopens_to_the_same_game(hub: Hub, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = hub.session
    assert replays(session)  # in memory: encoded, decoded and folded
    session.log.close()

    def no_rules(*args: object) -> object:
        raise AssertionError("reading a log asked the rules")

    monkeypatch.setattr(referee, "apply", no_rules)
    monkeypatch.setattr(engine, "apply", no_rules)
    reopened = EventLog.open_existing(path)
    assert fold(reopened.setup, reopened.events(), reopened.start) == session.state
    back, live = _stepped(reopened.events()), _stepped(session.log.events())
    assert [e.facts for e in back] == [e.facts for e in live]
    assert [e.actions for e in back] == [e.actions for e in live]
    assert all(type(f).__module__ == happened.__name__ for e in back for f in e.facts)
    assert TableSession(reopened.setup, clock=hub.sim.clock, log=reopened).state == session.state
    reopened.close()


@pytest.mark.parametrize("seed", range(4))
def test_a_game_with_a_robot_factorys_extra_seat_reopens_from_disk_to_the_same_state(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "space-dealer.jsonl"
    hub = Hub(path)
    rng = random.Random(seed)
    for player in hub.setup.players:  # the secret start choices
        hub.tap(player, rng.choice(hub.menu(player)).id)
    assert hub.sim.start().refusal is None
    # red builds a Robot Factory, second on the TechLevel 2 stack of seed 0
    assert hub.flip("red-1", RAISE) == "accepted"
    hub.run(60)
    hub.tap("red", "draw 2 TechLevel 2 cards")
    hub.tap("red", "keep Robot Factory")
    game = hub.session.state.game
    low, high = game.data.x_range
    red = game.player("red")
    assert red is not None
    site = next(
        x for x in range(low, high + 1) if engine.site_problem(game, red, "robot-factory-1", x) is None
    )
    assert hub.flip("red-1", A.BuildCard("robot-factory-1", site)) == "accepted"
    hub.run(60)
    assert hub.session.table.seat_request == ("red", 3)
    hub.pair_requested_seat()  # the next unseated node flipped becomes red's timer 3
    assert hub.session.setup.seat_of("extra-red") == Seat("red", 3, "extra-red")
    hub.run(60)  # its first report: the referee learns the node
    assert hub.session.state.game.node_of("red", 3) == "extra-red"
    hub.random_steps(rng, 120)
    stepped = _stepped(hub.session.log.events())
    kinds = {type(f).__name__ for e in stepped for f in e.facts}
    assert {"JobStarted", "TimerDone", "TimerAdded", "CardBuilt"} <= kinds
    assert any(e.actions and isinstance(e.actions[0], A.TimerNodeKnown) for e in stepped)
    _reopens_to_the_same_game(hub, path, monkeypatch)


@pytest.mark.parametrize("seed", range(2))
def test_a_basic_game_reopens_from_disk_to_the_same_state(seed: int, tmp_path: Path, monkeypatch):
    path = tmp_path / "space-dealer.jsonl"
    hub = Hub(path, variant="basic")
    rng = random.Random(seed)
    assert hub.sim.start().refusal is None
    hub.random_steps(rng, 120)
    assert len(_stepped(hub.session.log.events())) > 20
    _reopens_to_the_same_game(hub, path, monkeypatch)
