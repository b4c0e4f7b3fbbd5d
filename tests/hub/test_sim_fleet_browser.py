"""A simulated table simulates the timers its game uses, in real Chromium against a real table
(mosquitto, hub, simulated nodes): after a 2-player game is set up at a hub started with 4 players
of 2 timers, the 4 unused simulated timers are gone, and the dashboard's count of refused messages
stays where it was while the seated timers keep talking (several heartbeats each)."""

from __future__ import annotations

import pytest

from tests.conftest import wait_until
from tests.hub.test_pages_browser import start

pytestmark = [pytest.mark.broker, pytest.mark.browser]


def test_a_two_player_table_keeps_its_refused_count_flat(browser, mosquitto, table_id):
    with start(mosquitto, table_id, players=4, timers=2) as table:
        session = table.app.extensions["companion.session"]
        wait_until(
            lambda: (
                len(table.fleet.nodes) == 8 and all(n.connected.is_set() for n in table.fleet.nodes.values())
            ),
            timeout_s=10,
            message="8 simulated timers",
        )
        page = browser.new_page(viewport={"width": 900, "height": 1000})
        page.goto(table.url + "setup")
        page.wait_for_selector("#names input[data-player='0']")
        page.select_option("#game", "sandtimers")
        page.select_option("#count", "2")
        page.check("input[name=pairing][value=keep]")
        page.click("#start")
        page.wait_for_selector("#ready:not([hidden])")
        seated = {seat.node for seat in session.setup.seats}
        assert len(seated) == 4
        wait_until(lambda: set(table.fleet.nodes) == seated, timeout_s=5, message="only the seated timers")
        page.goto(table.url)
        page.wait_for_selector(".timer[data-node]")
        before = int(page.inner_text("#rejected"))
        heard = {node: session.table.link(node).last_seen_s for node in seated}
        wait_until(  # heartbeats every 0.5 s: each seated timer is heard three more times
            lambda: all(session.table.link(n).last_seen_s > heard[n] + 1.4 for n in seated),
            timeout_s=10,
            message="three more heartbeats of every seated timer",
        )
        page.wait_for_timeout(300)  # the page's next frame
        assert int(page.inner_text("#rejected")) == before, "no unused timer keeps talking to the hub"
        page.close()
