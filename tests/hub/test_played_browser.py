"""The picture of the game that was played, in real Chromium: for a whole game of every game (played
greedily at a simulated table into a log on disk, then taken up by a real hub), the end screen and the
game's page in the history draw from the log, as SVG, each player's count over time, each sandtimer's
use and the decisive moments; it fits a phone's 390 px with every word at 12 px or more, and in Spanish
and German no English word is left on the end screen. With COMPANION_SCREENSHOTS=1 the test refreshes
docs/screenshots/played-<game>.png (CI never writes them).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from companion.hub import HubConfig
from companion.i18n import catalog_entries
from companion.runtime import RunOptions, Table
from tests.hub.played_games import finished_game
from tests.hub.test_phone_browser import CONTRAST

pytestmark = [pytest.mark.broker, pytest.mark.browser]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

GAMES = [
    # (game, variant, players, seed, rounds after which the host ends the game, or None: to its end)
    ("timeline", "", ("ana", "ben", "eva"), 1, None),
    ("space-and-time", "", ("ana", "ben"), 1, 250),
    ("time-splicers", "", ("ana", "ben", "eva"), 0, None),
    ("space-dealer", "", ("ana", "ben", "eva"), 0, None),
    ("time-n-space", "intro", ("ana", "ben", "eva"), 0, None),
    ("sandtimers", "", ("ana", "ben"), 0, None),
]

SMALLEST_FONT = """(selector) => {
  const svg = document.querySelector(selector), box = svg.getBoundingClientRect();
  const k = box.width / svg.viewBox.baseVal.width;
  return Math.min(...[...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size')) * k));
}"""

WIDER = """(width) => [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > width + 0.5 && e.getClientRects().length)
  .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && e.className.baseVal === undefined
         ? '.' + String(e.className).split(' ').join('.') : '') + ' ' + Math.round(e.getBoundingClientRect().right))"""


def words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-zÀ-ÿ']{3,}", text))


NAMES = {"ana", "ben", "eva", "ENESDE", "JSON", "CSV"}
"""Names and formats: the same in every language."""


def translated_words(lang: str) -> set[str]:
    """Every word of the catalog's translations: a word found there is the language's own (Total,
    Portal, a card's title) even when English spells it the same."""
    found: set[str] = set()
    for value in catalog_entries(lang).values():
        for form in value.values() if isinstance(value, dict) else [value]:
            found |= words(str(form))
    return found


def played_log(folder: Path, game: str) -> Path:
    """One finished game of ``game`` logged under ``<folder>/tables`` as a hub names its logs (each
    test plays only its own game: on several workers a module fixture would play all six on each)."""
    n, (_, variant, players, seed, rounds) = next((n, g) for n, g in enumerate(GAMES) if g[0] == game)
    path = folder / "tables" / f"played-20261201-2000{n:02d}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    table = finished_game(
        game,
        path,
        variant=variant,
        players=players,
        seed=seed,
        rounds=rounds,
        end_early=rounds is not None,
    )
    table.close()
    return path


@pytest.mark.parametrize("game", [g for g, *_ in GAMES])
def test_the_end_screen_and_the_history_draw_the_game_that_was_played(browser, mosquitto, tmp_path, game):
    folder = tmp_path
    log = played_log(folder, game)
    options = RunOptions(
        hub=HubConfig(table="played", data_dir=folder, fsync=False),
        broker_url=str(mosquitto.address),
        http_port=None,
        simulate=False,
        resume=log,
    )
    with Table(options) as table:
        session = table.app.extensions["companion.session"]
        assert session.setup.game == game
        page = browser.new_page(**PHONE)
        page.goto(table.url + "end")
        page.wait_for_selector("#played[data-drawn='true'] svg.played-svg")
        svg = "#played svg.played-svg"
        played = page.evaluate("fetch('/api/history/current/played').then(r => r.json())")
        lanes = page.locator(f"{svg} .played-lane").count()
        assert lanes == len(session.setup.seats) == len(played["timers"])
        if played["measure"] is not None:
            assert page.locator(f"{svg} .played-line").count() == len(played["track"])
            ends = {
                line.get_attribute("data-player"): float(line.get_attribute("data-last"))
                for line in page.locator(f"{svg} .played-line").all()
            }
            standing = session.referee.standing(session.state.game, session.state.context)
            assert ends == {p: float(v) for p, v in standing.values if p in ends}, (
                "the lines end where the game did"
            )
        ran = sum(len(t["runs"]) for t in played["timers"])
        assert page.locator(f"{svg} .played-lane rect.running").count() == ran > 0
        assert page.locator(".played-moments li[data-kind='end']").count() == 1
        assert page.evaluate(SMALLEST_FONT, svg) >= 12, "every word of the picture readable on a phone"
        assert page.evaluate(WIDER, 390) == [], "nothing wider than the phone"
        if os.environ.get("COMPANION_SCREENSHOTS") == "1":
            DOCS.mkdir(exist_ok=True)
            page.locator("#played").screenshot(path=str(DOCS / f"played-{game}.png"))

        english = words(page.inner_text("main"))
        for lang in ("es", "de"):
            page.goto(f"{table.url}end?lang={lang}")
            page.wait_for_selector("#played[data-drawn='true'] svg.played-svg")
            left = (words(page.inner_text("main")) & english) - NAMES - translated_words(lang)
            assert left == set(), f"English left on /end in {lang}: {sorted(left)}"

        dashboard = browser.new_page(viewport={"width": 1280, "height": 800}, locale="de-DE")
        dashboard.goto(table.url + "?lang=de")
        dashboard.wait_for_selector("#over:not([hidden])")
        dashboard.wait_for_timeout(300)
        assert dashboard.evaluate(CONTRAST) == [], "every word reads well on its panel (the results link too)"
        dashboard.close()

        page.goto(table.url + "history/" + log.stem)
        page.wait_for_selector("#played[data-drawn='true'] svg.played-svg")
        assert page.locator(f"{svg} .played-lane").count() == lanes
        page.close()
