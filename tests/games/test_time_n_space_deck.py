"""The box on the table is the truth: a Time 'n' Space table deck follows the tiles the players really drew.

At a table deck the players shuffle the 24 building tiles into the moons' piles themselves and
each player of the introductory game draws an ocher tile from the box; the hub never sees an
order. These tests keep a physical shuffle to themselves (a seeded order the hub is never
told), play whole games through :class:`companion.testing.SimulatedTable` with real sand,
entering on the phones only what a player reads off the table (the tile found on top of a
moon's pile, the ocher tile drawn), and check that the hub's game ends as a replay of the
same physical game through the rules does. Also: impossible entries are refused with the
reason, entries can be corrected until the action that depends on them, the hub deck supplies
the same input itself, the full game's starting orders stay secret on the dashboard until
everybody has picked, and a table's own components file is checked and used.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.games.time_n_space import GAME
from companion.games.time_n_space.components import ComponentDataError, load_components
from companion.games.time_n_space.engine import apply, replay
from companion.games.time_n_space.model import (
    SHIP,
    GameState,
    Lift,
    LiftTimer,
    MoonTile,
    OcherTile,
    OrderPlacement,
    PlaceStartingOrders,
    PlaceTimer,
    SandRanOut,
    StartGame,
    StartingOrders,
    TakeOcherTile,
)
from companion.games.time_n_space.record import CODEC
from companion.games.time_n_space.referee import TimeNSpaceReferee
from companion.games.time_n_space.setup import setup_full, setup_intro
from companion.rules.outcome import Rejected
from companion.table import events as ev
from companion.table.session import TableSession
from companion.testing import SimulatedTable, verdict
from tests.conftest import replays

from .test_time_n_space_helpers import BOX, Table, en, said, untranslated

PLAYERS = ("red", "yellow", "green")
DATA = Path(__file__).parent / "data" / "time_n_space"
SHIPPED = (
    Path(__file__).resolve().parents[2] / "companion" / "games" / "time_n_space" / "data" / "components.json"
)


def kind(tile_id: str | None) -> tuple[Any, ...] | None:
    """What a player sees of a tile: identical tiles cannot be told apart at the table."""
    if tile_id is None:
        return None
    tile = next(t for t in BOX.tiles if t.id == tile_id)
    return (tile.stage2, tile.stage3)


# --- a physical game ---------------------------------------------------------------------------------


class PhysicalTable:
    """The box on the table: its tiles shuffled by hand into the moons' piles, the ocher tiles drawn.

    The order stays here; the hub hears only what the players read off the table."""

    def __init__(self, rng: random.Random, variant: str) -> None:
        tiles = [t.id for t in BOX.tiles]
        rng.shuffle(tiles)
        height = len(tiles) // len(PLAYERS)
        self.piles = {f"moon-{i + 1}": tiles[i * height : (i + 1) * height] for i in range(len(PLAYERS))}
        self.dealt = copy.deepcopy(self.piles)
        ocher = [t.id for t in BOX.tiles if t.stage3.type == "production"]
        rng.shuffle(ocher)
        self.ocher = dict(zip(PLAYERS, ocher, strict=False)) if variant == "intro" else {}


def menu_item(table: SimulatedTable, player: str, wanted) -> Any:
    return next((item for item in table.menu(player) if wanted(item)), None)


def choose_next_symbol(table: SimulatedTable, rng: random.Random, player: str, index: int) -> None:
    """The player taps one of the next symbols the phone offers for this sandtimer (or keeps the default)."""
    group = f"Timer {index}: next symbol"
    options = [item for item in table.menu(player) if str(item.group) == group and item.intent is not None]
    ships = [item for item in options if item.intent.symbol == SHIP and item.intent.destination]
    pick = rng.random()
    if ships and pick < 0.45:
        item = rng.choice(ships)
    elif options and pick < 0.8:
        item = rng.choice(options)
    else:
        return
    assert table.choose(player, item.node, item.intent).refusal is None


def moon_lift(table: SimulatedTable, box: PhysicalTable, rng: random.Random, player: str, index: int) -> str:
    """A sandtimer on a ship at a moon waits to be lifted: the player looks at the pile and says on the
    phone what they do with the tile on top. Returns "take", "under" or "skip"."""
    me = table.game.player(player)
    timer = me.timers[index - 1]
    moon = timer.destination or me.ship
    pile = box.piles[moon]
    if not pile:
        return "skip"
    take = me.research is None and rng.random() < 0.75
    if take:  # tap the button of the tile lying on top (read off the table)
        item = menu_item(
            table,
            player,
            lambda i: (
                i.intent is not None and i.intent.moon == "research" and kind(i.intent.tile) == kind(pile[0])
            ),
        )
        assert item is not None, f"the phone does not offer {pile[0]} at {moon}"
        assert table.choose(player, item.node, item.intent).refusal is None
        return "take"
    if len(pile) == 1 and rng.random() < 0.5:
        item = menu_item(table, player, lambda i: i.id == f"t{index}-moon-skip")
        assert item is not None
        assert table.choose(player, item.node, item.intent).refusal is None
        return "skip"
    item = menu_item(table, player, lambda i: i.id == f"t{index}-moon-bottom")
    assert item is not None
    assert table.choose(player, item.node, item.intent).refusal is None
    return "under"


def play_physical_game(variant: str, seed: int, tmp_path: Path) -> tuple[SimulatedTable, PhysicalTable]:
    """A whole game at a table deck; the players enter only what they read off the table."""
    rng = random.Random(seed)
    box = PhysicalTable(rng, variant)
    table = SimulatedTable(
        game="time-n-space", variant=variant, players=PLAYERS, deck="table", log_path=tmp_path / "game.jsonl"
    )
    for node in table.nodes:
        table.hello(node)
    for player, tile in box.ocher.items():  # each player tells the hub the ocher tile they drew
        item = menu_item(
            table,
            player,
            lambda i, t=tile: i.action is not None and kind(getattr(i.action, "tile", None)) == kind(t),
        )
        assert item is not None
        assert table.tap(player, item.action).refusal is None
    if variant == "full":
        for player in PLAYERS:
            item = menu_item(table, player, lambda i: i.id == "start-place")
            assert table.tap(player, item.action).refusal is None
    assert table.start().refusal is None
    nodes = [seat.node for seat in table.setup.seats]
    for _ in range(400):
        if table.game.phase == "over":
            break
        for node in rng.sample(nodes, len(nodes)):
            seat = table.setup.seat_of(node)
            me = table.game.player(seat.player)
            timer = me.timers[seat.index - 1]
            if timer.running or (timer.symbol is None and table.game.phase != "running"):
                continue
            if timer.symbol is None and table.nodes[node].sand.is_running():
                continue  # a refused flip's sand still runs in the node
            done = ""
            at = timer.destination or me.ship
            if timer.symbol == SHIP and variant == "full" and at in table.game.moons:
                done = moon_lift(table, box, rng, seat.player, seat.index)
            if table.game.phase == "running":
                choose_next_symbol(table, rng, seat.player, seat.index)
            if verdict(table.flip(node)) == "accepted":
                pile = box.piles.get(at, [])
                if done == "take":
                    pile.pop(0)
                elif done == "under":
                    pile.append(pile.pop(0))
        advance(table, rng.choice([5, 20, 61]))
    return table, box


def advance(table: SimulatedTable, seconds: float) -> None:
    """Time passes and every node whose sand ran out says so. (``SimulatedTable.advance`` reports only the
    first of several nodes whose sand runs out at the same moment; the others are reported here.)"""
    table.advance(seconds)
    for node, sim in table.nodes.items():
        if sim.sand.poll_emptied():
            table.empty(node)


def as_the_table_sees_it(game: GameState) -> dict[str, Any]:
    """Everything of a game a player could see at the table (identical tiles are alike; the order of
    the piles is not looked at)."""
    players = {
        p.name: (
            [(b.id, b.stage, kind(b.tile.id) if b.tile else None, b.contents) for b in p.buildings],
            kind(p.research.id) if p.research else None,
            p.above,
            p.collected,
            p.bonus,
            p.ship,
            p.timers,
            p.ready,
        )
        for p in game.players
    }
    return {
        "players": players,
        "supply": game.supply,
        "bonus": game.planet_bonus,
        "phase": game.phase,
        "heights": [len(p) for p in game.piles],
        "tiles at the moons": Counter(kind(t) for t in game.unseen.items()),
        "ocher tiles left": Counter(kind(t) for t in game.ocher.items()),
    }


def the_same_game_replayed(table: SimulatedTable, box: PhysicalTable) -> tuple[GameState, dict[str, Any]]:
    """The physical game through the rules, from the table's real piles: the actions the hub logged,
    with every tile the players entered left out (the replay takes each one off its real pile)."""
    saved = [a for e in table.session.log.events() if isinstance(e, ev.GameStepped) for a in e.actions]
    stripped = [
        replace(a, choice=MoonTile(a.choice.research))
        if isinstance(a, LiftTimer) and isinstance(a.choice, MoonTile)
        else a
        for a in saved
        if not isinstance(a, TakeOcherTile)  # the record gives each player's ocher tile instead
    ]
    record: dict[str, Any] = {"variant": table.setup.variant, "players": list(PLAYERS)}
    if table.setup.variant == "full":
        record["piles"] = box.dealt
        start = setup_full(PLAYERS, components=BOX, piles=box.dealt)
    else:
        record["ocher"] = box.ocher
        start = setup_intro(PLAYERS, components=BOX, deck="table")
        for player, tile in box.ocher.items():
            start = apply(start, TakeOcherTile(player, tile)).state
    record["actions"] = [CODEC.encode(a) for a in stripped]
    result = GAME.referee_record(json.loads(json.dumps(record)))
    assert result["rejected"] == []
    return replay(start, stripped), result


@pytest.mark.parametrize("variant,seed", [("full", 5), ("full", 19), ("intro", 21)])
def test_a_game_with_the_box_ends_as_a_replay_of_the_same_physical_game(variant, seed, tmp_path):
    table, box = play_physical_game(variant, seed, tmp_path)
    game = table.game
    assert game.phase == "over"
    facts = Counter(
        type(f).__name__ for e in table.session.log.events() if isinstance(e, ev.GameStepped) for f in e.facts
    )
    assert facts["OrderFulfilled"] >= 2  # the game went somewhere: orders were fulfilled ...
    if variant == "full":  # ... and tiles were taken from the moons, put under their piles and built
        assert facts["TileTaken"] >= 5 and facts["TilePutUnder"] >= 1 and facts["BuildingBuilt"] >= 1
        assert all(t is None for pile in game.piles for t in pile)  # the hub never learnt an order
    else:
        assert facts["OcherTileTaken"] == 3
    replayed, record = the_same_game_replayed(table, box)
    assert as_the_table_sees_it(game) == as_the_table_sees_it(replayed)
    scores = table.referee.scores(game, table.ctx)
    assert scores == record["scores"]
    assert scores["winners"] == record["scores"]["winners"]
    assert table.ctx.ended_by == "rules"
    assert replays(table.session)
    assert not untranslated(table.snapshot()["view"])


# --- what the phone offers, and impossible entries -------------------------------------------------------


def at_a_moon(deck: str = "table") -> Table:
    """A full game (table deck): red's ship arrived at moon 1 and waits to be lifted."""
    t = Table(variant="full", deck=deck, seed=3)
    for player in t.setup.players:
        assert not hasattr(t.tap(player, "start-place"), "reason")
    t.start()
    assert t.flip("red-1", symbol="ship", destination="moon-1")["verdict"] == "accepted"
    t.run(60)
    t.empty("red-1")
    return t


