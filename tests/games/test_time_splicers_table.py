"""Time Splicers on the hub: a real table on a fake clock (``companion.testing``), sandtimers as turn timers.

These tables deal from a layout with every card known, as the hub deck does;
``test_time_splicers_table_deck.py`` plays tables whose players shuffle their own box.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from companion.errors import ConfigError
from companion.games import referee_for
from companion.games.time_splicers import GAME
from companion.games.time_splicers.engine import all_card_ids
from companion.games.time_splicers.model import (
    EnterPortal,
    ForfeitTurn,
    GameStopped,
    Move,
    PlaceCard,
    UseQuantumTunnel,
)
from companion.games.time_splicers.referee import SplicersReferee
from companion.games.time_splicers.setup import Layout, new_game
from companion.rules.context import Context
from companion.rules.outcome import Decision, Rejected
from companion.rules.setup import Seat, default_setup, make_setup
from companion.rules.text import Text, from_json
from companion.rules.turns import StartTurn, TimeOut
from companion.table import events as ev
from companion.table.log import EventLog
from companion.testing import SimulatedTable, acks
from tests.conftest import replays

SAND_S = 60.0

LAYOUT = Layout(
    start="red-5",
    hands={
        "ana": ("red-6", "blue-5", "quantum-tunnel-1", "green-9"),
        "ben": ("red-3", "yellow-2", "time-freeze-1", "blue-12"),
    },
    deck_top=("green-1", "green-2", "green-3", "green-4", "yellow-7", "yellow-8"),
)


def english(value: Any) -> Any:
    """What a page shows in English for a text from the hub: a message as JSON, a Text or a plain string."""
    if isinstance(value, Text):
        return str(value)
    if isinstance(value, dict):
        return str(from_json(value))
    return value


class Table:
    """A :class:`SimulatedTable` and what the tests read of it: menus, notes and the log's actions."""

    def __init__(self, sim: SimulatedTable) -> None:
        self.sim = sim
        for node in sim.nodes:
            sim.hello(node)

    @property
    def session(self):
        return self.sim.session

    @property
    def game(self):
        return self.sim.game

    @property
    def ctx(self) -> Context:
        return self.sim.ctx

    def flip(self, node: str) -> tuple[str, str]:
        """(verdict, reason) of the flip's ack."""
        [answer] = acks(self.sim.flip(node))
        return answer

    def turn(self, player: str) -> None:
        """``player`` starts their turn the way a table does: the last turn's sand has run through, then
        they flip their timer 1 (a sandtimer flipped with its sand below starts full again)."""
        assert not self.ctx.turn_open
        self.sim.advance(SAND_S)
        assert self.flip(f"{player}-1") == ("accepted", "")

    def tap(self, player: str, action: Any) -> Rejected | None:
        """The refusal of a tap, or None when the table took it."""
        return self.sim.tap(player, action).refusal

    def menu(self, player: str) -> dict[str, Any]:
        return {item.id: item for item in self.sim.menu(player)}

    def labels(self, player: str, prefix: str = "") -> dict[str, tuple[str, str]]:
        """The player's menu in English: id -> (group, label), for the ids starting with ``prefix``."""
        return {k: (str(i.group), str(i.label)) for k, i in self.menu(player).items() if k.startswith(prefix)}

    def press(self, player: str, item_id: str) -> None:
        """Tap a button of the player's phone menu, as the page does."""
        refused = self.tap(player, self.menu(player)[item_id].action)
        assert refused is None, refused

    def summary(self) -> str:
        return english(self.session.snapshot()["view"]["summary"])

    def recent(self) -> str:
        """The dashboard's latest happening, in English."""
        return english(self.session.snapshot()["recent"][0]["text"])

    def refusal(self, player: str) -> tuple[str, str]:
        """The red message on ``player``'s phone, in English, and the rule it cites."""
        shown = self.session.player_snapshot(player)["refusal"]
        return english(shown["reason"]), english(shown.get("rule", ""))

    def steps(self) -> list[ev.GameStepped]:
        return [e for e in self.session.log.events() if isinstance(e, ev.GameStepped)]

    def acted(self) -> list[Any]:
        """The typed actions of every game step in the log, in order."""
        return [a for e in self.steps() for a in e.actions]

    def replays(self) -> bool:
        return replays(self.session)


