"""Flask wiring: each request gets a language, and templates get ``_()`` and the catalog for the browser.

``init_i18n(app)`` picks the language per request (``?lang=`` and then remembered
in a cookie, else the cookie, else ``Accept-Language``, else the hub's default) and
gives templates:

- ``_("English text", name=value)``: the text in the page's language;
- ``_s(sentence)``: a sentence the hub built in English (an explanation, a reason);
- ``lang``: the chosen language, for ``<html lang>``;
- ``i18n_catalog``: the catalog the page's scripts read as ``window.I18N``;
- ``languages``: every language a page can switch to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, g, request

from companion.i18n import LANGUAGES, catalog, choose_language, normalize, translate, translate_sentence

COOKIE = "lang"
COOKIE_MAX_AGE_S = 365 * 24 * 3600
EXTENSION = "companion.i18n"


@dataclass(frozen=True)
class I18nSettings:
    """Per-app language settings, kept in ``app.extensions["companion.i18n"]``."""

    default_language: str = "en"
    """The hub's language when a request names none (``HubConfig.language``)."""


def request_language(app: Flask) -> str:
    """The language of the current request (chosen once per request)."""
    lang = g.get("companion_lang")
    if lang is None:
        settings: I18nSettings = app.extensions[EXTENSION]
        lang = choose_language(
            request.args.get("lang"),
            request.cookies.get(COOKIE),
            request.headers.get("Accept-Language"),
            settings.default_language,
        )
        g.companion_lang = lang
    return lang


def init_i18n(app: Flask, default_language: str = "en") -> None:
    """Give ``app``'s pages a language per request and the ``_()`` template function.

    Calling it again on the same app only changes the default language.
    """
    settings = I18nSettings(normalize(default_language) or "en")
    if EXTENSION in app.extensions:
        app.extensions[EXTENSION] = settings
        return
    app.extensions[EXTENSION] = settings

    @app.context_processor
    def i18n_context() -> dict[str, Any]:
        lang = request_language(app)

        def gettext(text: str, **values: Any) -> str:
            return translate(text, lang, **values)

        def sentence(text: str | None) -> str:
            return translate_sentence(text or "", lang)

        return {
            "_": gettext,
            "_s": sentence,
            "lang": lang,
            "i18n_catalog": catalog(lang),
            "languages": LANGUAGES,
        }

    @app.after_request
    def remember_choice(response: Response) -> Response:
        chosen = normalize(request.args.get("lang"))
        if chosen is not None and request.cookies.get(COOKIE) != chosen:
            response.set_cookie(COOKIE, chosen, max_age=COOKIE_MAX_AGE_S, samesite="Lax", httponly=True)
        return response
