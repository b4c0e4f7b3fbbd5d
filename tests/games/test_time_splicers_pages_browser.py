"""Time Splicers' picture on the dashboard, in headless Chromium against a real table.

A hub with three players plays a few turns (timers flipped on the simulated nodes, actions from the
phone menus); the dashboard's SVG must then show what the game state says: one row per Timeline
with its cards in Era order, every meeple where it stands, each player's hand, crystals and tokens,
whose turn it is in the player's colour, labels in the page's language, and no sideways scrolling at
390 px. With COMPANION_SCREENSHOTS=1 (or ``docs``) the test writes docs/screenshots/time-splicers-
dashboard.png (1280x800) and -phone.png (390x844).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from companion.games.time_splicers import GAME
from companion.games.time_splicers.referee import SplicersReferee
from companion.games.time_splicers.setup import Layout, new_game
from companion.games.time_splicers.words import timeline_text
from companion.hub import HubConfig
from companion.i18n import render
from companion.rules.context import Context
from companion.rules.setup import Seat, make_setup
from companion.runtime import RunOptions, Table
from companion.table import messages as msg
from tests.conftest import flip_for_turn, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.browser]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PICTURE = "svg.game-picture[data-game='time-splicers']"
MAIN_ACTIONS = ("place:", "move:", "portal")


def screenshot(page, name: str) -> None:
    """Refresh docs/screenshots/<name>.png only when asked, so CI never rewrites the repository."""
    if os.environ.get("COMPANION_SCREENSHOTS") in ("1", "docs"):
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / f"{name}.png"), full_page=True)


def start(mosquitto, table_id) -> Table:
    options = RunOptions(
        hub=HubConfig(
            table=table_id,
            game="time-splicers",
            players=3,
            timers=1,
            sand_s=600.0,
            clock_minutes=60,
            seed=18,
            turn_limit=False,  # a timer flipped again soon has little sand on top: no time-outs here
        ),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=5.0,
    )
    return Table(options)


def game_of(session):
    return session.state.game


def tap(session, player: str, item: dict) -> None:
    """What the phone page does with a button: post its action, read back with the game's codec."""
    outcome = session.handle(msg.PlayerAction(player, GAME.codec.read(item["action"], GAME.moves)))
    assert outcome.refusal is None, outcome.refusal


def turn_up_the_starting_card(session) -> None:
    """A table that plays with its box enters the card turned up at setup (here the first offered)."""
    player = game_of(session).current_player
    while game_of(session).turning_up is not None:
        tap(session, player, session.player_snapshot(player)["menu"][0])


def begin_turn(table, session) -> str:
    """The player to move flips their turn timer; their turn is running once this returns."""
    player = game_of(session).current_player
    flip_for_turn(table, player)
    return player


def play_turn(table, session) -> None:
    player = begin_turn(table, session)
    menu = session.player_snapshot(player)["menu"]
    item = next((i for i in menu if i["id"].startswith("place:")), None) or next(
        i for i in menu if i["id"].startswith(MAIN_ACTIONS)
    )
    tap(session, player, item)
    while game_of(session).turning_up is not None:  # a collapse left no Timeline: the table turns one up
        tap(session, player, session.player_snapshot(player)["menu"][0])
    wait_until(
        lambda: game_of(session).current_player != player,
        message=f"the turn to pass from {player} ({item['id']}, {game_of(session).turning_up})",
    )


def shown_state(session) -> dict:
    """What the picture must show, from the game state."""
    game = game_of(session)
    return {
        "turn": game.current_player,
        "rows": {t.colour: list(t.cards) for t in game.timelines},
        "meeples": sorted(p.name for p in game.players if p.position is not None and not p.eliminated),
        "hands": {p.name: p.hand_size for p in game.players},
        "crystals": {p.name: p.crystals for p in game.players},
    }


def check_picture(page, want: dict, lang: str) -> None:
    page.wait_for_selector(f"{PICTURE}[data-turn='{want['turn']}']")
    rows = page.locator(f"{PICTURE} [data-timeline]")
    assert rows.count() == len(want["rows"])
    for colour, cards in want["rows"].items():
        row = page.locator(f"{PICTURE} [data-timeline='{colour}']")
        assert row.get_attribute("data-cards") == str(len(cards))
        drawn = row.locator("[data-card]").evaluate_all("cs => cs.map(c => c.dataset.card)")
        assert drawn == cards, "the cards of a Timeline in Era order"
        assert render(timeline_text(colour), lang) in row.locator("text").first.inner_html()
    assert page.locator(f"{PICTURE} [data-card]").count() == sum(len(c) for c in want["rows"].values())
    meeples = page.locator(f"{PICTURE} [data-meeple]").evaluate_all("ms => ms.map(m => m.dataset.meeple)")
    assert sorted(meeples) == want["meeples"]
    players = page.locator(f"{PICTURE} [data-player]")
    assert players.count() == len(want["hands"])
    for name, hand in want["hands"].items():
        block = page.locator(f"{PICTURE} [data-player='{name}']")
        assert block.get_attribute("data-hand") == str(hand)
        assert block.get_attribute("data-crystals") == str(want["crystals"][name])
        assert block.get_attribute("data-to-move") == ("true" if name == want["turn"] else "false")
    # the player to move: their meeple in their colour, with the gold ring
    mover = page.locator(f"{PICTURE} [data-meeple='{want['turn']}']")
    colour = page.evaluate(f"window.PLAYER_COLOURS[{want['turn']!r}]")
    assert mover.get_attribute("fill") == colour and mover.get_attribute("stroke") == "#f2c14e"


