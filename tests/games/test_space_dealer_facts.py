"""Space Dealer decisions as facts: each engine action applied once, its events logged, the log read back
without the rules; the two variants as referee classes; the card data handed in, read once.

Three players (red, yellow, green), seed 0: red's Mine is ``mine-yellow-1``; the TechLevel 2 stack starts
with a Multi-Mine and a Robot Factory (see test_space_dealer_table.py).
"""

from __future__ import annotations

import inspect
import random
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.errors import ConfigError
from companion.games import referee_for
from companion.games.space_dealer import GAME, CardDataError, engine, load_card_data, table
from companion.games.space_dealer import actions as A
from companion.games.space_dealer.cards import PACKAGE, SHIPPED
from companion.games.space_dealer.record import ACTION_TYPES, action_from_json
from companion.games.space_dealer.state import GameState
from companion.games.space_dealer.table import BasicSpaceDealerReferee, DealerTable, SpaceDealerReferee
from companion.i18n import render_tree
from companion.rules import Decision, Rejected, Step
from companion.rules.setup import Seat, TableSetup, default_setup
from companion.table import events as ev
from companion.table.log import EventLog
from companion.table.session import TableSession
from companion.table.state import fold
from tests.conftest import replays

BOOT = "0a1b2c3d"
RAISE = {"type": "RaiseTechLevel"}


def table_setup(variant: str = "", seed: int = 0) -> TableSetup:
    return default_setup(
        "sd", players=3, timers=2, game="space-dealer", variant=variant, seed=seed, clock_length_s=30 * 60
    )


# --- each engine action applied once ---------------------------------------------------------------------


@pytest.fixture
def engine_calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every action the referee's decisions hand to the engine (the phones' previews are not decisions)."""
    calls: list[object] = []

    def counted(game: GameState, action: A.Action) -> object:
        calls.append(action)
        return engine.apply(game, action)

    monkeypatch.setattr(table, "apply", counted)
    return calls


def engine_run(game: GameState, actions: tuple[dict, ...]) -> tuple[GameState, tuple[A.Event, ...]]:
    """The engine actions of a decision applied again by hand: the state after them and their events."""
    events: list[A.Event] = []
    for raw in actions:
        if raw["type"] not in ACTION_TYPES:
            continue  # the table's own bookkeeping
        result = engine.apply(game, action_from_json(raw))
        assert result.ok, result
        game, events = result.state, events + list(result.events)  # type: ignore[union-attr]
    return game, tuple(events)


def checked(step: Step, before: DealerTable, calls: list[object]) -> Decision:
    """One decision: one engine call per engine action it holds, and the engine's own events as its facts."""
    assert isinstance(step, Decision), step
    engine_actions = [a for a in step.actions if a["type"] in ACTION_TYPES]
    assert len(calls) == len(engine_actions)
    game, events = engine_run(before.game, step.actions)
    assert step.facts == events and all(isinstance(f, A.Event) for f in step.facts)
    assert step.state.game == game
    calls.clear()
    return step


def kinds(decision: Decision) -> list[str]:
    return [f.kind for f in decision.facts]


def types(decision: Decision) -> list[str]:
    return [a["type"] for a in decision.actions]


def test_every_decision_applies_each_engine_action_once_and_returns_the_engines_events(engine_calls):
    setup = table_setup()
    referee = GAME.make_referee(setup)
    red1 = Seat("red", 1, "red-1")
    state = referee.start(setup)

    started = checked(referee.clock_started(state), state, engine_calls)
    assert types(started) == ["table_started"] and started.facts == ()  # bookkeeping: no engine call
    state = started.state

    # a job flip: one StartJob, applied once
    flip = checked(
        referee.timer_flipped(state, red1, intent={"job": RAISE}, ran_out=True), state, engine_calls
    )
    assert types(flip) == ["StartJob"] and kinds(flip) == ["JobStarted"]
    state = flip.state

    # the sand runs out: the job completes, applied once
    emptied = checked(referee.timer_emptied(state, red1), state, engine_calls)
    assert types(emptied) == ["TimerRanOut"] and kinds(emptied) == ["TimerRanOut", "TechLevelRaised"]
    assert emptied.state.game.player("red").tech_level == 2

    # a missed "empty" report: the flip completes the job, then starts the next: two actions, two calls
    # (the timer's status after the first is read from the state already decided, not probed)
    use_mine = {"job": {"type": "UseCard", "card": "mine-yellow-1"}}
    again = checked(referee.timer_flipped(state, red1, intent=use_mine, ran_out=True), state, engine_calls)
    assert types(again) == ["TimerRanOut", "StartJob"]
    assert kinds(again) == ["TimerRanOut", "TechLevelRaised", "JobStarted"]
    state = again.state

    # a phone action
    tap = checked(
        referee.player_action(state, "red", {"type": "PlayCard", "card": "depot-3"}), state, engine_calls
    )
    assert types(tap) == ["PlayCard"] and kinds(tap) == ["CardPlanned"]
    state = tap.state

    # a refused action asks the engine once and changes nothing
    refused = referee.player_action(state, "red", {"type": "PlayCard", "card": "depot-1"})  # green's card
    assert isinstance(refused, Rejected) and len(engine_calls) == 1
    engine_calls.clear()

    # the master clock running out
    expired = checked(referee.clock_expired(state), state, engine_calls)
    assert types(expired) == ["MasterClockExpired"] and "GameEnded" in kinds(expired)


