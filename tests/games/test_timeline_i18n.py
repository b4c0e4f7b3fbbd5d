"""Timeline speaks the table's language: every word is a message id in the Spanish and German catalogs.

* Each ``text("...")`` of the package has a Spanish and a German entry with the same placeholders
  (plural messages with their "one" and "other" forms).
* Each card of the shipped deck is named in both catalogs; the Spanish name is the one printed on
  the card (the deck file's ``title``).
* A game played through the referee (pages, menus, notes, refusals, the end) uses only texts the
  catalogs know, and every one of them renders completely in Spanish and German.
"""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from companion.games.timeline import GAME
from companion.games.timeline.model import NameYear, Place, PutIn, TurnOver
from companion.games.timeline.pages import year_label
from companion.games.timeline.referee import TimelineReferee
from companion.i18n import catalog_entries, render
from companion.rules.context import Context
from companion.rules.outcome import Rejected
from companion.rules.setup import Seat, make_setup
from companion.rules.text import PLACEHOLDER, Text
from companion.testing import SimulatedTable, play_randomly

PACKAGE = Path(__file__).resolve().parents[2] / "companion" / "games" / "timeline"
TURNS = PACKAGE.parents[1] / "rules" / "turns.py"
LANGUAGES = ("es", "de")


def literal_texts(*paths: Path) -> dict[str, str]:
    """Every ``text("id", "plural"?)`` literal in the files: id -> plural form ("" for none)."""
    found: dict[str, str] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "text":
                first = node.args[0]
                assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                    f"{path.name}:{node.lineno}: a message id must be a string literal"
                )
                second = node.args[1] if len(node.args) > 1 else None
                found[first.value] = second.value if isinstance(second, ast.Constant) else ""
    return found