def corner_cases() -> dict:
    """A picture with what a short game rarely shows: a special starting card with a meeple on it, a
    meeple in the Time Portal, a frozen Timeline with the Singularity, an eliminated player."""
    players = ("ana", "ben", "cleo")
    setup = make_setup(
        table="x", game="time-splicers", players=players, seats=tuple(Seat(n, 1, f"{n}-1") for n in players)
    )
    layout = Layout(
        start="quantum-tunnel-1",
        timelines=(("red-3", "red-5", "red-13"), ("blue-5",)),
        positions={"ana": "time-portal", "ben": "quantum-tunnel-1", "cleo": "blue-5"},
        hands={"ana": ("red-6",), "ben": ("blue-6",), "cleo": ()},
        crystals={"ana": 3},
    )
    referee = SplicersReferee.for_table(setup, GAME.data)
    game = new_game(players, config=GAME.data, layout=layout)
    red = dataclasses.replace(game.timelines[0], freezes=(("time-freeze-1", "ben"),))
    cleo = dataclasses.replace(game.players[2], eliminated=True, position=None)
    game = dataclasses.replace(game, timelines=(red, game.timelines[1]), players=(*game.players[:2], cleo))
    return referee.view(game, Context()).to_dict()["picture"]


def check_corner_cases(page) -> None:
    drawn = page.evaluate(
        """(pic) => {
          const svg = Pictures.draw("time-splicers", pic);
          const all = (sel) => [...svg.querySelectorAll(sel)];
          return {
            rows: all("[data-timeline]").map((r) => [r.dataset.timeline, r.dataset.cards, r.dataset.frozenBy]),
            meeples: all("[data-meeple]").map((m) => [m.dataset.meeple, m.dataset.where]),
            states: all("[data-player]").map((p) => [p.dataset.player, p.dataset.state, p.dataset.crystals]),
            start: all("[data-start]").map((c) => c.dataset.start),
            frozen: all(".ts-frozen text").map((f) => f.textContent),
            singularity: all("[data-card='red-13'] rect")[0].getAttribute("stroke"),
          };
        }""",
        corner_cases(),
    )
    assert drawn["rows"] == [["red", "3", "ben"], ["blue", "1", ""]]
    assert sorted(drawn["meeples"]) == [["ana", "time-portal"], ["ben", "quantum-tunnel-1"]]
    assert drawn["states"] == [["ana", "to start", "3"], ["ben", "", "0"], ["cleo", "eliminated", "0"]]
    assert drawn["start"] == ["quantum-tunnel-1"] and drawn["frozen"] == ["❄ frozen by ben"]
    assert drawn["singularity"] == "#f2c14e"


def test_the_dashboard_draws_the_timelines_the_game_has(browser, mosquitto, table_id):
    with start(mosquitto, table_id) as table:
        session = table.app.extensions["companion.session"]
        session.handle(msg.ClockCommand("start"))
        turn_up_the_starting_card(session)
        for _ in range(6):
            play_turn(table, session)
        player = begin_turn(table, session)  # the seventh turn is running: the picture and the phone show it
        want = shown_state(session)
        assert want["rows"] and len(want["meeples"]) == 3

        wide = browser.new_page(viewport={"width": 1280, "height": 800})
        wide.goto(table.url)
        check_picture(wide, want, "en")
        check_corner_cases(wide)
        assert wide.locator("#details").get_attribute("open") is None, "the tables wait behind Details"
        screenshot(wide, "time-splicers-dashboard")
        wide.close()

        narrow = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        narrow.goto(table.url + "?lang=es")
        check_picture(narrow, want, "es")
        assert narrow.evaluate("document.scrollingElement.scrollWidth") <= 390, "no sideways scrolling"
        smallest = narrow.evaluate(
            """() => {
              const svg = document.querySelector("svg.game-picture");
              const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
              return Math.min(...[...svg.querySelectorAll("text")].map(
                (t) => parseFloat(t.getAttribute("font-size")) * scale));
            }"""
        )
        assert smallest >= 12, f"labels at least 12 px high at 390 px, not {smallest:.1f}"
        narrow.close()

        phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        phone.goto(table.url + f"play/{player}")
        phone.wait_for_selector("#menu button[data-id]")
        first = phone.locator("#menu button[data-id]").first.get_attribute("data-id")
        assert first.startswith(MAIN_ACTIONS), "what ends the turn comes first"
        assert phone.evaluate("document.scrollingElement.scrollWidth") <= 390
        screenshot(phone, "time-splicers-phone")
        phone.close()
