"""Translations of every text a player or host sees: English, Spanish and German.

The English text is the key: ``translate("Start", "de")`` is ``"Starten"``, and a
text without a translation stays English, so a missing entry never breaks a page.
Catalogs are JSON files next to this module (``es.json``, ``de.json``); values are
written with ``{name}`` placeholders, filled in by :func:`translate`.

Sentences the hub builds in Python (the recent-events list, refusal reasons, the
winner explanation) reach the pages already in English; :func:`translate_sentence`
recognises them by their pattern in the catalog (``"{who} ran out"``) and
translates the pieces that are themselves hub words (see :data:`NESTED`).
The browser does the same in ``companion/hub/static/i18n.js``.

This module uses only the standard library; :mod:`companion.i18n.web` wires it
into Flask.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

LANGUAGES = ("en", "es", "de")
"""Languages a page can be shown in; English is the source and the fallback."""

SOURCE_LANGUAGE = "en"

NESTED = frozenset({"who", "reason", "rule", "phase", "label", "note", "names", "preview"})
"""Placeholders whose values are hub texts themselves, translated in turn.

Every other placeholder (a player name, a number, a node id) is kept as it is.
"""

LIST_PATTERN = "{names} and {name}"
"""How the hub joins names ("ana, ben and eva"); applied only to a ``{names}`` value."""

GREEDY = frozenset({"reason"})
"""Placeholders that take as much text as they can: a reason may itself hold brackets or colons."""

WORDS = frozenset(
    {
        "player",
        "node",
        "index",
        "number",
        "name",
        "winner",
        "table",
        "sand",
        "minutes",
        "points",
        "score",
        "low",
        "high",
        "connected",
        "needed",
        "count",
        "kind",
    }
)
"""Placeholders that hold one word (a player name, a node id, a number): they never match a space,
so ``"red (Table)"`` is not taken for a player's name."""

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``{name}`` in a catalog text; braces around anything else are plain text."""

_CATALOG_DIR = Path(__file__).resolve().parent
_MAX_DEPTH = 4


def normalize(lang: str | None) -> str | None:
    """The supported language a tag like ``"es-ES"`` or ``"DE"`` names, or None."""
    if not lang:
        return None
    primary = lang.strip().replace("_", "-").split("-")[0].lower()
    return primary if primary in LANGUAGES else None


@cache
def _load(lang: str) -> Mapping[str, str]:
    path = _CATALOG_DIR / f"{lang}.json"
    if not path.exists():
        return MappingProxyType({})
    data = json.loads(path.read_text(encoding="utf-8"))
    return MappingProxyType({k: v for k, v in data.items() if isinstance(v, str) and v})


def catalog(lang: str) -> dict[str, str]:
    """English text → translation for ``lang`` (empty for English or an unknown language), for the browser."""
    code = normalize(lang)
    if code is None or code == SOURCE_LANGUAGE:
        return {}
    return dict(_load(code))


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders in a catalog text."""
    return set(PLACEHOLDER.findall(text))


def _fill(text: str, values: Mapping[str, Any]) -> str:
    return PLACEHOLDER.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], text)


def translate(text: str, lang: str | None, /, **values: Any) -> str:
    """``text`` in ``lang`` with its ``{placeholders}`` filled in; English when there is no translation."""
    code = normalize(lang) or SOURCE_LANGUAGE
    translated = _load(code).get(text, text) if code != SOURCE_LANGUAGE else text
    return _fill(translated, values)


@cache
def _patterns(lang: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Catalog keys with placeholders as regular expressions, the most literal text first."""
    found = []
    for key in _load(lang):
        names = PLACEHOLDER.findall(key)
        if not names or key == LIST_PATTERN:
            continue
        found.append((key, pattern_of(key)))
    found.sort(key=lambda kp: -len(PLACEHOLDER.sub("", kp[0])))
    return tuple(found)


def pattern_of(key: str) -> re.Pattern[str]:
    """The regular expression matching the English sentences built from catalog text ``key``."""
    parts, last = [], 0
    seen: set[str] = set()
    for m in PLACEHOLDER.finditer(key):
        parts.append(re.escape(key[last : m.start()]))
        name = m[1]
        if name in seen:
            parts.append(f"(?P={name})")
        else:
            body = r"\S+" if name in WORDS else ".+" if name in GREEDY else ".+?"
            parts.append(f"(?P<{name}>{body})")
            seen.add(name)
        last = m.end()
    parts.append(re.escape(key[last:]))
    return re.compile("".join(parts), re.DOTALL)


def translate_sentence(text: str, lang: str | None, *, _depth: int = 0) -> str:
    """A sentence the hub built in English, translated when the catalog knows it or its pattern.

    ``"red timer 1 ran out"`` matches ``"{who} ran out"``; ``who`` is translated in
    turn (``"{player} timer {index}"``), the player name and number stay as they are.
    A sentence nothing matches (a game engine's own reason) is returned unchanged.
    """
    code = normalize(lang) or SOURCE_LANGUAGE
    if code == SOURCE_LANGUAGE or not text:
        return text
    messages = _load(code)
    if text in messages:
        return messages[text]
    if _depth >= _MAX_DEPTH:
        return text
    for key, regex in _patterns(code):
        m = regex.fullmatch(text)
        if m is None:
            continue
        values = {name: _nested(name, value, code, _depth + 1) for name, value in m.groupdict().items()}
        return _fill(messages[key], values)
    return text


def _nested(name: str, value: str, lang: str, depth: int) -> str:
    if name not in NESTED:
        return value
    if name == "names":
        m = pattern_of(LIST_PATTERN).fullmatch(value)
        if m is None:
            return value
        joined = _load(lang).get(LIST_PATTERN, LIST_PATTERN)
        return _fill(joined, m.groupdict())
    return translate_sentence(value, lang, _depth=depth)


def parse_accept_language(header: str | None) -> list[str]:
    """Supported languages of an ``Accept-Language`` header, most wanted first (``q=0`` excluded)."""
    if not header:
        return []
    ranked: list[tuple[float, int, str]] = []
    for position, item in enumerate(header.split(",")):
        tag, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        code = normalize(tag)
        if code is not None and q > 0:
            ranked.append((-q, position, code))
    ranked.sort()
    result: list[str] = []
    for _, _, code in ranked:
        if code not in result:
            result.append(code)
    return result


def choose_language(
    query_lang: str | None,
    cookie_lang: str | None,
    accept_language_header: str | None,
    default: str | None = SOURCE_LANGUAGE,
) -> str:
    """The language of a page: ``?lang=``, else the remembered cookie, else the browser's choice, else the hub's.

    Unknown or unsupported languages are ignored at every step; the last resort is English.
    """
    for candidate in (query_lang, cookie_lang):
        code = normalize(candidate)
        if code is not None:
            return code
    wanted = parse_accept_language(accept_language_header)
    if wanted:
        return wanted[0]
    return normalize(default) or SOURCE_LANGUAGE
