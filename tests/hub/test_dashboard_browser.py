"""The dashboard in real Chromium against a real table: the game's picture on top with its tables behind
"Details", "End game" asked in the page, undo offering only what can be undone, labels that go stale.

The plain sandtimer table has no rules; a few tests give it some (monkeypatched on its referee, which runs
in this process) so that flips become undoable steps and the view carries a picture.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from companion.games.sandtimers import FreeTimers
from companion.rules.outcome import Decision, Rejected
from companion.rules.pages import View
from companion.rules.text import text
from companion.table import messages as tm
from tests.conftest import wait_seated_online, wait_until
from tests.hub import test_pages_browser as pages
from tests.hub.test_phone_browser import FADED_MS

start = pages.start

pytestmark = [pytest.mark.broker, pytest.mark.browser]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def save_screenshot(page, name: str) -> None:
    """docs/screenshots/<name>.png, only when COMPANION_SCREENSHOTS=1 (CI leaves the repo alone)."""
    if os.environ.get("COMPANION_SCREENSHOTS") in ("1", "docs"):
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / f"{name}.png"), full_page=False)


@pytest.fixture
def flips_are_steps(monkeypatch):
    """Every accepted flip is a step of the game (so it can be undone), noted as "<player> timer <n>"."""

    def timer_flipped(self, state, ctx, seat, *, intent, ran_out):
        note = text("{player} timer {index}", player=seat.player, index=seat.index)
        return Decision(state, actions=({"type": "flip", "node": seat.node},), notes=(note,))

    monkeypatch.setattr(FreeTimers, "timer_flipped", timer_flipped)


def test_end_game_asks_in_the_page_then_ends_and_the_end_screen_says_so(browser, mosquitto, table_id):
    with start(mosquitto, table_id, players=2, timers=1, time_scale=10.0) as table:
        session = table.app.extensions["companion.session"]
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(table.url + "?lang=es")
        page.wait_for_selector(".timer[data-node='red-1'] .node-state:text('conectado')")
        page.click("button[data-clock='start']")
        wait_until(lambda: session.state.clock.phase == "running", message="the clock runs")

        page.click("button[data-clock='abort']")
        page.wait_for_selector("dialog#ask[open]")
        assert "¿Terminar la partida ahora?" in page.inner_text("#ask-text")
        page.click("#ask-cancel")  # changed their mind: nothing happens
        page.wait_for_selector("dialog#ask", state="hidden")
        page.wait_for_timeout(200)
        assert session.state.clock.phase == "running"

        page.click("button[data-clock='abort']")
        page.click("#confirm-end")
        wait_until(lambda: session.state.clock.phase == "aborted", message="the game ends")
        page.wait_for_selector("#over:not([hidden])")
        assert "El anfitrión terminó la partida antes de tiempo" in page.inner_text("#over")
        assert page.is_disabled("#end-game")
        assert dialogs == [], "no browser dialog: the question is asked in the page"

        page.click("#over a")
        page.wait_for_selector("#standing")
        assert page.get_attribute("#standing", "data-over") == "true"
        assert "no lleva la puntuación" in page.inner_text("#explanation")
        page.close()


def test_undo_offers_only_what_can_be_undone_and_a_refusal_is_shown_not_a_traceback(
    browser, mosquitto, table_id, flips_are_steps, caplog
):
    with start(mosquitto, table_id, players=2, timers=1, time_scale=10.0) as table:
        session = table.app.extensions["companion.session"]
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.url + "?lang=de")
        page.wait_for_selector(".timer[data-node='red-1'] .node-state:text('online')")
        assert page.is_disabled("#undo"), "nothing to undo before anything happened"
        session.handle(tm.ClockCommand("start"))
        table.fleet.nodes["red-1"].flip()
        wait_until(lambda: session.snapshot()["undo"], message="an undoable step")
        page.wait_for_selector("#undo:not([disabled])")

        page.click("#undo")
        page.wait_for_selector("dialog#ask[open]")
        offered = page.eval_on_selector_all("#ask-choices button", "bs => bs.map(b => b.textContent)")
        assert offered == ["Rückgängig: Sanduhr 1 von red"], offered
        page.click("#ask-choices button")
        wait_until(lambda: not session.snapshot()["undo"], message="the step is undone")
        page.wait_for_selector("#undo[disabled]")
        assert "Sanduhr 1 von red" in page.inner_text("#recent")

        table.fleet.nodes["yellow-1"].flip()
        page.wait_for_selector("#undo:not([disabled])")
        page.click("#undo")
        page.wait_for_selector("dialog#ask[open]")
        caplog.set_level(logging.ERROR)
        assert not isinstance(session.handle(tm.Undo()), Rejected)  # someone else undoes it meanwhile
        page.click("#ask-choices button")
        page.wait_for_function("document.getElementById('message').textContent.length > 0")
        assert (
            page.inner_text("#message")
            == "Es gibt keine angenommene Aktion, die sich rückgängig machen ließe"
        )
        errors = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]
        assert errors == [], "no traceback in the terminal"
        page.close()


def test_a_refused_mark_goes_stale_and_a_lifted_timer_stops_after_the_end(browser, mosquitto, table_id):
    with start(mosquitto, table_id, players=2, timers=1, time_scale=4.0, grace_s=0.0) as table:
        session = table.app.extensions["companion.session"]
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.url)
        page.wait_for_selector(".timer[data-node='red-1'] .node-state:text('online')")
        session.handle(tm.ClockCommand("start"))
        session.handle(tm.ClockCommand("pause"))
        red = table.fleet.nodes["red-1"]
        red.flip()  # refused: the clock is paused
        wait_until(lambda: red.core.last_verdict == "rejected", message="the refusal")
        timer = page.locator(".timer[data-node='red-1']")
        page.wait_for_selector(".timer[data-node='red-1'] .timer-refused:not([hidden])")
        assert timer.locator(".glass").is_visible() and timer.locator(".timer-state").inner_text() != ""
        # 8 game seconds at time scale 4: two real seconds later the mark is gone, the sand shows
        page.wait_for_selector(
            ".timer[data-node='red-1'] .timer-refused[hidden]", state="attached", timeout=FADED_MS
        )
        assert "refused" not in timer.get_attribute("class")

        session.handle(tm.ClockCommand("resume"))
        session.handle(tm.ClockCommand("abort"))
        yellow = table.fleet.nodes["yellow-1"]
        yellow.flip()  # lifted after the end: its sand no longer counts
        wait_until(
            lambda: any(
                t["node"] == "yellow-1" and t["counting"] is False
                for p in session.snapshot()["players"]
                for t in p["timers"]
            ),
            message="the timer stops counting",
        )
        page.wait_for_selector(".timer[data-node='yellow-1'].stopped")
        shown = page.inner_text(".timer[data-node='yellow-1'] .timer-state")
        page.wait_for_timeout(600)  # 2.4 game seconds: a counting timer would have moved
        assert page.inner_text(".timer[data-node='yellow-1'] .timer-state") == shown
        assert shown == "stopped"
        page.close()


PICTURE_DRAWER = """
window.__draws = 0;
Pictures.register("sandtimers", (picture, ctx) => {
  window.__draws += 1;
  const svg = ctx.svg("svg", { viewBox: "0 0 200 40" });
  picture.flips.forEach((f, i) => {
    const g = ctx.svg("g", { "data-flip": f.player });
    g.append(ctx.svg("rect", { x: 10 + 40 * i, y: 5, width: 30, height: 30, fill: ctx.colour(f.player) }));
    g.append(ctx.svg("title", {}, ctx.tr(f.label)));
    svg.append(g);
  });
  return svg;
});
"""


def test_the_picture_is_drawn_on_top_only_when_it_changes_and_details_stay_open(
    browser, mosquitto, table_id, flips_are_steps, monkeypatch
):
    def view(self, state, ctx):
        flips = [  # what the game state says: one square per accepted flip so far
            {"player": p, "label": text("{player} timer {index}", player=p, index=1)}
            for p in FreeTimers.flipped
        ]
        panel = {
            "kind": "table",
            "title": text("Players"),
            "columns": [text("Player")],
            "rows": [[p] for p in "ab"],
        }
        return View(summary=text("Recent"), panels=(panel,), extra={"picture": {"flips": flips}})

    monkeypatch.setattr(FreeTimers, "flipped", [], raising=False)
    monkeypatch.setattr(FreeTimers, "view", view)
    with start(mosquitto, table_id, players=2, timers=1, time_scale=10.0) as table:
        session = table.app.extensions["companion.session"]
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.url)
        page.wait_for_selector(".timer[data-node='red-1'] .node-state:text('online')")
        page.add_script_tag(content=PICTURE_DRAWER)
        session.handle(tm.ClockCommand("start"))
        page.wait_for_selector("#picture svg.game-picture")
        assert page.evaluate("window.__draws") == 1
        order = page.evaluate("[...document.querySelector('.board').children].map(e => e.id)")
        assert order.index("picture") < order.index("players") < order.index("details")
        assert not page.is_visible("#game table"), "the tables wait behind Details"
        page.click("#details > summary")
        page.wait_for_selector("#game table")
        page.evaluate("document.querySelector('#game table').__kept = true")

        for node, player in (("red-1", "red"), ("yellow-1", "yellow")):
            FreeTimers.flipped.append(player)
            table.fleet.nodes[node].flip()
            page.wait_for_selector(f"#picture [data-flip='{player}']")
        assert page.locator("#picture [data-flip]").count() == 2
        fill = page.get_attribute("#picture [data-flip='red'] rect", "fill")
        assert fill == "#e74c3c", "drawn in the player's colour"
        assert page.text_content("#picture [data-flip='yellow'] title") == "yellow timer 1"
        page.wait_for_timeout(300)  # more live frames (the clock, the nodes' heartbeats)
        assert page.evaluate("window.__draws") == 3, "drawn once per change of the picture, not per frame"
        assert page.evaluate("document.querySelector('#details').open")
        assert page.evaluate("document.querySelector('#game table').__kept === true"), (
            "the tables were not rebuilt"
        )
        page.close()


def test_screenshots_of_the_sandtimer_table(browser, mosquitto, table_id):
    with start(mosquitto, table_id, players=3, timers=2, time_scale=10.0) as table:
        session = table.app.extensions["companion.session"]
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.url)
        page.wait_for_selector(".timer[data-node='green-2'] .node-state:text('online')")
        session.handle(tm.ClockCommand("start"))
        for node in ("red-1", "yellow-2", "green-1"):
            table.fleet.nodes[node].flip()
        page.wait_for_selector(".timer[data-node='green-1'].running")
        save_screenshot(page, "sandtimers-dashboard")
        phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        phone.goto(table.url + "play/red")
        phone.wait_for_selector(".timer[data-node='red-1']")
        save_screenshot(phone, "sandtimers-phone")
        assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        phone.close()
        page.close()


def test_a_double_click_on_set_up_makes_one_game_log(browser, mosquitto, table_id, tmp_path):
    with start(mosquitto, table_id, players=2, timers=1, data_dir=tmp_path, fsync=False) as table:
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        logs = lambda: sorted((tmp_path / "tables").glob("*.jsonl"))  # noqa: E731
        before = logs()
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.url + "setup")
        page.wait_for_selector("#names input[data-player='1']")
        assert page.input_value("#game") == "sandtimers" and page.input_value("#count") == "2"
        page.fill("#names input[data-player='0']", "José María")
        page.check("input[name=pairing][value=keep]")
        page.dblclick("#start")
        page.wait_for_selector("#ready:not([hidden])")
        page.wait_for_timeout(300)
        assert len(logs()) == len(before) + 1, "one game, one log"
        assert session.setup.players == ("José María", "yellow")
        page.close()


def test_the_setup_page_starts_from_the_game_the_hub_was_started_with(browser, mosquitto, table_id):
    with start(
        mosquitto, table_id, game="space-and-time", variant="vs-computer-b", players=1, timers=1
    ) as table:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(table.url + "setup?lang=de")
        page.wait_for_selector("#names input[data-player='0']")
        assert page.input_value("#game") == "space-and-time"
        assert page.input_value("#variant") == "vs-computer-b"
        assert page.input_value("#count") == "1" and page.inner_text("#count option:checked") == "1 Spieler"
        assert page.get_attribute("#names input[data-player='0']", "maxlength") == "20"
        page.close()


# Counts the dashboard's redraws and, apart, the snapshots it was sent (each one redraws once), so
# the redraws of its frame tick are the difference. The page's clock is Playwright's fake one: the
# ticks of a stretch of page time run at once, and nothing else moves its time.
COUNT_REDRAWS = """
window.__redraws = 0;
window.__snapshots = 0;
const redraw = render, lists = renderLists;
render = () => { window.__redraws += 1; redraw(); };
renderLists = () => { window.__snapshots += 1; lists(); };
"""


def tick_redraws(page, ms: int) -> int:
    """Redraws of the frame tick while the page's clock runs ``ms`` milliseconds on."""
    before = page.evaluate("window.__redraws - window.__snapshots")
    page.clock.run_for(ms)
    return page.evaluate("window.__redraws - window.__snapshots") - before


def test_the_dashboard_redraws_on_its_own_only_while_something_on_it_moves(browser, mosquitto, table_id):
    with start(mosquitto, table_id, players=2, timers=1, time_scale=1.0) as table:
        session = table.app.extensions["companion.session"]
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.clock.install()
        page.goto(table.url)
        page.wait_for_selector(".timer[data-node='red-1'] .node-state:text('online')")
        page.evaluate(COUNT_REDRAWS)
        assert tick_redraws(page, 10_000) == 0, "nothing moves before the game starts"

        session.handle(tm.ClockCommand("start"))
        page.wait_for_function("snapshot.clock.phase === 'running'")
        assert tick_redraws(page, 1_000) >= 9, "the running master clock is redrawn ten times a second"
        table.fleet.nodes["red-1"].flip()
        page.wait_for_selector(".timer[data-node='red-1'].running")

        session.handle(tm.ClockCommand("pause"))  # the sand of a paused game stands still too
        page.wait_for_function("snapshot.clock.phase === 'paused'")
        assert tick_redraws(page, 200) <= 2, "one last redraw once it stopped moving"
        shown = page.inner_text("#clock")
        assert tick_redraws(page, 10_000) == 0
        assert page.inner_text("#clock") == shown
        page.close()
