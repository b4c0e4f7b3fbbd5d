"""The dashboard in German, in real headless Chromium against a real table (mosquitto, hub, simulated nodes)."""

from __future__ import annotations

from pathlib import Path

import pytest

import companion.runtime
from companion.hub import HubConfig
from companion.i18n.web import init_i18n
from companion.runtime import RunOptions, Table

pytestmark = [pytest.mark.broker, pytest.mark.browser]

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


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


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: apt-get install -y chromium (.ci/run does this)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield browser
        browser.close()


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
        page.click("button[data-clock='pause']")
        page.wait_for_selector(
            "#message:text('Nur eine laufende Hauptuhr kann pausiert werden (Zustand: pausiert)')"
        )

        page.goto(table.url)  # the cookie remembers German
        page.wait_for_function("document.getElementById('clock-phase').textContent === 'pausiert'")
        assert page.get_attribute("html", "lang") == "de"
        page.click(".languages a[hreflang='en']")
        page.wait_for_function("document.getElementById('clock-phase').textContent === 'paused'")
        assert page.text_content("button[data-clock='start']") == "Start"
        page.close()