def two_player_setup(*, turn_limit=True, timers=1, seed=7, variant=""):
    seats = tuple(Seat(name, i, f"{name}-{i}") for name in ("ana", "ben") for i in range(1, timers + 1))
    return make_setup(
        table="ts",
        game="time-splicers",
        players=("ana", "ben"),
        seats=seats,
        seed=seed,
        sand_s=SAND_S,
        turn_limit=turn_limit,
        variant=variant,
        deck="hub",
    )


def table_with(layout: Layout = LAYOUT, *, path: Path | None = None, **kw: Any) -> Table:
    """A table whose game starts from ``layout`` (its starting state is the log's, as a resumed hub's)."""
    setup = two_player_setup(**kw)
    start = new_game(setup.players, seed=setup.seed, config=GAME.data, layout=layout)
    log = EventLog(setup, path, fsync=False, start=start, rules=GAME.rules_version)
    return Table(SimulatedTable.resumed(log, start_s=100.0))


@pytest.fixture
def table():
    return table_with()


def test_the_hub_finds_the_referee_and_deals_from_the_seed():
    setup = two_player_setup(seed=3)
    referee = referee_for(setup)
    assert isinstance(referee, SplicersReferee)
    state = referee.start(setup)
    assert [len(p.hand) for p in state.players] == [4, 4] and state.deck_mode == "hub"
    assert referee.start(setup) == state


@pytest.mark.parametrize("players, message", [(1, "2 to 6 players"), (7, "2 to 6 players")])
def test_a_table_the_game_cannot_start_is_a_config_error(players, message):
    with pytest.raises(ConfigError, match=message):
        referee_for(default_setup("big", players=players, game="time-splicers"))


def test_an_unknown_variant_is_a_config_error():
    with pytest.raises(ConfigError, match="no variant 'intro'"):
        referee_for(two_player_setup(variant="intro"))


def test_the_first_flip_of_the_first_player_starts_the_game(table):
    assert table.menu("ana") == {}
    assert table.summary() == "Turn 1: ana's turn: flip timer 1 to start"
    assert table.flip("ana-1") == ("accepted", "")
    assert table.ctx.turn_open and table.acted() == [StartTurn("ana")]
    assert table.summary() == "Turn 1: ana is playing"


def test_a_flip_out_of_turn_is_refused_with_the_reason(table):
    answer, reason = table.flip("ben-1")
    assert answer == "rejected" and reason.startswith("It is ana's turn, not ben's")
    assert table.refusal("ben") == ("It is ana's turn, not ben's", "How to Play")
    assert table.acted() == []


def test_a_second_flip_during_the_turn_restarts_nothing(table):
    table.turn("ana")
    table.sim.advance(20)
    answer, reason = table.flip("ana-1")
    assert answer == "rejected" and "already running" in reason
    assert table.acted() == [StartTurn("ana")]


def test_a_second_timer_of_the_player_is_not_a_turn_timer():
    table = table_with(timers=2)
    answer, reason = table.flip("ana-2")
    assert reason.startswith("Timer 2 is not used in Time Splicers: flip timer 1 to start your turn")
    assert table.refusal("ana")[1] == "Turn timer"
    assert table.flip("ana-1")[0] == "accepted"


def test_phone_actions_need_the_turn_started_and_the_right_player(table):
    refused = table.tap("ana", PlaceCard("red-6"))
    assert str(refused.reason) == "Flip your timer 1 to start your turn first"
    table.turn("ana")
    assert str(table.tap("ben", EnterPortal()).reason) == "It is ana's turn, not ben's"
    assert str(table.tap("ana", PlaceCard("red-4")).reason) == "red 4 is not in your hand"
    refused = table.tap("ana", ForfeitTurn())  # the turn timer's own action is no button
    assert "Unknown action ForfeitTurn" in str(refused.reason)
    assert table.game.current_player == "ana" and table.ctx.turn_open


