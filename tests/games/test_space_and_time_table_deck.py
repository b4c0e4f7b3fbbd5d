"""Space and Time at a table that plays with its box: the players deal the coins by hand and tell the hub
each board, coin by coin, on a phone; the hub checks every coin against what the dealt suits can hold.

The tests keep a physical deal to themselves (their own seeded shuffle, dealt suit by suit into the
blocks as the rulebook says) and enter only what a player reads off the table: the phone's board
panel says which cell comes next, and its buttons say "3 at (0, 0)".
"""

from __future__ import annotations

import json
import random

import pytest

from companion.errors import InvalidRecordError
from companion.games.space_and_time import GAME
from companion.games.space_and_time.engine import (
    apply,
    legal_moves,
    molecule_completing_moves,
    new_game,
)
from companion.games.space_and_time.hubdeck import deal_boards
from companion.games.space_and_time.model import (
    ComputerMove,
    PlaceCoin,
    Redeal,
    Swap,
    TakeBackCoin,
)
from companion.games.space_and_time.record import referee_record
from companion.i18n import render
from companion.rules import Decision
from companion.rules.outcome import Rejected
from companion.rules.setup import Seat, make_setup
from companion.rules.text import from_json
from companion.table import events as ev
from companion.table import messages as msg
from companion.table.log import read_log
from companion.table.state import fold
from companion.testing import SimulatedTable, acks, play_randomly
from tests.conftest import logged_actions, replays

BLOCKS = [((0, 1), (0, 1, 2)), ((0, 1), (3, 4, 5)), ((2, 3), (0, 1, 2)), ((2, 3), (3, 4, 5))]
CENTRE = [(1, 2), (1, 3), (2, 2), (2, 3)]
SHOWN = {0: "null", 1: "ace", 2: "2", 3: "3", 4: "4", 5: "5"}


def deal_by_hand(rng: random.Random) -> list[list[int]]:
    """A board as the box deals it: each suit (null, ace, 2-5) shuffled into a 2 x 3 block, dealt again
    while the four central coins show one rank."""
    while True:
        board = [[0] * 6 for _ in range(4)]
        for rows, columns in BLOCKS:
            suit = list(range(6))
            rng.shuffle(suit)
            for (r, c), rank in zip([(r, c) for r in rows for c in columns], suit, strict=True):
                board[r][c] = rank
        if len({board[r][c] for r, c in CENTRE}) > 1:
            return board


def setup_for(players=("ana", "ben"), *, variant="", seed=7, turn_limit=True):
    return make_setup(
        table="sat",
        game="space-and-time",
        players=tuple(players),
        seats=tuple(Seat(p, 1, f"{p}-1") for p in players),
        seed=seed,
        variant=variant,
        turn_limit=turn_limit,
        deck="table",
    )


def table_for(*args, **kwargs) -> SimulatedTable:
    table = SimulatedTable(setup_for(*args, **kwargs))
    for node in table.nodes:
        table.hello(node)
    return table


def asked_cell(table: SimulatedTable, player: str) -> tuple[int, int]:
    """The cell the phone asks for: the one highlighted on its board panel."""
    panel = next(p for p in table.player_snapshot(player)["view"]["panels"] if p["kind"] == "grid")
    [cell] = panel["highlight"]
    return (cell[0], cell[1])


def button(table: SimulatedTable, player: str, label: str):
    """The phone button whose English label is ``label``."""
    found = [item for item in table.menu(player) if render(item.label, "en") == label]
    assert found, (
        f"no button {label!r} on {player}'s phone: {[render(i.label, 'en') for i in table.menu(player)]}"
    )
    return found[0]


def enter_board(table: SimulatedTable, player: str, board: list[list[int]]) -> list[int]:
    """``player`` reads ``board`` off the table and taps each coin the phone asks for; returns how many
    buttons each prompt offered (one tap per prompt)."""
    offered = []
    for _ in range(24):
        if not table.game.is_dealing:
            break
        r, c = asked_cell(table, player)
        entry_groups = {str(i.group) for i in table.menu(player) if isinstance(i.action, PlaceCoin)}
        assert len(entry_groups) == 1, "one group of buttons for the coin"
        offered.append(sum(isinstance(i.action, PlaceCoin) for i in table.menu(player)))
        item = button(table, player, f"{SHOWN[board[r][c]]} at ({r}, {c})")
        outcome = table.tap(player, item.action)
        assert outcome.refusal is None, outcome.refusal
    assert not table.game.is_dealing
    return offered


