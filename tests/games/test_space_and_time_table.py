"""Space and Time on the hub: a real TableSession on a fake clock, sandtimers as turn timers.

Every test drives the table through the product's own way in (:class:`companion.testing.SimulatedTable`:
simulated nodes flip and run out, phones post the game's typed moves).
"""

import json
from pathlib import Path

import pytest

from companion.errors import ConfigError
from companion.games import referee_for
from companion.games.space_and_time import GAME
from companion.games.space_and_time.ai import choose_move
from companion.games.space_and_time.engine import apply, legal_moves, molecule_completing_moves, new_game
from companion.games.space_and_time.hubdeck import deal_boards
from companion.games.space_and_time.model import ComputerMove, EndEarly, ShowHints, Swap
from companion.games.space_and_time.referee import SpaceTimeReferee, parse_variant
from companion.rules import Decision
from companion.rules.context import Context
from companion.rules.outcome import Rejected
from companion.rules.setup import Seat, make_setup
from companion.rules.text import Text, from_json
from companion.rules.turns import StartTurn, TimeOut
from companion.table import events as ev
from companion.table import messages as msg
from companion.table.log import EventLog
from companion.testing import SimulatedTable, acks
from tests.conftest import logged_actions, replays

SAND_S = 60.0
DATA = Path(__file__).parent / "data" / "space_and_time"


def english(value):
    """``value`` with every text in it (a Text or its JSON form) as its English sentence."""
    if isinstance(value, Text):
        return str(value)
    if isinstance(value, dict) and "msg" in value:
        return str(from_json(value))
    if isinstance(value, dict):
        return {k: english(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [english(v) for v in value]
    return value


class Table:
    """A simulated table: its nodes say hello, then flip and run out; phones tap the game's moves."""

    def __init__(self, setup=None, *, log=None):
        self.sim = SimulatedTable(setup, start_s=100.0) if log is None else SimulatedTable.resumed(log)
        self.session = self.sim.session
        self.setup = self.sim.setup
        for node in self.sim.nodes:
            self.sim.hello(node)

    def flip(self, node):
        """(verdict, reason) of the flip's answer to ``node``."""
        [answer] = acks(self.sim.flip(node), node)
        return answer

    def empty(self, node):
        [answer] = acks(self.sim.empty(node), node)
        return answer

    def tap(self, player, action):
        """The referee's decision of a phone's tap, or its refusal."""
        outcome = self.sim.tap(player, action)
        return outcome.refusal or outcome.decision

    def swap(self, player, move):
        return self.tap(player, Swap(move))

    @property
    def game(self):
        return self.sim.game

    @property
    def ctx(self):
        return self.sim.ctx

    def acted(self):
        return logged_actions(self.session)

    def board_panel(self, player=None):
        snap = self.session.player_snapshot(player) if player else self.session.snapshot()
        return english(next(panel for panel in snap["view"]["panels"] if panel["kind"] == "grid"))

    def replays(self):
        return replays(self.session)


def setup_for(players=("ana", "ben"), *, turn_limit=True, timers=1, seed=7, variant="", deck="hub"):
    seats = tuple(Seat(name, i, f"{name}-{i}") for name in players for i in range(1, timers + 1))
    return make_setup(
        table="sat",
        game="space-and-time",
        players=tuple(players),
        seats=seats,
        seed=seed,
        sand_s=SAND_S,
        turn_limit=turn_limit,
        variant=variant,
        deck=deck,
    )


@pytest.fixture
def table():
    return Table(setup_for())


def hint_cells(game):
    return sorted({cell for move, _ in molecule_completing_moves(game) for cell in move})


# --- setup ------------------------------------------------------------------------------------


def test_the_hub_finds_the_referee_deals_from_the_seed_and_maps_players_to_letters():
    setup = setup_for(seed=3)
    referee = referee_for(setup)
    assert isinstance(referee, SpaceTimeReferee)
    state = referee.start(setup)
    assert state == new_game(*deal_boards(3))
    assert referee.names == {"A": "ana", "B": "ben"} and referee.computer is None
    lines = english(referee.player_view(state, Context(), "ben").panels[1]["lines"])
    assert lines[0] == "You are B: Time at Night, Space by Day; against ana (A)"
    assert "Space: ana (A); Time: ben (B)" in lines


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("", (None, 2)),
        ("standard", (None, 2)),
        ("vs-computer", ("B", 2)),
        ("vs-computer-a", ("A", 2)),
        ("vs-computer-b-3", ("B", 3)),
        ("VS-Computer-A-1", ("A", 1)),
    ],
)
def test_variants_name_the_computer_letter_and_difficulty(variant, expected):
    assert parse_variant(variant) == expected