def test_a_typical_draw_is_one_group_of_buttons_the_likeliest_first():
    t = at_a_moon()
    menu = t.menu("red")
    group = "Timer 1: when lifted from spaceship: red's planet → moon 1"
    items = [(i, m) for i, m in menu.items() if m["group"] == group]
    labels = [m["label"] for _, m in items]
    # 8 beam stations and 8 trading centers are likelier than the 2 production plants of each colour
    assert labels[:2] == [
        "Take beam station II into the research plant",
        "Take trading center II into the research plant",
    ]
    assert labels[2:6] == [
        f"Take production plant II ({c}) into the research plant" for c in ("gray", "yellow", "blue", "brown")
    ]
    assert labels[6:] == ["Put the top tile under the pile"]  # no skip: 8 tiles lie there
    assert not any(m["selected"] for _, m in items)  # the hub cannot know the tile: the player says
    assert menu["t1-lift"]["label"] == "Lift now (take the top tile) and set it aside"
    # a flip without saying which tile is refused, and says why
    refused = t.flip("red-1")
    assert refused["verdict"] == "rejected"
    assert "Which tile lies on top at moon 1? Choose it on your phone" in refused["reason"]
    assert t.game.player("red").timers[0].symbol == SHIP  # nothing happened
    # the typical draw: one tap on the tile found on top (the group unfolded first if it is folded), then the flip
    assert t.tap("red", items[0][0]) is None
    assert t.menu("red")[items[0][0]]["selected"]
    assert t.flip("red-1")["verdict"] == "accepted"
    red = t.game.player("red")
    assert red.research is not None and red.research.stage2.type == "beam"
    assert len(t.game.unseen) == 23 and t.game.height("moon-1") == 7
    assert t.replays()


