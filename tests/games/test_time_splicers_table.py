"""Time Splicers on the hub: a real TableSession on a fake clock, sandtimers as turn timers."""

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.errors import ConfigError
from companion.games import referee_for
from companion.games.base import Rejected
from companion.games.time_splicers import GAME, Layout, all_card_ids
from companion.games.time_splicers.table import SplicersReferee
from companion.rules import Decision
from companion.rules.setup import Seat, default_setup, make_setup
from companion.rules.text import Text, from_json
from companion.table.session import TableSession
from tests.conftest import logged_actions, replays

BOOT = "0a1b2c3d"
SAND_MS = 60_000

LAYOUT = Layout(
    start="red-5",
    hands={
        "ana": ("red-6", "blue-5", "quantum-tunnel-1", "green-9"),
        "ben": ("red-3", "yellow-2", "time-freeze-1", "blue-12"),
    },
    deck_top=("green-1", "green-2", "green-3", "green-4", "yellow-7", "yellow-8"),
)


def english(value):
    """What a page shows in English for a text from the hub: a message as JSON, a Text or a plain string."""
    if isinstance(value, Text):
        return str(value)
    if isinstance(value, dict):
        return str(from_json(value))
    return value


def msg(kind, **fields):
    return p.validate("event", dict({"v": 1, "kind": kind, "boot": BOOT}, **fields))


class Table:
    """A session plus the node side: hello, flips and run-outs with their sequence numbers."""

    def __init__(self, setup, referee=None, log=None):
        self.clock = FakeClock(start_s=100.0)
        self.setup = setup
        self.session = TableSession(setup, clock=self.clock, referee=referee, log=log)
        self.seq = {}
        for seat in setup.seats:
            self.session.node_message(
                seat.node, msg("hello", t_ms=self.ms(), sand_ms=SAND_MS, node_kind="sim", firmware="x")
            )

    def ms(self):
        return int(self.clock.now_s() * 1000)

    def _next(self, node):
        self.seq[node] = self.seq.get(node, 0) + 1
        return self.seq[node]

    def flip(self, node, upper=SAND_MS, lower=0):
        [reply] = self.session.node_message(
            node, msg("flip", seq=self._next(node), t_ms=self.ms(), upper_ms=upper, lower_ms=lower)
        )
        return reply.fields

    def empty(self, node):
        [reply] = self.session.node_message(node, msg("empty", seq=self._next(node), t_ms=self.ms()))
        return reply.fields

    def tap(self, player, **action):
        return self.session.player_action(player, action)

    def menu(self, player):
        return {item["id"]: item for item in self.session.player_snapshot(player)["menu"]}

    def labels(self, player, prefix=""):
        """The player's menu in English: id -> (group, label), for the ids starting with ``prefix``."""
        return {
            k: (english(i["group"]), english(i["label"]))
            for k, i in self.menu(player).items()
            if k.startswith(prefix)
        }

    def summary(self):
        return english(self.session.snapshot()["view"]["summary"])

    def recent(self):
        """The dashboard's latest happening, in English."""
        return english(self.session.snapshot()["recent"][0]["text"])

    def refusal(self, player):
        """The red message on ``player``'s phone, in English, and the rule it cites."""
        shown = self.session.player_snapshot(player)["refusal"]
        return english(shown["reason"]), english(shown.get("rule", ""))

    def press(self, player, item_id):
        """Tap a button of the player's phone menu, as the page does."""
        step = self.session.player_action(player, self.menu(player)[item_id]["action"])
        assert isinstance(step, Decision), step
        return step

    @property
    def game(self):
        return self.session.state.game.game

    @property
    def table(self):
        return self.session.state.game

    def acted(self):
        return logged_actions(self.session)

    def replays(self):
        return replays(self.session)


def two_player_setup(*, turn_limit=True, timers=1, seed=7, variant=""):
    seats = tuple(Seat(name, i, f"{name}-{i}") for name in ("ana", "ben") for i in range(1, timers + 1))
    return make_setup(
        table="ts",
        game="time-splicers",
        players=("ana", "ben"),
        seats=seats,
        seed=seed,
        sand_s=SAND_MS / 1000,
        turn_limit=turn_limit,
        variant=variant,
    )


def table_with(layout=LAYOUT, **kw):
    setup = two_player_setup(**kw)
    return Table(setup, SplicersReferee(setup, GAME.data, layout=layout))


@pytest.fixture
def table():
    return table_with()