def play_turn(table: SimulatedTable, index: int, swaps: list, physical: list[list[int]]) -> None:
    """The player to move flips and swaps the coins on the table: a molecule if one is there."""
    referee = table.referee
    mover = referee.names[table.game.to_move]
    assert acks(table.flip(f"{mover}-1")) == [("accepted", "")]
    scoring = molecule_completing_moves(table.game)
    moves = legal_moves(table.game)
    move = scoring[0][0] if scoring else moves[(index * 7) % len(moves)]
    (r1, c1), (r2, c2) = move
    physical[r1][c1], physical[r2][c2] = physical[r2][c2], physical[r1][c1]
    outcome = table.tap(mover, Swap(move))
    assert outcome.refusal is None, outcome.refusal
    swaps.append([list(move[0]), list(move[1])])
    table.advance(1)


# --- a whole game with the box ------------------------------------------------------------------------


@pytest.mark.parametrize("shuffle", [1, 2])
def test_a_whole_game_dealt_by_hand_ends_as_a_replay_of_the_same_physical_game(shuffle, tmp_path):
    rng = random.Random(f"the box, shuffle {shuffle}")  # the hub never sees this
    table = SimulatedTable(setup_for(), log_path=tmp_path / "game.jsonl")
    for node in table.nodes:
        table.hello(node)
    table.start()
    night = deal_by_hand(rng)
    offered = enter_board(table, "ben", night)  # anyone at the table may enter it
    assert len(offered) == 20, "the last coin of each block follows from the other five"
    assert max(offered) <= 6 and offered[0] == 6
    assert table.game.board == tuple(map(tuple, night))
    physical = [row[:] for row in night]
    boards, swaps = [night], []
    for index in range(600):
        if table.game.is_over:
            break
        if table.game.is_dealing:  # the Night round is over: the coins are shuffled and dealt again
            assert table.game.round == 2
            day = deal_by_hand(rng)
            assert len(enter_board(table, "ana", day)) == 20
            physical, boards = [row[:] for row in day], [night, day]
            continue
        play_turn(table, index, swaps, physical)
    game = table.game
    assert game.is_over and game.round == 2 and len(boards) == 2
    assert game.board == tuple(map(tuple, physical)), "the hub's board is the one on the table"
    # the same physical game through the rules: the record of its boards and swaps, and the engine
    record = referee_record({"boards": boards, "moves": swaps})
    assert all(result["ok"] for result in record["results"])
    replayed = new_game(*boards)
    for move in swaps:
        replayed = apply(replayed, Swap((tuple(move[0]), tuple(move[1])))).state
    assert game == replayed
    scores = table.snapshot()["scores"]
    names = {"A": "ana", "B": "ben"}
    assert scores["winners"] == [names[record["winner"]]]
    assert {p: s["total"] for p, s in scores["players"].items()} == {
        names[letter]: count for letter, count in record["trophies"].items()
    }
    table.close()
    saved = read_log(tmp_path / "game.jsonl")
    assert fold(saved.setup, saved.events, saved.start) == table.state, "the log holds what the table entered"
    entered = [
        a
        for e in saved.events
        if isinstance(e, ev.GameStepped)
        for a in e.actions
        if isinstance(a, PlaceCoin)
    ]
    assert len(entered) == 40


def test_the_hub_deck_is_the_state_a_table_reaches_by_entering_the_same_boards():
    hub = SimulatedTable(make_setup(**{**_fields(setup_for()), "deck": "hub"}))
    table = table_for()
    night, day = deal_boards(table.setup.seed)
    enter_board(table, "ana", [list(row) for row in night])
    table.flip("ana-1")
    hub.flip("ana-1")
    assert table.game.deal is None
    assert table.game.starting_boards == hub.game.starting_boards[:1] and hub.game.starting_boards[1] == day
    assert table.game == type(hub.game)(**{**_fields(hub.game), "starting_boards": (night,)})


def _fields(value) -> dict:
    from dataclasses import fields

    return {f.name: getattr(value, f.name) for f in fields(value)}


# --- what the phone asks, and what it refuses ---------------------------------------------------------


