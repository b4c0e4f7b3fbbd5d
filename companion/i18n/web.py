"""Flask wiring: each request gets a language, and templates get ``_()`` and the catalog for the browser.

``init_i18n(app)`` picks the language per request (``?lang=`` and then remembered
in a cookie, else the cookie, else ``Accept-Language``, else the hub's default) and
gives templates:

- ``_("English text", name=value)``: the text in the page's language;
- ``_s(value)``: a hub text (:class:`~companion.rules.text.Text`, or its JSON form) in the page's
  language; a plain string is shown as it is;
- ``lang``: the chosen language, for ``<html lang>``;
- ``i18n_catalog``: the catalog the page's scripts read as ``window.I18N``;
- ``languages``: every language a page can switch to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, g, request
from flask.json.provider import DefaultJSONProvider

from companion.i18n import LANGUAGES, catalog, choose_language, normalize, render, translate
from companion.rules.text import Text, from_json

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


def render_value(value: Any, lang: str | None) -> str:
    """A hub text in ``lang``: a :class:`Text`, its JSON form (a dict), or a plain string shown as it is."""
    if value is None:
        return ""
    if isinstance(value, Text):
        return render(value, lang)
    if isinstance(value, dict):
        try:
            return render(from_json(value), lang)
        except ValueError:
            return ""
    return str(value)


class TextJSONProvider(DefaultJSONProvider):
    """Flask's JSON with hub texts written in their JSON form (``{"msg", "args", "plural"}``)."""

    @staticmethod
    def default(o: Any) -> Any:
        if isinstance(o, Text):
            return o.to_json()
        return DefaultJSONProvider.default(o)


def init_i18n(app: Flask, default_language: str = "en") -> None:
    """Give ``app``'s pages a language per request and the ``_()`` template function.

    Calling it again on the same app only changes the default language.
    """
    settings = I18nSettings(normalize(default_language) or "en")
    if EXTENSION in app.extensions:
        app.extensions[EXTENSION] = settings
        return
    app.extensions[EXTENSION] = settings
    app.json = TextJSONProvider(app)

    @app.context_processor
    def i18n_context() -> dict[str, Any]:
        lang = request_language(app)

        def gettext(text: str, **values: Any) -> str:
            return translate(text, lang, **values)

        def sentence(value: Any) -> str:
            return render_value(value, lang)

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