def test_a_robot_factorys_seat_request_is_decided_once_with_its_facts(engine_calls):
    setup = table_setup()
    referee = GAME.make_referee(setup)
    red1 = Seat("red", 1, "red-1")
    state = referee.start(setup)
    build = {"job": {"type": "BuildCard", "card": "robot-factory-1", "x": -1}}
    for step in (
        referee.clock_started,
        lambda s: referee.timer_flipped(s, red1, intent={"job": RAISE}, ran_out=True),
        lambda s: referee.timer_emptied(s, red1),
        lambda s: referee.player_action(s, "red", {"type": "DrawTechCards", "level": 2}),
        lambda s: referee.player_action(s, "red", {"type": "KeepDrawnCard", "card": "robot-factory-1"}),
        lambda s: referee.timer_flipped(s, red1, intent=build, ran_out=True),
    ):
        state = checked(step(state), state, engine_calls).state
    built = checked(referee.timer_emptied(state, red1), state, engine_calls)
    assert types(built) == ["TimerRanOut"] and built.add_seat == ("red", 3)
    assert kinds(built) == ["TimerRanOut", "CardBuilt", "TimerAdded"]
    # the new node's first report: bookkeeping only, no engine call
    learnt = checked(referee.timer_emptied(built.state, Seat("red", 3, "spare-7")), built.state, engine_calls)
    assert learnt.facts == () and learnt.actions == (
        {"type": "timer_node", "player": "red", "timer": 3, "node": "spare-7"},
    )


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
    game = basic.start(table_setup("basic")).game
    assert not game.experienced and game.attack_pool == 0 and not game.order_cards
    with pytest.raises(ConfigError, match="no variant turbo"):
        referee_for(table_setup("turbo"))
    dealt_experienced = referee_for(table_setup()).start(table_setup()).game
    with pytest.raises(ConfigError, match="not dealt for the basic game"):
        BasicSpaceDealerReferee(table_setup("basic"), GAME.data, game=dealt_experienced)
    with pytest.raises(ConfigError, match="experienced rules has no variant basic"):
        SpaceDealerReferee(table_setup("basic"), GAME.data)  # the log would say basic, the play experienced


def test_the_basic_game_offers_no_neutral_planet_for_goods():
    experienced, basic = referee_for(table_setup()), referee_for(table_setup("basic"))
    game = experienced.start(table_setup()).game
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
    assert referee.start(setup).game.data is GAME.data
    text = resources.files(PACKAGE).joinpath(SHIPPED).read_text(encoding="utf-8")
    copy = tmp_path / "cards.toml"
    copy.write_text(text, encoding="utf-8")
    assert GAME.data == load_card_data(copy)  # a user's copy is parsed the same way
    data = inspect.signature(engine.setup).parameters["data"]
    assert data.default is inspect.Parameter.empty  # the engine loads nothing itself
    wrong = tmp_path / "cards.txt"
    wrong.write_text(text, encoding="utf-8")
    with pytest.raises(CardDataError, match=r"card data .*cards.txt: data files are .json, .toml or .csv"):
        load_card_data(wrong)


# --- every fact and state type survives the log on disk --------------------------------------------------------