@pytest.mark.parametrize(
    ("players", "variant", "message"),
    [
        (("ana", "ben", "cy"), "", "exactly 2 players"),
        (("ana", "ben"), "vs-computer-b", "played by one person"),
        (("ana",), "speed", "Space and Time has no variant"),
        (("ana",), "vs-computer-a-9", "no difficulty 9"),
    ],
)
def test_a_table_the_game_cannot_start_is_a_config_error(players, variant, message):
    with pytest.raises(ConfigError, match=message):
        referee_for(setup_for(players, variant=variant))


# --- turns --------------------------------------------------------------------------------------


def test_a_flip_starts_the_turn(table):
    assert (
        english(table.session.snapshot()["view"]["summary"])
        == "Night round: ana (A, Space) to move: flip timer 1 to start"
    )
    assert "select" not in table.board_panel("ana"), "no tapping coins before the turn starts"
    assert table.flip("ana-1") == ("accepted", "")
    assert table.ctx.turn_open and table.acted() == [StartTurn("ana")]
    assert english(table.session.snapshot()["view"]["summary"]) == "Night round: ana (A, Space) is swapping"
    board = table.board_panel("ana")
    assert board["select"] == 2 and board["action_type"] == "Swap"
    assert board["title"] == "Board (0 = null, A = ace, 2-5): tap two coins to swap them"
    assert board["rows"] == [[("0", "A", "2", "3", "4", "5")[k] for k in row] for row in table.game.board]
    assert "select" not in table.board_panel("ben") and "select" not in table.board_panel()
    assert english(table.session.snapshot()["players"][0]["timers"][0]["label"]) == "A: Space"


def test_a_flip_out_of_turn_is_refused_with_the_reason(table):
    verdict, reason = table.flip("ben-1")
    assert verdict == "rejected"
    assert reason == "It is ana's turn, not ben's"
    refusal = table.session.table.refusals["ben"]
    assert (str(refusal.reason), str(refusal.rule)) == (reason, "Space and Time rulebook, Roles and rounds")
    assert not table.ctx.turn_open and table.acted() == []
    table.flip("ana-1")
    table.sim.advance(30)
    again = table.flip("ana-1")
    assert again[0] == "rejected" and "already running" in again[1]


def test_another_timer_of_the_player_is_not_a_turn_timer():
    table = Table(setup_for(timers=2))
    assert table.flip("ana-2") == (
        "rejected",
        "Timer 2 is not used in Space and Time: flip timer 1 to start your turn",
    )
    assert table.flip("ana-1")[0] == "accepted"


def test_a_swap_from_the_phone_is_applied_and_passes_the_turn(table):
    move = legal_moves(table.game)[0]
    refused = table.swap("ana", move)
    assert (
        isinstance(refused, Rejected) and str(refused.reason) == "Flip your timer 1 to start your turn first"
    )
    table.flip("ana-1")
    before = table.game
    step = table.swap("ana", move)
    assert isinstance(step, Decision)
    assert table.game == apply(before, Swap(move)).state
    assert table.game.to_move == "B" and not table.ctx.turn_open
    assert table.acted()[-1] == Swap(move)
    assert english(table.session.snapshot()["recent"][0]["text"]).startswith("ana (A, Space) swapped the ")
    lines = english(table.session.snapshot()["view"]["panels"][1]["lines"])
    assert f"May not be swapped back: ({move[0][0]}, {move[0][1]}) and ({move[1][0]}, {move[1][1]})" in lines
    assert table.flip("ana-1")[1].startswith("It is ben's turn, not ana's")
    refused = table.swap("ana", legal_moves(table.game)[0])
    assert isinstance(refused, Rejected) and str(refused.reason) == "It is ben's turn, not ana's"