def test_an_impossible_entry_is_refused_with_the_reason():
    # both gray production plants are taken from moons 1 and 2; a third one at moon 3 cannot be
    state = setup_full(PLAYERS, components=BOX)
    for player in PLAYERS:
        state = apply(
            state,
            PlaceStartingOrders(
                player, (OrderPlacement("gray", 1, "b1", 0), OrderPlacement("yellow", 1, "b2", 0))
            ),
        ).state
    state = apply(state, StartGame()).state
    for player, moon in (("red", "moon-1"), ("yellow", "moon-2")):
        state = apply(state, PlaceTimer(player, 0, SHIP, moon)).state
        state = apply(state, SandRanOut(player, 0)).state
        state = apply(state, LiftTimer(player, 0, MoonTile(True, "t01"))).state  # "a gray one": t01 or t02
    assert sorted(p.research.id for p in state.players if p.research) == ["t01", "t02"]
    state = apply(state, PlaceTimer("green", 0, SHIP, "moon-3")).state
    state = apply(state, SandRanOut("green", 0)).state
    refused = apply(state, LiftTimer("green", 0, MoonTile(True, "t02")))
    assert isinstance(refused, Rejected)
    assert said(refused) == (
        "There is no production plant II (gray) left in the pile at moon 3 (What the table drew)"
    )
    assert not untranslated([refused.reason, refused.rule])
    unknown = apply(state, LiftTimer("green", 0, MoonTile(True, "t99")))
    assert said(unknown) == "There is no tile 't99' in the box (What the table drew)"


