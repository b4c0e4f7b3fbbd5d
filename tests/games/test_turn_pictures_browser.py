"""The pictures of Timeline and Space and Time on the dashboard, in headless Chromium on a real table.

Each test starts a hub with the game (mosquitto, simulated nodes), plays a few turns through the
table, opens the dashboard and checks that the SVG shows what the game state says: the cards of
the time line in order with their years and each player's hand, or the 24 coins with their ranks,
the row and column numbers, the latest swap and whose turn it is; a player's colour; the words in
Spanish on a Spanish page; and that the picture fits a 390-pixel phone with readable labels.

With ``COMPANION_SCREENSHOTS=1`` they also save docs/screenshots/<game>-dashboard.png (1280×800)
and <game>-phone.png (a player's phone page at 390×844).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.games import find_game
from companion.games.space_and_time.engine import legal_moves, molecule_completing_moves
from companion.games.timeline.engine import fits
from companion.hub import HubConfig
from companion.i18n import render
from companion.rules.text import from_json
from companion.runtime import RunOptions, Table
from companion.table import messages as tm
from tests.conftest import flip_for_turn

pytestmark = [pytest.mark.broker, pytest.mark.browser]

SAND_S = 600.0
"""Turn timers of 10 minutes: the sand runs during the test but never runs out."""
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
MIN_FONT_PX = 11.5
"""Smallest label on a 390-pixel phone (12 px asked; half a pixel for rounding)."""


def start(mosquitto, table_id, **hub) -> Table:
    options = RunOptions(
        hub=HubConfig(table=table_id, deck="hub", **hub),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=5.0,
    )
    return Table(options)


def screenshot(page, name: str) -> None:
    if os.environ.get("COMPANION_SCREENSHOTS") == "1":
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / f"{name}.png"))


def start_turn(table, session, player: str) -> None:
    """``player`` flips their turn timer (a simulated node) and their turn starts."""
    assert session.referee.player_to_move(session.state.game) == player
    flip_for_turn(table, player)


def open_dashboard(browser, table, game: str, *, width=1280, height=800, lang="en"):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(table.url + f"?lang={lang}")
    page.wait_for_selector(f"#picture svg.game-picture[data-game='{game}']")
    return page


def smallest_font_px(page) -> float:
    """The smallest text of the picture as drawn, in CSS pixels."""
    return page.eval_on_selector(
        "#picture svg",
        """svg => {
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            const sizes = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim())
                .map(t => parseFloat(t.getAttribute('font-size')) * scale);
            return Math.min(...sizes);
        }""",
    )


def fits_a_phone(browser, table, game: str, lang: str) -> None:
    """At 390 px the picture fits, nothing scrolls sideways, labels are readable and inside the picture
    (checked in German, whose words are the longest)."""
    page = open_dashboard(browser, table, game, width=390, height=844, lang=lang)
    box = page.eval_on_selector("#picture svg", "s => s.getBoundingClientRect().right")
    assert box <= 390, "the picture fits a 390-pixel phone"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scrolling"
    assert smallest_font_px(page) >= MIN_FONT_PX
    spilled = page.eval_on_selector(
        "#picture svg",
        """svg => {
            const edge = svg.getBoundingClientRect();
            return [...svg.querySelectorAll('text')]
                .filter(t => { const b = t.getBoundingClientRect(); return b.left < edge.left - 1 || b.right > edge.right + 1; })
                .map(t => t.textContent);
        }""",
    )
    assert spilled == [], "every label stays inside the picture"
    page.close()


def phone_screenshot(browser, table, player: str, name: str) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(table.url + f"play/{player}")
    page.wait_for_selector(f".timer[data-node='{player}-1']")
    screenshot(page, name)
    page.close()


def test_the_timeline_picture_shows_the_cards_in_order_and_every_hand(browser, mosquitto, table_id):
    with start(
        mosquitto, table_id, game="timeline", players=3, timers=1, sand_s=SAND_S, clock_minutes=60, seed=3
    ) as table:
        session = table.app.extensions["companion.session"]
        session.handle(tm.ClockCommand("start"))
        for _ in range(7):
            player = session.referee.player_to_move(session.state.game)
            start_turn(table, session, player)
            state = session.state.game
            menu = [
                item.action for item in session.referee.menu(state, session.state.context, player, intents={})
            ]
            cards = state.piles.cards
            right = [a for a in menu if fits(state.years(), a.gap, cards[a.card].year)]
            outcome = session.handle(
                tm.PlayerAction(player, (right or menu)[-1])
            )  # a player who knows some history
            assert outcome.refusal is None, outcome.refusal
        game = session.state.game
        cards = game.piles.cards
        assert len(game.timeline) >= 2

        page = open_dashboard(browser, table, "timeline")
        svg = page.locator("#picture svg")
        cards = svg.locator("g[data-card]")
        assert cards.count() == len(game.timeline)
        assert [cards.nth(i).get_attribute("data-card") for i in range(cards.count())] == list(
            game.timeline_cards()
        )
        years = [int(cards.nth(i).get_attribute("data-year")) for i in range(cards.count())]
        assert years == [laid.year for laid in game.timeline] and years == sorted(years)
        shown_years = svg.locator("g[data-card] text.year").all_text_contents()
        assert shown_years == [str(y) if y > 0 else f"{-y} BCE" for y in years]
        first = game.piles.cards[game.timeline_cards()[0]]
        assert first.title_en.split()[0] in svg.locator("g[data-card]").first.text_content()
        for name in game.players:
            chip = svg.locator(f"g[data-player='{name}']")
            assert chip.get_attribute("data-hand") == str(game.held(name))
            assert chip.locator("rect.hand-card").count() == min(8, game.held(name))
            assert (chip.get_attribute("data-to-move") == "true") == (name == game.to_move)
        assert svg.get_attribute("data-deck") == str(game.piles.deck_size)
        assert svg.locator("g[data-last-card]").count() == 1
        summary = render(from_json(session.snapshot()["view"]["summary"]), "en")
        assert svg.locator("text.caption").first.text_content() in summary
        swatch = svg.locator("g[data-player='yellow'] rect.swatch").get_attribute("fill")
        card_colour = page.eval_on_selector(
            ".player:has(h2 a:text('yellow'))", "e => e.style.getPropertyValue('--colour')"
        )
        assert swatch.lower() == card_colour.strip().lower(), "a player wears their colour in the picture"
        screenshot(page, "timeline-dashboard")
        page.close()

        spanish = open_dashboard(browser, table, "timeline", lang="es")
        words = spanish.locator("#picture svg").text_content()
        assert "Mazo:" in words and "Deck:" not in words
        spanish_title = first.title
        assert spanish_title.split()[0] in spanish.locator("#picture svg g[data-card]").first.text_content()
        spanish.close()

        fits_a_phone(browser, table, "timeline", "de")
        phone_screenshot(browser, table, game.to_move, "timeline-phone")


def test_the_space_and_time_picture_shows_the_coins_the_last_swap_and_whose_turn(
    browser, mosquitto, table_id
):
    with start(
        mosquitto, table_id, game="space-and-time", players=2, timers=1, sand_s=SAND_S, clock_minutes=60
    ) as table:
        sat = find_game("space-and-time")
        session = table.app.extensions["companion.session"]
        session.handle(tm.ClockCommand("start"))
        for player in ("red", "yellow", "red"):
            start_turn(table, session, player)
            game = session.state.game
            scoring = {m for m, _ in molecule_completing_moves(game)}
            move = next(m for m in legal_moves(game) if m not in scoring)
            swap = sat.codec.read({"@": "Swap", "cells": [list(move[0]), list(move[1])]}, sat.moves)
            outcome = session.handle(tm.PlayerAction(player, swap))
            assert outcome.refusal is None, outcome.refusal
        hints = sat.codec.read({"@": "ShowHints", "show": True}, sat.moves)
        assert session.handle(tm.PlayerAction("yellow", hints)).refusal is None
        state = session.state.game
        game = state

        page = open_dashboard(browser, table, "space-and-time")
        svg = page.locator("#picture svg")
        coins = svg.locator("g[data-cell]")
        assert coins.count() == 24
        for r, row in enumerate(game.board):
            for c, rank in enumerate(row):
                coin = svg.locator(f"g[data-cell='{r},{c}']")
                assert coin.get_attribute("data-rank") == str(rank)
                assert coin.locator("text").text_content() == ("0", "A", "2", "3", "4", "5")[rank]
        assert svg.locator("[data-row-label]").all_text_contents() == ["0", "1", "2", "3"]
        assert svg.locator("[data-column-label]").all_text_contents() == ["0", "1", "2", "3", "4", "5"]
        last = {tuple(map(int, c.split(","))) for c in _attrs(svg.locator("g[data-cell][data-last='true']"))}
        assert last == set(game.last_swap), "the latest swap is outlined"
        hinted = {
            tuple(map(int, c.split(","))) for c in _attrs(svg.locator("g[data-cell][data-hint='true']"))
        }
        assert hinted == {cell for move, _ in molecule_completing_moves(game) for cell in move}
        mover = svg.locator("g[data-player][data-to-move='true']")
        assert mover.count() == 1 and mover.get_attribute("data-player") == game.to_move
        for letter in ("A", "B"):
            chip = svg.locator(f"g[data-player='{letter}']")
            assert chip.get_attribute("data-trophies") == str(game.trophy_count(letter))
        assert svg.locator("g[data-trophy]").count() == 12
        swatch = svg.locator("g[data-player='A'] circle.swatch").get_attribute("fill")
        card_colour = page.eval_on_selector(
            ".player:has(h2 a:text('red'))", "e => e.style.getPropertyValue('--colour')"
        )
        assert swatch.lower() == card_colour.strip().lower(), "A wears the first player's colour"
        assert session.referee.names[game.to_move] in mover.locator("text.name").text_content()
        screenshot(page, "space-and-time-dashboard")
        page.close()

        german = open_dashboard(browser, table, "space-and-time", lang="de")
        words = german.locator("#picture svg").text_content()
        assert "Nacht" in words and "Raum" in words and "Night" not in words
        german.close()

        fits_a_phone(browser, table, "space-and-time", "de")
        phone_screenshot(browser, table, session.referee.player_to_move(state), "space-and-time-phone")


def _attrs(locator) -> list[str]:
    return [locator.nth(i).get_attribute("data-cell") for i in range(locator.count())]