def test_a_phone_posts_the_swap_as_the_codec_writes_it(table):
    """What the page posts is read by the game's codec, which checks every field (a malformed post
    never reaches the rules)."""
    table.flip("ana-1")
    move = legal_moves(table.game)[0]
    posted = json.loads(json.dumps(GAME.codec.encode(Swap(move))))
    assert posted == {"@": "Swap", "cells": [list(move[0]), list(move[1])]}
    assert GAME.codec.read(posted, GAME.moves) == Swap(move)
    for broken in (
        {"@": "Swap", "cells": [[0, 0]]},
        {"@": "Swap", "cells": [[0, "a"], [1, 1]]},
        {"@": "Swap", "cells": [[0, 0], [1, True]]},
        {"@": "EndEarly"},  # the host's, never a phone's
    ):
        with pytest.raises(Exception, match="Swap.cells|not one of"):
            GAME.codec.read(broken, GAME.moves)
    assert isinstance(table.tap("ana", GAME.codec.read(posted, GAME.moves)), Decision)


def test_an_illegal_swap_is_refused_with_the_engines_reason_and_the_same_player_moves(table):
    table.flip("ana-1")
    before, ctx = table.game, table.ctx
    refused = table.swap("ana", ((0, 0), (2, 3)))  # not neighbours: Space may not
    assert isinstance(refused, Rejected)
    assert str(refused.reason) == (
        "Player A plays Space and may only swap a coin with one of its eight neighbours "
        "(the board wraps at the edges); (0, 0) and (2, 3) are not neighbours."
    )
    assert str(refused.rule) == "Space and Time rulebook, Space"
    assert table.game == before and table.ctx == ctx and table.game.to_move == "A" and table.ctx.turn_open
    shown = table.session.player_snapshot("ana")["refusal"]
    assert (from_json(shown["reason"]), from_json(shown["rule"])) == (refused.reason, refused.rule)
    off_board = table.swap("ana", ((0, 0), (4, 0)))
    assert isinstance(off_board, Rejected) and "not on the board" in str(off_board.reason)
    assert isinstance(table.swap("ana", legal_moves(table.game)[0]), Decision)
    assert table.session.player_snapshot("ana")["refusal"] is None


def test_other_actions_are_refused(table):
    refused = table.tap("ana", EndEarly())  # a value of the game that is no phone's move
    assert isinstance(refused, Rejected) and "swap two coins" in str(refused.reason)


def play_until_hints(table):
    """Swap (without taking trophies) until the player to move has a molecule-completing swap."""
    for _ in range(60):
        if molecule_completing_moves(table.game):
            return
        mover = table.session.referee.names[table.game.to_move]
        table.flip(f"{mover}-1")
        scoring = {m for m, _ in molecule_completing_moves(table.game)}
        move = next(m for m in legal_moves(table.game) if m not in scoring)
        assert isinstance(table.swap(mover, move), Decision)
    pytest.fail("no molecule-completing swap came up")


def test_the_hint_toggle_highlights_the_swaps_that_complete_a_molecule(table):
    play_until_hints(table)
    assert table.board_panel()["highlight"] == []
    menu = table.sim.menu("ben")
    assert [(i.id, str(i.label)) for i in menu] == [("hints-show", "Show swaps that complete a molecule")]
    assert isinstance(table.tap("ben", menu[0].action), Decision)  # anyone may ask, any time
    assert table.acted()[-1] == ShowHints(True) and table.game.hints
    expected = [list(cell) for cell in hint_cells(table.game)]
    assert expected and table.board_panel()["highlight"] == expected
    assert table.board_panel("ana")["highlight"] == expected
    lines = english(table.session.snapshot()["view"]["panels"][1]["lines"])
    found = molecule_completing_moves(table.game)
    assert any(line.startswith(f"Molecule hints: {len(found)} swap") for line in lines)
    # the highlights follow the position
    mover = table.session.referee.names[table.game.to_move]
    table.flip(f"{mover}-1")
    table.swap(mover, found[0][0])
    assert table.board_panel()["highlight"] == [list(cell) for cell in hint_cells(table.game)]
    hide = table.sim.menu("ana")[-1]
    assert (hide.id, str(hide.label)) == ("hints-hide", "Hide the molecule hints")
    table.tap("ana", hide.action)
    assert table.board_panel()["highlight"] == [] and not table.game.hints
    assert table.replays()


