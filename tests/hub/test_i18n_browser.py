"""The dashboard in German, in real headless Chromium against a real table (mosquitto, hub, simulated nodes)."""

from __future__ import annotations

import re

import pytest

import companion.runtime
from companion.hub import HubConfig
from companion.i18n.web import init_i18n
from companion.runtime import RunOptions, Table
from companion.table import messages as tm
from tests.conftest import wait_seated_online, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.browser]


@pytest.fixture
def translated(monkeypatch):
    """Tables built by ``companion.runtime`` get the translation layer (until create_app adds it itself)."""
    plain = companion.runtime.create_app

    def create_app(*args, **kwargs):
        app = plain(*args, **kwargs)
        if "companion.i18n" not in app.extensions:
            init_i18n(app, default_language="en")
        return app

    monkeypatch.setattr(companion.runtime, "create_app", create_app)


def start(mosquitto, table_id, **hub) -> Table:
    options = RunOptions(
        hub=HubConfig(table=table_id, **hub),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    return Table(options)


def test_dashboard_in_german(browser, mosquitto, table_id, translated):
    with start(mosquitto, table_id, players=2, timers=1, time_scale=10.0) as table:
        page = browser.new_page(viewport={"width": 1280, "height": 800}, locale="en-US")
        page.goto(table.url + "?lang=de")
        page.wait_for_selector(".timer[data-node='red-1'] .node-state:text('online')")
        assert page.get_attribute("html", "lang") == "de"
        labels = [
            page.text_content(f"button[data-clock='{a}']") for a in ("start", "pause", "resume", "abort")
        ]
        assert labels == ["Starten", "Pausieren", "Fortsetzen", "Spiel beenden"]
        assert (
            page.text_content("#undo") == "Rückgängig"
            and page.text_content(".button-link[href='/setup']") == "Neues Spiel"
        )
        assert page.text_content(".timer[data-node='red-1'] .timer-label") == "Sanduhr 1"
        assert page.text_content(".timer[data-node='red-1'] button.flip") == "Umdrehen"
        page.wait_for_function("document.getElementById('clock-phase').textContent === 'startbereit'")

        page.click("button[data-clock='start']")
        page.wait_for_function("document.getElementById('clock-phase').textContent === 'läuft'")
        page.wait_for_selector("#recent li:text('Hauptuhr gestartet (12 min)')")
        page.click(".timer[data-node='red-1'] button.flip")
        page.wait_for_selector("#recent li:text('Sanduhr 1 von red umgedreht (60 s Sand)')")

        page.click("button[data-clock='pause']")
        page.wait_for_function("document.getElementById('clock-phase').textContent === 'pausiert'")
        page.wait_for_selector("button[data-clock='pause']:disabled")  # only a running clock pauses

        page.goto(table.url)  # the cookie remembers German
        page.wait_for_function("document.getElementById('clock-phase').textContent === 'pausiert'")
        assert page.get_attribute("html", "lang") == "de"
        page.click(".languages a[hreflang='en']")
        page.wait_for_function("document.getElementById('clock-phase').textContent === 'paused'")
        assert page.text_content("button[data-clock='start']") == "Start"
        page.close()


VISIBLE_TEXT = """() => {
  const out = [document.body.innerText, document.title];
  for (const e of document.querySelectorAll("[title], [aria-label], [alt], [placeholder]"))
    for (const a of ["title", "aria-label", "alt", "placeholder"]) if (e.getAttribute(a)) out.push(e.getAttribute(a));
  for (const o of document.querySelectorAll("option")) out.push(o.textContent);
  return out.join("\\n");
}"""

SAME_IN_EVERY_LANGUAGE = {
    # names, ids and addresses; the language switch (EN ES DE); proper names of the games
    *(
        "red",
        "yellow",
        "green",
        "Rred",
        "Yyellow",
        "Ggreen",
        "ENESDE",
        "companion",
        "PIN",
        "http",
        "host",
        "min",
    ),
    *("sandtimers", "Space", "Time", "and", "Dealer", "Splicers", "Timeline", "España", "'n'"),
    *("online", "live", "Sand", "orange"),  # German words too
    "history",  # in the address of a page that does not exist
}


def words(page) -> set[str]:
    return set(re.findall(r"[A-Za-zÀ-ÿ']{3,}", page.evaluate(VISIBLE_TEXT)))


def test_no_english_is_left_on_the_hosts_pages(browser, mosquitto, table_id, tmp_path):
    """Each page in Spanish and German shares no word with its English version but names and ids."""
    with start(
        mosquitto,
        table_id,
        players=3,
        timers=2,
        time_scale=60.0,
        clock_minutes=1,
        data_dir=tmp_path,
        fsync=False,
    ) as table:
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        session.handle(tm.ClockCommand("start"))
        table.fleet.nodes["red-1"].flip()
        wait_until(
            lambda: session.state.clock.phase == "expired", timeout_s=10, message="the end of the game"
        )
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        left = {}
        for path in ("", "setup", "history", "end", "history/" + session.log.path.stem, "history/x/y"):
            texts = {}
            for shown in ("en", "es", "de"):
                page.goto(f"{table.url}{path}?lang={shown}")
                page.wait_for_timeout(300)  # the live pages draw from their first frame
                texts[shown] = words(page)
            for lang in ("es", "de"):
                english = (texts[lang] & texts["en"]) - SAME_IN_EVERY_LANGUAGE
                if english:
                    left[f"/{path}?lang={lang}"] = sorted(english)
        assert left == {}, f"English left on the translated pages: {left}"
        page.close()
