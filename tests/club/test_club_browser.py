"""A club in real Chromium: the lobby lists the tables, each table's dashboard and phone pages work
under its own path, and what is done at one table shows only there."""

from __future__ import annotations

import pytest

from companion.club import Club, ClubOptions, ClubPlan
from companion.hub import HubConfig
from tests.conftest import wait_until

pytestmark = [pytest.mark.broker, pytest.mark.browser]


def test_two_tables_play_side_by_side_in_the_browser(browser, mosquitto, tmp_path):
    defaults = HubConfig(data_dir=tmp_path, fsync=False, time_scale=10.0, grace_s=0.0)
    plan = ClubPlan.parse(["red:sandtimers:2", "blue:sandtimers:2"], defaults)
    options = ClubOptions(
        defaults=defaults, broker_url=str(mosquitto.address), http_port=None, heartbeat_s=0.5
    )
    with Club(options).start(plan.tables) as club:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(club.url + "?lang=de")
        page.wait_for_selector("#tables li[data-table='blue']")
        assert page.locator("#tables li").count() == 2
        assert "Tisch red" in page.inner_text("#tables li[data-table='red']")
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")

        page.click("#tables li[data-table='red'] a.table-name")
        page.wait_for_url("**/t/red/")
        page.wait_for_selector(".timer[data-node='red-1'] .node-state:text('online')")
        page.click("button[data-clock='start']")
        red = club.tables["red"].session
        wait_until(lambda: red.state.clock.phase == "running", message="red's clock runs")
        page.locator(".timer[data-node='red-1'] button.flip").click()
        page.wait_for_selector(".timer[data-node='red-1'].running")
        wait_until(lambda: red.state.timers["red-1"].flips == 1, message="red-1 flipped")

        blue = club.tables["blue"].session
        assert blue.state.clock.phase == "ready" and blue.state.timers["red-1"].flips == 0

        other = browser.new_page(viewport={"width": 1280, "height": 800})
        other.goto(club.url + "t/blue/")
        other.wait_for_selector(".timer[data-node='red-1'] .node-state:text('online')")
        assert not other.locator(".timer[data-node='red-1'].running").count()

        phone = browser.new_page(viewport={"width": 390, "height": 844})
        phone.goto(club.url + "t/red/play/red")
        phone.wait_for_url("**/t/red/play/red**")
        phone.wait_for_function("document.getElementById('clock').textContent !== '--:--'")
        page.goto(club.url)
        page.wait_for_selector("#tables li[data-table='red'] .phase:text('läuft')")
        for p in (page, other, phone):
            p.close()
