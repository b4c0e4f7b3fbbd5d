"""Translations of every word a player or host sees: English, Spanish and German.

Words come as message ids with arguments (:class:`companion.rules.text.Text`, written by the
rules, the table and the hub) or as page texts (``_("...")`` in templates, ``t("...")`` in
scripts). The English text is the id: :func:`render` gives a :class:`Text` in a language, and
:func:`translate` a page text; an id without a translation stays English, so a missing entry
never breaks a page.

Catalogs are JSON files: ``<lang>.json`` and ``<part>.<lang>.json`` next to this module (the hub's
pages), and ``<game package>/i18n/<lang>.json`` (each registered game's words). An entry is a
translation, or for a counting message its plural forms (``{"one": ..., "other": ...}``).
``tests/test_messages.py`` checks that every id in the code has an entry in every catalog.

This module uses only the standard library; :mod:`companion.i18n.web` wires it into Flask.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from companion.rules.text import LIST_ID, Text, from_json
from companion.rules.text import render as render_text

Entry = str | Mapping[str, str]
"""A catalog entry: a translation, or plural forms by CLDR category (``{"one": ..., "other": ...}``)."""

LANGUAGES = ("en", "es", "de")
"""Languages a page can be shown in; English is the source and the fallback."""

SOURCE_LANGUAGE = "en"

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``{name}`` in a catalog text; braces around anything else are plain text."""

_CATALOG_DIR = Path(__file__).resolve().parent


def normalize(lang: str | None) -> str | None:
    """The supported language a tag like ``"es-ES"`` or ``"DE"`` names, or None."""
    if not lang:
        return None
    primary = lang.strip().replace("_", "-").split("-")[0].lower()
    return primary if primary in LANGUAGES else None


@cache
def _catalog_files(lang: str) -> tuple[Path, ...]:
    """The hub's catalogs (``<lang>.json``, ``<part>.<lang>.json``) and each game's
    (``companion/games/<package>/i18n/<lang>.json``), in that order."""
    files = [_CATALOG_DIR / f"{lang}.json", *sorted(_CATALOG_DIR.glob(f"*.{lang}.json"))]
    return (*files, *(folder / f"{lang}.json" for folder in game_catalog_folders()))


def game_catalog_folders() -> tuple[Path, ...]:
    """Each registered game's ``i18n`` folder, in its package (a game registered from another
    distribution brings its own)."""
    import importlib

    from companion.games import all_games

    folders = []
    for info in all_games():
        if info.package:
            module = importlib.import_module(info.package)
            folders.append(Path(module.__file__ or "").parent / "i18n")
    return tuple(folders)


def _read_catalog(path: Path) -> dict[str, Entry]:
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Entry] = {}
    for key, value in data.items():
        if isinstance(value, str) and value:
            out[key] = value
        elif isinstance(value, dict) and all(isinstance(v, str) and v for v in value.values()) and value:
            out[key] = MappingProxyType(dict(value))
    return out


@cache
def _load_entries(lang: str) -> Mapping[str, Entry]:
    merged: dict[str, Entry] = {}
    for path in _catalog_files(lang):
        merged.update(_read_catalog(path))
    return MappingProxyType(merged)


@cache
def _load(lang: str) -> Mapping[str, str]:
    """The catalog's plain (non-plural) entries."""
    return MappingProxyType({k: v for k, v in _load_entries(lang).items() if isinstance(v, str)})


def reload() -> None:
    """Read the catalogs again at the next translation (after a game was registered or its files changed)."""
    for cached in (_catalog_files, _load_entries, _load):
        cached.cache_clear()


def catalog(lang: str) -> dict[str, Any]:
    """Message id → translation for ``lang`` (plural entries as ``{"one", "other"}``), for the browser.

    Empty for English or an unknown language.
    """
    code = normalize(lang)
    if code is None or code == SOURCE_LANGUAGE:
        return {}
    return {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in _load_entries(code).items()}


def catalog_entries(lang: str) -> Mapping[str, Entry]:
    """Every entry of ``lang``'s merged catalog (tests check coverage with it)."""
    return _load_entries(normalize(lang) or SOURCE_LANGUAGE)


def plural_category(lang: str, count: float) -> str:
    """CLDR plural category of ``count``: English, Spanish and German have "one" and "other"."""
    return "one" if count == 1 else "other"


def render(message: Text | str, lang: str | None) -> str:
    """A :class:`~companion.rules.text.Text` in ``lang`` (English when the catalog lacks it).

    A plain string is shown as it is (a name, an old log's sentence).
    """
    if isinstance(message, str):
        return message
    code = normalize(lang) or SOURCE_LANGUAGE
    entries = _load_entries(code) if code != SOURCE_LANGUAGE else {}

    def template_for(msgid: str, plural: str, count: float | None) -> str:
        category = plural_category(code, count) if count is not None else "one"
        found = entries.get(msgid)
        if isinstance(found, Mapping):
            return str(found.get(category) or found.get("other") or msgid)
        if found and category == "one":
            return found
        if found and not plural:
            return found
        return plural if (plural and category != "one") else msgid

    joined = entries.get(LIST_ID)
    return render_text(message, template_for, list_pattern=joined if isinstance(joined, str) else LIST_ID)


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


def is_text_json(value: Any) -> bool:
    """True for the JSON form of a :class:`Text` object (``{"msg": ..., ...}``)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("msg"), str)
        and set(value) <= {"msg", "args", "plural"}
    )


def render_tree(value: Any, lang: str | None) -> Any:
    """``value`` (a view, a snapshot) with every text inside, as a :class:`Text` or its JSON form,
    written out in ``lang``; everything else is kept as it is."""
    if isinstance(value, Text):
        return render(value, lang)
    if is_text_json(value):
        return render(from_json(value), lang)
    if isinstance(value, dict):
        return {k: render_tree(v, lang) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [render_tree(v, lang) for v in value]
    return value
