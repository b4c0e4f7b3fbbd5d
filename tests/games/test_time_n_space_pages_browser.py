"""Time 'n' Space's pages in real Chromium on a real table (mosquitto, hub, simulated sandtimer nodes).

The dashboard draws the board and the control centers as a picture (static/pictures/time-n-space.js)
from the referee's view; the phone page puts a typical lift on one screen at 390×844. Sandtimers run
one real second here, so the nodes report their sand through at once. With COMPANION_SCREENSHOTS=1
the test refreshes docs/screenshots/time-n-space-dashboard.png and -phone.png.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.games.time_n_space.model import OcherTile
from companion.table import messages as msg
from tests.conftest import wait_until
from tests.hub.test_pages_browser import start

from .test_time_n_space_helpers import intent as choice

pytestmark = [pytest.mark.broker, pytest.mark.browser]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
AXE = Path(__file__).resolve().parents[1] / "browser" / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page, selector: str) -> list:
    """What axe-core (tests/browser, from npm) finds against WCAG 2 A/AA inside ``selector``."""
    if not AXE.exists():
        pytest.fail("axe-core is missing: run `npm ci` in tests/browser (make test does this)")
    page.add_script_tag(path=str(AXE))
    return page.evaluate(
        """async (selector) => {
             const r = await axe.run({include: [selector]}, {runOnly: {type: "tag",
                 values: ["wcag2a", "wcag2aa", "wcag21aa"]}, resultTypes: ["violations"]});
             return r.violations.map(v => ({id: v.id, nodes: v.nodes.map(n => n.target.join(" "))}));
           }""",
        selector,
    )


def save_screenshot(page, name: str, *, full_page: bool) -> None:
    """docs/screenshots/<name>.png, only when COMPANION_SCREENSHOTS=1 (CI leaves the repo alone)."""
    if os.environ.get("COMPANION_SCREENSHOTS") in ("1", "docs"):
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / f"{name}.png"), full_page=full_page)


def place(table, node: str, **intent) -> None:
    """Choose where the sandtimer goes on the phone, turn the simulated node over, wait for the engine."""
    session = table.app.extensions["companion.session"]
    seat = session.setup.seat_of(node)
    assert session.handle(msg.ChooseIntent(seat.player, node, choice(**intent))).refusal is None
    table.fleet.nodes[node].flip()

    def placed() -> bool:
        timer = session.state.game.player(seat.player).timers[seat.index - 1]
        return timer.symbol == intent["symbol"]

    wait_until(placed, timeout_s=5, message=f"{node} on {intent['symbol']}")


def finished(table, *nodes: str) -> None:
    session = table.app.extensions["companion.session"]

    def done() -> bool:
        game = session.state.game
        for node in nodes:
            seat = session.setup.seat_of(node)
            timer = game.player(seat.player).timers[seat.index - 1]
            if timer.symbol is None or timer.running:
                return False
        return True

    wait_until(done, timeout_s=5, message=f"the sand of {', '.join(nodes)} to run through")


@pytest.fixture
def table(mosquitto, table_id):
    with start(
        mosquitto,
        table_id,
        game="time-n-space",
        variant="intro",
        players=3,
        timers=2,
        sand_s=1.0,
        deck="table",
    ) as table:
        session = table.app.extensions["companion.session"]
        wait_until(
            lambda: all(link.online for link in session.table.seated_links()),
            timeout_s=10,
            message="nodes online",
        )
        for player, tile in (("red", "t01"), ("yellow", "t03"), ("green", "t05")):  # drawn from the box
            assert session.handle(msg.PlayerAction(player, OcherTile(tile))).refusal is None
        assert session.handle(msg.ClockCommand("start")).refusal is None
        place(table, "red-1", symbol="b6")
        place(table, "red-2", symbol="ship", destination="moon-1")
        place(table, "yellow-1", symbol="b7")
        finished(table, "red-1", "red-2", "yellow-1")
        yield table


def test_the_dashboard_draws_the_board_the_ships_and_each_control_center(browser, table):  # noqa: F811
    game = table.app.extensions["companion.session"].state.game
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(table.url)
    page.wait_for_selector("#picture svg.game-picture .tns-building[data-building='b6'] .tns-timer")
    svg = "#picture svg.game-picture"
    assert page.locator(f"{svg} [data-planet]").count() == len(game.players) == 3
    assert page.locator(f"{svg} [data-moon]").count() == len(game.moons) == 3
    assert page.locator(f"{svg} .tns-wormhole").count() == len(game.wormholes)
    assert page.locator(f"{svg} .tns-ship").count() == 3
    assert page.locator(f"{svg} .tns-center").count() == 3
    assert page.locator(f"{svg} .tns-building").count() == sum(len(p.buildings) for p in game.players)
    # the sandtimer red-1 stands on red's b6, red-2 on red's spaceship flying to moon 1
    red = f"{svg} .tns-center[data-player='red']"
    timer = page.locator(f"{red} .tns-building[data-building='b6'] .tns-timer[data-node='red-1']")
    assert timer.count() == 1 and timer.get_attribute("data-state") == "finished"
    assert page.locator(f"{red} .tns-ship-symbol .tns-timer[data-node='red-2']").count() == 1
    assert page.locator(f"{svg} .tns-ship[data-ship='red'][data-to='moon-1']").count() == 1
    yellow_b7 = f"{svg} .tns-center[data-player='yellow'] .tns-building[data-building='b7']"
    assert page.locator(f"{yellow_b7} .tns-timer[data-node='yellow-1']").count() == 1
    # cubes on red's production plant b6, as the engine has them
    cubes = sum(c is not None for c in game.player("red").building("b6").contents)
    assert page.locator(f"{red} .tns-building[data-building='b6'] [data-cube]").count() == cubes
    # the planet in its player's colour, named in words
    planet = page.locator(f"{svg} .tns-place[data-planet='planet-1']")
    assert planet.locator("circle").first.get_attribute("fill") == page.evaluate("Pictures.ctx.colour('red')")
    assert "red's planet" in planet.locator("text").last.text_content()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    assert axe_violations(page, "#picture") == []
    save_screenshot(page, "time-n-space-dashboard", full_page=True)

    # in Spanish at phone width: the same picture in one column, its words translated, labels >= 12 px
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(table.url + "?lang=es")
    phone.wait_for_selector(f"{svg} .tns-center")
    assert (
        "planeta de red"
        in phone.locator(f"{svg} .tns-place[data-planet='planet-1'] text").last.text_content()
    )
    assert phone.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    smallest = phone.evaluate(
        """() => { const svg = document.querySelector('#picture svg'), box = svg.getBoundingClientRect();
                   const k = Math.min(box.width / svg.viewBox.baseVal.width, box.height / svg.viewBox.baseVal.height);
                   return Math.min(...[...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size')) * k)); }"""
    )
    assert smallest >= 12, f"a label of the picture is {smallest:.1f} px at 390 px"
    phone.close()
    page.close()


def test_a_typical_lift_takes_two_taps_on_one_phone_screen(browser, table):  # noqa: F811
    session = table.app.extensions["companion.session"]
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(table.url + "play/red")
    page.wait_for_selector("button[data-id='t1-produce'].selected")  # the usual action, preselected
    page.wait_for_selector("button[data-id='t1-next-b6'].selected")  # and the same symbol again

    def on_screen(selector: str) -> bool:
        box = page.locator(selector).bounding_box()
        return (
            box is not None
            and box["y"] >= 0
            and box["y"] + box["height"] <= 844
            and box["x"] + box["width"] <= 390
        )

    assert page.evaluate("window.scrollY") == 0
    for selector in (
        "button[data-id='t1-produce']",
        "button[data-id='t1-forfeit']",
        "button[data-id='t1-next-b6']",
        "button[data-id='t1-next-b1']",
        ".timer[data-node='red-1'] button.flip",
    ):
        assert on_screen(selector), f"{selector} needs scrolling at 390x844"
    save_screenshot(page, "time-n-space-phone", full_page=False)

    supply = session.state.game.supply_of("gray")
    page.tap("button[data-id='t1-next-b1']")  # tap 1: where the sandtimer goes next
    page.wait_for_selector("button[data-id='t1-next-b1'].selected")
    page.tap(".timer[data-node='red-1'] button.flip")  # tap 2: lift (produce) and place it
    wait_until(
        lambda: session.state.game.player("red").timers[0].symbol == "b1",
        timeout_s=5,
        message="red-1 lifted from b6 and placed on b1",
    )
    assert session.state.game.supply_of("gray") == supply - 1  # b6 produced its gray cube
    assert page.evaluate("window.scrollY") == 0
    page.close()


def test_light_mode_score_sheets_are_saved_from_the_phones_form(browser, mosquitto, table_id):
    """Light mode's end: each phone's "Enter my counters" form posts the score-sheet move the hub reads."""
    with start(
        mosquitto, table_id, game="time-n-space", variant="light", players=3, timers=2, time_scale=400.0
    ) as table:
        session = table.app.extensions["companion.session"]
        assert session.handle(msg.ClockCommand("start")).refusal is None
        wait_until(
            lambda: session.state.game.phase == "over", timeout_s=10, message="the master clock to run out"
        )
        for player in ("red", "yellow", "green"):
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(table.url + f"play/{player}")
            page.wait_for_selector(".counter-sheet button.save")
            if player == "red":  # red collected one counter: the form's first choices (gray 1 from yellow)
                page.locator(".counter-sheet .sheet-section").first.locator("button.add").click()
            page.locator(".counter-sheet button.save").click()
            wait_until(
                lambda p=player: p in session.state.game.entries(),
                timeout_s=5,
                message=f"{player}'s sheet saved",
            )
            page.close()
        scores = session.snapshot()["scores"]
        assert scores["players"]["red"]["rows"]["gray"]["points"] == 1 and scores["winners"] == ["red"]
