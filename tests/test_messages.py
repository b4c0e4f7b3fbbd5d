"""Every word a player sees or hears is a message id with arguments, translated in every catalog.

The ids are read from the source: ``text("...")`` in Python, ``_("...")`` in templates and
``t("...")`` in scripts. Each must be in the Spanish and the German catalog with the same
placeholders (and plural forms for a counting message); no catalog holds an entry nothing uses;
and no game, referee or table answer is written as a plain English string any more.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.i18n import LANGUAGES, catalog_entries, render, render_tree
from companion.rules.text import LIST_ID, PLACEHOLDER, Text, from_json, joined, text, verbatim

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"
TEMPLATES = PACKAGE / "hub" / "templates"
STATIC = PACKAGE / "hub" / "static"
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]

TEMPLATE_CALL = re.compile(r"""(?<![\w.])_\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")
SCRIPT_CALL = re.compile(r'(?<![\w.$])t\(\s*"((?:[^"\\]|\\.)*)"')
SCRIPT_TEXT = re.compile(r'\bmsg:\s*"((?:[^"\\]|\\.)*)"(?:,\s*plural:\s*"((?:[^"\\]|\\.)*)")?')
"""A text written in a script as the hub sends them: ``tr({ msg: "...", plural: "...", args })``."""

CHECKED_PACKAGES = ("games", "rules", "table")
"""Where player-facing answers are built: no plain strings there (see :func:`plain_string_answers`)."""

ANSWER_CALLS = {"Rejected", "_Refusal", "Refusal", "TextError"}
"""Calls whose first argument is a sentence for players."""

NOT_FOR_PLAYERS = {
    "read_file",
    "read_shipped",
    "parse_text",
    "validate_board",
    "GameInfo",
    "TimelineGame",
    "SpaceAndTimeGame",
}
"""Calls whose keywords are not words for players: data-file labels (in errors for the terminal) and a
game's own name (a proper noun, shown as it is published)."""

ANSWER_KEYWORDS = {"reason", "rule", "note", "notes", "end_clock", "label", "group", "summary", "title"}
"""Keyword arguments (and dict keys) that hold words for players."""


def _python_files() -> Iterator[Path]:
    yield from sorted(PACKAGE.rglob("*.py"))


@functools.cache  # the sources do not change during a run: read them once
def python_ids() -> dict[str, tuple[str, str]]:
    """``text("id", "plural")`` calls in the package: id -> (plural, where)."""
    found: dict[str, tuple[str, str]] = {}
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "text":
                if not node.args:
                    continue
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                first = node.args[0]
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    found[f"<not a literal at {where}>"] = ("", where)
                    continue
                plural = ""
                if len(node.args) > 1:
                    second = node.args[1]
                    plural = (
                        second.value if isinstance(second, ast.Constant) else f"<not a literal at {where}>"
                    )
                found.setdefault(first.value, (str(plural), where))
    return found


@functools.cache  # the sources do not change during a run: read them once
def data_ids() -> set[str]:
    """Message ids games read from their data (variant titles, card titles): see ``GameInfo.message_ids``."""
    from companion.games import all_games

    return {msgid for game in all_games() for msgid in game.message_ids()}


@functools.cache  # the sources do not change during a run: read them once
def page_ids() -> dict[str, str]:
    """``_("...")`` in templates and ``t("...")`` in scripts: id -> file."""
    found: dict[str, str] = {}
    for path in sorted(TEMPLATES.glob("*.html")):
        source = path.read_text(encoding="utf-8")
        for m in [*TEMPLATE_CALL.finditer(source), *SCRIPT_CALL.finditer(source)]:
            found.setdefault(json.loads(f'"{m[1] if m[1] is not None else m[2]}"'), path.name)
    for path in sorted(STATIC.rglob("*.js")):
        for m in SCRIPT_CALL.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(json.loads(f'"{m[1]}"'), path.name)
    return found


@functools.cache  # the sources do not change during a run: read them once
def script_texts() -> dict[str, str]:
    """``{ msg: "...", plural: "..." }`` texts written in scripts: id -> plural form ("" for none)."""
    found: dict[str, str] = {}
    for path in sorted(STATIC.rglob("*.js")):
        for m in SCRIPT_TEXT.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(json.loads(f'"{m[1]}"'), json.loads(f'"{m[2]}"') if m[2] else "")
    return found


def needs_translation(msgid: str) -> bool:
    """An id with words outside its placeholders ("{p0}; {p1}" is the same in every language)."""
    return bool(re.search(r"[A-Za-z]", PLACEHOLDER.sub("", msgid)))