def test_before_the_board_is_entered_nobody_swaps_or_starts_a_turn():
    table = table_for()
    summary = render(from_json(table.snapshot()["view"]["summary"]), "en")
    assert summary == (
        "Night round: the table enters the board it dealt (0 of 24 coins known), next the coin at (0, 0)"
    )
    assert acks(table.flip("ana-1")) == [
        ("rejected", "The Night board is not entered yet (0 of 24 coins): enter its coins on a phone first")
    ]
    assert table.ctx.turns == 0
    refused = table.tap("ana", Swap(((0, 0), (0, 1)))).refusal
    assert isinstance(refused, Rejected) and "not entered yet" in str(refused.reason)
    assert table.menu("ana")[0].group == table.menu("ben")[0].group
    assert [render(i.label, "en") for i in table.menu("ana")] == [
        "null at (0, 0)",
        "ace at (0, 0)",
        "2 at (0, 0)",
        "3 at (0, 0)",
        "4 at (0, 0)",
        "5 at (0, 0)",
    ], "every rank, in rank order: each is as likely as the others"
    panel = next(p for p in table.player_snapshot("ana")["view"]["panels"] if p["kind"] == "grid")
    assert panel["rows"] == [["·"] * 6] * 4 and "select" not in panel


def test_the_phone_offers_only_the_coins_the_block_can_still_hold_and_fills_in_its_last_coin():
    table = table_for()
    for label in ("3 at (0, 0)", "null at (0, 1)", "5 at (0, 2)"):
        table.tap("ana", button(table, "ana", label).action)
    assert asked_cell(table, "ana") == (0, 3), "row by row: the top-right block's first coin"
    for label in ("null at (0, 3)", "ace at (0, 4)", "2 at (0, 5)"):
        table.tap("ana", button(table, "ana", label).action)
    assert [render(i.label, "en") for i in table.menu("ana") if isinstance(i.action, PlaceCoin)] == [
        "ace at (1, 0)",
        "2 at (1, 0)",
        "4 at (1, 0)",
    ]
    table.tap("ana", button(table, "ana", "4 at (1, 0)").action)
    table.tap("ana", button(table, "ana", "2 at (1, 1)").action)
    assert table.game.deal.coins()[8] == 1, "(1, 2) can only be the top-left suit's ace"
    assert asked_cell(table, "ana") == (1, 3)
    notes = [render(n, "en") for n in table.ctx.recent]
    assert notes[-1] == "2 at (1, 1) entered; ace at (1, 2): the last coin of its block"


def test_an_impossible_entry_is_refused_with_the_reason_and_changes_nothing():
    table = table_for()
    table.tap("ana", PlaceCoin((0, 0), 3))
    before, logged = table.game, len(logged_actions(table.session))
    cases = [
        (PlaceCoin((1, 1), 3), "There is no 3 left in the top-left block"),
        (PlaceCoin((0, 0), 4), "The coin at (0, 0) is known already: it is a 3"),
        (PlaceCoin((4, 0), 4), "Cell (4, 0) is not on the board"),
        (PlaceCoin((0, 1), 6), "A coin shows null, ace, 2, 3, 4 or 5, not 6"),
    ]
    for entry, reason in cases:
        refused = table.tap("ben", entry).refusal
        assert isinstance(refused, Rejected) and str(refused.reason).startswith(reason), refused
        assert str(refused.rule) in ("Space and Time rulebook, Setup", "What the table drew")
        assert table.game == before and len(logged_actions(table.session)) == logged
    shown = table.player_snapshot("ben")["refusal"]
    assert render(from_json(shown["reason"]), "es").startswith("Una moneda muestra nulo, as, 2, 3, 4 o 5")


def test_a_wrong_coin_is_taken_back_and_a_board_dealt_again_is_forgotten():
    table = table_for()
    table.tap("ana", button(table, "ana", "3 at (0, 0)").action)
    table.tap("ana", button(table, "ana", "ace at (0, 1)").action)  # it was a null
    take_back = button(table, "ana", "Take back ace at (0, 1)")
    assert str(take_back.group) == "Correct the board" and take_back.action == TakeBackCoin()
    table.tap("ana", take_back.action)
    assert asked_cell(table, "ana") == (0, 1) and table.game.deal.placed == (((0, 0), 3),)
    table.tap("ana", button(table, "ana", "null at (0, 1)").action)
    table.tap("ana", button(table, "ana", "Deal again: forget every coin of this board").action)
    assert table.game.deal.placed == () and asked_cell(table, "ana") == (0, 0)
    assert render(table.ctx.recent[-1], "en") == (
        "The coins entered for the Night board are forgotten: deal them again and enter the board"
    )
    assert not [i for i in table.menu("ana") if str(i.group) == "Correct the board"], "nothing to correct"
    assert replays(table.session)