def test_the_menu_lists_the_legal_actions_from_the_engine(table):
    table.turn("ana")
    menu = table.menu("ana")
    assert list(table.labels("ana").values()) == [  # what ends the turn first, then the free actions
        ("Place a card", "red 6"),
        ("Place a card", "blue 5"),
        ("Time Portal", "step into the Time Portal (draw 2)"),
        ("Free: Time Jump token", "discard your hand, draw 4"),
    ]
    assert menu["place:red-6::"].action == PlaceCard("red-6")
    assert table.menu("ben") == {}
    hand = table.session.player_snapshot("ana")["view"]["panels"][0]
    assert hand["kind"] == "lines" and english(hand["title"]) == "Your hand (4)"
    assert [english(line) for line in hand["lines"]] == ["blue 5", "green 9", "Quantum Tunnel", "red 6"]


def test_a_placement_from_the_phone_moves_the_meeple_and_ends_the_turn(table):
    table.turn("ana")
    table.press("ana", "place:red-6::")
    game = table.game
    assert game.timelines[0].cards == ("red-5", "red-6") and game.player("ana").position == "red-6"
    assert game.current_player == "ben" and not table.ctx.turn_open
    assert len(game.player("ana").hand) == 4  # refilled to the hand minimum
    assert table.acted()[-1] == PlaceCard("red-6")
    assert table.steps()[-1].ends_turn
    assert "ana placed red 6" in table.recent()
    grid = table.session.snapshot()["view"]["panels"][0]
    assert grid["rows"][1][5:7] == ["5 ben", "6 ana"] and grid["highlight"] == [[1, 5]]  # whose turn
    assert table.flip("ana-1")[1].startswith("It is ben's turn, not ana's")


def test_free_actions_keep_the_turn_open_until_the_main_action(table):
    table.turn("ana")
    table.press("ana", "place:red-6::")
    table.turn("ben")
    table.press("ben", "place:red-3::")  # ben: red 3 left of red 5
    assert table.game.timelines[0].cards == ("red-3", "red-5", "red-6")
    table.turn("ana")
    assert "quantum_tunnel:red-3" in table.menu("ana")
    table.press("ana", "quantum_tunnel:red-3")  # a free action
    assert table.ctx.turn_open and table.game.current_player == "ana"
    assert not table.steps()[-1].ends_turn
    assert table.game.player("ana").position == "red-3"
    assert "move:red-5" in table.menu("ana") and "move:red-6" not in table.menu("ana")
    table.press("ana", "move:red-5")
    assert not table.ctx.turn_open and table.game.current_player == "ben"
    assert table.replays()


def test_the_time_portal_takes_two_turns(table):
    table.turn("ana")
    table.press("ana", "portal")
    assert table.game.player("ana").position == "time-portal"
    table.turn("ben")
    table.press("ben", "place:red-3::")
    table.turn("ana")
    menu = table.menu("ana")
    assert str(menu["move:red-3"].group) == "Leave the Time Portal" and "portal" not in menu
    assert "In the Time Portal: ana" in [
        english(line) for line in table.session.snapshot()["view"]["panels"][2]["lines"]
    ]
    table.press("ana", "move:red-3")
    assert table.game.player("ana").position == "red-3"
    assert not any(
        "In the Time Portal" in english(line)
        for line in table.session.snapshot()["view"]["panels"][2]["lines"]
    )
    assert table.replays()


def test_the_sand_running_out_forfeits_the_turn(table):
    table.turn("ana")
    table.sim.run_out("ana-1")
    assert table.acted()[-1] == TimeOut("ana") and table.steps()[-1].ends_turn
    game = table.game
    assert game.current_player == "ben" and game.player("ana").position == "red-5" and not table.ctx.turn_open
    assert "ana's time ran out: the turn is forfeited" in table.recent()
    assert table.flip("ben-1")[0] == "accepted"
    assert table.replays()


def test_without_a_turn_limit_the_sand_is_only_a_reminder():
    table = table_with(turn_limit=False)
    table.turn("ana")
    table.sim.run_out("ana-1")
    assert table.acted() == [StartTurn("ana")]
    assert table.game.current_player == "ana" and table.ctx.turn_open