def test_the_phone_refuses_a_tile_the_pile_cannot_hold_before_it_is_stored():
    t = at_a_moon()
    assert t.choose("red-1", moon="research", tile="t09") is None
    refused = t.choose("red-1", moon="research", tile="t77")
    assert "There is no tile 't77' in the box" in said(refused)


def test_the_hub_deck_supplies_the_tile_a_player_would_have_entered():
    t = at_a_moon(deck="hub")
    top = t.game.top("moon-1")
    assert top is not None
    words = {"production": "production plant", "beam": "beam station", "trading": "trading center"}
    item = t.menu("red")["t1-moon-research"]
    assert item["label"] == f"Take the top tile ({words[top.stage2.type]} II) into the research plant"
    assert item["selected"]  # the hub knows the tile: the usual choice is preselected
    step = t.act("red", Lift(1))
    [lift] = step.actions
    assert lift == LiftTimer("red", 0, MoonTile(True, top.id))  # the same action a table enters
    assert t.game.player("red").research == top


# --- corrections ---------------------------------------------------------------------------------------------


def test_an_ocher_tile_entry_can_be_corrected_until_the_clock_starts():
    t = Table(deck="table")
    refused = t.sim.start().refusal
    assert "red, yellow and green still must tell the hub which ocher tile they drew" in said(refused)
    menu = t.menu("red")
    group = [m for m in menu.values() if m["group"] == "Setup: the ocher tile I drew for b6"]
    assert [m["label"] for m in group] == [
        f"production plant III ({c})" for c in ("gray", "yellow", "blue", "brown")
    ]
    assert not hasattr(t.tap("red", "ocher-t05"), "reason")  # blue
    red = t.game.player("red")
    assert [c.color if c else None for c in red.building("b6").contents] == ["blue", "blue", None]
    assert t.game.supply_of("blue") == 10 and t.menu("red")["ocher-t05"]["selected"]
    assert not hasattr(t.tap("red", "ocher-t01"), "reason")  # no: it was a gray one
    red = t.game.player("red")
    assert [c.color if c else None for c in red.building("b6").contents] == ["gray", "gray", None]
    assert t.game.supply_of("blue") == 12 and t.game.supply_of("gray") == 10
    # the two gray tiles go to red and yellow; green cannot have drawn a third
    assert not hasattr(t.act("yellow", OcherTile("t01")), "reason")  # the other gray one
    third = t.act("green", OcherTile("t02"))
    assert (
        said(third) == "There is no production plant III (gray) left in the ocher tiles (What the table drew)"
    )
    assert not hasattr(t.act("green", OcherTile("t07")), "reason")
    t.start()
    late = t.act("red", OcherTile("t03"))
    assert "before the master clock starts" in said(late)
    assert t.replays()


def test_a_tile_entered_wrong_is_taken_back_with_the_lift():
    t = at_a_moon()
    before = t.game
    t.intend("red-1", moon="research", tile="t17", symbol="b1")
    assert t.flip("red-1")["verdict"] == "accepted"
    assert t.game.player("red").research.stage2.type == "trading"
    assert t.undo() is None  # the player took a beam station after all: the lift is taken back
    assert t.game == before
    t.intend("red-1", moon="research", tile="t09", symbol="b1")
    assert t.flip("red-1")["verdict"] == "accepted"
    assert t.game.player("red").research.stage2.type == "beam"
    assert t.replays()