def catalog_files(lang: str) -> list[Path]:
    return [
        *sorted(PACKAGE.glob(f"i18n/*{lang}.json")),
        *sorted((PACKAGE / "games").glob(f"*/i18n/{lang}.json")),
    ]


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [k for k, _ in pairs]
    doubled = {k for k in keys if keys.count(k) > 1}
    assert not doubled, f"keys given twice: {sorted(doubled)}"
    return dict(pairs)


# --- the ids in the source ------------------------------------------------------------------------


def test_message_ids_are_literals_so_they_can_be_extracted():
    bad = [msgid for msgid in python_ids() if msgid.startswith("<not a literal")]
    bad += [f"{msgid} (plural)" for msgid, (plural, _) in python_ids().items() if plural.startswith("<not")]
    assert bad == []


def test_there_are_messages_from_every_layer():
    wheres = {where.split(":")[0] for _, where in python_ids().values()}
    for part in ("companion/table/decide.py", "companion/table/views.py", "companion/table/clock_rules.py"):
        assert part in wheres
    assert len(python_ids()) > 150 and len(page_ids()) > 60


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_id_is_translated_with_the_same_placeholders(lang):
    entries = catalog_entries(lang)
    ids = {m: p for m, (p, _) in python_ids().items()} | {m: "" for m in [*page_ids(), *data_ids()]}
    ids |= script_texts()
    missing, wrong = [], []
    for msgid, plural in sorted(ids.items()):
        if not needs_translation(msgid):
            continue
        entry = entries.get(msgid)
        if entry is None:
            missing.append(msgid)
            continue
        forms = dict(entry) if not isinstance(entry, str) else {"one": entry}
        if plural and set(forms) != {"one", "other"}:
            wrong.append((msgid, "a counting message needs 'one' and 'other' forms"))
        for form in forms.values():
            want = set(PLACEHOLDER.findall(msgid)) | set(PLACEHOLDER.findall(plural))
            have = set(PLACEHOLDER.findall(form))
            if not have <= want or (not plural and have != want):
                wrong.append((msgid, form))
    assert missing == [], f"{lang}: {len(missing)} message ids without a translation: {missing[:40]}"
    assert wrong == [], f"{lang}: translations whose placeholders differ: {wrong[:20]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalogs_hold_only_used_entries_and_agree_with_each_other(lang):
    used = set(python_ids()) | set(page_ids()) | set(script_texts()) | data_ids() | {LIST_ID}
    seen: dict[str, object] = {}
    for path in catalog_files(lang):
        data = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_no_duplicates)
        for key, value in data.items():
            assert value, f"{path.name}: empty translation for {key!r}"
            assert isinstance(value, str) or (isinstance(value, dict) and set(value) == {"one", "other"}), key
            if key in seen:
                assert seen[key] == value, f"{path}: {key!r} is translated differently in another catalog"
            seen[key] = value
    unused = sorted(set(seen) - used)
    assert unused == [], f"{lang}: entries nothing uses: {unused[:40]}"


def test_catalogs_translate_rather_than_copy():
    for lang in TRANSLATED:
        entries = catalog_entries(lang)
        same = [k for k, v in entries.items() if k == v]
        assert len(same) < len(entries) // 20, (lang, same[:30])


def test_the_number_of_entries_per_language_is_reported(capsys):
    counts = {lang: len(catalog_entries(lang)) for lang in TRANSLATED}
    print(f"catalog entries: {counts}")
    assert counts["es"] == counts["de"]


# --- no plain English answers ------------------------------------------------------------------------


def _is_plain_string(node: ast.AST) -> bool:
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and needs_translation(node.value):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _is_plain_string(node.left) or _is_plain_string(node.right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"format", "join"}
    ):
        return isinstance(node.func.value, ast.Constant)
    return False


def plain_string_answers() -> list[str]:
    """Places in games, rules and the table that answer players with an English string, not a message id."""
    found = []
    for part in CHECKED_PACKAGES:
        for path in sorted((PACKAGE / part).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Call):
                    name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                    if name in NOT_FOR_PLAYERS:
                        continue
                    if name in ANSWER_CALLS and node.args and _is_plain_string(node.args[0]):
                        found.append(f"{where} {name}(...)")
                    if name in ANSWER_CALLS and len(node.args) > 1 and _is_plain_string(node.args[1]):
                        found.append(f"{where} {name}(..., rule)")
                    for kw in node.keywords:
                        if kw.arg in ANSWER_KEYWORDS and _is_plain_string(kw.value):
                            found.append(f"{where} {kw.arg}=")
                        if kw.arg == "notes" and isinstance(kw.value, (ast.Tuple, ast.List)):
                            found += [f"{where} notes=" for e in kw.value.elts if _is_plain_string(e)]
                elif isinstance(node, ast.Dict):
                    for key, value in zip(node.keys, node.values, strict=True):
                        if (
                            isinstance(key, ast.Constant)
                            and key.value in ANSWER_KEYWORDS
                            and value is not None
                            and _is_plain_string(value)
                        ):
                            found.append(f"{where} {{{key.value!r}: ...}}")
    return found


