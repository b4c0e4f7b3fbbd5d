"""Layout and accessibility of the host's pages in real Chromium: no sideways scrolling on a phone, no
fields drawn over each other, and axe-core (from npm, tests/browser/) finds no violation of WCAG 2.0-2.2
A/AA (contrast included) nor of its best practices on the dashboard (with its "End game" question open),
setup, player, history, replay and end pages in English and Spanish."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from companion.table import messages as tm
from tests.conftest import wait_seated_online, wait_until
from tests.hub.test_dashboard_browser import save_screenshot

pytestmark = [pytest.mark.broker, pytest.mark.browser]

AXE = Path(__file__).resolve().parents[1] / "browser" / "node_modules" / "axe-core" / "axe.min.js"

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"

OVERLAPS = """
() => {
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const fields = [...document.querySelectorAll("#setup-form label, #setup-form input, #setup-form select, "
                                              + "#setup-form button, #setup-form legend")].filter(shown);
  const out = [];
  for (let i = 0; i < fields.length; i++) {
    for (let j = i + 1; j < fields.length; j++) {
      const a = fields[i], b = fields[j];
      if (a.contains(b) || b.contains(a)) continue;  // a label around its radio button
      const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
      const dx = Math.min(r.right, s.right) - Math.max(r.left, s.left);
      const dy = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
      if (dx > 1 && dy > 1) out.push([a.outerHTML.slice(0, 60), b.outerHTML.slice(0, 60)]);
    }
  }
  return out;
}
"""


@pytest.fixture(scope="module")
def table(mosquitto, tmp_path_factory):
    """One table for the module, with a finished game in its history (its end screen and a replay)."""
    hub = HubConfig(
        table="layout",
        players=3,
        timers=2,
        time_scale=60.0,
        clock_minutes=1,
        data_dir=tmp_path_factory.mktemp("layout"),
        fsync=False,
    )
    options = RunOptions(hub=hub, broker_url=str(mosquitto.address), http_port=None, heartbeat_s=0.5)
    with Table(options) as table:
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        session.handle(tm.ClockCommand("start"))
        table.fleet.nodes["red-1"].flip()
        wait_until(lambda: session.state.clock.phase == "expired", timeout_s=10, message="the game ends")
        yield table


@pytest.mark.parametrize("width", [390, 768, 1280])
def test_the_setup_page_fits_every_width_without_overlapping_fields(browser, table, width):
    page = browser.new_page(viewport={"width": width, "height": 844 if width < 800 else 800})
    page.goto(table.url + "setup?lang=es")
    page.wait_for_selector("#names input[data-player='2']")
    assert page.evaluate(NO_SIDEWAYS_SCROLL), f"the setup page scrolls sideways at {width} px"
    assert page.evaluate(OVERLAPS) == []
    assert page.get_attribute("#names input[data-player='0']", "maxlength") is not None, (
        "names carry their limit"
    )
    if width in (390, 1280):
        page.goto(table.url + "setup?lang=en")
        page.wait_for_selector("#names input[data-player='2']")
        save_screenshot(page, "setup" if width == 1280 else "setup-phone")
    page.close()


def test_the_dashboard_fits_a_phone(browser, table):
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(table.url)
    page.wait_for_selector(".timer[data-node='green-2']")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.close()


PAGES = ["", "setup", "play/red", "history", "end"]

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21aa", "wcag22aa", "best-practice"]


def test_axe_finds_no_accessibility_violations(browser, table):
    if not AXE.exists():
        pytest.fail("axe-core is missing: run `npm ci` in tests/browser (make test does this)")
    found = {}
    replay = "history/" + table.app.extensions["companion.session"].log.path.stem
    checked = 0
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(path=str(AXE))
    page = context.new_page()
    for lang in ("en", "es"):
        for path in [*PAGES, replay, "#ask"]:
            page.goto(f"{table.url}{path.replace('#ask', '')}?lang={lang}")
            page.wait_for_timeout(300)  # the live pages draw from their first frame
            if path == "#ask":
                # the game is over, so "End game" is disabled: ask its question as the button does
                page.evaluate(
                    """() => { ask(t("End the game now? The master clock stops for good and the game is scored as it"
                                     + " stands."), [{ value: "end", label: t("End the game"), danger: true }]); }"""
                )
                page.wait_for_selector("dialog#ask[open]")
            result = page.evaluate(
                """async (tags) => {
                     const r = await axe.run(document, {runOnly: {type: "tag", values: tags},
                                                        resultTypes: ["violations"]});
                     return {passes: r.passes.length, violations: r.violations.map(v => ({id: v.id, impact: v.impact,
                             nodes: v.nodes.map(n => n.target.join(" "))}))};
                   }""",
                AXE_TAGS,
            )
            checked += result["passes"]
            if result["violations"]:
                found[f"/{path}?lang={lang}"] = result["violations"]
    context.close()
    assert checked > 200, "axe ran its checks on every page"
    if os.environ.get("COMPANION_AXE_REPORT"):
        print(found)
    assert found == {}, found