# --- the secret start choice ------------------------------------------------------------------------------------


def test_starting_orders_are_secret_on_the_dashboard_until_everybody_has_picked():
    t = Table(variant="full", deck="table")

    def dashboard() -> tuple[list, dict]:
        view = en(t.session.snapshot()["view"])
        return [p for p in view["panels"] if p["title"] != "Starting orders"], view["picture"]

    before = dashboard()
    pick = StartingOrders((OrderPlacement("blue", 3, "b1", 0), OrderPlacement("brown", 2, "b5", 0)))
    assert not hasattr(t.act("red", pick), "reason")
    assert dashboard() == before  # what red picked is not shown, anywhere on the dashboard
    view = en(t.session.snapshot()["view"])
    secret = next(p for p in view["panels"] if p["title"] == "Starting orders")
    assert secret["lines"] == ["picked in secret: red", "still picking: yellow and green"]
    notes = " / ".join(en(e["text"]) for e in t.session.snapshot()["recent"])
    assert "red picked 2 starting orders in secret" in notes and "blue 3" not in notes
    # red's own phone shows red's pick
    mine = en(t.session.player_snapshot("red")["view"])
    assert any("order blue 3" in str(row) for row in mine["panels"][1]["rows"])
    for player in ("yellow", "green"):
        assert not hasattr(t.tap(player, "start-place"), "reason")
    view = en(t.session.snapshot()["view"])
    orders = next(p for p in view["panels"] if p["title"] == "Orders on the control centers")
    assert orders["rows"][0][1] == "blue 3 ×1, brown 2 ×1"
    assert not any(p["title"] == "Starting orders" for p in view["panels"])
    assert "everybody has, so all are shown now" in " / ".join(
        en(e["text"]) for e in t.session.snapshot()["recent"]
    )


# --- the box's own data ------------------------------------------------------------------------------------------


def test_a_components_file_with_a_typo_gives_one_line_naming_file_line_and_field(tmp_path):
    path = tmp_path / "my-box.json"
    path.write_text(
        SHIPPED.read_text(encoding="utf-8").replace('"type": "beam"', '"type": "bean"', 1), encoding="utf-8"
    )
    with pytest.raises(ComponentDataError) as info:
        GAME.load_components(str(path))
    line = next(n for n, row in enumerate(path.read_text().splitlines(), start=1) if '"bean"' in row)
    assert str(info.value) == (
        f"components file {path}, line {line}: control_center.buildings[4].type is 'bean'; "
        "use one of production, beam, trading"
    )


def test_a_table_started_with_a_corrected_components_file_plays_by_it(tmp_path):
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    data["bonus_counters"]["values"] = [4, 4, 4, 4]  # our box prints 4 on its bonus counters
    path = tmp_path / "our-box.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    table = SimulatedTable(game="time-n-space", variant="full", players=PLAYERS, deck="table")
    referee = TimeNSpaceReferee(table.setup, load_components(str(path)))
    table.session = TableSession(table.setup, clock=table.clock, referee=referee)
    board = next(p for p in en(table.snapshot()["view"])["panels"] if p["title"] == "Board")
    assert board["lines"][0] == "red's planet · bonus counter 4 · ships: red"
    assert table.game.planet_bonus == (4, 4, 4)


def test_a_corrected_trading_capacity_is_the_one_the_rules_apply(tmp_path):
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    for tile in data["tiles"]["tiles"]:
        if tile["stage3"]["type"] == "trading":
            tile["stage3"]["capacity"] = 2  # our box's stage III trading centers place 2 orders
    path = tmp_path / "our-box.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    t = Table()
    referee = TimeNSpaceReferee(t.setup, GAME.load_components(str(path)))
    t.sim.session = t.session = TableSession(t.setup, clock=t.clock, referee=referee)
    for node in t.sim.nodes:
        t.sim.hello(node)
    t.start()
    assert t.flip("red-1", symbol="b8")["verdict"] == "accepted"
    t.run(60)
    t.empty("red-1")
    refused = t.flip("red-1", trade=[["gray", 1]] * 3)
    assert (
        refused["verdict"] == "rejected" and "Trading center b8 places at most 2 orders" in refused["reason"]
    )
    assert t.flip("red-1", trade=[["gray", 1]] * 2)["verdict"] == "accepted"
    assert sum(o.color == "gray" for *_, o in t.game.player("red").placed_orders()) == 2