def test_the_turn_timer_running_out_passes_the_turn(table):
    table.flip("ana-1")
    table.swap("ana", legal_moves(table.game)[0])
    table.sim.advance(1)
    table.flip("ben-1")
    assert table.game.last_swap is not None
    table.sim.advance(SAND_S)  # ben's sand runs out: his node says so
    assert table.acted()[-1] == TimeOut("ben")
    assert table.game.to_move == "A" and not table.ctx.turn_open
    assert table.game.last_swap is None, "nothing to protect from reversing after a lost turn"
    assert english(table.session.snapshot()["recent"][0]["text"]) == (
        "ben (B, Time) ran out of time: no swap this turn, ana (A, Space) to move"
    )
    assert table.flip("ana-1")[0] == "accepted"
    assert table.replays()


def test_without_a_turn_limit_the_sand_is_only_a_reminder():
    table = Table(setup_for(turn_limit=False))
    table.flip("ana-1")
    table.sim.advance(SAND_S)
    assert table.acted() == [StartTurn("ana")]
    assert table.game.to_move == "A" and table.ctx.turn_open
    assert isinstance(table.swap("ana", legal_moves(table.game)[0]), Decision)


def test_an_old_timer_running_out_during_the_other_turn_changes_nothing(table):
    table.flip("ana-1")
    table.swap("ana", legal_moves(table.game)[0])
    table.sim.advance(SAND_S / 2)
    table.flip("ben-1")
    table.sim.advance(SAND_S / 2)  # ana's sand (flipped before her swap) runs out during ben's turn
    assert table.game.to_move == "B" and table.ctx.turn_open


def test_computer_plays_this_turn_for_the_player_who_asks(table):
    table.flip("ana-1")
    item = table.sim.menu("ana")[0]
    assert (item.id, str(item.label)) == ("computer-move", "Computer plays this turn")
    assert item.action == ComputerMove()
    expected = choose_move(table.game, difficulty=2, seed=7)
    assert isinstance(table.tap("ana", item.action), Decision)
    assert table.acted()[-1] == Swap(expected)
    assert table.game.to_move == "B"


# --- against the computer -------------------------------------------------------------------------


def solo(variant="", seed=5):
    return Table(setup_for(("ana",), variant=variant, seed=seed))


def test_against_the_computer_it_answers_each_human_swap_at_once():
    table = solo()
    referee = table.session.referee
    assert referee.names == {"A": "ana", "B": "computer"} and referee.computer == "B"
    for number in range(3):
        table.flip("ana-1")
        move = legal_moves(table.game)[number]
        after_human = apply(table.game, Swap(move)).state
        swaps = table.game.swaps
        assert isinstance(table.swap("ana", move), Decision)
        answer = choose_move(after_human, difficulty=2, seed=5 + swaps + 1)
        assert table.acted()[-2:] == [Swap(move), Swap(answer)]
        assert table.game.to_move == "A" and not table.ctx.turn_open
    # the human's swap and the computer's answer are one step, logged and listed as one line
    assert "; computer (B, Time) swapped the " in english(table.session.snapshot()["recent"][0]["text"])
    again = solo()
    for number in range(3):
        again.flip("ana-1")
        again.swap("ana", legal_moves(again.game)[number])
    assert again.acted() == table.acted(), "the same moves get the same answers"
    assert table.replays()


def test_the_computer_playing_a_opens_the_game_at_the_first_flip():
    table = solo("vs-computer-a-1")
    assert english(table.session.snapshot()["view"]["summary"]) == "Night round: the computer (A) is to move"
    assert [i.id for i in table.sim.menu("ana")] == ["computer-move", "hints-show"]
    opening = choose_move(table.game, difficulty=1, seed=5)
    assert table.flip("ana-1")[0] == "accepted"
    assert table.acted() == [Swap(opening), StartTurn("ana")]
    assert table.game.to_move == "B" and table.ctx.turn_open
    assert table.replays()


