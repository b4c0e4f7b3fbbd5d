"""Where the cards and tiles come from, chosen on the setup page and shown on the dashboard, in real
headless Chromium against a real table (mosquitto, hub, simulated nodes), in English and in Spanish.

A game with random components asks "Cards and tiles": the box on the table (the default) or the hub's
own shuffle; the dashboard then says which deck the table plays with. A game without any asks nothing
and the dashboard says nothing of a deck.
"""

from __future__ import annotations

import pytest

from companion.i18n import render
from companion.rules.deck import DECK_TITLES
from tests.conftest import wait_until
from tests.hub.test_pages_browser import start

pytestmark = [pytest.mark.broker, pytest.mark.browser]

WORDS = {
    "en": {
        "legend": "Cards and tiles",
        "table": "Table deck: the players shuffle the box and tell the hub what they draw",
        "hub": "Hub deck: the hub shuffles and shows what is drawn",
    },
    "es": {
        "legend": "Cartas y losetas",
        "table": "Mazo de la mesa: los jugadores barajan la caja y dicen al hub lo que roban",
        "hub": "Mazo del hub: el hub baraja y muestra lo que se roba",
    },
}


def dashboard_deck(browser, table, lang: str) -> str:
    """What the dashboard's line under the clock says of the deck ("" when nothing)."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{table.url}?lang={lang}")
    page.wait_for_selector(".timer[data-node]")  # the table's snapshot is drawn
    session = table.app.extensions["companion.session"]
    want = session.snapshot()["deck"]
    expected = f" · {render(DECK_TITLES[session.setup.deck], lang)}" if want else ""
    page.wait_for_function("(text) => document.getElementById('deck').textContent === text", arg=expected)
    shown = page.inner_text("#deck")
    page.close()
    return shown.strip(" ·")


def set_up(page, table, *, game: str, deck: str | None) -> None:
    """Set up a new game for the connected timers in order, choosing the deck when the page asks."""
    session = table.app.extensions["companion.session"]
    if page.input_value("#game") != game:
        page.select_option("#game", game)
    page.select_option("#count", "2")
    if deck is not None:
        page.check(f"input[name=deck][value={deck}]")
    page.fill("#timers", "1")
    page.check("input[name=pairing][value=keep]")
    before = session.setup
    page.click("#start")
    page.wait_for_selector("#ready:not([hidden])")
    wait_until(lambda: session.setup is not before and session.setup.game == game, message="the new setup")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_host_chooses_the_deck_and_the_dashboard_says_which(browser, mosquitto, table_id, lang):
    words = WORDS[lang]
    with start(mosquitto, table_id, game="time-splicers", players=2, timers=1, deck="table") as table:
        session = table.app.extensions["companion.session"]
        assert dashboard_deck(browser, table, lang) == words["table"]

        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        page.goto(f"{table.url}setup?lang={lang}")
        page.wait_for_selector("#game option[value='time-splicers']", state="attached")
        assert page.is_visible("#deck-box")
        assert page.inner_text("#deck-box legend") == words["legend"]
        assert page.is_checked("input[name=deck][value=table]"), "the box on the table comes first"
        set_up(page, table, game="time-splicers", deck="hub")
        assert session.setup.deck == "hub"
        game = session.state.game
        assert game.deck_mode == "hub" and game.turning_up is None, "the hub turned up the starting card"
        assert [p.unseen for p in game.players] == [0, 0] and all(p.hand for p in game.players)
        assert dashboard_deck(browser, table, lang) == words["hub"]

        page.goto(f"{table.url}setup?lang={lang}")
        page.wait_for_selector("#game option[value='time-splicers']", state="attached")
        assert page.is_checked("input[name=deck][value=hub]"), "the page offers the table's deck again"
        page.select_option("#game", "sandtimers")
        assert page.is_hidden("#deck-box"), "a game without cards or tiles asks nothing"
        page.select_option("#game", "timeline")
        assert page.is_visible("#deck-box") and page.is_checked("input[name=deck][value=table]")
        set_up(page, table, game="timeline", deck=None)
        assert session.setup.deck == "table"
        assert session.state.game.piles.deck == 55 - 2 * 4 - 1, "the box's 55 cards, counted"
        assert dashboard_deck(browser, table, lang) == words["table"]

        page.goto(f"{table.url}setup?lang={lang}")
        page.wait_for_selector("#game option[value='sandtimers']", state="attached")
        set_up(page, table, game="sandtimers", deck=None)
        assert dashboard_deck(browser, table, lang) == ""
        page.close()