def test_games_rules_and_the_table_answer_with_message_ids():
    found = plain_string_answers()
    assert found == [], f"{len(found)} answers written as English strings: {found[:40]}"


# --- the texts themselves -------------------------------------------------------------------------------


def test_a_text_renders_in_english_and_in_each_catalog():
    who = text("{player} timer {index}", player="Zoë", index=2)
    ran_out = text("{who} ran out", who=who)
    assert str(ran_out) == "Zoë timer 2 ran out"
    assert render(ran_out, "es") != str(ran_out) and "Zoë" in render(ran_out, "es")
    assert render(ran_out, "de") != str(ran_out) and "Zoë" in render(ran_out, "de")


@pytest.mark.parametrize("count", [0, 1, 2, 7])
def test_plurals_choose_the_form_by_count(count):
    message = text(
        "{winner} wins with {count} point.", "{winner} wins with {count} points.", winner="ana", count=count
    )
    english = str(message)
    assert english == f"ana wins with {count} point{'' if count == 1 else 's'}."
    for lang in TRANSLATED:
        shown = render(message, lang)
        assert str(count) in shown and "points" not in shown and "point." not in shown


def test_lists_are_joined_with_the_languages_and():
    message = text(
        "Shared victory: {names}, tied on {count} point.",
        "Shared victory: {names}, tied on {count} points.",
        names=("ana", "ben", "eva"),
        count=3,
    )
    assert str(message) == "Shared victory: ana, ben and eva, tied on 3 points."
    assert "ana, ben y eva" in render(message, "es")
    assert "ana, ben und eva" in render(message, "de")


def test_the_json_form_reads_back_equal_and_a_plain_string_is_verbatim():
    message = joined(
        [text("{who} ran out", who=text("{player} timer {index}", player="a", index=1)), verbatim("x")]
    )
    assert from_json(json.loads(json.dumps(message.to_json()))) == message
    assert from_json("an old sentence") == verbatim("an old sentence")
    assert render(verbatim("Start"), "de") == "Start", "a verbatim text is never translated"
    with pytest.raises(ValueError):
        from_json({"msg": 3})
    with pytest.raises(ValueError):
        from_json({"msg": "x", "args": {"a": {"nested": True}}})


def test_render_tree_writes_out_every_text_in_a_view():
    view = {"summary": text("master clock paused").to_json(), "rows": [["ana", 3, Text("ready")]], "n": 2}
    assert render_tree(view, "de") == {
        "summary": render(text("master clock paused"), "de"),
        "rows": [["ana", 3, render(text("ready"), "de")]],
        "n": 2,
    }


def test_the_browser_renders_texts_as_python_does():
    """i18n.js's tr() (run in node) gives what companion.i18n.render gives, plurals and lists included."""
    samples = [
        text("{who} ran out", who=text("{player} timer {index}", player="Zoë", index=2)),
        text("{winner} wins with {count} point.", "{winner} wins with {count} points.", winner="a", count=1),
        text("{winner} wins with {count} point.", "{winner} wins with {count} points.", winner="a", count=4),
        text(
            "Shared victory: {names}, tied on {count} point.",
            "Shared victory: {names}, tied on {count} points.",
            names=("a", "b", "c"),
            count=2,
        ),
        joined([text("master clock paused"), verbatim("as typed")]),
        verbatim("Start"),
        text("not in any catalog {x}", x=1),
    ]
    script = (STATIC / "i18n.js").read_text(encoding="utf-8")
    for lang in LANGUAGES:
        entries = (
            {k: (dict(v) if not isinstance(v, str) else v) for k, v in catalog_entries(lang).items()}
            if lang != "en"
            else {}
        )
        program = (
            f"const window = {{ I18N: {json.dumps(entries)} }};\n{script}\n"
            f"console.log(JSON.stringify({json.dumps([s.to_json() for s in samples])}.map((s) => tr(s))));\n"
        )
        # on standard input: the catalogs make the program longer than one argument may be
        out = subprocess.run(
            ["node", "-"], input=program, capture_output=True, text=True, timeout=30, check=True
        )
        assert json.loads(out.stdout) == [render(s, lang) for s in samples], lang