class Hub:
    """A Space Dealer session with an on-disk log, driven like the nodes and phones drive the hub."""

    def __init__(self, path: Path, *, variant: str = "") -> None:
        self.clock = FakeClock(start_s=0.0)
        self.setup = table_setup(variant)
        self.session = TableSession(self.setup, clock=self.clock, log=EventLog.for_new_game(self.setup, path))
        self.seq: Counter[str] = Counter()
        self.flipped: dict[str, float] = {}
        """node -> when its sand started running"""
        for seat in self.setup.seats:
            self.session.node_message(
                seat.node, self._msg("hello", t_ms=0, sand_ms=60000, node_kind="sim", firmware="x")
            )

    @staticmethod
    def _msg(kind: str, **fields: object) -> p.Message:
        return p.validate("event", dict({"v": 1, "kind": kind, "boot": BOOT}, **fields))

    def _now_ms(self) -> int:
        return int(round(self.clock.now_s() * 1000))

    def flip(self, node: str, job: dict | None = None) -> str:
        if job is not None:
            player = self.session.setup.seat_of(node).player  # type: ignore[union-attr]
            assert self.session.set_intent(player, node, {"job": job}) is None
        self.seq[node] += 1
        replies = self.session.node_message(
            node, self._msg("flip", seq=self.seq[node], t_ms=self._now_ms(), upper_ms=60000, lower_ms=0)
        )
        self.flipped[node] = self.clock.now_s()
        return str(replies[0].fields["verdict"])

    def run(self, seconds: float = 60) -> None:
        """Time passes; every node whose sand has run through reports it."""
        self.clock.advance(seconds)
        self.session.tick()
        for node, at in list(self.flipped.items()):
            if self.clock.now_s() - at >= 60:
                self.seq[node] += 1
                self.session.node_message(node, self._msg("empty", seq=self.seq[node], t_ms=self._now_ms()))
                del self.flipped[node]

    def menu(self, player: str) -> list[dict]:
        return render_tree(list(self.session.player_snapshot(player)["menu"]), "en")

    def tap(self, player: str, label: str) -> None:
        [item] = [i for i in self.menu(player) if label in (i["id"], i["label"])]
        if item["intent"] is not None:
            self.session.set_intent(player, item["intent"]["node"], item["intent"])
        else:
            assert isinstance(self.session.player_action(player, item["action"]), Decision)

    def pair_requested_seat(self) -> None:
        if self.session.seat_request is not None:
            self.flip("extra-" + self.session.seat_request[0])

    def random_steps(self, rng: random.Random, n: int) -> None:
        """Phone taps, flips and sand running out, in random order."""
        for _ in range(n):
            roll = rng.random()
            if roll < 0.45:
                player = rng.choice(self.setup.players)
                menu = self.menu(player)
                if menu:
                    item = rng.choice(menu)
                    if item["intent"] is not None:
                        self.session.set_intent(player, item["intent"]["node"], item["intent"])
                    else:
                        self.session.player_action(player, item["action"])
            elif roll < 0.8:
                node = rng.choice([s.node for s in self.session.setup.seats])
                if node not in self.flipped:  # a node is flipped once its sand has run out
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

    monkeypatch.setattr(table, "apply", no_rules)
    monkeypatch.setattr(engine, "apply", no_rules)
    reopened = EventLog.open_existing(path)
    assert fold(reopened.setup, reopened.events(), reopened.start) == session.state
    back, live = _stepped(reopened.events()), _stepped(session.log.events())
    assert [e.facts for e in back] == [e.facts for e in live]
    assert [e.actions for e in back] == [e.actions for e in live]
    assert all(isinstance(f, A.Event) for e in back for f in e.facts)
    assert TableSession(reopened.setup, clock=hub.clock, log=reopened).state == session.state
    reopened.close()


@pytest.mark.parametrize("seed", range(4))
def test_a_game_with_a_robot_factorys_extra_seat_reopens_from_disk_to_the_same_state(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "space-dealer.jsonl"
    hub = Hub(path)
    rng = random.Random(seed)
    for player in hub.setup.players:  # the secret start choices
        hub.tap(player, rng.choice(hub.menu(player))["id"])
    assert hub.session.start_clock() is not None
    # red builds a Robot Factory, second on the TechLevel 2 stack of seed 0
    assert hub.flip("red-1", RAISE) == "accepted"
    hub.run(60)
    hub.tap("red", "draw 2 TechLevel 2 cards")
    hub.tap("red", "keep Robot Factory")
    game = hub.session.state.game.game
    low, high = game.data.x_range
    red = game.player("red")
    assert red is not None
    site = next(
        x for x in range(low, high + 1) if engine.site_problem(game, red, "robot-factory-1", x) is None
    )
    assert hub.flip("red-1", {"type": "BuildCard", "card": "robot-factory-1", "x": site}) == "accepted"
    hub.run(60)
    assert hub.session.seat_request == ("red", 3)
    hub.pair_requested_seat()  # the next unseated node flipped becomes red's timer 3
    assert hub.session.setup.seat_of("extra-red") == Seat("red", 3, "extra-red")
    hub.run(60)  # its first report: the referee learns the node
    assert hub.session.state.game.node_of("red", 3) == "extra-red"
    hub.random_steps(rng, 120)
    stepped = _stepped(hub.session.log.events())
    kinds = {f.kind for e in stepped for f in e.facts}
    assert {"JobStarted", "TimerRanOut", "TimerAdded", "CardBuilt"} <= kinds
    assert any(e.actions and e.actions[0]["type"] == "timer_node" for e in stepped)
    _reopens_to_the_same_game(hub, path, monkeypatch)


@pytest.mark.parametrize("seed", range(2))
def test_a_basic_game_reopens_from_disk_to_the_same_state(seed: int, tmp_path: Path, monkeypatch):
    path = tmp_path / "space-dealer.jsonl"
    hub = Hub(path, variant="basic")
    rng = random.Random(seed)
    assert hub.session.start_clock() is not None
    hub.random_steps(rng, 120)
    assert len(_stepped(hub.session.log.events())) > 20
    _reopens_to_the_same_game(hub, path, monkeypatch)
