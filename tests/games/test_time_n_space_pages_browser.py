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
from tests.conftest import wait_seated_online, wait_until
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
        wait_seated_online(session)
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


def test_a_tap_on_a_lifts_choice_chooses_what_it_names_and_keeps_its_place(browser, table):  # noqa: F811
    """yellow's beam station has finished: both yellow cubes are preselected. A tap on the second one
    chooses that cube alone, no button moves, the lift button says what happens, and the lift does it."""
    session = table.app.extensions["companion.session"]
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(table.url + "play/yellow")
    second = "button[data-id='t1-beam-b6-1']"
    page.wait_for_selector(f"{second}.selected")
    assert page.locator("button[data-id='t1-beam-b6-0']").get_attribute("class").split() == [
        "option",
        "selected",
    ]
    assert page.inner_text("button[data-id='t1-lift']") == "Lift now (beam 2 cubes) and set it aside"
    where = {
        b.get_attribute("data-id"): b.bounding_box()["y"]
        for b in page.locator("#menu button.option:visible").all()
    }
    page.tap(second)  # the cube the player wants (it was preselected)
    page.wait_for_selector("button[data-id='t1-beam-b6-0']:not(.selected)")
    assert "selected" in page.get_attribute(second, "class"), "the tapped option is chosen, not switched off"
    page.wait_for_selector("button[data-id='t1-lift']:text('Lift now (beam 1 cube) and set it aside')")
    after = {
        b.get_attribute("data-id"): b.bounding_box()["y"]
        for b in page.locator("#menu button.option:visible").all()
    }
    assert after == where, "no button moved under the finger"
    page.tap("button[data-id='t1-lift']")
    wait_until(
        lambda: session.state.game.player("yellow").timers[0].symbol is None,
        timeout_s=5,
        message="yellow-1 lifted and set aside",
    )
    yellow = session.state.game.player("yellow")
    assert [c is not None for c in yellow.building("b6").contents] == [True, False, False], (
        "spot 2 was beamed"
    )
    assert sum(c is not None for c in yellow.building("b7").contents) == 1
    page.close()


def test_lifting_every_finished_sandtimer_is_the_hosts_and_asks_first(browser, mosquitto, table_id):
    """After the master clock: the dashboard offers the host to lift every finished sandtimer, asks
    first (Cancel changes nothing), and no phone offers it."""
    with start(
        mosquitto,
        table_id,
        game="time-n-space",
        variant="intro",
        players=3,
        timers=2,
        sand_s=1.0,
        clock_minutes=0.1,
        deck="hub",
    ) as table:
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        assert session.handle(msg.ClockCommand("start")).refusal is None
        place(table, "red-1", symbol="b6")
        place(table, "yellow-1", symbol="b7")
        finished(table, "red-1", "yellow-1")
        wait_until(lambda: session.state.game.phase == "ending", timeout_s=10, message="the clock to run out")
        phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        phone.goto(table.url + "play/red")
        phone.wait_for_selector("button[data-id='t1-lift']")
        assert "Lift every" not in phone.inner_text("body"), "a phone acts for its player only"
        phone.wait_for_selector("#table-state[data-stage='last-lifts']")
        assert phone.inner_text("#table-state").startswith("Last lifts: the master clock has run out")
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.url + "end")
        assert page.inner_text("#standing").startswith("Last lifts: the master clock has run out")
        assert "The game is over" not in page.inner_text("main"), "the last lifts are not the game's end"
        page.goto(table.url)
        page.wait_for_selector("#over:not([hidden])")
        assert page.inner_text("#over-text").startswith("Last lifts: the master clock has run out")
        assert page.is_hidden("#final-scores")
        button = "button[data-host-action='finish']"
        page.wait_for_selector(button)
        page.click(button)
        page.wait_for_selector("dialog#ask[open]")
        assert "Lift the 2 finished sandtimers now" in page.inner_text("#ask-text")
        page.click("#ask-cancel")
        page.wait_for_selector("dialog#ask:not([open])", state="hidden")
        assert session.state.game.phase == "ending", "nothing happens before the host confirms"
        page.click(button)
        page.click("#confirm-host-action")
        wait_until(lambda: session.state.game.phase == "over", timeout_s=5, message="every sandtimer lifted")
        page.wait_for_selector(f"{button}", state="detached")
        page.close()
        phone.close()


BOARD_OVERLAPS = """() => {
  const box = (e) => e.getBoundingClientRect();
  const hit = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
                     && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const names = [...document.querySelectorAll("#picture .tns-board .tns-place")].map((p) => ({
    place: p.dataset.place, parts: [...p.querySelectorAll(":scope > circle, :scope > text")].map(box) }));
  const out = [];
  for (const ship of document.querySelectorAll("#picture .tns-board .tns-ship")) {
    for (const part of ship.querySelectorAll("polygon, .tns-timer")) {
      for (const n of names) {
        if (n.parts.some((r) => hit(box(part), r))) out.push(ship.dataset.ship + " covers " + n.place);
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_no_ship_and_no_timer_badge_covers_a_place_or_its_name(browser, table, width):  # noqa: F811
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(table.url)
    page.wait_for_selector("#picture svg.game-picture .tns-ship[data-ship='red'] .tns-timer")
    assert page.evaluate(BOARD_OVERLAPS) == []
    page.close()
