"""The pages in real headless Chromium against a real table (mosquitto, hub, simulated nodes).

Screenshots go to test-artifacts/; with COMPANION_SCREENSHOTS=docs they also refresh docs/screenshots/.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from companion.table import messages as tm
from tests.conftest import wait_until

pytestmark = [pytest.mark.broker, pytest.mark.browser]


def score_sheet(sheet):
    """Light mode's move for a sheet, read as the hub reads the phone form's post."""
    from companion.games import find_game

    game = find_game("time-n-space")
    return game.codec.read({"@": "ScoreSheet", "sheet": sheet}, game.moves)


ARTIFACTS = Path(os.environ.get("COMPANION_ARTIFACTS", "test-artifacts"))
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    if os.environ.get("COMPANION_SCREENSHOTS") in ("1", "docs"):
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / f"{name}.png"), full_page=True)


def start(mosquitto, table_id, **hub) -> Table:
    """A table not yet started: use it as ``with start(...) as table``."""
    options = RunOptions(
        hub=HubConfig(table=table_id, **{"deck": "hub", **hub}),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    return Table(options)


def test_dashboard_shows_clock_and_draining_sand_live(browser, mosquitto, table_id):
    with start(mosquitto, table_id, time_scale=10.0) as table:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.url)
        page.wait_for_selector(".timer[data-node='red-1'] .node-state:text('online')")
        assert page.locator(".player").count() == 4
        assert page.locator(".timer").count() == 8
        assert page.inner_text("#clock") == "12:00"

        page.click("button[data-clock='start']")
        page.wait_for_function("document.getElementById('clock').textContent < '11:58'")
        red1 = page.locator(".timer[data-node='red-1']")
        red1.locator("button.flip").click()
        page.wait_for_selector(".timer[data-node='red-1'].running")
        first = float(red1.locator(".sand").evaluate("e => parseFloat(e.style.height)"))
        page.wait_for_timeout(600)  # 6 game seconds at time scale 10
        later = float(red1.locator(".sand").evaluate("e => parseFloat(e.style.height)"))
        assert 0 < later < first, "the sand drains between server frames"
        assert "red timer 1 flipped" in page.inner_text("#recent")

        page.click("button[data-clock='pause']")
        page.wait_for_selector("#clock-phase:text('paused')")
        page.wait_for_selector("button[data-clock='pause']:disabled")  # only a running clock pauses
        assert page.is_enabled("button[data-clock='resume']")
        screenshot(page, "dashboard")
        page.close()


def test_setup_pairs_simulated_timers_by_flipping_them(browser, mosquitto, table_id):
    with start(mosquitto, table_id, players=2, timers=2) as table:
        page = browser.new_page(viewport={"width": 900, "height": 1000})
        page.goto(table.url + "setup")
        page.select_option("#game", "sandtimers")
        page.select_option("#count", "2")
        page.fill("#names input[data-player='0']", "ana")
        page.fill("#names input[data-player='1']", "ben")
        page.select_option("#names select[data-colour='1']", "purple")
        page.fill("#timers", "1")
        page.click("#start")
        page.wait_for_selector("#ask:text('Flip the timer for ana, number 1')")
        assert page.locator("#unpaired button.identify").count() == 4, (
            "every connected timer can be identified"
        )
        assert page.locator("#unpaired button.flip").count() == 4, "and flipped, since they are simulated"
        assert page.is_visible("#sim-hint")
        screenshot(page, "setup-pairing")
        page.click("#unpaired li[data-node='yellow-2'] button.flip")
        page.wait_for_selector("#ask:text('Flip the timer for ben, number 1')")
        assert page.locator("#unpaired li[data-node='yellow-2']").count() == 0, (
            "a paired timer leaves the list"
        )
        page.click("#unpaired li[data-node='red-1'] button.flip")
        page.wait_for_selector("#ready:not([hidden])")
        assert page.locator("#qrs img").count() == 2
        page.wait_for_function(
            "[...document.querySelectorAll('#qrs img')].every(i => i.complete && i.naturalWidth > 0)"
        )
        screenshot(page, "setup-ready")
        session = table.app.extensions["companion.session"]
        assert [(s.player, s.node) for s in session.setup.seats] == [("ana", "yellow-2"), ("ben", "red-1")]
        assert session.setup.colours == ("red", "purple")
        page.goto(table.url)
        page.wait_for_selector(".player h2 a:text('ben')")
        colour = page.eval_on_selector_all(
            ".player", "els => els.map(e => e.style.getPropertyValue('--colour'))"
        )
        assert colour == ["#e74c3c", "#9b59b6"], "each player card wears its chosen colour"
        page.close()


def test_phone_page_shows_a_refusal_in_red_and_reconnects(browser, mosquitto, table_id):
    with start(mosquitto, table_id, players=2, timers=1, time_scale=240.0, clock_minutes=2) as table:
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        page.goto(table.url + "play/red")
        page.wait_for_selector(".timer[data-node='red-1']")
        assert page.inner_text("#clock") == "02:00"
        session = table.app.extensions["companion.session"]
        session.handle(tm.ClockCommand("start"))
        page.wait_for_function("document.getElementById('clock').textContent === '00:00'", timeout=10_000)
        page.wait_for_function("true")
        assert session.state.clock.phase in ("running", "expired")
        page.wait_for_timeout(300)
        page.click(".timer[data-node='red-1'] button.flip")
        page.wait_for_selector("#refusal:not([hidden])")
        assert "master clock has run out" in page.inner_text("#refusal")
        color = page.eval_on_selector("#refusal", "e => getComputedStyle(e).borderColor")
        assert color == "rgb(255, 90, 90)"
        node = table.fleet.nodes["red-1"]
        assert node.core.last_verdict == "rejected"
        screenshot(page, "player-refused")

        table.restart_web_server()  # every open page loses its connection
        page.wait_for_selector("#link:text('reconnecting')", timeout=10_000)
        page.wait_for_selector("#link:text('live')", timeout=10000)
        table.fleet.nodes["yellow-1"].kill()
        page.goto(table.url + "play/yellow")
        page.wait_for_selector(".timer[data-node='yellow-1'] :text('offline')")
        page.close()


def test_dashboard_plays_cues_after_one_tap(browser, mosquitto, table_id, tmp_path):
    with start(
        mosquitto,
        table_id,
        players=2,
        timers=1,
        time_scale=60.0,
        clock_minutes=1,
        sounds_dir=tmp_path,
        audio={"disabled": ["countdown"]},
    ) as table:
        cues = table.app.extensions["companion.cues"]
        page = browser.new_page()
        page.goto(table.url)
        page.wait_for_selector("#cue-switches input[data-cue='start']", state="attached")
        assert not page.is_checked("#cue-switches input[data-cue='countdown']")
        page.click("#sound")  # the one tap browsers require before sound
        cues.prepare(60.0)
        page.click("button[data-clock='start']")
        page.wait_for_function(
            "window.__companionCues.some(c => c.name === 'start' && c.played)", timeout=10000
        )
        page.wait_for_function("window.__companionCues.some(c => c.name === 'end')", timeout=10000)
        played = page.evaluate("window.__companionCues")
        names = [c["name"] for c in played]
        assert names[0] == "start" and names[-1] == "end" and "countdown" not in names
        assert all(c.get("error") is None for c in played)
        assert played[0]["duration"] > 0.1
        page.click(".cue-switches summary")
        page.uncheck("#cue-switches input[data-cue='warning']")
        import time as _time

        deadline = _time.monotonic() + 5
        while "warning" not in cues.engine.disabled:
            assert _time.monotonic() < deadline, "the switch did not reach the hub"
            _time.sleep(0.05)
        page.close()


def test_pause_and_resume_stop_and_restart_the_sand_on_nodes(browser, mosquitto, table_id):
    with start(mosquitto, table_id, players=2, timers=1, time_scale=10.0) as table:
        page = browser.new_page()
        page.goto(table.url)
        page.wait_for_selector(".timer[data-node='red-1'] .node-state:text('online')")
        page.click("button[data-clock='start']")
        node = table.fleet.nodes["red-1"]
        node.flip()
        wait_until(lambda: node.core.last_verdict == "accepted", message="the flip is accepted")
        page.click("button[data-clock='pause']")
        wait_until(lambda: node.show() == "paused", message="the node shows the pause")
        frozen = node.core.sand.upper_ms()
        page.wait_for_timeout(400)  # four game seconds
        assert node.core.sand.upper_ms() == frozen, "the sand stands still while paused"
        shown = page.inner_text(".timer[data-node='red-1'] .timer-state")
        page.wait_for_timeout(300)
        assert page.inner_text(".timer[data-node='red-1'] .timer-state") == shown
        page.click("button[data-clock='resume']")
        wait_until(lambda: node.show() == "running", message="the node runs again")
        page.wait_for_selector("#clock-phase:text('running')")
        wait_until(lambda: node.core.sand.upper_ms() < frozen - 1000, message="the sand flows again")
        page.close()


def test_end_of_game_screen_shows_the_scores(browser, mosquitto, table_id):
    sheet = {
        "players": {
            "red": {"collected": [{"color": "gray", "value": 2, "from": "yellow"}], "bonus": [], "above": []},
            "yellow": {
                "collected": [
                    {"color": "blue", "value": 1, "from": "red"},
                    {"color": "blue", "value": 1, "from": "green"},
                ],
                "bonus": [],
                "above": [],
            },
            "green": {"collected": [], "bonus": [], "above": []},
        }
    }
    with start(
        mosquitto,
        table_id,
        game="time-n-space",
        variant="light",
        players=3,
        timers=2,
        clock_minutes=12,
        time_scale=720.0,
    ) as table:
        session = table.app.extensions["companion.session"]
        session.handle(tm.ClockCommand("start"))
        wait_until(lambda: session.state.clock.phase == "expired", message="the master clock runs out")
        result = session.handle(tm.PlayerAction("red", score_sheet(sheet)))
        assert result.refusal is None, result.refusal
        page = browser.new_page()
        page.goto(table.url)
        page.wait_for_selector("#scores:not([hidden])")
        assert "yellow wins with 4 points." in page.inner_text("#scores")
        page.click("#scores a")
        page.wait_for_selector("#score-table")
        rows = page.locator("#score-table tr[data-player]")
        assert rows.count() == 3
        assert page.inner_text("#score-table tr.winner td:nth-child(2)") == "yellow"
        assert page.inner_text("#explanation") == "yellow wins with 4 points."
        assert page.locator(".breakdown[data-player='yellow']").count() == 1
        screenshot(page, "end-of-game")
        page.emulate_media(media="print")
        assert (
            page.eval_on_selector("a[download]", "e => getComputedStyle(e.parentElement).display") == "none"
        )
        page.close()


def test_time_n_space_player_chooses_a_symbol_on_the_phone(browser, mosquitto, table_id):
    with start(
        mosquitto, table_id, game="time-n-space", variant="intro", players=3, timers=2, time_scale=20.0
    ) as table:
        session = table.app.extensions["companion.session"]
        page = browser.new_page(viewport={"width": 390, "height": 1400}, is_mobile=True, has_touch=True)
        page.goto(table.url + "play/red")
        page.wait_for_selector(".timer[data-node='red-1']")
        session.handle(tm.ClockCommand("start"))
        page.wait_for_selector("button[data-id='t1-next-b1'].selected")  # the obvious default, preselected
        page.tap("button[data-id='t1-next-ship-moon-1']")
        page.wait_for_selector("button[data-id='t1-next-ship-moon-1'].selected")
        assert not page.is_visible("button[data-id='t1-next-b1'].selected")
        page.tap(".timer[data-node='red-1'] button.flip")
        page.wait_for_selector(".timer[data-node='red-1'] .on:text('moon 1')")
        node = table.fleet.nodes["red-1"]
        wait_until(lambda: node.core.last_verdict == "accepted", message="the node's verdict")
        player = session.state.game.player("red")
        assert player.timers[0].symbol == "ship" and player.timers[0].destination == "moon-1"
        screenshot(page, "player-time-n-space")

        page.tap(".timer[data-node='red-1'] button.flip")  # lifted before the sand ran through
        page.wait_for_selector("#refusal:not([hidden])")
        assert "has not run through" in page.inner_text("#refusal")
        wait_until(lambda: node.core.last_verdict == "rejected", message="the node turns red")
        page.close()


def test_space_dealer_dashboard_draws_the_victory_point_track(browser, mosquitto, table_id):
    with start(mosquitto, table_id, game="space-dealer", players=3, timers=2) as table:
        session = table.app.extensions["companion.session"]
        session.handle(tm.ClockCommand("start"))
        game = session.state.game
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(table.url)
        page.wait_for_selector("#picture svg.game-picture[data-game='space-dealer']")
        assert page.locator("#picture .sd-field").count() == game.ring_size
        ships = [s for s in game.ships if s.field is not None]
        assert page.locator("#picture .sd-field .sd-ship").count() == len(ships)
        owners = page.eval_on_selector_all("#picture .sd-field", "els => els.map(e => e.dataset.owner)")
        assert {o for o in owners if o} <= {"red", "yellow", "green"} and any(owners), owners
        assert not page.is_visible("#game"), "the tables wait behind Details"
        screenshot(page, "dashboard-space-dealer")
        page.close()


@pytest.mark.parametrize(
    "width, height", [(800, 1280), (1280, 800), (390, 844)], ids=["portrait", "landscape", "phone"]
)
def test_dashboard_fits_portrait_and_landscape(browser, mosquitto, table_id, width, height):
    with start(mosquitto, table_id) as table:
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(table.url)
        page.wait_for_selector(".timer[data-node='blue-2']")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the dashboard scrolls sideways by {overflow} px at {width}x{height}"
        clock_px = page.eval_on_selector("#clock", "e => parseFloat(getComputedStyle(e).fontSize)")
        assert clock_px >= 60, "the master clock stays readable across the table"
        page.close()


def test_light_mode_score_sheets_are_entered_on_the_phones(browser, mosquitto, table_id):
    with start(
        mosquitto,
        table_id,
        game="time-n-space",
        variant="light",
        players=3,
        timers=2,
        clock_minutes=12,
        time_scale=720.0,
    ) as table:
        session = table.app.extensions["companion.session"]
        session.handle(tm.ClockCommand("start"))
        wait_until(lambda: session.state.clock.phase == "expired", message="the master clock runs out")

        def fill(player, collected=(), above=()):
            page = browser.new_page(viewport={"width": 390, "height": 1200}, is_mobile=True, has_touch=True)
            page.goto(table.url + f"play/{player}")
            page.wait_for_selector(".counter-sheet")
            for colour, value, source in collected:
                section = page.locator(".counter-sheet .sheet-section").nth(0)
                section.locator("button.add").click()
                row = page.locator(".counter-sheet .sheet-section").nth(0).locator(".sheet-row").last
                row.locator("select").nth(0).select_option(colour)
                row.locator("select").nth(1).select_option(str(value))
                row.locator("select").nth(2).select_option(source)
            for colour, value in above:
                page.locator(".counter-sheet .sheet-section").nth(2).locator("button.add").click()
                row = page.locator(".counter-sheet .sheet-section").nth(2).locator(".sheet-row").last
                row.locator("select").nth(0).select_option(colour)
                row.locator("select").nth(1).select_option(str(value))
            page.click(".counter-sheet button.save")
            wait_until(
                lambda: player in {e.player for e in session.state.game.sheet},
                message=f"{player}'s score sheet",
            )
            return page

        red = fill("red", collected=[("gray", 2, "yellow")])
        screenshot(red, "player-score-sheet")
        fill("yellow", collected=[("blue", 1, "red"), ("blue", 1, "green")]).close()
        fill("green", above=[("brown", 1)]).close()
        wait_until(lambda: session.snapshot()["scores"] is not None, message="the final scores")
        scores = session.snapshot()["scores"]
        assert scores["winners"] == ["yellow"] and scores["players"]["yellow"]["total"] == 4
        assert scores["players"]["red"]["total"] == 2 and scores["players"]["green"]["rows"]["brown"]["void"]
        red.goto(table.url + "end")
        assert red.inner_text("#explanation") == "yellow wins with 4 points."
        red.close()
