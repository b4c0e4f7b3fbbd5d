"""The translation layer in the pages: languages are chosen per request, templates and scripts get the
catalog, and hub texts are shown in the page's language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.clock import FakeClock
from companion.hub import create_app
from companion.i18n import (
    LANGUAGES,
    catalog,
    choose_language,
    parse_accept_language,
    render,
    translate,
)
from companion.i18n.web import init_i18n
from companion.rules.text import text
from companion.table import messages as tm

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "companion" / "hub" / "templates"
STATIC = ROOT / "companion" / "hub" / "static"
CATALOGS = ROOT / "companion" / "i18n"
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]

TEMPLATE_CALL = re.compile(r'(?<![\w.])_\(\s*"((?:[^"\\]|\\.)*)"')
SCRIPT_CALL = re.compile(r'(?<![\w.$])t\(\s*"((?:[^"\\]|\\.)*)"')


def _unescape(text: str) -> str:
    return json.loads(f'"{text}"')


def page_texts() -> dict[str, set[str]]:
    """Every literal text passed to ``_()`` in a template or ``t()`` in a script, with the files using it."""
    found: dict[str, set[str]] = {}
    for path in sorted(TEMPLATES.glob("*.html")):
        source = path.read_text(encoding="utf-8")
        for m in [*TEMPLATE_CALL.finditer(source), *SCRIPT_CALL.finditer(source)]:
            found.setdefault(_unescape(m[1]), set()).add(path.name)
    for path in sorted(STATIC.glob("*.js")):
        for m in SCRIPT_CALL.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(_unescape(m[1]), set()).add(path.name)
    return found


def raw_catalog(lang: str) -> dict[str, str]:
    return json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))


# --- catalogs (their coverage of every message id: tests/test_messages.py) ---------------------


def test_catalogs_translate_the_pages_words():
    assert translate("Start", "de") == "Starten" and translate("Flip", "es") == "Girar"
    assert (
        render(text("Master clock"), "es") == "Reloj principal"
        and render(text("Master clock"), "de") == "Hauptuhr"
    )


def test_english_is_the_source_and_needs_no_catalog():
    assert catalog("en") == {}
    assert catalog("fr") == {}
    assert not (CATALOGS / "en.json").exists()


# --- translate ---------------------------------------------------------------------------------


def test_translate_fills_placeholders_and_falls_back_to_english():
    assert translate("Timer {index}", "es", index=2) == "Reloj 2"
    assert translate("Timer {index}", "de", index=2) == "Sanduhr 2"
    assert translate("Timer {index}", "en", index=2) == "Timer 2"
    assert translate("Nothing translates this {x}", "de", x=1) == "Nothing translates this 1"
    assert translate("Timer {index}", "xx", index=3) == "Timer 3"
    assert translate("Timer {index}", None) == "Timer {index}", "a missing value leaves its placeholder"
    assert translate("Timer {index}", "es", index="{player}", player="x") == "Reloj {player}", (
        "values are not re-read"
    )
    assert translate('send {"game": 1}', "de") == 'send {"game": 1}', "braces around other text are kept"


# --- choosing the language ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "cookie", "header", "default", "expected"),
    [
        ("es", "de", "de-DE,de;q=0.9", "en", "es"),  # the query beats everything
        (None, "de", "es-ES,es;q=0.9", "en", "de"),  # then the cookie
        (None, None, "fr-FR,de;q=0.8,es;q=0.9", "en", "es"),  # then Accept-Language by q-value
        (None, None, "de;q=0.5, es-MX;q=0.5", "en", "de"),  # equal q: the first listed
        (None, None, "es;q=0, de;q=0.1", "en", "de"),  # q=0 means "not this one"
        (None, None, "fr, it", "de", "de"),  # nothing supported: the hub's default
        (None, None, None, "es", "es"),
        ("fr", "xx", "*", "de", "de"),  # unknown languages are ignored at every step
        ("ES", None, None, "en", "es"),  # tags are case-insensitive
        ("de-AT", None, None, "en", "de"),
        (None, None, None, "klingon", "en"),  # an unknown default falls back to English
        ("", "", "", "en", "en"),
    ],
)
def test_choose_language(query, cookie, header, default, expected):
    assert choose_language(query, cookie, header, default) == expected


def test_accept_language_with_bad_q_values():
    assert parse_accept_language("de;q=abc, es;q=0.3") == ["es"]
    assert parse_accept_language("en-US,en;q=0.9,es;q=0.8") == ["en", "es"]
    assert parse_accept_language("") == []


# --- pages ------------------------------------------------------------------------------------


@pytest.fixture
def app(tmp_path):
    app = create_app(
        {
            "table": "i18n",
            "players": 2,
            "data_dir": tmp_path,
            "fsync": False,
            "sounds_dir": tmp_path / "sounds",
        },
        clock=FakeClock(),
    )
    init_i18n(app)
    return app


PAGES = {
    "/": {
        "es": ["Empezar", "Terminar partida", "Últimos sucesos", "Mesa"],
        "de": ["Starten", "Spiel beenden", "Zuletzt", "Tisch"],
    },
    "/play/red": {"es": ["conectando…"], "de": ["Verbindung wird aufgebaut…"]},
    "/setup": {
        "es": ["Nueva partida en la mesa i18n", "Reloj principal (minutos)", "Preparar la mesa"],
        "de": ["Neues Spiel an Tisch i18n", "Hauptuhr (Minuten)", "Tisch vorbereiten"],
    },
    "/end": {
        "es": ["Puntuación final", "La puntuación final aparecerá aquí cuando acabe la partida"],
        "de": ["Endwertung", "Die Endwertung erscheint hier, wenn das Spiel endet"],
    },
    "/history": {"es": ["Historial de partidas", "Panel"], "de": ["Vergangene Spiele", "Übersicht"]},
}


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("path", list(PAGES))
def test_pages_are_translated(app, path, lang):
    res = app.test_client().get(f"{path}?lang={lang}")
    assert res.status_code == 200
    page = res.get_data(as_text=True)
    assert f'<html lang="{lang}">' in page
    for words in PAGES[path][lang]:
        assert words in page, (path, lang, words)
    if "i18n.js" in page:
        injected = re.search(r"window\.I18N = (.*?); window\.HUB_ROOT", page)[1]
        assert json.loads(injected) == catalog(lang)
        assert page.index("window.I18N") < page.index("i18n.js")
        assert all(
            page.index("i18n.js") < page.index(s)
            for s in ("dashboard.js", "player.js", "setup.js", "fetch(")
            if s in page
        )
    assert (
        'hreflang="es"' in page and 'hreflang="de"' in page and 'aria-current="true">' + lang.upper() in page
    )


@pytest.mark.parametrize("path", list(PAGES))
def test_english_is_the_default(app, path):
    page = app.test_client().get(path).get_data(as_text=True)
    assert '<html lang="en">' in page
    assert "window.I18N = {}" in page or "i18n.js" not in page


def test_the_cookie_remembers_the_choice(app):
    client = app.test_client()
    res = client.get("/?lang=de")
    assert "lang=de" in res.headers["Set-Cookie"] and "Max-Age" in res.headers["Set-Cookie"]
    page = client.get("/setup").get_data(as_text=True)
    assert '<html lang="de">' in page and "Tisch vorbereiten" in page
    assert "Set-Cookie" not in client.get("/setup?lang=de").headers, "an unchanged choice is not set again"
    page = client.get("/setup?lang=es", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Preparar la mesa" in page
    assert '<html lang="es">' in client.get("/history").get_data(as_text=True)
    client.get("/?lang=xx")  # an unknown language changes nothing
    assert '<html lang="es">' in client.get("/").get_data(as_text=True)


def test_the_browser_language_and_the_hub_default(tmp_path):
    app = create_app({"table": "i18n-default"}, clock=FakeClock())
    init_i18n(app, default_language="es")
    client = app.test_client()
    assert '<html lang="es">' in client.get("/").get_data(as_text=True)
    page = client.get("/", headers={"Accept-Language": "fr-FR,fr;q=0.9,de;q=0.8,es;q=0.5"}).get_data(
        as_text=True
    )
    assert '<html lang="de">' in page and "Starten" in page
    assert '<html lang="es">' in client.get("/", headers={"Accept-Language": "fr"}).get_data(as_text=True)


def test_no_player_page_and_final_explanation_are_translated(app):
    client = app.test_client()
    res = client.get("/play/nobody?lang=de")
    assert res.status_code == 404 and "An diesem Tisch gibt es keinen Spieler „nobody“." in res.get_data(
        as_text=True
    )
    session = app.extensions["companion.session"]
    session.referee.scores = lambda game, ctx: {
        "players": {"red": {"total": 4, "trophies": 1}},  # type: ignore[method-assign]
        "ranking": ["red"],
        "winners": ["red"],
    }
    session.handle(tm.ClockCommand("start"))
    session.handle(tm.ClockCommand("abort"))  # the end screen tells the result of a game that is over
    page = client.get("/end?lang=es").get_data(as_text=True)
    assert "Gana red con 4 puntos." in page and "Exportar CSV" in page and "Jugador" in page


def test_pages_render_in_english_without_the_translation_layer():
    """Templates rendered by an app without init_i18n use the English stand-ins for _() and _s()."""
    from flask import Flask, render_template

    plain = Flask("companion.hub")  # the hub's templates and static files, nothing else
    plain.add_url_rule("/play/<player>", "play", lambda player: "")
    pages = {
        "dashboard.html": {"table": "plain", "simulated": False},
        "player.html": {"table": "plain", "player": "red", "simulated": False},
        "setup.html": {"table": "plain", "colours": []},
        "end.html": {"table": "plain", "game": "sandtimers", "scores": None, "explanation": ""},
        "history.html": {},
        "replay.html": {"game_id": "current"},
        "no_player.html": {"player": "bob", "players": ["red"]},
    }
    with plain.test_request_context("/?lang=de"):
        rendered = {name: render_template(name, **values) for name, values in pages.items()}
    for name, page in rendered.items():
        assert page.startswith('<!doctype html>\n<html lang="en">'), name
        assert "window.I18N = {}" in page or "i18n.js" not in page, name
    assert (
        "New game at table plain" in rendered["setup.html"] and "Set up the table" in rendered["setup.html"]
    )
    assert "There is no player “bob” at this table." in rendered["no_player.html"]
    assert 'aria-current="true">EN' in rendered["dashboard.html"]