def test_the_computer_opens_when_the_master_clock_starts():
    table = solo("vs-computer-a")
    table.sim.start()
    assert len(table.acted()) == 1 and table.game.to_move == "B" and not table.ctx.turn_open


def test_a_lost_turn_against_the_computer_lets_it_swap_again():
    table = solo()
    table.flip("ana-1")
    table.sim.advance(SAND_S)
    kinds = [type(a).__name__ for a in table.acted()]
    assert kinds == ["StartTurn", "TimeOut", "Swap"]
    assert table.game.to_move == "A"


# --- whole games ------------------------------------------------------------------------------------


def play_turn(table, index):
    """The player to move flips and swaps: a molecule if one is there, else a legal swap picked by ``index``."""
    mover = table.session.referee.names[table.game.to_move]
    assert table.flip(f"{mover}-1")[0] == "accepted"
    scoring = molecule_completing_moves(table.game)
    moves = legal_moves(table.game)
    move = scoring[0][0] if scoring else moves[(index * 7) % len(moves)]
    assert isinstance(table.swap(mover, move), Decision)
    table.sim.advance(1)


def test_a_whole_game_to_its_end_with_scores_and_replay(table):
    assert table.session.snapshot()["scores"] is None
    for index in range(500):
        if table.game.is_over:
            break
        play_turn(table, index)
    game = table.game
    assert game.is_over and game.round == 2
    assert table.ctx.ended_by == "rules"
    notes = [str(e.note) for e in table.session.log.events() if isinstance(e, ev.GameStepped)]
    assert any("Day round on a new board: ben (B) plays Space and moves first" in note for note in notes)
    a, b = game.trophy_count("A"), game.trophy_count("B")
    winner = {"A": "ana", "B": "ben"}[game.winner]
    scores = table.session.snapshot()["scores"]
    assert scores["winners"] == [winner] and scores["ranking"][0] == winner
    assert scores["players"]["ana"]["total"] == a and scores["players"]["ben"]["total"] == b
    assert scores["players"]["ana"]["letter"] == "A"
    night = sum(h == "A" for h in game.trophies[0])
    assert scores["players"]["ana"]["rows"] == {"Night": {"trophies": night}, "Day": {"trophies": a - night}}
    assert english(table.session.snapshot()["explanation"]).startswith(f"{winner} wins")
    assert english(table.session.snapshot()["view"]["summary"]).startswith(f"{winner} (")
    assert table.session.player_snapshot("ana")["menu"] == []
    assert "select" not in table.board_panel(winner)
    verdict, reason = table.flip(f"{winner}-1")
    assert verdict == "rejected" and reason.startswith("The game is over")
    refused = table.swap("ana", ((0, 0), (0, 1)))
    assert isinstance(refused, Rejected) and str(refused.reason).startswith("The game is over")
    assert table.replays()
    resumed = SimulatedTable.resumed(table.session.log)
    assert resumed.state == table.session.state


def test_a_tie_at_five_trophies_each_is_won_by_a():
    record = json.loads((DATA / "tie_game.json").read_text())
    setup = setup_for()
    log = EventLog(setup, start=new_game(*record["boards"]), rules=GAME.rules_version)  # the recorded boards
    table = Table(log=log)
    table.sim.start()
    referee = table.session.referee
    *moves, after_the_end = record["moves"]
    for move in moves:
        mover = referee.names[table.game.to_move]
        if not table.ctx.turn_open:
            assert table.flip(f"{mover}-1")[0] == "accepted"
        table.tap(mover, GAME.codec.read({"@": "Swap", "cells": move}, GAME.moves))  # refused: same player
    assert table.game.trophy_count("A") == table.game.trophy_count("B") == 5
    refused = table.tap("ben", GAME.codec.read({"@": "Swap", "cells": after_the_end}, GAME.moves))
    assert isinstance(refused, Rejected) and str(refused.reason) == "The game is over: ana (A) has won"
    scores = table.session.snapshot()["scores"]
    assert scores["winners"] == ["ana"] and scores["ranking"] == ["ana", "ben"]
    assert [scores["players"][p]["total"] for p in ("ana", "ben")] == [5, 5]
    assert (
        english(table.session.snapshot()["view"]["summary"])
        == "ana (A) wins, 5 trophies to 5 (at 5 each A wins)"
    )
    clock = table.session.state.clock  # the step that decided the game stopped the master clock
    assert (clock.phase, str(clock.end_reason), table.ctx.ended_by) == (
        "expired",
        "a winner is known",
        "rules",
    )
    assert replays(table.session)


