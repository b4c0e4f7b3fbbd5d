"""Timeline with the box on the table, played from the phone pages in headless Chromium at 390x844.

A real table (mosquitto, hub, simulated nodes) plays the table deck: a turn told as "wrong" is two
taps (the gap, the verdict); a year is typed on the page's number pad (each key kept by the hub
with the player's turn timer) and sent with "It shows …"; the Spanish page reads in Spanish.
"""

from __future__ import annotations

import pytest

from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from tests.conftest import wait_until

pytestmark = [pytest.mark.broker, pytest.mark.browser]

PHONE = {"width": 390, "height": 844}


def start(mosquitto, table_id) -> Table:
    options = RunOptions(
        hub=HubConfig(table=table_id, game="timeline", players=2, timers=1, sand_s=600.0, clock_minutes=60),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=5.0,
    )
    return Table(options)


def tap(page, item_id: str) -> None:
    """Tap a menu button, unfolding its group first when the page folded it ("more")."""
    button = page.locator(f"#menu button[data-id='{item_id}']")
    if button.is_hidden():
        group = page.locator("#menu section.group", has=page.locator(f"button[data-id='{item_id}']"))
        group.locator("button.more").tap()
    button.tap()


def test_a_turn_told_as_wrong_is_two_taps_and_a_year_is_typed_on_the_pad(browser, mosquitto, table_id):
    with start(mosquitto, table_id) as table:
        session = table.app.extensions["companion.session"]
        red = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
        yellow = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True, locale="es-ES")
        red.goto(table.url + "play/red")
        yellow.goto(table.url + "play/yellow?lang=es")
        for page, player in ((red, "red"), (yellow, "yellow")):
            page.wait_for_selector(f".timer[data-node='{player}-1'] button.flip")
        game = lambda: session.state.game  # noqa: E731

        red.tap(".timer[data-node='red-1'] button.flip")
        wait_until(lambda: session.state.context.turn_open, message="red's turn to start")
        red.wait_for_selector("#menu button[data-id='put:0']")
        assert "Where did you put your card?" in red.inner_text("#menu")
        red.tap("#menu button[data-id='put:0']")  # tap 1: the gap
        red.wait_for_selector("#menu button[data-id='reveal:wrong']")
        red.tap("#menu button[data-id='reveal:wrong']")  # tap 2: what it shows
        wait_until(lambda: game().to_move == "yellow", message="the turn to pass to yellow")
        assert (game().held("red"), game().piles.discard, game().piles.deck) == (4, 1, 55 - 10)

        yellow.tap(".timer[data-node='yellow-1'] button.flip")
        wait_until(lambda: session.state.context.turn_open, message="yellow's turn to start")
        yellow.wait_for_selector("#menu button[data-id='put:1']")
        assert "¿Dónde pusiste tu carta?" in yellow.inner_text("#menu")
        tap(yellow, "put:1")
        yellow.wait_for_selector("#menu button[data-id='reveal:right']")
        for digit in "1805":
            tap(yellow, f"digit:{digit}")
            typed = digit
            wait_until(
                lambda typed=typed: (
                    session.table.intents.get("yellow-1") is not None
                    and session.table.intents["yellow-1"].digits.endswith(typed)
                ),
                message=f"the pad to keep {digit}",
            )
        # next to the reference card, whose year nobody entered, the table says whether it is right
        yellow.wait_for_selector("#menu button[data-id='reveal:year-right']")
        assert "Dice 1805: correcta" in yellow.inner_text("#menu")
        tap(yellow, "reveal:year-right")
        wait_until(lambda: game().to_move == "red", message="the turn to pass back to red")
        assert game().years() == (None, 1805)
        no_scroll = yellow.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert no_scroll, "nothing scrolls sideways at 390 px"
        red.close()
        yellow.close()
