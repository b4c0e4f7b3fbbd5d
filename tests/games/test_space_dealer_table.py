"""Space Dealer on a hub table: node flips with phone intents, sand running out, sabotage, a Robot Factory's
third timer, the end by the last marker and replay, all through a real TableSession on a fake clock.

Three players (red, yellow, green); orbital ring: 0 red, 1 neutral, 2 yellow, 3 neutral, 4 green, 5 neutral.
Seed 0 deals: red's Mine is ``mine-yellow-1`` at unit -2 beside a Generator on the left (units -2 and -1
are powered); the TechLevel 2 stack starts with a Multi-Mine and a Robot Factory, the TechLevel 3 stack
with a Sabotage Probe.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from companion.errors import ConfigError
from companion.games import referee_for
from companion.games.space_dealer import GAME
from companion.games.space_dealer import model as A
from companion.games.space_dealer.board import final_score
from companion.games.space_dealer.engine import apply
from companion.games.space_dealer.hubdeck import deal
from companion.games.space_dealer.model import GameState, Goods, Phase, TimerStatus
from companion.games.space_dealer.referee import SpaceDealerReferee
from companion.i18n import render_tree
from companion.rules import Decision
from companion.rules.context import Context
from companion.rules.outcome import Accepted, Rejected
from companion.rules.setup import default_setup
from companion.table import messages as msg
from companion.table.commands import Show
from companion.table.decide import undo_offer
from companion.table.session import TableSession
from companion.testing import SimulatedTable, acks
from tests.conftest import logged_actions, replays
from tests.games.test_space_dealer_engine import take_out
from tests.games.test_space_dealer_properties import untranslated

PLAYERS = ["red", "yellow", "green"]
RAISE = A.RaiseTechLevel()


def english(value):
    """A snapshot, view or refusal with every text in it written out in English."""
    return render_tree(value, "en")


def setup(players: list[str], **kw: object) -> GameState:
    """The engine's deal with the shipped cards."""
    return deal(players, data=GAME.data, **kw)  # type: ignore[arg-type]


def ok(game: GameState, *actions: object) -> GameState:
    for action in actions:
        result = apply(game, action)  # type: ignore[arg-type]
        assert isinstance(result, Accepted), f"{action}: {result}"
        game = result.state
    return game


def plan(game: GameState, player: str, card: str) -> GameState:
    """Lay-out by hand: move ``card`` from a common stack into the player's planning area."""
    game = take_out(game, card)
    me = game.player(player)
    return game.with_player(replace(me, planning=me.planning + (card,)))


def with_probe(game: GameState, player: str = "yellow") -> GameState:
    """The player has built a Sabotage Probe at unit -1 and loaded one attack marker, through the engine."""
    game = plan(game, player, "sabotage-probe-1")
    return ok(
        game,
        A.StartJob(player, 0, A.BuildCard("sabotage-probe-1", -1)),
        A.TimerRanOut(player, 0),
        A.StartJob(player, 0, A.UseCard("sabotage-probe-1")),
        A.TimerRanOut(player, 0),
    )


def with_rocket(game: GameState, player: str = "yellow") -> GameState:
    game = plan(game, player, "interstellar-rocket-1")
    return ok(
        game,
        A.StartJob(player, 0, A.BuildCard("interstellar-rocket-1", -1)),
        A.TimerRanOut(player, 0),
        A.StartJob(player, 0, A.UseCard("interstellar-rocket-1")),
        A.TimerRanOut(player, 0),
    )


def cargo(game: GameState, ship: str, field: int, **goods: int) -> GameState:
    bag = Goods.of(goods)
    s = game.ship(ship)
    game = game.with_ship(replace(s, field=field, destination=None, cargo=s.cargo + bag))
    return replace(game, pool=game.pool - bag)