def check_entry(msgid: str, plural: str, entry: Any, where: str) -> None:
    wanted = set(PLACEHOLDER.findall(msgid)) | set(PLACEHOLDER.findall(plural))
    if plural:
        assert isinstance(entry, Mapping) and set(entry) == {"one", "other"}, (
            f"{where}: {msgid!r} needs one/other"
        )
        forms = list(entry.values())
    else:
        assert isinstance(entry, str) and entry, f"{where}: {msgid!r}"
        forms = [entry]
    for form in forms:
        assert set(PLACEHOLDER.findall(form)) == wanted, f"{where}: {msgid!r} -> {form!r}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_of_the_game_and_the_turn_timer_is_translated(lang):
    entries = catalog_entries(lang)
    messages = literal_texts(*sorted(PACKAGE.glob("*.py")), TURNS)
    assert len(messages) > 60
    for msgid, plural in messages.items():
        assert msgid in entries, f"{lang}: no translation of {msgid!r}"
        check_entry(msgid, plural, entries[msgid], lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_catalog_files_hold_only_the_games_words_and_its_cards(lang):
    own = json.loads((PACKAGE / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    messages = literal_texts(*sorted(PACKAGE.glob("*.py")))
    cards = {card.title_en for card in GAME.data.deck}
    variants = {variant.title for variant in GAME.variants} | {GAME.title}
    assert set(own) == set(messages) | cards | variants, "no entry missing, none that nothing uses"


def test_each_shipped_card_is_named_in_spanish_as_printed_and_in_german():
    es, de = catalog_entries("es"), catalog_entries("de")
    for card in GAME.data.deck:
        assert card.title_en, card
        assert es[card.title_en] == card.title, "the Spanish name is the deck file's title"
        assert isinstance(de[card.title_en], str) and de[card.title_en] != card.title_en, card.id


def texts_in(value: Any) -> list[Text]:
    """Every Text in a value (dicts, lists, tuples, Text arguments), however deep."""
    out: list[Text] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Text):
            out.append(item)
            stack.extend(arg for _, arg in item.args)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif hasattr(item, "to_dict") and hasattr(item, "label"):  # a MenuItem
            stack.extend((item.label, item.group))
        elif hasattr(item, "panels"):  # a View
            stack.extend((item.summary, item.panels, item.extra))
    return out


def is_joined(message: Text) -> bool:
    """``joined(...)``'s "{p0}; {p1}": no words of its own."""
    return not PLACEHOLDER.sub("", message.msgid).strip("; ")


def played_game(seed: int) -> tuple[TimelineReferee, list[Any]]:
    """A three-player game played at random to its end, and everything it showed or said on the way."""
    players = ("ana", "ben", "cleo")
    table = SimulatedTable(game="timeline", players=players, seed=seed, variant="hand-2", deck="hub")
    referee = table.referee
    assert isinstance(referee, TimelineReferee)
    rng = random.Random(seed)
    seen: list[Any] = []

    def look() -> None:
        seen.append(referee.view(table.game, table.ctx))
        for p in players:
            seen.append(referee.player_view(table.game, table.ctx, p))
            seen.append(table.menu(p))
        seen.append(table.ctx.recent)

    def flip_refused(player: str) -> Any:
        return referee.timer_flipped(
            table.game, table.ctx, table.setup.seat_of(f"{player}-1"), intent=None, ran_out=True
        )

    for _ in range(200):
        if table.game.is_over:
            break
        mover = table.game.to_move
        other = next(p for p in players if p != mover)
        seen.append(flip_refused(other))
        seen.append(table.tap(mover, Place("x", 0)).refusal)
        table.flip(f"{mover}-1")
        table.advance(2)
        seen.append(flip_refused(mover))
        look()
        if rng.random() < 0.1:
            table.run_out(f"{mover}-1")
            continue
        seen.append(referee.player_action(table.game, table.ctx, mover, None))
        seen.append(table.tap(mover, Place(table.game.hand(mover)[0], 99)).refusal)
        item = rng.choice(table.menu(mover))
        table.tap(mover, item.action)
        look()
    assert table.game.is_over
    seen.append(table.tap("ana", Place("x", 0)).refusal)
    return referee, seen


def played_with_the_box(seed: int) -> tuple[TimelineReferee, list[Any]]:
    """A table-deck game played by random taps of the phones' menus, and everything it showed or said."""
    players = ("ana", "ben", "cleo")
    table = SimulatedTable(game="timeline", players=players, seed=seed, variant="hand-2", deck="table")
    referee = table.referee
    assert isinstance(referee, TimelineReferee)
    rng = random.Random(seed)
    seen: list[Any] = []
    table.start()
    for _ in range(150):
        seen.append(referee.view(table.game, table.ctx))
        for p in players:
            seen.append(referee.player_view(table.game, table.ctx, p))
            seen.append(table.menu(p))
        seen.append(table.ctx.recent)
        mover = table.game.to_move or "ana"
        for wrong in (TurnOver(), TurnOver(0, True), PutIn(99), NameYear(99, 5), Place("x", 0)):
            seen.append(table.tap(mover, wrong).refusal)
        play_randomly(table, rng, steps=3, undos=0)
    return referee, seen


@pytest.mark.parametrize(("seed", "deck"), [(1, "hub"), (2, "hub"), (1, "table"), (2, "table")])
def test_a_whole_game_shows_only_words_the_catalogs_know(seed, deck):
    referee, seen = played_game(seed) if deck == "hub" else played_with_the_box(seed)
    refusals = [s for s in seen if isinstance(s, Rejected)]
    seen += [r.reason for r in refusals] + [r.rule for r in refusals]
    texts = [t for t in texts_in(seen) if not t.verbatim and not is_joined(t)]
    assert len({t.msgid for t in texts}) > 25
    for lang in LANGUAGES:
        entries = catalog_entries(lang)
        missing = sorted({t.msgid for t in texts if t.msgid not in entries})
        assert missing == [], f"{lang}: {missing}"
        for message in texts:
            shown = render(message, lang)
            assert shown and not PLACEHOLDER.search(shown), (lang, message.msgid, shown)


def test_spanish_and_german_tables_read_the_cards_and_years_in_their_language():
    setup = make_setup(
        table="tl",
        game="timeline",
        players=("ana", "ben"),
        seats=(Seat("ana", 1, "ana-1"), Seat("ben", 1, "ben-1")),
        deck="hub",
    )
    referee = TimelineReferee.for_table(setup, GAME.data)
    first = referee.view(referee.start(setup), Context()).panels[0]["rows"][0][1]
    card = next(c for c in GAME.data.deck if c.title_en == first.msgid)
    assert (render(first, "en"), render(first, "es")) == (card.title_en, card.title)
    assert [render(year_label(-218), lang) for lang in ("en", "es", "de")] == [
        "218 BCE",
        "218 a. C.",
        "218 v. Chr.",
    ]
