"""The translation layer: catalogs cover every text of the pages, languages are chosen per request,
and the sentences the hub builds in English are recognised and translated."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from companion.clock import FakeClock
from companion.hub import create_app
from companion.i18n import (
    GREEDY,
    LANGUAGES,
    LIST_PATTERN,
    NESTED,
    WORDS,
    catalog,
    choose_language,
    parse_accept_language,
    placeholders,
    translate,
    translate_sentence,
)
from companion.i18n.sentences import HUB_SENTENCES
from companion.i18n.web import init_i18n
from companion.rules.setup import default_setup
from companion.table import clock_rules
from companion.table import events as ev
from companion.table.model import ActionRefused
from companion.table.results import explain
from companion.table.views import describe

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


# --- catalogs ---------------------------------------------------------------------------------


def test_the_pages_have_texts_to_translate():
    texts = page_texts()
    assert len(texts) > 60
    assert {"Start", "Final scores", "Timer {index}", "ready to start"} <= set(texts)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_page_text_has_a_translation_with_the_same_placeholders(lang):
    messages = raw_catalog(lang)
    missing = {text: files for text, files in page_texts().items() if not messages.get(text, "").strip()}
    assert not missing, f"{lang}.json lacks {missing}"
    for text in [*page_texts(), *HUB_SENTENCES]:
        assert placeholders(messages[text]) == placeholders(text), (lang, text, messages[text])


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_hub_sentence_has_a_translation(lang):
    messages = raw_catalog(lang)
    assert [s for s in HUB_SENTENCES if not messages.get(s, "").strip()] == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalogs_are_valid_json_without_unused_or_empty_entries(lang):
    messages = raw_catalog(lang)
    assert all(isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in messages.items())
    unused = set(messages) - set(page_texts()) - set(HUB_SENTENCES)
    assert unused == set(), f"{lang}.json has entries nothing uses: {sorted(unused)}"
    assert catalog(lang) == messages


def test_catalogs_translate_rather_than_copy():
    """Most entries differ from the English; the few identical ones are words both languages share."""
    for lang in TRANSLATED:
        same = {k for k, v in raw_catalog(lang).items() if k == v}
        assert len(same) < 8, (lang, same)
    assert translate("Start", "de") == "Starten" and translate("Flip", "es") == "Girar"
    assert (
        translate("Master clock", "es") == "Reloj principal" and translate("Master clock", "de") == "Hauptuhr"
    )


def test_english_is_the_source_and_needs_no_catalog():
    assert catalog("en") == {}
    assert catalog("fr") == {}
    assert not (CATALOGS / "en.json").exists() or raw_catalog("en") == {}


def test_the_script_reads_placeholders_as_python_does():
    source = (STATIC / "i18n.js").read_text(encoding="utf-8")
    for name, expected in (("NESTED", NESTED), ("GREEDY", GREEDY), ("WORDS", WORDS)):
        listed = re.search(rf"I18N_{name} = \[([^\]]*)\]", source)[1]
        assert set(re.findall(r'"(\w+)"', listed)) == set(expected), name
    assert f'I18N_LIST = "{LIST_PATTERN}"' in source


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


# --- sentences the hub builds in English ------------------------------------------------------


SETUP = default_setup("i18n", players=2, timers=2)


def _events() -> list[ev.Event]:
    return [
        ev.TimerFlipped("red-1", 1.0, 60.0, 0.0),
        ev.FlipRefused("yellow-2", 2.0, 60.0, 0.0, clock_rules.REASON_CLOCK_OVER),
        ev.FlipRefused("red-2", 2.0, 60.0, 0.0, clock_rules.REASON_PAUSED),
        ev.TimerEmptied("red-1", 61.0),
        ev.ClockStarted(0.0, 720.0),
        ev.ClockPaused(3.0),
        ev.ClockResumed(4.0),
        ev.ClockExpired(720.0),
        ev.ClockAborted(5.0),
        ev.StepUndone(6.0, 3, 1, "red timer 1 ran out"),
    ]


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("event", _events(), ids=lambda e: type(e).__name__)
def test_recent_event_lines_are_translated(lang, event):
    english = describe(event, SETUP)
    translated = translate_sentence(english, lang)
    assert translated != english
    assert not re.search(r"\b(timer|flipped|refused|ran out|master clock|undone|sandtimer)\b", translated), (
        translated
    )


def test_recent_event_lines_translate_their_parts():
    line = describe(ev.FlipRefused("yellow-2", 2.0, 60.0, 0.0, clock_rules.REASON_CLOCK_OVER), SETUP)
    assert translate_sentence(line, "de") == (
        "Umdrehen von Sanduhr 2 von yellow abgelehnt: Die Hauptuhr ist "
        "abgelaufen: Es darf keine Sanduhr mehr gestartet werden"
    )
    assert (
        translate_sentence(describe(ev.TimerFlipped("red-1", 1.0, 60.0, 0.0), SETUP), "es")
        == "reloj 1 de red girado (60 s de arena)"
    )
    assert (
        translate_sentence(describe(ev.ClockStarted(0.0, 720.0), SETUP), "de")
        == "Hauptuhr gestartet (12 min)"
    )
    unseated = describe(ev.TimerEmptied("blue-9", 1.0), SETUP)
    assert translate_sentence(unseated, "es") == "blue-9 se ha vaciado", "a node id stays as it is"


def test_game_engine_reasons_stay_english_inside_a_translated_line():
    line = describe(ActionRefused(1.0, "red", "The sand has not run through yet (Placing sandtimers)"), SETUP)
    assert (
        translate_sentence(line, "es")
        == "red: rechazado: The sand has not run through yet (Placing sandtimers)"
    )
    assert translate_sentence("Something only a game says", "de") == "Something only a game says"
    assert translate_sentence("", "de") == ""
    assert translate_sentence(describe(ev.TimerEmptied("red-1", 1.0), SETUP), "en") == "red timer 1 ran out"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_clock_refusals_are_translated(lang):
    app = create_app({"table": "i18n-clock"}, clock=FakeClock())
    client = app.test_client()
    client.post("/api/clock/start")
    errors = [client.post(f"/api/clock/{a}").get_json()["error"] for a in ("start", "resume")]
    client.post("/api/clock/pause")
    errors.append(client.post("/api/clock/pause").get_json()["error"])
    client.post("/api/clock/abort")
    errors.append(client.post("/api/clock/abort").get_json()["error"])
    errors += [clock_rules.REASON_CLOCK_ABORTED, clock_rules.REASON_PAUSED, clock_rules.REASON_CLOCK_OVER]
    for error in errors:
        translated = translate_sentence(error, lang)
        assert translated != error and "master clock" not in translated.lower(), (error, translated)
    assert (
        translate_sentence(errors[0], "es")
        == "El reloj principal no puede ponerse en marcha: ya está en marcha"
    )
    assert translate_sentence(errors[0], "de") == "Die Hauptuhr kann nicht gestartet werden (Zustand: läuft)"


def test_hub_errors_the_pages_show_are_translated():
    app = create_app({"table": "i18n-errors"}, clock=FakeClock())
    client = app.test_client()
    errors = [
        client.post("/api/setup", json={"players": ["a b"]}).get_json()["error"],
        client.post("/api/setup", json={"players": ["ana", "ana"]}).get_json()["error"],
        client.post("/api/setup", json={"game": "time-n-space", "players": ["ana"]}).get_json()["error"],
        client.post("/api/setup", json={"players": ["ana", "ben"], "timers": 9}).get_json()["error"],
        client.post("/api/setup", json={"players": ["ana", "ben"], "pairing": "keep"}).get_json()["error"],
        client.post("/api/nodes/zzz/restart").get_json()["error"],
        client.post("/api/sim/red-1/flip").get_json()["error"],
        client.post("/api/undo", json={"confirm": True}).get_json()["error"],
        client.post("/api/players/red/intent", json={"node": "yellow-1", "intent": {}}).get_json()["error"],
    ]
    for error in errors:
        for lang in TRANSLATED:
            assert translate_sentence(error, lang) != error, (lang, error)
    assert (
        translate_sentence(errors[0], "de")
        == "der Spielername 'a b' muss aus 1–16 Buchstaben, Ziffern oder _ bestehen"
    )
    assert translate_sentence(errors[-1], "es") == "el reloj 'yellow-1' no es de red (Mesa)"


@pytest.mark.parametrize(
    ("scores", "es", "de"),
    [
        (
            {"players": {"ana": {"total": 5}}, "ranking": ["ana"], "winners": ["ana"]},
            "Gana ana con 5 puntos.",
            "ana gewinnt mit 5 Punkten.",
        ),
        ({"players": {}, "ranking": [], "winners": []}, "Sin ganador.", "Kein Sieger."),
        (
            {
                "players": {
                    "ana": {"total": 5, "crystals": 2},
                    "ben": {"total": 5, "crystals": 2},
                    "eva": {"total": 5, "crystals": 2},
                },
                "ranking": ["ana", "ben", "eva"],
                "winners": ["ana", "ben", "eva"],
            },
            "Victoria compartida: ana, ben y eva, empatados a 5 puntos y en cristales de tiempo.",
            "Geteilter Sieg: ana, ben und eva, gleichauf mit 5 Punkten und bei Zeitkristalle.",
        ),
        (
            {
                "players": {"ana": {"total": 5}, "ben": {"total": 5}},
                "ranking": ["ana", "ben"],
                "winners": ["ana", "ben"],
            },
            "Victoria compartida: ana y ben, empatados a 5 puntos.",
            "Geteilter Sieg: ana und ben, gleichauf mit 5 Punkten.",
        ),
        (
            {
                "players": {"ana": {"total": 5, "trophies": 3}, "ben": {"total": 5, "trophies": 1}},
                "ranking": ["ana", "ben"],
                "winners": ["ana"],
            },
            "Gana ana: empata a 5 puntos con ben, pero va por delante en trofeos (3 frente a ben 1).",
            "ana gewinnt: gleichauf mit ben bei 5 Punkten, aber vorn bei Trophäen (3 gegen ben 1).",
        ),
    ],
)
def test_winner_explanations_are_translated(scores, es, de):
    english = explain(scores)
    assert translate_sentence(english, "es") == es
    assert translate_sentence(english, "de") == de


def test_the_browser_translates_sentences_as_python_does():
    """i18n.js (run in node) gives the same result as translate_sentence for every kind of hub sentence."""
    sentences = [describe(e, SETUP) for e in _events()]
    sentences += [
        explain(
            {
                "players": {"ana": {"total": 5}, "ben": {"total": 5}},
                "ranking": ["ana", "ben"],
                "winners": ["ana", "ben"],
            }
        ),
        "red: refused: The sand has not run through yet (Placing sandtimers)",
        "timer 'yellow-1' does not belong to red (Table)",
        "Start",
        "not in any catalog",
    ]
    script = (STATIC / "i18n.js").read_text(encoding="utf-8")
    for lang in TRANSLATED:
        program = (
            f"const window = {{ I18N: {json.dumps(catalog(lang))} }};\n{script}\n"
            f"console.log(JSON.stringify({json.dumps(sentences)}.map((s) => tSentence(s))));\n"
            f"console.log(JSON.stringify([t('Timer {{index}}', {{ index: 4 }}), t('unknown {{x}}', {{ x: 1 }})]));"
        )
        out = subprocess.run(["node", "-e", program], capture_output=True, text=True, timeout=30, check=True)
        browser, plain = (json.loads(line) for line in out.stdout.splitlines())
        assert browser == [translate_sentence(s, lang) for s in sentences]
        assert plain == [translate("Timer {index}", lang, index=4), "unknown 1"]


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
        "es": ["Puntuación final", "La partida aún no ha terminado"],
        "de": ["Endwertung", "Das Spiel ist noch nicht vorbei"],
    },
    "/history": {"es": ["Historial de partidas", "Tiempo jugado"], "de": ["Vergangene Spiele", "Gespielt"]},
}


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("path", list(PAGES))
def test_pages_are_translated(app, path, lang):
    res = app.test_client().get(f"{path}?lang={lang}")
    assert res.status_code == 200
    page = res.get_data(as_text=True)
    assert f'<html lang="{lang}">' in page
    for text in PAGES[path][lang]:
        assert text in page, (path, lang, text)
    if "i18n.js" in page:
        injected = re.search(r"window\.I18N = (.*?);</script>", page)[1]
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
    session.referee.scores = lambda game: {
        "players": {"red": {"total": 4, "trophies": 1}},  # type: ignore[method-assign]
        "ranking": ["red"],
        "winners": ["red"],
    }
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
