"""A busy table's next snapshot costs what changed, not the whole table.

The live stream builds a snapshot after every change and sends its difference from the one before.
With 64 timers, rebuilding and comparing every timer's part took ~0.7 ms per frame while one or two
timers had changed; now the parts whose inputs did not change are the same objects, which the
snapshot skips building and ``json_diff`` passes by identity.
"""

from __future__ import annotations

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.rules.setup import Seat, default_setup, make_setup
from companion.table import messages as tm
from companion.table.deltas import json_diff, json_patch
from companion.table.log import EventLog
from companion.table.session import TableSession
from companion.testing import deliver

BOOT = "0a1b2c3d"


def flip(seq: int) -> p.Message:
    return p.validate(
        "event",
        {"v": 1, "kind": "flip", "boot": BOOT, "seq": seq, "t_ms": seq, "upper_ms": 60000, "lower_ms": 0},
    )


def session_of(tmp_path, players: int = 4, timers: int = 4) -> TableSession:
    setup = default_setup("reuse", players=players, timers=timers)
    log = EventLog.for_new_game(setup, tmp_path / "game.jsonl", fsync=False)
    return TableSession(setup, clock=FakeClock(), log=log)


def timers_by_node(snapshot: dict) -> dict[str, dict]:
    return {timer["node"]: timer for player in snapshot["players"] for timer in player["timers"]}


def links_by_node(snapshot: dict) -> dict[str, dict]:
    return {link["node"]: link for link in snapshot["nodes"]}


def test_a_report_rebuilds_only_its_own_timer_and_link(tmp_path):
    session = session_of(tmp_path)
    nodes = [seat.node for seat in session.setup.seats]
    for seq, node in enumerate(nodes, start=1):
        deliver(session, node, flip(seq))
    before = session.snapshot(live_sand=False)
    flipped = nodes[5]
    deliver(session, flipped, flip(99))
    after = session.snapshot(live_sand=False)

    old_timers, new_timers = timers_by_node(before), timers_by_node(after)
    assert new_timers[flipped] is not old_timers[flipped]
    assert new_timers[flipped]["flips"] == old_timers[flipped]["flips"] + 1
    assert [n for n in nodes if new_timers[n] is old_timers[n]] == [n for n in nodes if n != flipped]
    old_links, new_links = links_by_node(before), links_by_node(after)
    assert [n for n in nodes if new_links[n] is not old_links[n]] == [flipped]
    assert after["setup"] is before["setup"]

    ops = json_diff(before, after)
    touched = {tuple(op[1][:4]) for op in ops if op[1] and op[1][0] == "players"}
    seat = session.setup.seat_of(flipped)
    assert seat is not None
    player = session.setup.players.index(seat.player)
    assert touched == {("players", player, "timers", seat.index - 1)}
    assert json_patch(before, ops) == after


def test_a_new_game_keeps_nothing_of_the_last_one(tmp_path):
    """Parts are kept by what they were built from; a new setup (new seats, new sand) builds anew
    even where a timer's own state looks the same."""
    session = session_of(tmp_path, players=2, timers=1)
    before = session.snapshot(live_sand=False)
    longer = make_setup(
        table="reuse",
        players=session.setup.players,
        seats=tuple(Seat(s.player, s.index, s.node) for s in session.setup.seats),
        sand_s=90.0,
    )
    session.handle(tm.NewGame(longer))
    after = session.snapshot(live_sand=False)
    for node, timer in timers_by_node(after).items():
        assert timer is not timers_by_node(before)[node]
        assert timer["sand_s"] == 90.0
    assert after["setup"] is not before["setup"]


def test_a_seat_is_found_by_its_node():
    setup = make_setup(table="t", players=("ana", "bo"), seats=(Seat("ana", 1, "n1"), Seat("bo", 1, "n2")))
    assert setup.seat_of("n1") == Seat("ana", 1, "n1")
    assert setup.seat_of("n2") == Seat("bo", 1, "n2")
    assert setup.seat_of("n3") is None
