"""A board dealt by hand, entered on a real phone page in headless Chromium at 390 x 844: every tap is
counted, in English and in Spanish.

The hub is the Flask app on a real web server (no broker), started as a hub started with
``--game space-and-time`` starts, so at the table deck: the players deal the coins by hand. The test
keeps the physical deal to itself and reads only what the page shows: the highlighted cell of the
board and the buttons' words.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from werkzeug.serving import make_server

from companion.clock import FakeClock
from companion.hub import create_app, stop_services
from tests.conftest import wait_until
from tests.games.test_space_and_time_table_deck import deal_by_hand

pytestmark = [pytest.mark.browser]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
WORDS = {
    "en": {0: "null", 1: "ace", 2: "2", 3: "3", 4: "4", 5: "5", "at": "at"},
    "es": {0: "nulo", 1: "as", 2: "2", 3: "3", 4: "4", 5: "5", "at": "en"},
}


@contextmanager
def hub() -> Iterator[tuple[Any, str]]:
    """A Space and Time hub for red and yellow on a real web server at 127.0.0.1."""
    app = create_app(
        {"table": "coins", "game": "space-and-time", "players": 2, "timers": 1}, clock=FakeClock()
    )
    server = make_server("127.0.0.1", 0, app, threaded=True)
    server.daemon_threads = True  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield app, f"http://127.0.0.1:{server.server_port}"
    finally:
        stop_services(app)
        server.shutdown()
        server.server_close()


def highlighted(page: Any) -> tuple[int, int]:
    """The cell the page's board highlights: the coin the hub asks for."""
    return page.evaluate(
        """() => {
          const td = document.querySelector("#view table.grid td.hl");
          return [td.parentElement.rowIndex, td.cellIndex];
        }"""
    )


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_whole_board_takes_twenty_one_taps_on_a_phone(browser, lang):
    board = deal_by_hand(random.Random(f"the box in {lang}"))
    words = WORDS[lang]
    with hub() as (app, url):
        session = app.extensions["companion.session"]
        assert session.setup.deck == "table" and session.state.game.is_dealing
        page = browser.new_page(**PHONE)  # the hub machine's own page: the host may enter for anyone
        page.set_default_timeout(5000)
        page.goto(f"{url}/play/red?lang={lang}")
        page.wait_for_selector("#view table.grid td.hl")
        taps = prompts = 0
        while session.state.game.is_dealing:
            r, c = highlighted(page)
            label = f"{words[board[r][c]]} {words['at']} ({r}, {c})"
            exactly = re.compile(f"^{re.escape(label)}$")
            coin = page.locator("#menu button.option").filter(has_text=exactly)
            group = page.locator("#menu section.group").first
            assert group.locator("button.option").filter(has_text=exactly).count() == 1, (
                "the coin is in the first group of the phone"
            )
            if not coin.is_visible():  # folded: "more" opens the group, and it stays open
                group.locator("button.more").tap()
                taps += 1
            known = sum(x is not None for x in session.state.game.deal.coins())
            coin.tap()
            taps += 1
            prompts += 1
            wait_until(
                lambda known=known: (
                    not session.state.game.is_dealing
                    or sum(x is not None for x in session.state.game.deal.coins()) > known
                ),
                message=f"the coin at ({r}, {c}) reaching the hub",
            )
            if session.state.game.is_dealing:
                page.wait_for_function(
                    "([r, c]) => { const td = document.querySelector('#view table.grid td.hl');"
                    " return td && (td.parentElement.rowIndex !== r || td.cellIndex !== c); }",
                    arg=[r, c],
                )
        assert session.state.game.board == tuple(map(tuple, board)), "the hub has the board on the table"
        assert prompts == 20, "the last coin of each 2 x 3 block follows from the other five"
        assert taps == 21, "one tap per coin, and one to open the folded group the first time"
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, "no sideways scrolling at 390 px"
        page.close()
