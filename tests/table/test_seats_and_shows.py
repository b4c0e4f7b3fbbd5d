"""A seat added during a game (a Robot Factory's third timer) and node patterns a referee asks for."""

from __future__ import annotations

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.games.sandtimers import FreeTimers
from companion.rules import Decision
from companion.rules.setup import default_setup
from companion.table import events as ev
from companion.table import messages as tm
from companion.table.commands import Show
from companion.table.session import Changed, TableSession
from companion.testing import deliver
from tests.conftest import replays


class FactoryReferee(FreeTimers):
    """A tap 'factory' gives the player a third timer; a tap 'attack' sabotages red-1."""

    game = "factory"

    def start(self, setup):
        return ()

    def replay(self, state, ctx, action):
        return (*state, action["type"])

    def player_action(self, state, ctx, player, action):
        new = (*state, action["type"])
        if action["type"] == "factory":
            return Decision(new, actions=(action,), notes=("factory built",), add_seat=(player, 3))
        return Decision(new, actions=(action,), notes=("attack",), show=(("red-1", "sabotaged"),))


def flip(node, seq, boot="0a1b2c3d"):
    return p.validate(
        "event",
        {"v": 1, "kind": "flip", "boot": boot, "seq": seq, "t_ms": 0, "upper_ms": 60000, "lower_ms": 0},
    )


def test_a_new_seat_takes_the_next_unseated_node_flipped():
    session = TableSession(
        default_setup("t1", players=2, timers=2),
        clock=FakeClock(),
        referee=FactoryReferee(default_setup("t1", players=2, timers=2)),
    )
    [refused] = deliver(session, "spare-9", flip("spare-9", 1)).commands
    assert refused.fields["verdict"] == "rejected"
    session.handle(tm.PlayerAction("red", {"type": "factory"}))
    assert session.snapshot()["seat_request"] == {"player": "red", "index": 3}
    replies = deliver(session, "spare-9", flip("spare-9", 2)).commands
    assert [r.kind for r in replies] == ["ack", "show", "config"] and replies[0].fields[
        "verdict"
    ] == "accepted"
    assert session.setup.seat_of("spare-9").index == 3
    assert [t["node"] for t in session.snapshot()["players"][0]["timers"]] == ["red-1", "red-2", "spare-9"]
    assert isinstance(session.log.events()[-1], ev.SeatAdded)
    [again] = deliver(session, "spare-9", flip("spare-9", 3)).commands
    assert again.fields["verdict"] == "accepted" and session.state.timers["spare-9"].flips == 1
    assert replays(session)
    restarted = TableSession(
        session.log.setup, clock=FakeClock(), log=session.log, referee=FactoryReferee(session.log.setup)
    )
    assert (
        restarted.setup.seat_of("spare-9") is not None and restarted.table.link("spare-9").node == "spare-9"
    )


def test_a_referee_can_light_a_node():
    session = TableSession(
        default_setup("t1", players=2, timers=1),
        clock=FakeClock(),
        referee=FactoryReferee(default_setup("t1", players=2, timers=1)),
    )
    seen = []
    session.add_listener(seen.append)
    session.handle(tm.PlayerAction("yellow", {"type": "attack"}))
    [change] = seen
    assert isinstance(change, Changed) and list(change.commands) == [Show("red-1", "sabotaged")]


class LastMarkerReferee(FreeTimers):
    """A tap 'last' places the last marker: the rules end the game."""

    game = "markers"

    def start(self, setup):
        return 0

    def replay(self, state, ctx, action):
        return Decision(state + 1)

    def player_action(self, state, ctx, player, action):
        return Decision(
            state + 1,
            actions=(action,),
            notes=("last marker placed",),
            ends_game="red placed the last marker",
        )


def test_the_rules_can_end_the_master_clock():
    session = TableSession(
        default_setup("t1", players=2, timers=1),
        clock=FakeClock(),
        referee=LastMarkerReferee(default_setup("t1", players=2, timers=1)),
    )
    session.handle(tm.ClockCommand("start"))
    session.handle(tm.PlayerAction("red", {"type": "last"}))
    assert session.state.clock.phase == "expired"
    assert [type(e).__name__ for e in session.log.events()][-2:] == ["GameStepped", "ClockExpired"]
    [reply] = deliver(session, "red-1", flip("red-1", 1)).commands
    assert reply.fields["reason"] == (
        "The game has ended (red placed the last marker): no sandtimer may be started any more"
    )
    assert session.state.clock.remaining_s(0) > 0
    assert replays(session)