def test_an_old_timer_running_out_during_another_turn_changes_nothing(table):
    table.turn("ana")
    table.press("ana", "place:red-6::")
    table.turn("ben")
    table.sim.run_out("ana-1")
    assert table.game.current_player == "ben" and table.ctx.turn_open


def test_the_menu_offers_each_collapse_choice():
    layout = Layout(
        start=None,
        timelines=(("red-4", "red-6", "red-7"),),
        positions={"ana": "red-4", "ben": "red-7"},
        hands={
            "ana": ("red-5", "green-9", "green-10", "green-11"),
            "ben": ("red-1", "red-2", "red-3", "blue-1"),
        },
    )
    table = table_with(layout)
    table.turn("ana")
    places = {k: label for k, (_, label) in table.labels("ana", "place:").items()}
    assert places == {"place:red-5:4:": "red 5, collapse 4-5-6", "place:red-5:5:": "red 5, collapse 5-6-7"}
    table.press("ana", "place:red-5:5:")
    assert table.game.timelines[0].cards == ("red-4",) and table.game.player("ana").crystals == 1
    assert {table.game.player(n).position for n in ("ana", "ben")} == {"red-4"}


def test_the_menu_asks_where_displaced_meeples_go():
    layout = Layout(
        start=None,
        timelines=(("red-4", "red-5"), ("blue-5",), ("green-5",)),
        positions={"ana": "red-5", "ben": "blue-5"},
        hands={
            "ana": ("red-6", "yellow-9", "yellow-10", "yellow-11"),
            "ben": ("red-1", "red-2", "red-3", "blue-1"),
        },
    )
    table = table_with(layout)
    table.turn("ana")
    places = {k: label for k, (_, label) in table.labels("ana", "place:red-6").items()}
    assert places == {
        "place:red-6::blue": "red 6, meeples to the blue Timeline",
        "place:red-6::green": "red 6, meeples to the green Timeline",
    }
    table.press("ana", "place:red-6::green")
    assert table.game.player("ana").position == "green-5"


def test_a_game_to_the_seventh_crystal_with_scores_and_replay():
    layout = Layout(
        start=None,
        timelines=(("red-4",), ("blue-5",)),
        positions={"ana": "red-4", "ben": "blue-5"},
        hands={
            "ana": ("red-5", "red-6", "yellow-9", "yellow-10"),
            "ben": ("blue-6", "green-5", "green-2", "green-3"),
        },
        deck_top=("yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5"),
        crystals={"ana": 6, "ben": 2},
    )
    table = table_with(layout)
    cards = sorted(all_card_ids(table.game))
    assert table.session.snapshot()["scores"] is None
    table.turn("ana")
    table.press("ana", "place:red-5::")  # red 4 5, ana on red 5
    table.turn("ben")
    table.press("ben", "place:green-5::")  # ben splices green 5 beside blue 5: blue is left empty, collapses
    assert table.game.player("ben").time_jump_tokens == 3  # a third 5 on the table: a fixed point in time
    assert [t.colour for t in table.game.timelines] == ["red", "green"]
    table.turn("ana")
    table.sim.run_out("ana-1")  # ana's time runs out: turn forfeited
    assert table.game.current_player == "ben" and table.game.player("ana").position == "red-5"
    table.turn("ben")
    table.press("ben", "move:red-5")  # same Era in another Timeline; green is left empty
    table.turn("ana")
    table.press("ana", "place:red-6::")  # red 4-5-6 collapses: ana's seventh crystal
    game = table.game
    assert game.winner == "ana" and game.player("ana").crystals == 7
    assert str(table.steps()[-1].ended) == "ana wins: found Time Crystal number 7"  # the step that ends it
    assert table.ctx.ended_by == "rules"
    snapshot = table.session.snapshot()
    assert english(snapshot["view"]["summary"]) == "ana wins with 7 Time Crystals!"
    assert snapshot["scores"] == {
        "winners": ["ana"],
        "ranking": ["ana", "ben"],
        "turns": 4,
        "players": {
            "ana": {"total": 7, "crystals": 7, "tokens": 2, "eliminated": False},
            "ben": {"total": 2, "crystals": 2, "tokens": 3, "eliminated": False},
        },
    }
    assert table.flip("ben-1")[1].startswith("The game is over")
    assert table.menu("ben") == {} and table.tap("ben", EnterPortal()) is not None
    assert str(table.tap("ben", EnterPortal()).reason) == "The game is over: ana has won"
    assert table.acted() == [
        StartTurn("ana"),
        PlaceCard("red-5"),
        StartTurn("ben"),
        PlaceCard("green-5"),
        StartTurn("ana"),
        TimeOut("ana"),
        StartTurn("ben"),
        Move("red-5"),
        StartTurn("ana"),
        PlaceCard("red-6"),
    ]
    assert table.replays()
    assert sorted(all_card_ids(game)) == cards