def test_the_hub_finds_the_referee_and_deals_from_the_seed():
    setup = two_player_setup(seed=3)
    referee = referee_for(setup)
    assert isinstance(referee, SplicersReferee)
    state = referee.start(setup)
    assert [len(p.hand) for p in state.game.players] == [4, 4] and not state.turn_open
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
    assert table.flip("ana-1") == {"boot": BOOT, "seq": 1, "verdict": "accepted"}
    assert table.table.turn_open and table.acted() == [{"type": "turn_started", "player": "ana"}]
    assert table.summary() == "Turn 1: ana is playing"


def test_a_flip_out_of_turn_is_refused_with_the_reason(table):
    reply = table.flip("ben-1")
    assert reply["verdict"] == "rejected" and english(reply["reason"]).startswith(
        "It is ana's turn, not ben's"
    )
    assert table.refusal("ben") == ("It is ana's turn, not ben's", "How to Play")
    assert table.acted() == []


def test_a_second_flip_during_the_turn_restarts_nothing(table):
    table.flip("ana-1")
    reply = table.flip("ana-1", upper=20_000, lower=40_000)
    assert reply["verdict"] == "rejected" and "already running" in english(reply["reason"])
    assert table.acted() == [{"type": "turn_started", "player": "ana"}]


def test_a_second_timer_of_the_player_is_not_a_turn_timer():
    table = table_with(timers=2)
    reply = table.flip("ana-2")
    assert english(reply["reason"]).startswith(
        "Timer 2 is not used in Time Splicers: flip timer 1 to start your turn"
    )
    assert table.refusal("ana")[1] == "Turn timer"
    assert table.flip("ana-1")["verdict"] == "accepted"


def test_phone_actions_need_the_turn_started_and_the_right_player(table):
    refused = table.tap("ana", type="place", card="red-6")
    assert (
        isinstance(refused, Rejected) and str(refused.reason) == "Flip your timer 1 to start your turn first"
    )
    table.flip("ana-1")
    refused = table.tap("ben", type="portal")
    assert isinstance(refused, Rejected) and str(refused.reason) == "It is ana's turn, not ben's"
    refused = table.tap("ana", type="place", card="red-4")
    assert isinstance(refused, Rejected) and str(refused.reason) == "red 4 is not in your hand"
    refused = table.tap("ana", type="time_out")
    assert isinstance(refused, Rejected) and "Unknown action 'time_out'" in str(refused.reason)
    assert table.game.current_player == "ana" and table.table.turn_open


def test_the_menu_lists_the_legal_actions_from_the_engine(table):
    table.flip("ana-1")
    menu = table.menu("ana")
    assert list(table.labels("ana").values()) == [  # what ends the turn first, then the free actions
        ("Place a card", "red 6"),
        ("Place a card", "blue 5"),
        ("Time Portal", "step into the Time Portal (draw 2)"),
        ("Free: Time Jump token", "discard your hand, draw 4"),
    ]
    assert menu["place:red-6::"]["action"] == {"type": "place", "card": "red-6"}
    assert table.menu("ben") == {}
    hand = table.session.player_snapshot("ana")["view"]["panels"][0]
    assert hand["kind"] == "lines" and english(hand["title"]) == "Your hand (4)"
    assert [english(line) for line in hand["lines"]] == ["blue 5", "green 9", "Quantum Tunnel", "red 6"]


def test_a_placement_from_the_phone_moves_the_meeple_and_ends_the_turn(table):
    table.flip("ana-1")
    table.press("ana", "place:red-6::")
    game = table.game
    assert game.timelines[0].cards == ("red-5", "red-6") and game.player("ana").position == "red-6"
    assert game.current_player == "ben" and not table.table.turn_open
    assert len(game.player("ana").hand) == 4  # refilled to the hand minimum
    assert table.acted()[-1] == {"type": "place", "player": "ana", "card": "red-6"}
    assert "ana placed red 6" in table.recent()
    grid = table.session.snapshot()["view"]["panels"][0]
    assert grid["rows"][1][5:7] == ["5 ben", "6 ana"] and grid["highlight"] == [[1, 5]]  # whose turn
    assert english(table.flip("ana-1")["reason"]).startswith("It is ben's turn, not ana's")


