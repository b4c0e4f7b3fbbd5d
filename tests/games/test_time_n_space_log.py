"""A Time 'n' Space game logged on disk reads back as the same table, without asking the rules.

Every fact and every state value of the game must be a type of ``GAME.state_modules``
(else the log cannot be written or read): random play of all three variants, and a
scripted game with the phone actions random play rarely reaches (hand-over pick, ships
lifted together, undo, finish).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.time_n_space import GAME
from companion.table import events as ev
from companion.table.log import EventLog, read_log
from companion.table.session import TableSession
from tests.conftest import replays

from .test_time_n_space_decisions import arriving_together
from .test_time_n_space_helpers import Table, score_sheet
from .test_time_n_space_table import SHEET


def reopened(t: Table, path: Path) -> TableSession:
    """The table a hub restart makes from the log file."""
    t.session.log.close()
    return TableSession(read_log(path).setup, clock=t.clock, log=EventLog.open_existing(path, fsync=False))


def logged_types(path: Path) -> set[type]:
    """The types of every fact in the log file, as read back."""
    return {type(f) for e in read_log(path).events if isinstance(e, ev.GameStepped) for f in e.facts}


OPS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "flip",
                "flip",
                "flip-early",
                "empty",
                "empty",
                "intent",
                "intent",
                "act",
                "act",
                "wait",
                "long",
                "sheet",
            ]
        ),
        st.integers(0, 10**6),
    ),
    max_size=60,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["intro", "full", "light"]), ops=OPS)
def test_random_play_logged_on_disk_reads_back_as_the_same_table(variant, ops):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.jsonl"
        t = Table(variant=variant, seed=len(ops), path=path)
        if variant == "full":
            for player in t.setup.players:
                assert not hasattr(t.tap(player, "start-place"), "reason")
        t.start()
        nodes = [s.node for s in t.setup.seats]
        for kind, r in ops:
            node = nodes[r % len(nodes)]
            player = t.player_of(node)
            if kind in ("flip", "flip-early"):
                assert t.flip(node, ran_out=kind == "flip")["verdict"] in ("accepted", "rejected")
            elif kind == "empty":
                t.empty(node)
            elif kind == "wait":
                t.run(r % 90)
            elif kind == "long":
                t.run(200 + r % 400)
            elif kind == "sheet":
                t.act(player, score_sheet({player: SHEET[player]}))
            else:  # a tap on the phone: a choice for a sandtimer, or an action
                items = [m for m in t.menu(player).values() if m["intent" if kind == "intent" else "action"]]
                if items:
                    t.tap(player, items[r % len(items)]["id"])
        assert replays(t.session)
        assert all(cls in GAME.codec for cls in logged_types(path))
        resumed = reopened(t, path)
        assert resumed.state == t.session.state
        assert resumed.snapshot()["view"] == t.session.snapshot()["view"]
        assert resumed.snapshot()["scores"] == t.session.snapshot()["scores"]


def test_a_game_with_every_phone_action_reads_back_from_disk(tmp_path):
    path = tmp_path / "game.jsonl"
    t = arriving_together(path)
    # green shows two identical yellow 1 orders and picks which goes first
    assert t.flip("green-1", symbol="b8")["verdict"] == "accepted"
    t.run(60)
    t.empty("green-1")
    assert t.flip("green-1", trade=[["yellow", 1], ["yellow", 1]])["verdict"] == "accepted"
    handover = next(
        i for i in t.menu("green") if i.startswith("handover-yellow-1-") and not i.endswith("b2-0")
    )
    assert not hasattr(t.tap("green", handover), "reason")
    # the ships at green's planet: one order, undone, then the other
    assert not hasattr(t.tap("green", "together-yellow-red"), "reason")
    assert t.undo() is None
    assert not hasattr(t.tap("green", "together-red-yellow"), "reason")
    # red sets a sandtimer aside from the phone; the clock runs out; green lifts the rest
    t.run(60)
    t.empty("red-1", "yellow-1", "green-1")
    assert not hasattr(t.tap("red", "t1-lift"), "reason")
    t.run(720 - t.clock.now_s())
    assert t.game.phase == "ending"
    assert not hasattr(t.tap("green", "finish"), "reason")
    assert t.game.phase == "over" and t.session.snapshot()["scores"] is not None
    assert replays(t.session)
    names = {cls.__name__ for cls in logged_types(path)}
    assert {"HandoverChosen", "OrderFulfilled", "ActionForfeited", "ClockRanOut", "GameEnded"} <= names
    resumed = reopened(t, path)
    assert resumed.state == t.session.state
    assert resumed.snapshot()["scores"] == t.session.snapshot()["scores"]