def test_four_central_coins_of_one_rank_are_dealt_again():
    """Rulebook, Setup: "If the four central coins show the same rank, reshuffle and re-deal the coins"."""
    board = [
        [0, 1, 2, 0, 1, 2],
        [4, 5, 3, 3, 4, 5],
        [0, 1, 3, 3, 0, 1],
        [2, 4, 5, 2, 4, 5],
    ]  # a deal whose centre is all 3s: the table should have dealt again
    table = table_for()
    for _ in range(15):  # every coin up to (2, 2); (1, 2) follows from its block
        r, c = asked_cell(table, "ana")
        if (r, c) == (2, 3):
            break
        table.tap("ana", button(table, "ana", f"{SHOWN[board[r][c]]} at ({r}, {c})").action)
    assert asked_cell(table, "ana") == (2, 3)
    offered = [i.action.rank for i in table.menu("ana") if isinstance(i.action, PlaceCoin)]
    assert offered == [0, 1, 2, 4, 5], "a 3 would make all four central coins 3s"
    refused = table.tap("ana", PlaceCoin((2, 3), 3)).refusal
    assert str(refused.reason) == (
        'The four central coins would all show 3: by the rules the coins are shuffled and dealt again (tap "Deal again")'
    )
    assert str(refused.rule) == "Space and Time rulebook, Setup"
    table.tap("ana", button(table, "ana", "Deal again: forget every coin of this board").action)
    assert table.game.deal.placed == ()
    assert len(enter_board(table, "ana", deal_by_hand(random.Random(4)))) == 20


def test_a_complete_board_can_be_corrected_until_the_first_turn_starts():
    table = table_for()
    board = deal_by_hand(random.Random(11))
    enter_board(table, "ana", board)
    assert table.game.board == tuple(map(tuple, board))
    assert render(table.ctx.recent[-1], "en").endswith(
        "The Night board is entered: ana (A) plays Space and moves first"
    )
    last_cell, last_rank = table.game.deal.placed[-1]
    table.tap(
        "ben",
        button(table, "ben", f"Take back {SHOWN[last_rank]} at ({last_cell[0]}, {last_cell[1]})").action,
    )
    assert table.game.is_dealing and table.game.board == () and table.game.starting_boards == ()
    enter_board(table, "ben", board)
    undone = table.undo()  # the host takes the last coin back too, as long as nothing depends on it
    assert undone.refusal is None and table.game.is_dealing
    enter_board(table, "ben", board)
    assert acks(table.flip("ana-1")) == [("accepted", "")]
    assert table.game.deal is None, "the first turn keeps the board"
    refused = table.tap("ana", TakeBackCoin()).refusal
    assert str(refused.reason) == (
        "The Night board is on the table already: its coins can no longer be entered or taken back"
    )
    assert table.tap("ana", Swap(legal_moves(table.game)[0])).refusal is None
    assert table.undo().refusal is None and table.undo().refusal is None, "the swap, then the turn's start"
    assert table.game.deal is not None and table.game.deal.is_complete, "the board can be corrected again"


def test_the_day_board_is_dealt_and_entered_when_the_night_round_ends():
    table = table_for(turn_limit=False)
    enter_board(table, "ana", deal_by_hand(random.Random(3)))
    physical, swaps = [list(r) for r in table.game.board], []
    for index in range(400):
        if table.game.round == 2:
            break
        play_turn(table, index, swaps, physical)
    assert table.game.is_dealing and table.game.to_move == "B" and table.game.board == ()
    notes = [render(n, "en") for n in table.ctx.recent]
    assert notes[-1].endswith(
        "Shuffle the coins, deal the Day board and enter it on a phone: then ben (B) plays Space and moves first"
    )
    assert str(table.menu("ben")[0].group) == "Enter the Day board, row by row"
    assert acks(table.flip("ben-1"))[0][0] == "rejected"
    enter_board(table, "ben", deal_by_hand(random.Random(5)))
    assert acks(table.flip("ben-1")) == [("accepted", "")]
    assert len(table.game.starting_boards) == 2


