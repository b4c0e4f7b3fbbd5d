"""The smaller words and touches of the pages, in real Chromium against a real table (mosquitto, hub,
simulated nodes): the Sound button says what a tap does; opening the cues moves no button and names each
cue by when it sounds; no page asks for anything that is not there (a favicon); Space Dealer's setup
starts beginners on the basic game; Space and Time's phone says who chooses a swap, and its board's
coins are buttons."""

from __future__ import annotations

import pytest

from tests.hub.test_pages_browser import start
from tests.hub.test_words_browser import space_and_time_first_turn

pytestmark = [pytest.mark.broker, pytest.mark.browser]

CONTROLS = """() => Object.fromEntries([...document.querySelectorAll(".controls button, .controls a")]
  .filter((e) => e.getClientRects().length).map((e, i) => [e.id || e.dataset.clock || e.textContent.trim() + i,
  [Math.round(e.getBoundingClientRect().left), Math.round(e.getBoundingClientRect().top)]]))"""


def test_the_dashboards_sound_and_cues_say_what_they_do_and_move_nothing(browser, mosquitto, table_id):
    with start(mosquitto, table_id, players=2, timers=1) as table:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        missing = []
        page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
        page.goto(table.url)
        page.wait_for_selector("#cue-switches input[data-cue='chime']", state="attached")
        assert page.inner_text("#sound") == "Turn the sound on"
        page.click("#sound")
        assert page.inner_text("#sound") == "Turn the sound off"
        assert page.get_attribute("#sound", "aria-pressed") == "true"
        before = page.evaluate(CONTROLS)
        page.click(".cue-switches summary")
        page.wait_for_selector("#cue-switches input[data-cue='chime']")
        assert page.evaluate(CONTROLS) == before, "opening the cues moves no button"
        labels = page.inner_text("#cue-switches")
        assert "when a sandtimer runs out" in labels and "when a turn timer is about to run out" in labels
        assert "hurry" not in labels and "buzz" not in labels
        page.goto(table.url + "?lang=de")
        page.wait_for_selector("#cue-switches input[data-cue='hurry']", state="attached")
        assert "wenn eine Zugsanduhr gleich abläuft" in page.text_content("#cue-switches")
        for path in ("play/red", "setup", "end", "history"):
            page.goto(table.url + path)
            page.wait_for_timeout(300)
        assert missing == [], "no page asks for what is not there"
        page.close()


def test_space_dealer_starts_beginners_on_the_basic_game(browser, mosquitto, table_id):
    with start(mosquitto, table_id, players=3, timers=2) as table:
        page = browser.new_page(viewport={"width": 900, "height": 1000})
        page.goto(table.url + "setup")
        page.wait_for_selector("#names input[data-player='0']")
        page.select_option("#game", "space-dealer")
        assert page.eval_on_selector("#variant", "s => s.value") == "basic"
        assert page.eval_on_selector("#variant", "s => s.options[s.selectedIndex].text") == "Basic game"
        page.close()


def test_space_and_time_says_who_chooses_the_swap_and_its_coins_are_buttons(browser, mosquitto, table_id):
    with start(mosquitto, table_id, game="space-and-time", players=2, timers=1, deck="hub") as table:
        mover = space_and_time_first_turn(table)
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        page.goto(table.url + f"play/{mover}")
        page.wait_for_selector("button[data-id='computer-move']")
        assert (
            page.inner_text("button[data-id='computer-move']")
            == "Let the computer choose my swap for this turn"
        )
        coins = page.locator("#view table.grid button.cell")
        assert coins.count() == 24, "every coin of the board is a button"
        first = coins.first
        first.tap()
        assert first.get_attribute("aria-pressed") == "true"
        assert "row 1, column 1" in first.get_attribute("aria-label")
        page.close()
