"""The end of a game is one story, in real Chromium against a real table (mosquitto, hub, simulated
nodes): the dashboard (1280×800), a phone (390×844) and /end say the same stage in the same words,
for a game won before its time, a master clock that runs out and a game the host ends early; and
the master clock's buttons are enabled only when they apply.
"""

from __future__ import annotations

import pytest

from companion.games.timeline.model import Place
from companion.table import messages as msg
from tests.conftest import flip_for_turn, wait_seated_online
from tests.hub.test_pages_browser import start

pytestmark = [pytest.mark.broker, pytest.mark.browser]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
BUTTONS = ("start", "pause", "resume", "abort")


def enabled(page) -> dict[str, bool]:
    return {b: page.is_enabled(f"button[data-clock='{b}']") for b in BUTTONS}


def wait_for_buttons(page, **expected: bool) -> None:
    page.wait_for_function(
        """(want) => Object.entries(want).every(([b, on]) =>
             !document.querySelector(`button[data-clock='${b}']`).disabled === on)""",
        arg=expected,
    )


def story(table, dashboard, phone) -> dict[str, str]:
    """The stage as each page says it (the dashboard's banner, the phone's state line, /end)."""
    dashboard.wait_for_selector("#over:not([hidden])")
    phone.wait_for_selector("#table-state[data-stage='over']")
    end = browser_of(dashboard).new_page()
    end.goto(table.url + "end")
    said = {
        "dashboard": dashboard.inner_text("#over-text"),
        "phone": phone.inner_text("#table-state"),
        "end": end.inner_text("#standing") + " · " + end.inner_text("#explanation"),
    }
    end.close()
    return said


def browser_of(page):
    return page.context.browser


def agree(said: dict[str, str], *parts: str) -> None:
    """Every page says every part, in the same order."""
    for page, words in said.items():
        at = -1
        for part in parts:
            found = words.find(part)
            assert found > at, f"{page} says {words!r}, not {part!r} in its place"
            at = found


def pages(browser, table):
    dashboard = browser.new_page(viewport={"width": 1280, "height": 800})
    dashboard.goto(table.url)
    dashboard.wait_for_selector(".timer[data-node='red-1']")
    phone = browser.new_page(**PHONE)
    phone.goto(table.url + "play/yellow")
    phone.wait_for_selector("#timers .timer")
    return dashboard, phone


def timeline(mosquitto, table_id, **hub):
    return start(mosquitto, table_id, game="timeline", variant="hand-1", players=2, deck="hub", **hub)


def online(table) -> None:
    session = table.app.extensions["companion.session"]
    wait_seated_online(session)


def turn(table, player: str, *, right: bool) -> None:
    """``player`` flips their turn timer and places their card, in the right gap or not."""
    session = table.app.extensions["companion.session"]
    flip_for_turn(table, player, timeout_s=5)
    state = session.state.game
    card = state.hand(player)[0]
    year = state.piles.cards[card].year
    gap = sum(1 for laid in state.timeline if laid.year is not None and laid.year < year)
    if not right:
        gap = (gap + 1) % (len(state.timeline) + 1)
    assert session.handle(msg.PlayerAction(player, Place(card, gap))).refusal is None


def test_a_game_won_before_its_time_is_told_the_same_everywhere(browser, mosquitto, table_id):
    with timeline(mosquitto, table_id) as table:
        online(table)
        dashboard, phone = pages(browser, table)
        wait_for_buttons(dashboard, start=True, pause=False, resume=False, abort=False)
        dashboard.click("button[data-clock='start']")
        wait_for_buttons(dashboard, start=False, pause=True, resume=False, abort=True)
        turn(table, "red", right=True)
        turn(table, "yellow", right=False)
        said = story(table, dashboard, phone)
        agree(said, "The game is over", "The rules ended it with", "left on the master clock", "red wins!")
        assert all("red wins with" in words.split("red wins!")[-1] for words in said.values()), said
        wait_for_buttons(dashboard, start=False, pause=False, resume=False, abort=False)
        assert dashboard.inner_text("#clock-phase").lower() == "game over"
        assert "time is up" not in dashboard.inner_text("body").lower()


def test_a_master_clock_that_runs_out_is_told_the_same_everywhere(browser, mosquitto, table_id):
    with timeline(mosquitto, table_id, clock_minutes=0.05) as table:
        online(table)
        dashboard, phone = pages(browser, table)
        dashboard.click("button[data-clock='start']")
        dashboard.click("button[data-clock='pause']")
        wait_for_buttons(dashboard, start=False, pause=False, resume=True, abort=True)
        phone.wait_for_selector("#table-state[data-stage='paused']")
        dashboard.click("button[data-clock='resume']")
        said = story(table, dashboard, phone)
        agree(said, "The game is over", "The master clock ran out.")
        wait_for_buttons(dashboard, start=False, pause=False, resume=False, abort=False)


def test_a_game_the_host_ends_early_is_told_the_same_everywhere(browser, mosquitto, table_id):
    with timeline(mosquitto, table_id) as table:
        online(table)
        dashboard, phone = pages(browser, table)
        dashboard.click("button[data-clock='start']")
        turn(table, "red", right=True)
        dashboard.click("#end-game")
        dashboard.click("#confirm-end")
        said = story(table, dashboard, phone)
        agree(said, "The game is over", "The host ended the game early.")
        wait_for_buttons(dashboard, start=False, pause=False, resume=False, abort=False)