@pytest.mark.parametrize("seed", range(6))
def test_random_play_from_the_phone_menus_is_always_legal_and_replays(seed):
    rng = random.Random(seed)
    players = ("ana", "ben", "cleo")
    table = Table(SimulatedTable(game="time-splicers", players=players, seed=seed, deck="hub"))
    cards = sorted(all_card_ids(table.game))
    for _ in range(80):
        if table.game.is_over:
            break
        player = table.game.current_player
        table.turn(player)
        while table.ctx.turn_open:
            menu = list(table.menu(player))
            if not menu or rng.random() < 0.1:
                table.sim.run_out(f"{player}-1")
                break
            table.press(player, rng.choice(menu))
        assert sorted(all_card_ids(table.game)) == cards
    assert table.replays()


def test_a_hub_restarted_from_the_log_on_disk_goes_on_with_the_game(tmp_path):
    path = tmp_path / "splicers.jsonl"
    sim = SimulatedTable(game="time-splicers", players=("ana", "ben"), seed=11, deck="hub", log_path=path)
    table = Table(sim)
    for _ in range(4):
        player = table.game.current_player
        table.turn(player)
        menu = table.menu(player)
        table.press(player, next(i for i in menu if i.startswith(("place:", "move:", "portal"))))
    table.turn(table.game.current_player)
    sim.close()
    resumed = SimulatedTable.resumed(EventLog.open_existing(path, fsync=False))
    assert resumed.state == sim.state and resumed.ctx.turn_open


# --- the host ends the game early, or the master clock runs out -----------------------------------------

LEAD_LAYOUT = Layout(
    start="red-5",
    hands={
        "ana": ("red-6", "blue-5", "quantum-tunnel-1", "green-9"),
        "ben": ("red-3", "yellow-2", "time-freeze-1", "blue-12"),
    },
    deck_top=("green-1", "green-2", "green-3", "green-4", "yellow-7", "yellow-8"),
    crystals={"ana": 2, "ben": 3},
)


def test_ending_early_scores_the_game_as_it_stands_everywhere(tmp_path):
    path = tmp_path / "early.jsonl"
    table = table_with(LEAD_LAYOUT, path=path)
    table.sim.start()
    table.turn("ana")
    table.press("ana", "place:red-6::")
    table.flip("ben-1")  # ben's turn is running when the host ends the game
    assert table.session.snapshot()["scores"] is None

    table.sim.clock_command("abort")

    assert table.ctx.ended_by == "host" and table.steps()[-1].facts == (GameStopped("host"),)
    assert not table.ctx.turn_open  # ben's running turn stopped with the game
    snapshot = table.session.snapshot()
    assert snapshot["scores"] == {
        "winners": ["ben"],
        "ranking": ["ben", "ana"],
        "turns": 1,
        "ended": "host",
        "players": {
            "ana": {"total": 2, "crystals": 2, "tokens": 2, "eliminated": False},
            "ben": {"total": 3, "crystals": 3, "tokens": 2, "eliminated": False},
        },
    }
    assert table.summary() == "The game was ended early: ben wins with 3 Time Crystals"
    latest = table.session.snapshot()["view"]["panels"][3]["lines"]
    assert english(latest[-1]) == "The host ended the game: it is scored on the Time Crystals found so far"
    # nobody can go on playing: no buttons, taps and flips refused with the reason
    assert table.menu("ben") == {} and table.menu("ana") == {}
    assert str(table.tap("ben", EnterPortal()).reason) == "The game is over: the host ended it"
    assert table.flip("ana-1")[0] == "rejected"
    steps = len(table.steps())
    table.sim.advance(SAND_S)  # the sand of the interrupted turn runs out: nothing is forfeited any more
    assert len(table.steps()) == steps
    picture = snapshot["view"]["picture"]
    assert picture["turn"] is None and [p["state"] for p in picture["players"]] == ["", "winner"]
    # the log on disk reads back to the same ended game
    assert table.replays()
    table.sim.close()
    resumed = SimulatedTable.resumed(EventLog.open_existing(path, fsync=False))
    assert resumed.state == table.sim.state and resumed.snapshot()["scores"] == snapshot["scores"]