def test_the_computer_waits_for_the_board_and_opens_at_the_players_flip():
    table = table_for(("ana",), variant="vs-computer-a-1")
    table.start()
    assert table.game.swaps == 0, "no board, no opening swap"
    refused = table.tap("ana", ComputerMove()).refusal
    assert "not entered yet" in str(refused.reason)
    enter_board(table, "ana", deal_by_hand(random.Random(8)))
    assert table.game.swaps == 0, "the board can still be corrected: the computer waits"
    assert [i.id for i in table.menu("ana")][:3] == ["coin-take-back", "coin-deal-again", "computer-move"]
    assert acks(table.flip("ana-1")) == [("accepted", "")]
    assert table.game.swaps == 1 and table.game.to_move == "B" and table.ctx.turn_open
    assert [type(a).__name__ for a in logged_actions(table.session)][-2:] == ["Swap", "StartTurn"]


def test_a_random_game_at_the_table_deck_logs_entries_that_read_back(tmp_path):
    table = SimulatedTable(setup_for(), log_path=tmp_path / "random.jsonl")
    for node in table.nodes:
        table.hello(node)
    table.start()
    rng = random.Random(9)
    offered = []
    for _ in range(60):
        for player in table.setup.players:
            offered.extend(table.menu(player))
        play_randomly(table, rng, steps=5, undos=1)
    table.close()
    codec = GAME.codec
    saved = read_log(tmp_path / "random.jsonl")
    assert fold(saved.setup, saved.events, saved.start) == table.state
    kinds = {type(a).__name__ for e in saved.events if isinstance(e, ev.GameStepped) for a in e.actions}
    assert "PlaceCoin" in kinds
    for item in offered:
        if item.action is not None:
            assert isinstance(item.action, GAME.moves)
            assert codec.read(json.loads(json.dumps(codec.encode(item.action))), GAME.moves) == item.action


def test_the_entries_travel_as_the_codec_writes_them():
    table = table_for()
    posted = json.loads(json.dumps(GAME.codec.encode(PlaceCoin((0, 0), 2))))
    assert posted == {"@": "PlaceCoin", "cell": [0, 0], "rank": 2}
    assert GAME.codec.read({"@": "TakeBackCoin"}, GAME.moves) == TakeBackCoin()
    assert GAME.codec.read({"@": "Redeal"}, GAME.moves) == Redeal()
    with pytest.raises(InvalidRecordError, match="PlaceCoin.rank must be int"):
        GAME.codec.read({"@": "PlaceCoin", "cell": [0, 0], "rank": "2"}, GAME.moves)
    outcome = table.session.handle(msg.PlayerAction("ana", GAME.codec.read(posted, GAME.moves)))
    assert isinstance(outcome.decision, Decision) and table.game.deal.placed == (((0, 0), 2),)


def test_the_words_of_the_entry_are_translated():
    table = table_for()
    table.tap("ana", PlaceCoin((0, 0), 1))
    item = table.menu("ana")[0]
    assert [render(item.label, lang) for lang in ("en", "es", "de")] == [
        "null at (0, 1)",
        "nulo en (0, 1)",
        "Null auf (0, 1)",
    ]
    assert render(item.group, "es") == "Introduce el tablero de la ronda de Noche, fila a fila"
    refused = table.tap("ana", PlaceCoin((1, 1), 1)).refusal
    assert render(refused.reason, "de") == "In dem Block oben links ist kein Ass mehr"


# --- records ---------------------------------------------------------------------------------------


def test_a_record_gives_the_day_board_only_when_the_game_reaches_the_day_round():
    rng = random.Random("a finished record")
    night = deal_by_hand(rng)
    state, moves = new_game(night), []
    for index in range(400):  # the Night round to its end
        if state.round == 2:
            break
        found = molecule_completing_moves(state)
        move = found[0][0] if found else legal_moves(state)[(index * 7) % len(legal_moves(state))]
        moves.append([list(move[0]), list(move[1])])
        state = apply(state, Swap(move)).state
    assert state.is_dealing
    out = referee_record({"boards": [night], "moves": moves})
    assert all(r["ok"] for r in out["results"]) and out["winner"] is None
    with pytest.raises(InvalidRecordError) as info:
        referee_record({"boards": [night], "moves": [*moves, [[0, 0], [0, 1]]]})
    assert (
        str(info.value) == f"move {len(moves) + 1} comes in the Day round, but the record gives no Day board"
    )
    day = deal_by_hand(rng)
    opening = legal_moves(new_game(day))[0]  # B opens the Day round as Space
    out = referee_record({"boards": [night, day], "moves": [*moves, [list(opening[0]), list(opening[1])]]})
    assert out["results"][-1]["ok"] and out["results"][-1]["player"] == "B"
