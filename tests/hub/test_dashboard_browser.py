"""The dashboard in real headless Chromium against a real table (mosquitto, hub, simulated nodes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.hub import HubConfig
from companion.runtime import RunOptions, Table

pytestmark = [pytest.mark.broker, pytest.mark.browser]

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
ARTIFACTS = Path(os.environ.get("COMPANION_ARTIFACTS", "test-artifacts"))


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: apt-get install -y chromium (.ci/run does this)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield browser
        browser.close()


def test_dashboard_shows_clock_and_draining_sand_live(browser, mosquitto, table_id):
    options = RunOptions(hub=HubConfig(table=table_id, time_scale=10.0), broker_url=str(mosquitto.address),
                         http_port=None, heartbeat_s=0.5)
    with Table(options) as table:
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
        page.click("button[data-clock='pause']")
        page.wait_for_selector("#message:text('Only a running master clock can be paused')")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "dashboard.png"), full_page=True)
        page.close()
