"""The dashboard in real headless Chromium shows the broker's health and each node's dropped events.

A real table on a mosquitto of the test's own: the broker is stopped while the page is open
(the banner must say so, with the reason and since when, in the page's language, and every
timer must show offline), then started again (the banner goes, the timers come back online).
"""

from __future__ import annotations

import re

import pytest

from companion.core import protocol
from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from companion.testing import deliver
from tests.conftest import wait_seated_online
from tests.hub.test_pages_browser import screenshot

pytestmark = [pytest.mark.broker, pytest.mark.browser]


def report_dropped(table: Table, node_id: str, dropped: int) -> None:
    """The node says (in a heartbeat) that it had to drop ``dropped`` events from its full buffer."""
    assert table.fleet is not None
    node = table.fleet.nodes[node_id]
    node.core.dropped = dropped  # if the node reports it itself, it reports the same
    heartbeat = protocol.Message(
        "event",
        "heartbeat",
        {
            "boot": node.core.boot_id,
            "t_ms": node.core._now_ms(),
            "upper_ms": 0,
            "lower_ms": 0,
            "queued": 64,
            "dropped": dropped,
        },
    )
    deliver(table.app.extensions["companion.session"], node_id, heartbeat)


def test_the_dashboard_shows_a_lost_broker_and_dropped_events(browser, restartable_mosquitto, table_id):  # noqa: F811
    broker = restartable_mosquitto
    options = RunOptions(
        hub=HubConfig(table=table_id, players=2, timers=1),
        broker_url=str(broker.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    with Table(options) as table:
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        report_dropped(table, "red-1", 236)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.url)
        page.wait_for_selector(".timer[data-node='red-1'] .node-dropped:text('lost 236 buffered events')")
        assert page.locator(".timer[data-node='yellow-1'] .node-dropped").is_hidden()
        page.wait_for_selector("#broker-state:text('broker online')")
        assert page.locator("#broker-banner").is_hidden()

        broker.stop()
        page.wait_for_selector("#broker-banner:not([hidden])")
        banner = page.locator("#broker-banner")
        assert "No connection to the broker" in banner.inner_text()
        assert f"lost the connection to the broker at {broker.address}" in banner.inner_text()
        page.wait_for_function("document.getElementById('broker-since').textContent.includes('(1 s)')")
        assert re.search(r"since \d{1,2}:\d{2}:\d{2}.* \(1 s\)", page.inner_text("#broker-since"))
        page.wait_for_selector("#broker-state.offline:text('broker offline')")
        for node in ("red-1", "yellow-1"):
            page.wait_for_selector(f".timer[data-node='{node}'] .node-state.offline")
        screenshot(page, "dashboard-no-broker")

        translated = {
            "es": (
                "Sin conexión con el bróker",
                "se perdió la conexión con el bróker en",
                "se perdieron 236 sucesos guardados",
            ),
            "de": (
                "Keine Verbindung zum Broker",
                "Verbindung zum Broker unter",
                "236 gespeicherte Ereignisse verloren",
            ),
        }
        for lang, (title, reason, dropped) in translated.items():
            other = browser.new_page(viewport={"width": 1280, "height": 800})
            other.goto(table.url + "?lang=" + lang)
            other.wait_for_selector("#broker-banner:not([hidden])")
            text = other.inner_text("#broker-banner")
            assert title in text and reason in text and str(broker.address) in text, text
            other.wait_for_selector(f".timer[data-node='red-1'] .node-dropped:text('{dropped}')")
            other.close()

        broker.start()
        page.wait_for_selector("#broker-banner", state="hidden", timeout=10_000)
        page.wait_for_selector("#broker-state:text('broker online')")
        for node in ("red-1", "yellow-1"):
            page.wait_for_selector(f".timer[data-node='{node}'] .node-state:not(.offline)", timeout=10_000)
        page.close()
