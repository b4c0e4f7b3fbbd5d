"""Nothing on a phone page is wider than the phone, in real Chromium at 390×844 against a real hub
taking up a game in progress of every game (played greedily at a simulated table): each player's page,
the dashboard, the end screen, the history and the setup page; a wide table of the game (Time 'n'
Space's control centers, Space Dealer's open orders) becomes cards, and the dashboard's links read well
on their panels."""

from __future__ import annotations

import pytest

from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from tests.hub.played_games import finished_game
from tests.hub.test_phone_browser import CONTRAST
from tests.hub.test_played_browser import WIDER

pytestmark = [pytest.mark.broker, pytest.mark.browser]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

GAMES = [
    ("time-n-space", "full", ("ana", "ben", "eva")),
    ("space-dealer", "", ("ana", "ben", "eva")),
    ("space-and-time", "", ("ana", "ben")),
    ("time-splicers", "", ("ana", "ben", "eva")),
    ("timeline", "", ("ana", "ben", "eva")),
]


@pytest.mark.parametrize("game,variant,players", GAMES, ids=[g for g, *_ in GAMES])
def test_no_phone_page_is_wider_than_the_phone(browser, mosquitto, tmp_path, game, variant, players):
    log = tmp_path / "tables" / "layout-20261201-220000.jsonl"
    log.parent.mkdir()
    finished_game(game, log, variant=variant, players=players, seed=2, rounds=40).close()
    options = RunOptions(
        hub=HubConfig(table="layout", data_dir=tmp_path, fsync=False),
        broker_url=str(mosquitto.address),
        http_port=None,
        simulate=False,
        resume=log,
    )
    with Table(options) as table:
        page = browser.new_page(**PHONE)
        wide = {}
        for path in [*(f"play/{p}" for p in players), "", "end", "history", "setup"]:
            page.goto(table.url + path)
            page.wait_for_timeout(400)  # the live pages draw from their first frame
            if path == "":
                page.click("#details > summary")
                page.wait_for_timeout(100)
            found = page.evaluate(WIDER, 390)
            if found:
                wide[path] = found[:5]
        assert wide == {}, f"wider than 390 px: {wide}"
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.goto(table.url + "play/" + players[0])
        page.wait_for_selector("#view")
        assert page.locator("#view table.data").count() == 0, "a wide table is cards on a phone"
        page.close()
        dashboard = browser.new_page(viewport={"width": 1280, "height": 800})
        dashboard.goto(table.url)
        dashboard.wait_for_timeout(400)
        assert dashboard.evaluate(CONTRAST) == []
        dashboard.close()