class Table:
    """A Space Dealer table on a fake clock, driven like the nodes and phones drive the hub.

    A :class:`~companion.testing.SimulatedTable` (its messages through ``session.handle``), with the
    game laid out by hand when one is given. ``run`` lets time pass without the nodes saying so, and
    ``empty`` delivers a node's report that its sand ran out, so a test decides when each report comes.
    """

    def __init__(
        self, game: GameState | None = None, *, timers: int = 2, variant: str = "", players: int = 3
    ) -> None:
        self.setup = default_setup(
            "sd",
            players=players,
            timers=timers,
            game="space-dealer",
            variant=variant,
            seed=0,
            clock_length_s=30 * 60,
        )
        self.setup = replace(self.setup, deck="hub")
        self.prepared = game
        self.sim = SimulatedTable(
            self.setup, start_s=0.0, referee=self.referee() if game is not None else None
        )
        self.session = self.sim.session
        self.clock = self.sim.clock
        self.outcome = None
        """What the latest message caused (its events and the commands for the nodes)."""
        for seat in self.setup.seats:
            self.sim.hello(seat.node)

    def referee(self) -> SpaceDealerReferee:
        if self.prepared is None:
            return referee_for(self.setup)  # type: ignore[return-value]
        return SpaceDealerReferee(self.setup, GAME.data, game=self.prepared)

    def flip(self, node: str, job: Any = None, *, ran_out: bool = True) -> dict:
        """Store ``job`` as the intent of the node, turn it over and return the hub's ack."""
        if job is not None:
            player = self.session.setup.seat_of(node).player
            assert self.sim.choose(player, node, job).refusal is None
        sim = self.sim._node(node)
        upper, lower = (60000, 0) if ran_out else (20000, 40000)
        self.outcome = self.sim.report(
            node, msg.Flipped(sim.boot, self.clock.now_ms(), sim.next_seq(), upper, lower)
        )
        [(verdict, reason)] = acks(self.outcome, node)[:1]
        return {"verdict": verdict, "reason": reason, "seq": sim.seq}

    def empty(self, *nodes: str) -> None:
        for node in nodes:
            outcome = self.sim.empty(node)
            assert acks(outcome, node)[0][0] == "accepted"

    def run(self, seconds: float = 60) -> None:
        """Let time pass; the nodes say nothing (see :meth:`empty`)."""
        self.clock.advance(seconds)
        self.sim.tick()

    def start(self) -> None:
        assert self.sim.start().refusal is None

    def act(self, player: str, move: Any) -> Decision | Rejected | None:
        self.outcome = self.sim.tap(player, move)
        return self.outcome.refusal or self.outcome.decision

    @property
    def game(self) -> GameState:
        return self.session.state.game

    @property
    def ctx(self) -> Context:
        return self.session.state.context

    @property
    def refusals(self) -> dict:
        return self.session.table.refusals

    def menu_items(self, player: str) -> list[dict]:
        """The player's buttons, in order, their words in English."""
        return english(self.session.player_snapshot(player)["menu"])

    def menu(self, player: str) -> dict[str, dict]:
        return {item["id"]: item for item in self.menu_items(player)}

    def view(self, player: str | None = None) -> dict:
        """The dashboard's view (or a player's), in English."""
        return english((self.session.player_snapshot(player) if player else self.session.snapshot())["view"])

    def refusal(self, player: str) -> dict:
        """The latest refusal on the player's phone: reason and rule in English."""
        return english(self.refusals[player].to_dict())

    def item(self, player: str, label: str) -> dict:
        """The menu item with this id, or the first one with this label."""
        found = [i for i in self.menu_items(player) if label in (i["id"], i["label"])]
        assert found, f"no menu item {label!r} for {player}"
        return found[0]

    def tap(self, player: str, label: str) -> Decision | Rejected | None:
        """Tap a button as the phone posts it: its move or intent as the game's codec wrote it."""
        item = self.item(player, label)
        if item["intent"] is not None:
            intent = GAME.codec.read(item["intent"], GAME.intents)
            self.outcome = self.sim.choose(player, item["node"], intent)
            return self.outcome.refusal
        return self.act(player, GAME.codec.read(item["action"], GAME.moves))

    def panel(self, title: str, player: str | None = None) -> dict:
        return next(panel for panel in self.view(player)["panels"] if panel["title"].startswith(title))

    def replays(self) -> bool:
        """A hub restart rebuilds the same state from the log, without asking the rules."""
        return replays(self.session)


def job(data: dict) -> Any:
    """A job written as a phone posts it."""
    return GAME.codec.read(data, GAME.intents)


# --- set-up ----------------------------------------------------------------------------------------------


def test_the_registry_finds_the_referee_and_it_refuses_tables_it_cannot_play():
    referee = referee_for(default_setup("sd", players=3, game="space-dealer"))
    assert isinstance(referee, SpaceDealerReferee) and referee.experienced
    assert not referee_for(default_setup("sd", players=3, game="space-dealer", variant="basic")).experienced
    with pytest.raises(ConfigError, match="no variant"):
        referee_for(default_setup("sd", players=3, game="space-dealer", variant="turbo"))
    with pytest.raises(ConfigError, match="3 to 8 players"):
        referee_for(default_setup("sd", players=2, game="space-dealer"))
    with pytest.raises(ConfigError, match="Robot Factory"):
        referee_for(default_setup("sd", players=3, timers=4, game="space-dealer"))


def test_the_seeded_setup_is_the_engines():
    t = Table()
    assert t.game == replace(setup(PLAYERS, seed=0), nodes=t.game.nodes)
    assert [(n.player, n.number, n.node) for n in t.game.nodes] == [
        (s.player, s.index, s.node) for s in t.setup.seats
    ]
    assert t.view()["summary"].endswith("waiting for the master clock")
    assert {i["group"] for i in t.menu_items("red")} == {
        "Start (secret until the clock starts): Generator and first Mine"
    }
    assert Table(setup(PLAYERS, seed=1)).session.player_snapshot("red")["menu"] == []  # laid out by hand


# --- legal and illegal flips -----------------------------------------------------------------------------

ACCEPTED = [
    ("raise the tech level", "red-1", RAISE),
    ("use the Mine", "red-1", A.UseCard(card="mine-yellow-1")),
    ("fly the empty ship anywhere", "red-2", A.MoveShip(ship="red", to=3)),
    ("discard a planned card", "yellow-2", A.DiscardCard(card="multi-mine-1")),
    ("build on a powered unit", "yellow-1", A.BuildCard(card="multi-mine-1", x=-1)),
    ("build a Generator on the free side", "green-1", A.BuildCard(card="generator-2", x=2)),
]


def _planned() -> GameState:
    game = plan(setup(PLAYERS, seed=0), "yellow", "multi-mine-1")
    green = game.player("green")
    return game.with_player(replace(green, stack=green.stack[:-2], planning=("generator-2",)))


