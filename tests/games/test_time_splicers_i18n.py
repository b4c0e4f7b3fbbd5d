"""Time Splicers in Spanish and German: every refusal, note, menu and page text has a catalog entry.

The engine and the referee answer with message ids (``companion.rules.text``); these tests walk
what a table sees during real games (every refusal of the rules tests, the dashboard and phone
views, menus and notes of seeded random games, an early end) and check that each message, down to
the card and Timeline names inside it, is translated in both catalogs.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.games.base import Rejected
from companion.games.time_splicers import GAME, PlaceCard, apply
from companion.games.time_splicers.table import SplicersReferee
from companion.i18n import catalog_entries, render
from companion.rules import Decision
from companion.rules.setup import Seat, make_setup
from companion.rules.text import PLACEHOLDER, Text
from tests.games.test_time_splicers import ILLEGAL, _with, table

LANGS = ("es", "de")


def texts_in(value: Any) -> list[Text]:
    """Every :class:`Text` inside ``value`` (views, panels, pictures, menus), nested ones included."""
    found: list[Text] = []
    if isinstance(value, Text):
        found.append(value)
        for _, arg in value.args:
            found += texts_in(arg)
    elif isinstance(value, dict):
        for v in value.values():
            found += texts_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            found += texts_in(v)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            found += texts_in(getattr(value, name))
    return found


def untranslated(texts: list[Text], lang: str) -> set[str]:
    """Message ids among ``texts`` that ``lang``'s catalog lacks (a name shown as it is needs none)."""
    entries = catalog_entries(lang)
    return {
        t.msgid
        for t in texts
        if not t.verbatim and PLACEHOLDER.sub("", t.msgid).strip(" ,;:-()") and t.msgid not in entries
    }


def play(seed: int, steps: int = 60) -> list[Any]:
    """A seeded random game of three through the referee: everything it showed and answered."""
    rng = random.Random(seed)
    players = ("ana", "ben", "cleo")
    setup = make_setup(
        table="ts",
        game="time-splicers",
        players=players,
        seed=seed,
        seats=tuple(Seat(n, 1, f"{n}-1") for n in players),
    )
    referee = SplicersReferee.for_table(setup, GAME.data)
    state = referee.start(setup)
    shown: list[Any] = []
    for _ in range(steps):
        if referee.is_over(state):
            break
        who = referee.player_to_move(state)
        seat = setup.seats[players.index(who)]
        shown.append(referee.player_action(state, who, {"type": "portal"}))  # before the flip: refused
        flipped = referee.timer_flipped(state, seat, intent=None, ran_out=True)
        assert isinstance(flipped, Decision)
        state = flipped.state
        shown.append(referee.timer_flipped(state, seat, intent=None, ran_out=True))  # again: refused
        while state.turn_open:
            menu = referee.menu(state, who, intents={})
            shown += [menu, referee.view(state), referee.player_view(state, who)]
            if not menu or rng.random() < 0.1:
                step = referee.timer_emptied(state, seat)
            else:
                step = referee.player_action(state, who, dict(rng.choice(menu).action or {}))
            assert isinstance(step, Decision), step
            shown.append(step.notes)
            state = step.state
    ended = referee.game_ended_early(state)
    assert isinstance(ended, Decision)
    shown += [ended.notes, referee.view(ended.state), referee.player_view(ended.state, "ana")]
    shown.append(referee.player_action(ended.state, "ana", {"type": "portal"}))
    return shown


@pytest.mark.parametrize("lang", LANGS)
def test_every_refusal_of_the_rules_is_translated(lang):
    refusals = []
    for _, layout, action, _, _ in ILLEGAL:
        result = apply(table(**layout), action)
        assert isinstance(result, Rejected)
        refusals.append(result)
    assert untranslated(texts_in(refusals), lang) == set()
    shown = render(refusals[0].reason, lang)
    assert "Ann" in shown and "Bob" in shown and shown != str(refusals[0].reason)


@pytest.mark.parametrize("seed", range(3))
def test_pages_menus_and_notes_of_whole_games_are_translated(seed):
    shown = texts_in(play(seed))
    assert len(shown) > 100
    for lang in LANGS:
        assert untranslated(shown, lang) == set(), lang


def test_a_card_a_timeline_and_a_count_read_naturally():
    """Spot checks of the wording a native player reads (the catalogs are written, not generated)."""
    setup = make_setup(
        table="ts", game="time-splicers", players=("ana", "ben"), seats=(Seat("ana", 1, "a-1"),)
    )
    referee = SplicersReferee.for_table(setup, GAME.data)
    state = referee.start(setup)
    refused = apply(table(**_with(hands={"Ann": ["red-9"]})), PlaceCard("Ann", "red-9"))
    assert isinstance(refused, Rejected)
    assert render(refused.reason, "es").startswith("El 9 rojo no puede ir a la derecha del 5 rojo")
    assert render(refused.reason, "de").startswith("Rot 9 kann nicht rechts neben Rot 5")
    view = referee.view(state)
    assert render(view.summary, "de") == "Zug 1: ana ist dran: dreh Sanduhr 1 um, um zu beginnen"
    deck = view.panels[2]["lines"][0]
    assert render(deck, "es") == f"Mazo: {len(state.game.deck)} cartas"