def test_a_whole_game_against_the_computer_replays_from_the_log():
    table = solo("vs-computer-b-1", seed=11)
    for index in range(300):
        if table.game.is_over:
            break
        play_turn(table, index)
    assert table.game.is_over
    scores = table.session.snapshot()["scores"]
    assert set(scores["players"]) == {"ana", "computer"}
    assert table.replays()


# --- the host ends the game early -------------------------------------------------------------------


def test_ending_early_scores_the_trophies_taken_so_far():
    """Hub rule: the game ends where it stands; more trophies wins, and nobody swaps any more."""
    table = Table(setup_for())
    table.sim.start()
    for index in range(500):
        if table.game.trophy_count("A") != table.game.trophy_count("B"):
            break
        play_turn(table, index)
    game = table.game
    assert not game.is_over
    leader = "A" if game.trophy_count("A") > game.trophy_count("B") else "B"
    name = {"A": "ana", "B": "ben"}[leader]
    outcome = table.sim.clock_command("abort")
    [ended] = [e for e in outcome.logged if isinstance(e, ev.ClockAborted)]
    assert not ended.unscored
    assert table.ctx.ended_by == "host" and table.acted()[-1] == EndEarly()
    snap = table.session.snapshot()
    scores = snap["scores"]
    assert scores["winners"] == [name] and not scores["shared"] and scores["ended_early"]
    assert scores["ranking"][0] == name
    assert {p: s["total"] for p, s in scores["players"].items()} == {
        "ana": game.trophy_count("A"),
        "ben": game.trophy_count("B"),
    }
    summary = english(snap["view"]["summary"])
    assert (
        summary.startswith("The game was ended early: ") and f"{name} ({leader}) wins on trophies" in summary
    )
    assert english(snap["explanation"]).startswith(f"{name} wins")
    assert table.session.player_snapshot("ana")["menu"] == [] and "select" not in table.board_panel("ana")
    refused = table.swap("ana", legal_moves(game)[0])
    assert isinstance(refused, Rejected) and str(refused.reason) == "The game was ended early"
    assert table.replays()
    resumed = SimulatedTable.resumed(table.session.log)
    assert resumed.state == table.session.state


def test_ending_early_with_as_many_trophies_each_shares_the_victory():
    table = solo()
    table.sim.start()
    table.sim.clock_command("abort")
    snap = table.session.snapshot()
    assert snap["scores"]["winners"] == ["ana", "computer"] and snap["scores"]["shared"]
    assert english(snap["view"]["summary"]) == (
        "The game was ended early: ana (A) and computer (B) share the victory with 0 trophies each"
    )
    assert english(snap["explanation"]).startswith("Shared victory: ana and computer")
    again = table.session.referee.game_ended_early(table.game, table.ctx)
    assert again == Decision(table.game), "only once"


def test_a_logged_action_names_the_player_to_move_or_it_is_refused(table):
    """Replaying a turn's action for someone else than the player to move is refused (a log that does
    not fit the game is not read as a different game)."""
    referee, state = table.session.referee, table.game
    assert referee.replay(state, Context(), StartTurn("ana")).opens_turn
    assert referee.replay(state, Context(), StartTurn("A")).opens_turn  # logs of formats 1 and 2
    with pytest.raises(Exception, match="It is ana's turn, not ben's"):
        referee.replay(state, Context(), StartTurn("ben"))


def test_the_typed_messages_reach_the_referee_as_the_phone_sent_them(table):
    """A phone's tap arrives as a PlayerAction with the game's typed move (the way the web API sends it)."""
    table.flip("ana-1")
    move = legal_moves(table.game)[0]
    outcome = table.session.handle(msg.PlayerAction("ana", Swap(move)))
    assert outcome.refusal is None and outcome.decision.actions == (Swap(move),)