def test_free_actions_keep_the_turn_open_until_the_main_action(table):
    table.flip("ana-1")
    table.press("ana", "place:red-6::")
    table.flip("ben-1")
    table.press("ben", "place:red-3::")  # ben: red 3 left of red 5
    assert table.game.timelines[0].cards == ("red-3", "red-5", "red-6")
    table.flip("ana-1")
    assert "quantum_tunnel:red-3" in table.menu("ana")
    table.press("ana", "quantum_tunnel:red-3")  # a free action
    assert table.table.turn_open and table.game.current_player == "ana"
    assert table.game.player("ana").position == "red-3"
    assert "move:red-5" in table.menu("ana") and "move:red-6" not in table.menu("ana")
    table.press("ana", "move:red-5")
    assert not table.table.turn_open and table.game.current_player == "ben"
    assert table.replays()


def test_the_time_portal_takes_two_turns(table):
    table.flip("ana-1")
    table.press("ana", "portal")
    assert table.game.player("ana").position == "time-portal"
    table.flip("ben-1")
    table.press("ben", "place:red-3::")
    table.flip("ana-1")
    menu = table.menu("ana")
    assert english(menu["move:red-3"]["group"]) == "Leave the Time Portal" and "portal" not in menu
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
    table.flip("ana-1")
    table.clock.advance(60)
    assert table.empty("ana-1")["verdict"] == "accepted"
    assert table.acted()[-1] == {"type": "time_out", "player": "ana"}
    game = table.game
    assert (
        game.current_player == "ben" and game.player("ana").position == "red-5" and not table.table.turn_open
    )
    assert "ana's time ran out: the turn is forfeited" in table.recent()
    assert table.flip("ben-1")["verdict"] == "accepted"
    assert table.replays()


def test_without_a_turn_limit_the_sand_is_only_a_reminder():
    table = table_with(turn_limit=False)
    table.flip("ana-1")
    table.clock.advance(60)
    table.empty("ana-1")
    assert table.acted() == [{"type": "turn_started", "player": "ana"}]
    assert table.game.current_player == "ana" and table.table.turn_open


def test_an_old_timer_running_out_during_another_turn_changes_nothing(table):
    table.flip("ana-1")
    table.press("ana", "place:red-6::")
    table.flip("ben-1")
    table.clock.advance(60)
    table.empty("ana-1")
    assert table.game.current_player == "ben" and table.table.turn_open


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
    table.flip("ana-1")
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
    table.flip("ana-1")
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
    table.flip("ana-1")
    table.press("ana", "place:red-5::")  # red 4 5, ana on red 5
    table.flip("ben-1")
    table.press(
        "ben", "place:green-5::"
    )  # ben splices green 5 beside blue 5; blue is left empty and collapses
    assert table.game.player("ben").time_jump_tokens == 3  # a third 5 on the table: a fixed point in time
    assert [t.colour for t in table.game.timelines] == ["red", "green"]
    table.flip("ana-1")
    table.clock.advance(60)
    table.empty("ana-1")  # ana's time runs out: turn forfeited
    assert table.game.current_player == "ben" and table.game.player("ana").position == "red-5"
    table.flip("ben-1")
    table.press("ben", "move:red-5")  # same Era in another Timeline; green is left empty
    table.flip("ana-1")
    table.press("ana", "place:red-6::")  # red 4-5-6 collapses: ana's seventh crystal
    game = table.game
    assert game.winner == "ana" and game.player("ana").crystals == 7
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
    assert english(table.flip("ben-1")["reason"]).startswith("The game is over: ana has won")
    assert table.refusal("ben") == ("The game is over: ana has won", "Game End")
    assert table.menu("ben") == {} and isinstance(table.tap("ben", type="portal"), Rejected)
    assert [a["type"] for a in table.acted()] == [
        "turn_started",
        "place",
        "turn_started",
        "place",
        "turn_started",
        "time_out",
        "turn_started",
        "move",
        "turn_started",
        "place",
    ]
    assert table.replays()
    assert sorted(all_card_ids(game)) == cards


@pytest.mark.parametrize("seed", range(6))
def test_random_play_from_the_phone_menus_is_always_legal_and_replays(seed):
    import random

    rng = random.Random(seed)
    setup = make_setup(
        table="ts",
        game="time-splicers",
        players=("ana", "ben", "cleo"),
        seed=seed,
        seats=tuple(Seat(n, 1, f"{n}-1") for n in ("ana", "ben", "cleo")),
    )
    table = Table(setup)
    cards = sorted(all_card_ids(table.game))
    for _ in range(80):
        if table.game.is_over:
            break
        player = table.game.current_player
        assert table.flip(f"{player}-1")["verdict"] == "accepted"
        while table.table.turn_open:
            menu = list(table.menu(player))
            if not menu or rng.random() < 0.1:
                table.clock.advance(60)
                table.empty(f"{player}-1")
                break
            table.press(player, rng.choice(menu))
        assert sorted(all_card_ids(table.game)) == cards
    assert table.replays()