def test_the_master_clock_running_out_ends_and_scores_the_game():
    table = table_with(LEAD_LAYOUT)
    table.sim.start()
    table.turn("ana")
    table.sim.advance(table.sim.setup.clock_length_s + 1)
    assert table.ctx.ended_by == "clock" and table.steps()[-1].facts == (GameStopped("clock"),)
    assert not table.ctx.turn_open and table.sim.state.clock.phase == "expired"
    assert table.session.snapshot()["scores"]["winners"] == ["ben"]
    assert table.session.snapshot()["scores"]["ended"] == "clock"
    latest = table.session.snapshot()["view"]["panels"][3]["lines"]
    assert "The master clock ran out" in english(latest[-1])
    assert table.replays()


@pytest.mark.parametrize(
    "crystals, winners, summary",
    [
        (
            {"ana": 4, "ben": 4},
            ["ana", "ben"],
            "The game was ended early: ana and ben share the win with 4 Time Crystals each",
        ),
        ({"ana": 1, "ben": 0}, ["ana"], "The game was ended early: ana wins with 1 Time Crystal"),
        ({}, [], "The game was ended before anyone found a Time Crystal: nobody wins"),
    ],
)
def test_an_early_end_shares_a_tie_and_names_no_winner_without_crystals(crystals, winners, summary):
    setup = two_player_setup()
    referee = SplicersReferee.for_table(setup, GAME.data)
    state = new_game(
        setup.players, config=GAME.data, layout=Layout(start="red-5", hands=LAYOUT.hands, crystals=crystals)
    )
    ended = referee.game_ended_early(state, Context())
    assert isinstance(ended, Decision) and ended.facts == (GameStopped("host"),) and not ended.actions
    over = Context(ended_by="host")
    assert referee.scores(ended.state, over)["winners"] == winners
    assert str(referee.view(ended.state, over).summary) == summary
    assert referee.scores(state, Context()) is None


def test_ending_a_game_that_is_already_over_changes_nothing():
    layout = Layout(
        start=None,
        timelines=(("red-4", "red-6", "red-9"),),
        positions={"ana": "red-4", "ben": "red-9"},
        hands={
            "ana": ("red-5", "green-9", "green-10", "green-11"),
            "ben": ("blue-1", "blue-2", "blue-3", "blue-4"),
        },
        crystals={"ana": 6},
    )
    table = table_with(layout)
    table.turn("ana")
    table.press("ana", "place:red-5::")  # 4-5-6 collapses: ana's seventh crystal
    won, ctx = table.game, table.ctx
    referee = table.session.referee
    for end in (referee.game_ended_early, referee.clock_expired):
        step = end(won, ctx)
        assert isinstance(step, Decision) and step.state == won and not step.changed
    assert referee.scores(won, ctx)["winners"] == ["ana"] and "ended" not in referee.scores(won, ctx)


def test_every_action_a_phone_gets_is_one_of_the_games_moves_and_reads_back(table):
    table.turn("ana")
    codec = GAME.codec
    for item in table.sim.menu("ana"):
        posted = codec.encode(item.action)
        assert codec.read(posted, GAME.moves) == item.action
    assert isinstance(codec.read({"@": "UseQuantumTunnel", "to": "red-5"}, GAME.moves), UseQuantumTunnel)
