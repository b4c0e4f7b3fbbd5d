"""What the dashboard draws (the view's "picture") and the order of the phone's menu.

The picture is data: places around the ring of wormholes, ships, tile piles, and each
control center with its buildings and the sandtimer standing on each time symbol. The
menu lists what a player does next first: a finished sandtimer's lift choices with the
usual one first, then its next time symbol with the preselected one first.
"""

from __future__ import annotations

from companion.i18n import render

from .test_time_n_space_helpers import Table, en, untranslated


def picture(t: Table) -> dict:
    return t.session.snapshot()["view"]["picture"]


def test_the_picture_shows_the_board_ships_and_control_centers():
    t = Table()
    t.start()
    assert t.flip("red-1", symbol="b6")["verdict"] == "accepted"
    assert t.flip("red-2", symbol="ship", destination="moon-1")["verdict"] == "accepted"
    pic = picture(t)
    places = pic["board"]["places"]
    assert [p["id"] for p in places] == ["planet-1", "moon-1", "planet-2", "moon-2", "planet-3", "moon-3"]
    assert [p["kind"] for p in places] == ["planet", "moon"] * 3
    assert {p["player"] for p in places if p["kind"] == "planet"} == {"red", "yellow", "green"}
    assert [en(p["name"]) for p in places[:2]] == ["red's planet", "moon 1"]
    assert len(pic["board"]["wormholes"]) == 6
    ships = {s["player"]: s for s in pic["board"]["ships"]}
    assert ships["red"]["at"] == "planet-1" and ships["red"]["to"] == "moon-1"
    assert ships["red"]["timer"]["node"] == "red-2" and ships["red"]["timer"]["state"] == "running"
    assert ships["yellow"]["to"] is None and ships["yellow"]["timer"] is None
    red = pic["players"][0]
    assert red["name"] == "red" and red["colour"] == "red"
    assert [b["id"] for b in red["buildings"]] == [f"b{i}" for i in range(1, 9)]
    b6 = next(b for b in red["buildings"] if b["id"] == "b6")
    assert b6["timer"] == {
        "player": "red",
        "index": 1,
        "node": "red-1",
        "state": "running",
        "title": b6["timer"]["title"],
    }
    assert en(b6["timer"]["title"]) == "red timer 1: sand running"
    assert [s["cube"] for s in b6["spots"]] == ["gray", "gray", None]
    assert red["ship"]["timer"]["node"] == "red-2"
    assert [tm["symbol"] for tm in red["timers"]] == ["b6", "ship"]
    assert [g["count"] for g in pic["supply"]] == list(t.game.supply)
    assert not untranslated(pic)
    assert render_json(pic["players"][0]["title"], "es") == "centro de control de red"


def test_a_finished_sandtimer_is_shown_waiting_to_be_lifted():
    t = Table()
    t.start()
    t.flip("red-1", symbol="b6")
    t.run(60)
    t.empty("red-1")
    b6 = next(b for b in picture(t)["players"][0]["buildings"] if b["id"] == "b6")
    assert b6["timer"]["state"] == "finished"
    assert en(b6["timer"]["title"]) == "red timer 1: finished: waits to be lifted"


def test_the_full_game_picture_has_tile_piles_and_bonus_counters():
    t = Table(variant="full", seed=3)
    places = picture(t)["board"]["places"]
    moons = [p for p in places if p["kind"] == "moon"]
    assert [m["pile"] for m in moons] == [8, 8, 8] and all(m["top"] for m in moons)
    assert all(p["bonus"] for p in places if p["kind"] == "planet")


def test_the_menu_lists_the_finished_timers_lift_then_its_next_symbol_usual_choices_first():
    t = Table()
    t.start()
    t.flip("red-1", symbol="b7")  # beam station III: the lift beams the cubes of the production plants
    t.flip("red-2", symbol="b6")
    t.run(60)
    t.empty("red-2")  # red-2 finished, red-1 still runs
    order = t.menu_order("red")
    menu = t.menu("red")
    # the finished timer comes first: its lift's usual choice (produce), then its next symbol (the same)
    assert order[0] == "t2-produce" and menu["t2-produce"]["selected"]
    next_symbols = [i for i in order if i.startswith("t2-next-")]
    assert menu[next_symbols[0]]["selected"] and next_symbols[0] == "t2-next-b6"
    assert order.index("t2-forfeit") < order.index(next_symbols[0])
    assert order.index("t2-lift") > order.index(next_symbols[-1])  # lifting without a flip comes last
    assert max(order.index(i) for i in order if i.startswith("t2-")) < min(
        order.index(i) for i in order if i.startswith("t1-")
    )
    # the running timer's beam toggles: selected ones first, short alternatives, then the other toggles
    t1 = [i for i in order if i.startswith("t1-") and not i.startswith("t1-next-")]
    selected = [i for i in t1 if menu[i]["selected"]]
    assert t1[: len(selected)] == selected
    assert t1.index("t1-beam-none") < t1.index("t1-forfeit")


def test_menu_labels_are_in_the_players_language():
    t = Table()
    t.start()
    item = next(i for i in t.session.player_snapshot("red")["menu"] if i["id"] == "t1-next-ship-moon-1")
    assert render_json(item["label"], "es") == "Volar a luna 1"
    assert render_json(item["group"], "de") == "Sanduhr 1: nächstes Symbol"


def render_json(value: dict, lang: str) -> str:
    from companion.rules.text import from_json

    return render(from_json(value), lang)