def test_a_hub_restarted_from_the_log_on_disk_goes_on_with_the_game(tmp_path):
    from companion.table.log import EventLog

    setup = two_player_setup(seed=11)
    path = tmp_path / "splicers.jsonl"
    table = Table(setup, log=EventLog.for_new_game(setup, path, fsync=False))
    for _ in range(4):
        player = table.game.current_player
        table.flip(f"{player}-1")
        menu = table.menu(player)
        table.press(player, next(i for i in menu if i.startswith(("place:", "move:", "portal"))))
    table.flip(f"{table.game.current_player}-1")
    table.session.log.close()
    resumed = TableSession(setup, clock=table.clock, log=EventLog.open_existing(path, fsync=False))
    assert resumed.state == table.session.state and resumed.state.game.turn_open


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
    from companion.table.log import EventLog

    setup = two_player_setup()
    path = tmp_path / "early.jsonl"
    referee = SplicersReferee(setup, GAME.data, layout=LEAD_LAYOUT)
    table = Table(setup, referee, log=EventLog.for_new_game(setup, path, fsync=False, referee=referee))
    table.session.start_clock()
    table.flip("ana-1")
    table.press("ana", "place:red-6::")
    table.flip("ben-1")  # ben's turn is running when the host ends the game
    assert table.session.snapshot()["scores"] is None

    table.session.abort_clock()

    assert table.table.ended == "host" and not table.table.turn_open
    assert table.acted()[-1] == {"type": "game_ended", "by": "host"}
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
    assert "The host ended the game: it is scored on the Time Crystals found so far" in table.recent()
    # nobody can go on playing: no buttons, taps and flips refused with the reason
    assert table.menu("ben") == {} and table.menu("ana") == {}
    refused = table.tap("ben", type="portal")
    assert isinstance(refused, Rejected) and str(refused.reason) == "The game is over: the host ended it"
    assert table.flip("ana-1")["verdict"] == "rejected"
    table.clock.advance(60)
    table.empty("ben-1")  # the sand of the interrupted turn runs out: nothing is forfeited any more
    assert table.acted()[-1] == {"type": "game_ended", "by": "host"}
    picture = snapshot["view"]["picture"]
    assert picture["turn"] is None and [p["state"] for p in picture["players"]] == ["", "winner"]
    # the log on disk reads back to the same ended game
    assert table.replays()
    table.session.log.close()
    resumed = TableSession(setup, clock=table.clock, log=EventLog.open_existing(path, fsync=False))
    assert resumed.state == table.session.state and resumed.snapshot()["scores"] == snapshot["scores"]


def test_the_master_clock_running_out_ends_and_scores_the_game():
    setup = two_player_setup()
    table = Table(setup, SplicersReferee(setup, GAME.data, layout=LEAD_LAYOUT))
    table.session.start_clock()
    table.flip("ana-1")
    table.clock.advance(setup.clock_length_s + 1)
    table.session.tick()
    assert table.table.ended == "clock" and table.acted()[-1] == {"type": "game_ended", "by": "clock"}
    assert table.session.snapshot()["scores"]["winners"] == ["ben"]
    assert "The master clock ran out" in table.recent()
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
    referee = SplicersReferee(
        setup, GAME.data, layout=Layout(start="red-5", hands=LAYOUT.hands, crystals=crystals)
    )
    state = referee.start(setup)
    ended = referee.game_ended_early(state)
    assert isinstance(ended, Decision) and ended.actions == ({"type": "game_ended", "by": "host"},)
    assert referee.scores(ended.state)["winners"] == winners
    assert str(referee.view(ended.state).summary) == summary
    assert referee.replay(state, ended.actions[0]) == ended.state


def test_ending_a_game_that_is_already_over_changes_nothing():
    setup = two_player_setup()
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
    table = Table(setup, SplicersReferee(setup, GAME.data, layout=layout))
    table.flip("ana-1")
    table.press("ana", "place:red-5::")  # 4-5-6 collapses: ana's seventh crystal
    won = table.session.state.game
    referee = table.session.referee
    for end in (referee.game_ended_early, referee.clock_expired):
        step = end(won)
        assert isinstance(step, Decision) and step.state == won and not step.changed
    assert referee.scores(won)["winners"] == ["ana"] and "ended" not in referee.scores(won)