@pytest.mark.parametrize(("what", "node", "job"), ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_legal_flips_start_the_job(what, node, job):
    t = Table(_planned())
    t.start()
    assert t.flip(node, job) == {"verdict": "accepted", "reason": "", "seq": 1}
    seat = t.setup.seat_of(node)
    timer = t.game.player(seat.player).timers[seat.index - 1]
    assert timer.status is TimerStatus.ACTIVE and timer.job is not None
    assert node not in t.session.table.intents  # a job is chosen anew for every flip
    assert t.replays()


def _started(t: Table) -> None:
    t.start()


def _raising(t: Table) -> None:
    t.start()
    assert t.flip("red-1", RAISE)["verdict"] == "accepted"


ILLEGAL = [
    ("before the master clock", lambda t: None, "red-1", RAISE, "The game has not started"),
    ("without a job", _started, "red-1", None, "Choose a job for timer 1 on your phone"),
    (
        "a card not planned",
        _started,
        "red-1",
        A.BuildCard(card="depot-3", x=-1),
        "Only cards in your planning area can be built",
    ),
    (
        "an unpowered build site",
        _started,
        "yellow-1",
        A.BuildCard(card="multi-mine-1", x=4),
        "must stand on a connection supplied by a power plant",
    ),
    (
        "the order row over a card",
        _started,
        "yellow-1",
        A.BuildCard(card="multi-mine-1", x=-2),
        "never in the order row",
    ),
    ("a used timer space", _raising, "red-2", RAISE, "Another timer already stands on that timer space"),
    ("a timer still running", _raising, "red-1", RAISE, "Timer 1 is still running its job"),
    (
        "a card without a timer space",
        _started,
        "red-1",
        A.UseCard(card="generator-3"),
        "A timer can only be used on a card in your action row",
    ),
    (
        "somebody else's ship",
        _started,
        "red-1",
        A.MoveShip(ship="green", to=1),
        "You can only move a spaceship you control",
    ),
]


@pytest.mark.parametrize(("what", "before", "node", "job", "reason"), ILLEGAL, ids=[i[0] for i in ILLEGAL])
def test_illegal_flips_are_refused_with_the_rule(what, before, node, job, reason):
    t = Table(_planned())
    before(t)
    game = t.game
    ack = t.flip(node, job, ran_out=what != "a timer still running")
    assert ack["verdict"] == "rejected" and reason in ack["reason"]
    refusal = t.refusal(t.setup.seat_of(node).player)
    assert refusal["reason"] == ack["reason"]
    assert refusal["rule"].startswith("rulebook")  # every reason names its rule
    assert t.game == game
    assert t.replays()


def test_a_job_the_rules_do_not_know_is_refused_when_the_phone_chooses_it():
    t = Table()
    t.start()
    refused = t.sim.choose("red", "red-1", A.PlayCard("depot-3")).refusal  # a move, not a job
    assert isinstance(refused, Rejected)
    assert "Choose one of the jobs your phone offers for timer 1" in str(refused.reason)
    assert str(refused.rule).startswith("rulebook 3.2")
    assert "red-1" not in t.session.table.intents
    assert "Choose a job for timer 1" in t.flip("red-1")["reason"]


def test_a_half_run_timer_is_refused_and_its_sand_running_out_changes_nothing():
    t = Table()
    t.start()
    ack = t.flip("red-1", RAISE, ran_out=False)
    assert ack["verdict"] == "rejected" and "Let the sand of timer 1 run through" in ack["reason"]
    t.run(20)
    t.empty("red-1")
    assert t.game == replace(setup(PLAYERS, seed=0), nodes=t.game.nodes)


def test_a_third_timer_is_refused_without_a_robot_factory():
    t = Table(timers=3)
    t.start()
    ack = t.flip("red-3", RAISE)
    assert ack["verdict"] == "rejected"
    assert "Timer 3 works only while you have a Robot Factory built" in ack["reason"]
    assert t.refusal("red")["rule"].startswith("rulebook 5.1b")


def test_a_build_over_a_rocket_blocked_card_is_refused_and_the_block_shows_on_the_dashboard():
    t = Table(plan(with_rocket(setup(PLAYERS, seed=0)), "red", "fusion-mine-yellow-2"))
    t.start()
    assert isinstance(t.tap("yellow", "rocket on red's yellow Mine"), Decision)
    assert t.panel("Sabotage and rocket blocks")["lines"] == ["red's yellow Mine blocked by yellow's rocket"]
    assert "yellow Mine at -2 (BLOCKED by yellow's rocket" in t.panel("Planets")["lines"][0]
    # a Fusion Mine lies across the action row only, but a blocked card cannot be built over
    ack = t.flip("red-2", A.BuildCard(card="fusion-mine-yellow-2", x=-2))
    assert ack["verdict"] == "rejected"
    assert ack["reason"] == "The card Mine is blocked by an Interstellar Rocket and cannot be built over"
    assert t.refusal("red")["rule"] == "rulebook 5.1e, Interstellar Rocket"
    # a rocket block can only be cleared by running a timer there; the Mine is not used
    assert t.flip("red-1", A.UseCard(card="mine-yellow-1"))["verdict"] == "accepted"
    assert "only clears the rocket block" in t.panel("Players")["rows"][0][2]
    t.run()
    t.empty("red-1")
    assert t.game.ship("red").cargo == Goods()
    assert t.panel("Sabotage and rocket blocks")["lines"] == ["no attacks"]
    assert t.flip("red-2", A.BuildCard(card="fusion-mine-yellow-2", x=-2))["verdict"] == "accepted"
    assert t.replays()


# --- a job from the phone, applied when the sand runs out ------------------------------------------------


def test_a_job_tapped_on_the_phone_starts_at_the_flip_and_applies_when_the_sand_runs_out():
    t = Table()
    t.start()
    menu = t.menu("red")
    assert menu["t1:RaiseTechLevel"]["intent"] == {"@": "RaiseTechLevel"}
    assert menu["t1:RaiseTechLevel"]["node"] == "red-1"
    assert not menu["t1:RaiseTechLevel"]["selected"]
    assert t.tap("red", "t1:RaiseTechLevel") is None
    assert t.menu("red")["t1:RaiseTechLevel"]["selected"]
    assert t.tap("red", "t2:UseCard:mine-yellow-1::::") is None
    assert t.flip("red-1")["verdict"] == "accepted"
    assert t.flip("red-2")["verdict"] == "accepted"
    assert t.game.player("red").tech_level == 1
    assert t.panel("My timers", "red")["lines"] == [
        "Timer 1: running: raise the tech level",
        "Timer 2: running: use yellow Mine",
    ]
    t.run(60)
    t.empty("red-1", "red-2")
    red = t.game.player("red")
    assert red.tech_level == 2 and all(tm.status is TimerStatus.INACTIVE for tm in red.timers)
    assert t.game.ship("red").cargo == Goods.of(yellow=1)  # no Depot yet: into the ship at the planet
    assert "red reached tech level 2" in t.panel("Latest")["lines"]
    # the next free actions: draw two TechLevel 2 cards and keep one
    assert isinstance(t.tap("red", "draw 2 TechLevel 2 cards"), Decision)
    assert isinstance(t.tap("red", "keep Robot Factory"), Decision)
    assert t.game.player("red").planning == ("robot-factory-1",)
    assert t.game.hub.stack2[-1] == "multi-mine-1"
    assert t.replays()


def test_a_missed_empty_report_is_made_up_by_the_next_full_flip():
    t = Table()
    t.start()
    assert t.flip("red-1", RAISE)["verdict"] == "accepted"
    t.run(61)
    assert t.flip("red-1", A.UseCard(card="mine-yellow-1"))["verdict"] == "accepted"
    assert t.game.player("red").tech_level == 2
    assert [type(a).__name__ for a in logged_actions(t.session)][-2:] == [
        "TimerRanOut",
        "StartJob",
    ]
    assert t.replays()


def test_free_actions_from_the_phone_use_table_timer_numbers_and_act_for_the_phone_owner_only():
    t = Table()
    assert str(t.act("red", A.PlayCard(card="depot-3"))).startswith("The game has not started")
    t.start()
    assert isinstance(t.act("red", A.PlayCard(card="depot-3")), Decision)
    # a move never names the acting player: the phone's owner acts, and only with what is theirs
    refused = t.act("red", A.ReturnGoods(A.InShip("green"), Goods.of(red=1)))
    assert isinstance(refused, Rejected) and "from your own spaceship" in str(refused.reason)
    refused = t.act("red", A.StartJob("red", 1, RAISE))
    assert isinstance(refused, Rejected) and "Jobs start by flipping a sandtimer" in str(refused.reason)
    refused = t.act("red", A.Sabotage(target_player="green", target_timer=0))
    assert isinstance(refused, Rejected) and "Sabotage Probe" in str(refused.reason)
    assert isinstance(t.act("red", A.PlayCard(card="mine-blue-2")), Decision)
    refused = t.act("red", A.PlayCard(card="mine-green-3"))
    assert str(refused) == "Your planning area has no free space (rulebook 3.1, Playing Technology Cards)"
    assert t.refusal("red")["reason"] == str(refused.reason)
    assert t.refusal("red")["rule"] == str(refused.rule)
    assert t.game.player("red").planning == ("depot-3", "mine-blue-2")
    assert t.replays()


# --- sabotage on hardware --------------------------------------------------------------------------------


def test_a_sabotage_turns_the_target_node_red_and_voids_its_effect():
    t = Table(with_probe(setup(PLAYERS, seed=0)))
    t.start()
    assert "sabotage red's timer 1 (raise the tech level)" not in {
        i["label"] for i in t.menu("yellow").values()
    }
    refused = t.act("yellow", A.Sabotage(target_player="red", target_timer=0))
    assert isinstance(refused, Rejected) and "A Sabotage Probe attacks only an active timer" in str(
        refused.reason
    )
    assert t.flip("red-1", RAISE)["verdict"] == "accepted"
    step = t.tap("yellow", "sabotage red's timer 1 (raise the tech level)")
    assert isinstance(step, Decision) and step.show == (("red-1", "sabotaged"),)
    assert list(t.outcome.commands) == [Show("red-1", "sabotaged")]  # the hub lights it red
    assert t.game.player("red").timers[0].sabotaged_by == "yellow"
    assert (
        "red's timer 1 sabotaged by yellow: runs out with no effect"
        in t.panel("Sabotage and rocket blocks")["lines"]
    )
    assert "SABOTAGED by yellow" in t.panel("My timers", "red")["lines"][0]
    pool = t.game.attack_pool
    t.run(60)
    t.empty("red-1")
    red = t.game.player("red")
    assert red.tech_level == 1 and red.timers[0].status is TimerStatus.INACTIVE  # the effect is void
    assert t.game.attack_pool == pool + 1  # the marker is back in the pool
    assert "red timer 1 ran out sabotaged by yellow: no effect" in t.panel("Latest")["lines"]
    assert t.flip("red-1", RAISE)["verdict"] == "accepted"  # the timer can be used again
    assert t.replays()


# --- the Robot Factory's third timer ---------------------------------------------------------------------


def test_a_robot_factory_asks_for_a_third_node_which_the_next_unseated_flip_becomes():
    t = Table()
    t.start()
    assert t.flip("red-1", RAISE)["verdict"] == "accepted"
    t.run()
    t.empty("red-1")
    t.tap("red", "draw 2 TechLevel 2 cards")
    t.tap("red", "keep Robot Factory")
    assert t.flip("red-1", A.BuildCard(card="robot-factory-1", x=-1))["verdict"] == "accepted"
    assert t.session.table.seat_request is None
    t.run()
    t.empty("red-1")
    assert t.session.table.seat_request == ("red", 3)
    assert t.session.snapshot()["seat_request"] == {"player": "red", "index": 3}
    assert len(t.game.player("red").timers) == 3
    assert "red: flip a new sandtimer to pair it as timer 3" in t.panel("Latest")["lines"]
    # the next node flipped that has no seat becomes red's timer 3
    ack = t.flip("spare-7")
    assert [type(c).__name__ for c in t.outcome.commands] == ["Ack", "Show", "Configure"]
    assert ack["verdict"] == "accepted"
    assert t.session.setup.seat_of("spare-7").index == 3 and t.session.table.seat_request is None
    assert "Timer 3" not in {i["group"].split(":")[0] for i in t.menu("red").values()}
    # its pairing flip runs out: now the referee knows the node and offers its jobs
    t.run()
    t.empty("spare-7")
    assert t.session.state.game.node_of("red", 3) == "spare-7"
    assert t.menu("red")["t3:RaiseTechLevel"]["node"] == "spare-7"
    assert t.flip("spare-7", RAISE)["verdict"] == "accepted"
    assert t.game.player("red").timers[2].status is TimerStatus.ACTIVE
    t.run()
    t.empty("spare-7")
    assert t.game.player("red").tech_level == 3
    assert replays(t.session)
    restarted = TableSession(t.setup, clock=t.clock, log=t.session.log, referee=t.referee())
    assert restarted.state == t.session.state and restarted.setup.seat_of("spare-7") is not None


# --- the end ------------------------------------------------------------------------------------------------


def _last_marker() -> GameState:
    """Red has placed 9 markers and waits at yellow's planet with the goods of yellow's Mine order."""
    game = setup(PLAYERS, seed=0)
    game = game.with_player(replace(game.player("red"), markers_placed=9))
    return cargo(game, "red", 2, red=1, yellow=1)


def test_the_last_victory_point_marker_ends_the_game_and_running_timers_complete():
    t = Table(_last_marker())
    t.start()
    assert t.flip("green-1", A.UseCard(card="mine-red-7"))["verdict"] == "accepted"
    assert t.panel("Orbital ring")["rows"][2] == [
        2,
        "yellow's planet",
        "red, yellow",
        "-",
        "red+yellow for 2/1",
    ]
    assert isinstance(t.tap("red", "deliver red+yellow for 2/1 (yellow's red Mine)"), Decision)
    assert t.game.phase is Phase.ENDING and t.game.player("red").markers_placed == 10
    assert t.panel("Orbital ring")["rows"][2] == [2, "yellow's planet", "red, yellow", "red", "-"]
    assert t.panel("Victory points")["rows"][0] == [1, "red", 2, 10, 0]
    assert t.session.snapshot()["scores"] is None  # green's timer still runs
    ack = t.flip("yellow-1", RAISE)
    assert ack["verdict"] == "rejected" and "The game has ended" in ack["reason"]
    refused = t.act("yellow", A.PlayCard(card="depot-2"))
    assert isinstance(refused, Rejected) and "The game has ended" in str(refused.reason)
    t.run()
    t.empty("green-1")
    assert t.game.phase is Phase.OVER and t.game.ship("green").cargo == Goods.of(red=1)  # it was still used
    scores = t.session.snapshot()["scores"]
    assert scores == final_score(t.game).to_json()
    # (the 9 markers laid out by hand carry no orders: the score counts the one satisfied here)
    assert scores == {
        "players": {
            "red": {"total": 2, "markers": 1},
            "yellow": {"total": 1, "markers": 0},
            "green": {"total": 0, "markers": 0},
        },
        "ranking": ["red", "yellow", "green"],
        "winners": ["red"],
    }
    assert t.session.player_snapshot("red")["menu"] == []
    assert t.view()["summary"].startswith("Space Dealer: game over \u00b7 red wins")
    assert t.replays()


def test_the_master_clock_running_out_ends_the_game():
    t = Table()
    t.start()
    assert t.flip("red-1", RAISE)["verdict"] == "accepted"
    t.run(30 * 60 - 1)
    assert t.game.phase is Phase.RUNNING
    t.run(1)
    assert t.game.phase is Phase.ENDING
    assert t.session.snapshot()["scores"] is None
    ack = t.flip("red-2", RAISE)
    assert (
        ack["verdict"] == "rejected" and "master clock has run out" in ack["reason"]
    )  # the session's own rule
    t.empty("red-1")
    assert t.game.phase is Phase.OVER and t.game.player("red").tech_level == 2
    assert t.session.snapshot()["scores"]["winners"] == PLAYERS  # nobody scored: a shared win
    assert t.replays()


def test_the_host_ends_the_game_early_and_it_is_scored_as_it_stands_everywhere():
    game = cargo(setup(PLAYERS, seed=0), "red", 2, red=1, yellow=1)  # red waits at yellow's planet
    t = Table(game)
    t.start()
    assert isinstance(t.tap("red", "deliver red+yellow for 2/1 (yellow's red Mine)"), Decision)
    assert t.flip("green-1", A.UseCard(card="mine-red-7"))["verdict"] == "accepted"
    assert t.flip("red-1", RAISE)["verdict"] == "accepted"
    t.run(20)
    ended = t.sim.clock_command("abort")
    assert ended.refusal is None and t.ctx.ended_by == "host"
    assert t.game.phase is Phase.OVER  # at once: the running timers are stopped, not completed
    assert all(tm.status is TimerStatus.INACTIVE for p in t.game.players for tm in p.timers)
    scores = t.session.snapshot()["scores"]
    assert scores == final_score(t.game).to_json()
    assert scores["winners"] == ["red"] and scores["players"]["yellow"] == {"total": 1, "markers": 0}
    assert t.view()["summary"].startswith("Space Dealer: game over \u00b7 red wins")
    assert "the game ends: the host ended it early, it is scored as it stands" in t.panel("Latest")["lines"]
    assert t.session.player_snapshot("red")["menu"] == []
    # the nodes that were running report their sand later: nothing changes any more
    t.run(40)
    t.empty("green-1", "red-1")
    assert t.game.player("red").tech_level == 1 and t.game.ship("green").cargo == Goods()
    assert t.flip("yellow-1", RAISE)["verdict"] == "rejected"
    assert t.session.snapshot()["scores"] == scores
    assert t.replays()


def test_ending_a_finished_game_early_changes_nothing():
    t = Table()
    referee = t.session.referee
    over = referee.game_ended_early(t.game, t.ctx)
    assert isinstance(over, Decision) and over.state.phase is Phase.OVER
    again = referee.game_ended_early(over.state, t.ctx)
    assert isinstance(again, Decision) and again.state is over.state and not again.changed


# --- pages --------------------------------------------------------------------------------------------------


def test_the_dashboard_and_the_phone_pages():
    t = Table()
    t.start()
    view = t.view()
    assert view["summary"] == "Space Dealer (experienced rules): running \u00b7 red 0, yellow 0, green 0"
    assert [panel["title"] for panel in view["panels"]] == [
        "Orbital ring (victory-point track)",
        "Victory points",
        "Players",
        "Sabotage and rocket blocks",
        "Planets",
        "Common pool",
        "Latest events",
    ]
    picture = view["picture"]  # the dashboard draws it (static/pictures/space-dealer.js)
    assert len(picture["ring"]) == len(t.panel("Orbital ring")["rows"])
    assert [f["owner"] for f in picture["ring"][:2]] == ["red", None]
    ring = t.panel("Orbital ring")["rows"]
    assert [row[1] for row in ring] == ["red's planet", "neutral planet"] * 1 + [
        "yellow's planet",
        "neutral planet",
        "green's planet",
        "neutral planet",
    ]
    assert ring[0][2] == "red" and ring[1][4] == "blue+green for 2"  # gizzi-2 lies at field 1
    mine = t.view("red")
    assert [panel["title"] for panel in mine["panels"]][:5] == [
        "My timers",
        "My planning area",
        "My cards",
        "My goods",
        "My planet",
    ]
    assert t.panel("My planning area", "red")["lines"] == ["0 of 2 spaces used"]
    assert t.panel("My goods", "red")["lines"] == ["Spaceship at field 0 (red's planet): none (0/8)"]
    groups = {item["group"] for item in t.menu_items("red")}
    assert {"Timer 1: next job", "Timer 2: next job", "Plan a card"} <= groups
    basic = Table(variant="basic")
    basic.start()
    assert "Space Dealer (basic game)" in basic.view()["summary"]
    assert not any(
        item["intent"] and item["intent"]["@"] == "DiscardCard"
        for item in basic.session.player_snapshot("red")["menu"]
    )


def _groups(items: list[dict]) -> list[str]:
    """The menu's groups in the order the phone shows them."""
    return list(dict.fromkeys(i["group"] for i in items))


def test_the_phone_lists_what_the_player_does_next_first():
    t = Table(cargo(setup(PLAYERS, seed=0), "red", 2, red=1, yellow=1))  # red's ship waits at yellow's planet
    t.start()
    items = t.menu_items("red")
    assert _groups(items)[:3] == ["Orders", "Timer 1: next job", "Timer 2: next job"]
    assert items[0]["label"] == "deliver red+yellow for 2/1 (yellow's red Mine)"  # points first
    timer_1 = [i["label"] for i in items if i["group"] == "Timer 1: next job"]
    # the usual jobs first: use the Mine, fly to a neighbour, raise the tech level; the far flights after
    assert timer_1[:2] == ["use yellow Mine", "fly the spaceship to field 3 (neutral planet)"]
    assert timer_1.index("raise the tech level") < 4
    assert _groups(items)[3:] == ["Plan a card", "Goods"]
    # a finished build waiting for its site comes before everything else
    game = plan(plan(setup(PLAYERS, seed=0), "red", "multi-mine-1"), "red", "generator-3")
    t = Table(game)
    t.start()
    assert t.flip("red-1", A.BuildCard(card="multi-mine-1", x=-1))["verdict"] == "accepted"
    assert t.flip("red-2", A.BuildCard(card="generator-3"))["verdict"] == "accepted"  # no site yet
    t.run()
    t.empty("red-1", "red-2")
    items = t.menu_items("red")
    assert _groups(items)[0] == "Timer 2: place Generator"
    assert [i["label"] for i in items][:2] == ["build right of the planet", "give the build up"]


def test_the_picture_shows_the_ring_and_each_planet_as_the_game_stands():
    game = plan(with_probe(cargo(setup(PLAYERS, seed=0), "red", 2, red=1, yellow=1)), "red", "multi-mine-1")
    t = Table(game)
    t.start()
    assert isinstance(t.tap("red", "deliver red+yellow for 2/1 (yellow's red Mine)"), Decision)
    assert t.flip("red-1", A.BuildCard(card="multi-mine-1", x=-1))["verdict"] == "accepted"
    assert t.flip("green-2", A.MoveShip(ship="green", to=3))["verdict"] == "accepted"
    assert isinstance(t.tap("yellow", "sabotage red's timer 1 (build Multi-Mine at unit -1)"), Decision)
    picture = t.view()["picture"]
    ring = picture["ring"]
    assert [f["owner"] for f in ring] == ["red", None, "yellow", None, "green", None]
    assert [f["label"] for f in ring[:2]] == ["red's planet", "neutral planet"]
    assert ring[2]["markers"] == ["red"]  # red's victory-point marker on yellow's order
    assert [(s["id"], s["arriving"]) for s in ring[2]["ships"]] == [("red", False), ("yellow", False)]
    assert [(s["id"], s["arriving"]) for s in ring[3]["ships"]] == [("green", True)]
    assert ring[1]["order"]["text"] == "blue+green for 2" and ring[1]["order"]["points"] == [2]
    red, yellow, green = picture["players"]
    assert (red["name"], red["points"], red["markers_left"]) == ("red", 2, 9)
    assert yellow["points"] == 1 and red["tech_label"] == "Tech level 1"
    assert red["plants"][0]["cards"] == [{"card": "generator-3", "name": "Generator"}]
    assert [(c["card"], c["x"], c["name"]) for c in red["cards"]] == [("mine-yellow-1", -2, "yellow Mine")]
    assert red["planning"] == [{"card": "multi-mine-1", "name": "Multi-Mine", "timer": 1}]
    timer = red["timers"][0]
    assert (timer["status"], timer["on"], timer["card"], timer["sabotaged_by"], timer["node"]) == (
        "active",
        "planning",
        "multi-mine-1",
        "yellow",
        "red-1",
    )
    assert red["timers"][1]["status"] == "inactive" and red["timers"][1]["on"] == "below"
    assert green["ship"]["destination"] == 3 and green["ship"]["timer"] == 2
    assert [c["attack_markers"] for c in yellow["cards"] if c["card"] == "sabotage-probe-1"] == [0]
    assert red["ship"]["cargo"] == [] and yellow["ship"]["field"] == 2
    assert {c["colour"]: c["count"] for c in picture["pool"]} == dict(t.game.pool.items)


def test_every_word_on_the_pages_and_the_phones_is_in_spanish_and_german():
    t = Table(plan(with_probe(with_rocket(setup(PLAYERS, seed=0), "green")), "red", "multi-mine-1"))
    snapshots = [t.session.snapshot(), *(t.session.player_snapshot(p) for p in PLAYERS)]  # before the clock
    t.start()
    assert isinstance(t.tap("green", "rocket on red's yellow Mine"), Decision)
    assert t.flip("red-1", A.BuildCard(card="multi-mine-1", x=-1))["verdict"] == "accepted"
    assert t.flip("red-2", A.MoveShip(ship="red", to=1))["verdict"] == "accepted"
    assert t.flip("yellow-2", RAISE)["verdict"] == "accepted"
    assert isinstance(t.tap("yellow", "sabotage red's timer 1 (build Multi-Mine at unit -1)"), Decision)
    t.flip("green-1", A.UseCard(card="generator-4"))  # refused: no timer space
    t.act("red", A.PlayCard(card="nothing"))  # refused
    t.run()
    t.empty("red-1", "red-2", "yellow-2")
    snapshots += [t.session.snapshot(), *(t.session.player_snapshot(p) for p in PLAYERS)]
    t.sim.clock_command("abort")
    snapshots += [t.session.snapshot(), *(t.session.player_snapshot(p) for p in PLAYERS)]
    words = [{k: s[k] for k in ("view", "menu", "timers") if k in s} for s in snapshots]
    words += [refusal.to_dict() for refusal in t.refusals.values()]
    assert len(t.refusals) == 2 and untranslated(words) == []
    spanish = {p["title"]: p for p in render_tree(snapshots[4]["view"], "es")["panels"]}
    assert "Puntos de victoria" in spanish
    assert "Mina (amarillo) en -2 (BLOQUEADA por el cohete de green" in " ".join(spanish["Planetas"]["lines"])


# --- a build that lost its site, undo ---------------------------------------------------------------------


def test_a_build_whose_site_was_taken_waits_for_a_site_or_is_given_up_on_the_phone():
    game = plan(plan(setup(PLAYERS, seed=0), "red", "multi-mine-1"), "red", "mining-complex-red-1")
    t = Table(game)
    t.start()
    assert t.flip("red-1", A.BuildCard(card="multi-mine-1", x=-1))["verdict"] == "accepted"
    assert t.flip("red-2", A.BuildCard(card="mining-complex-red-1", x=-1))["verdict"] == "accepted"
    t.run()
    t.empty("red-1", "red-2")
    assert t.game.player("red").timers[1].status is TimerStatus.USABLE
    assert (
        t.panel("My timers", "red")["lines"][1]
        == "Timer 2: done: build red Mining Complex at unit -1, choose a build site"
    )
    ack = t.flip("red-2", RAISE)
    assert (
        ack["verdict"] == "rejected"
        and "still holds the finished build of red Mining Complex" in ack["reason"]
    )
    group = {i["label"]: i for i in t.menu_items("red") if i["group"] == "Timer 2: place red Mining Complex"}
    assert list(group) == ["give the build up"]  # no powered unit is free
    assert group["give the build up"]["action"] == {"@": "AbandonJob", "timer": 1}
    assert isinstance(t.tap("red", "give the build up"), Decision)
    red = t.game.player("red")
    assert red.timers[1].status is TimerStatus.INACTIVE and red.planning == ("mining-complex-red-1",)
    assert t.replays()


def test_undo_takes_back_a_free_action_and_the_log_still_replays():
    t = Table()
    t.start()
    assert isinstance(t.act("red", A.PlayCard(card="depot-3")), Decision)
    assert str(undo_offer(t.session.table)) == "red planned Depot"
    assert t.sim.undo().refusal is None
    assert t.game.player("red").planning == ()
    assert t.replays()


# --- the secret start choice -------------------------------------------------------------------------------


def test_before_the_clock_each_player_picks_the_generator_side_and_first_mine_in_secret():
    t = Table()
    menu = t.menu_items("red")
    assert [i["label"] for i in menu] == [
        "Generator left, blue Mine",
        "Generator left, green Mine",
        "Generator left, yellow Mine",
        "Generator right, blue Mine",
        "Generator right, green Mine",
        "Generator right, yellow Mine",
    ]
    assert [i["label"] for i in menu if i["selected"]] == ["Generator left, yellow Mine"]  # as dealt
    assert isinstance(t.tap("red", "Generator right, blue Mine"), Decision)
    assert isinstance(t.tap("green", "Generator left, green Mine"), Decision)
    red, green = t.game.player("red"), t.game.player("green")
    assert red.plants == ((), ("generator-3",)) and [(b.card, b.x) for b in red.built] == [("mine-blue-2", 2)]
    assert "mine-yellow-1" in red.stack
    assert [b.card for b in green.built] == ["mine-green-9"]
    assert [i["label"] for i in t.menu_items("red") if i["selected"]] == ["Generator right, blue Mine"]
    assert t.panel("Planets")["lines"] == [
        "red: start chosen (secret until the master clock starts)",
        "yellow: choosing where to start (secret until the master clock starts)",
        "green: start chosen (secret until the master clock starts)",
    ]
    refused = t.act("yellow", A.ChooseStart(side="up", mine="red"))  # type: ignore[arg-type]
    assert str(refused) == "yellow: the Generator goes left or right of the planet (rulebook 2, Setup)"
    t.start()
    assert (
        t.panel("Planets")["lines"][0] == "red: right: Generator; blue Mine at 2 (order blue+green for 2/1)"
    )
    refused = t.act("red", A.ChooseStart(side="left", mine="green"))
    assert isinstance(refused, Rejected) and "before the game starts" in str(refused.reason)
    assert t.flip("red-1", A.UseCard(card="mine-blue-2"))["verdict"] == "accepted"
    assert t.replays()


# --- random play through the session ------------------------------------------------------------------------


def _goods(game: GameState) -> Counter:
    total: Counter = Counter()
    for bag in game.all_goods():
        total.update(bag.as_dict())
    return total


@pytest.mark.parametrize("seed", range(6))
def test_random_play_from_the_phones_and_nodes_replays_and_conserves_goods(seed, caplog):
    """Random taps of menu buttons, flips and sand running out: every step is replayable from the log."""
    import random

    rng = random.Random(seed)
    t = Table(variant="experienced" if seed % 2 else "basic")
    goods = _goods(t.game)
    for player in PLAYERS:
        t.tap(player, rng.choice(list(t.menu(player))))
    t.start()
    flipped: dict[str, float] = {}  # node -> when its sand started running
    for _ in range(120):
        roll = rng.random()
        if roll < 0.45:
            player = rng.choice(PLAYERS)
            menu = list(t.menu(player).values())
            if menu:
                t.tap(player, rng.choice(menu)["id"])
        elif roll < 0.8:
            node = rng.choice([s.node for s in t.session.setup.seats])
            if node in flipped:
                continue  # a node is flipped once its sand has run out
            t.flip(node)
            flipped[node] = t.clock.now_s()
        else:
            t.run(20)
            for node, at in list(flipped.items()):
                if t.clock.now_s() - at >= 60:
                    t.empty(node)
                    del flipped[node]
        if t.session.table.seat_request is not None:  # a Robot Factory was built: pair a new node
            node = "extra-" + t.session.table.seat_request[0]
            t.flip(node)
            flipped[node] = t.clock.now_s()
        assert _goods(t.game) == goods
        assert all(s.cargo.total <= 8 for s in t.game.ships)
    assert t.game.phase is Phase.RUNNING
    accepted = logged_actions(t.session)
    assert len(accepted) > 20
    assert replays(t.session)
