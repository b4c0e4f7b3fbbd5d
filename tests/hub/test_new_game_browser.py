"""A new game never throws the running one away unasked, in real Chromium against a real table
(mosquitto, hub, simulated nodes, logs on disk): "Set up the table" says at once that it is working,
asks what happens to a game in progress (end it and score it, or park it paused), and the history
lists every game with its date, its game's name and how it ended; no earlier game stays "in progress".
"""

from __future__ import annotations

import pytest

from companion.games import find_game
from tests.conftest import wait_seated_online, wait_until
from tests.hub.test_pages_browser import start

pytestmark = [pytest.mark.broker, pytest.mark.browser]


def set_up(page, table, *, answer: str | None) -> None:
    """The setup page's "Set up the table", answering the question about the game in progress."""
    page.goto(table.url + "setup")
    page.wait_for_selector("#names input[data-player='0']")
    page.check("input[name=pairing][value=keep]")
    page.click("#start")
    if answer is None:
        page.wait_for_selector("#ready:not([hidden])")
        return
    page.wait_for_selector("dialog#question[open]")
    assert "is in progress at this table. What should happen to it?" in page.inner_text("#question-text")
    if answer == "cancel":
        page.click("#question-cancel")
    else:
        page.click(f"#previous-{answer}")
        page.wait_for_selector("#ready:not([hidden])")


def test_a_new_game_asks_first_and_the_history_tells_how_each_game_ended(
    browser, mosquitto, table_id, tmp_path
):
    with start(mosquitto, table_id, players=2, timers=1, data_dir=tmp_path, fsync=False) as table:
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        page = browser.new_page(viewport={"width": 900, "height": 1000})
        dashboard = browser.new_page(viewport={"width": 1280, "height": 800})
        dashboard.goto(table.url)
        dashboard.click("button[data-clock='start']")
        wait_until(lambda: session.state.clock.phase == "running", message="the first game runs")
        first = session.log.path.stem

        set_up(page, table, answer="cancel")  # Cancel: nothing changes
        assert session.log.path.stem == first and session.state.clock.phase == "running"
        assert page.is_hidden("#working"), "the page no longer says it is working"

        page.goto(table.url + "setup")
        page.wait_for_selector("#names input[data-player='0']")
        page.check("input[name=pairing][value=keep]")
        page.evaluate(
            """() => { window.said = []; const box = document.getElementById("working");
                       new MutationObserver(() => { if (!box.hidden) window.said.push(box.textContent); })
                         .observe(box, {attributes: true, childList: true, characterData: true, subtree: true}); }"""
        )
        page.click("#start")
        page.wait_for_selector("dialog#question[open]")
        assert "Setting up the table…" in page.evaluate("window.said"), "feedback at once"
        page.click("#previous-park")  # the first game is parked, paused
        page.wait_for_selector("#ready:not([hidden])")
        second = session.log.path.stem
        assert second != first

        dashboard.goto(table.url)
        dashboard.click("button[data-clock='start']")
        wait_until(lambda: session.state.clock.phase == "running", message="the second game runs")
        set_up(page, table, answer="end")  # the second game ends and is scored as it stands
        assert session.log.path.stem not in (first, second)
        dashboard.goto(table.url)
        dashboard.click("button[data-clock='start']")
        wait_until(lambda: session.state.clock.phase == "running", message="the third game runs")

        page.goto(table.url + "history")
        page.wait_for_selector(f"li.game-entry[data-id='{first}']")
        entries = {
            e.get_attribute("data-id"): (e.get_attribute("data-status"), e.inner_text())
            for e in page.locator("li.game-entry").all()
        }
        assert (
            entries[first][0] == "parked" and "parked: paused when a new game was set up" in entries[first][1]
        )
        assert entries[second][0] == "over" and "The host ended the game early." in entries[second][1]
        in_progress = [i for i, (status, _) in entries.items() if status == "in progress"]
        assert in_progress == [session.log.path.stem], "only the game at the table is in progress"
        for _, words in entries.values():
            assert words.startswith(find_game("sandtimers").title) and "red, yellow" in words
            assert "(" not in words.split("\n")[0], "a game's name, never its id"
        year = first.split("-")[-2][:4]
        assert all(year in words for _, words in entries.values()), "each game has its date"
        page.close()
        dashboard.close()
