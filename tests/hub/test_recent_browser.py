"""The dashboard's Recent list tells what the players did and what the rules decided, never the
table's bookkeeping, in real Chromium against a real table (mosquitto, hub, simulated nodes): no
master clock checkpoints, a sand that ran out before the game started is not told, and a run-out the
rules say in their own words is told once."""

from __future__ import annotations

import pytest

from companion.table import events as ev
from companion.table import messages as msg
from tests.conftest import wait_seated_online, wait_until
from tests.hub.test_pages_browser import start

pytestmark = [pytest.mark.broker, pytest.mark.browser]


def test_the_recent_list_keeps_bookkeeping_out(browser, mosquitto, table_id):
    with start(
        mosquitto, table_id, game="time-n-space", players=3, timers=2, deck="hub", sand_s=1.0, time_scale=2.0
    ) as table:
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        table.fleet.nodes["green-1"].flip()  # before the start, as when pairing: refused, its sand runs out
        wait_until(
            lambda: any(isinstance(e, ev.TimerEmptied) for e in session.log.events()),
            timeout_s=10,
            message="the early sand to run out",
        )
        assert session.handle(msg.ClockCommand("start")).refusal is None
        table.fleet.nodes["red-1"].flip()  # onto its default symbol; the sand (1 s) runs through
        wait_until(
            lambda: sum(isinstance(e, ev.TimerEmptied) for e in session.log.events()) >= 2,
            timeout_s=10,
            message="red-1's sand to run through",
        )
        wait_until(  # 5 real seconds with nothing else: the hub logs a checkpoint
            lambda: any(isinstance(e, ev.ClockCheckpoint) for e in session.log.events()),
            timeout_s=15,
            message="a master clock checkpoint",
        )
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.url)
        page.wait_for_selector("#recent li")
        lines = page.locator("#recent li").all_inner_texts()
        assert not any("checkpoint" in line for line in lines), lines
        assert not any("ran out" in line for line in lines), lines  # the rules said it: "sand ran through"
        assert sum("red timer 1 flipped" in line for line in lines) == 1, lines
        assert sum("sand ran through" in line for line in lines) == 1, lines
        assert any("master clock started" in line for line in lines), lines
        page.close()
