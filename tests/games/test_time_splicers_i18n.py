"""Time Splicers in Spanish and German: every refusal, note, menu and page text has a catalog entry.

The engine and the referee answer with message ids (``companion.rules.text``); these tests walk
what a table sees during real games (every refusal of the rules tests, the dashboard and phone
views, menus and notes of seeded random games, an early end) and check that each message, down to
the card and Timeline names inside it, is translated in both catalogs.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from companion.games.time_splicers import GAME
from companion.games.time_splicers.engine import apply
from companion.games.time_splicers.model import EnterPortal, PlaceCard, RevealCard
from companion.games.time_splicers.referee import SplicersReferee
from companion.i18n import catalog_entries, render
from companion.rules.context import Context
from companion.rules.outcome import Rejected
from companion.rules.setup import Seat, make_setup
from companion.rules.text import PLACEHOLDER, Text
from companion.testing import SimulatedTable
from tests.games.test_time_splicers import ILLEGAL, _with, play, table

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


def play_game(seed: int, deck: str, steps: int = 60) -> list[Any]:
    """A seeded random game of three at a table: everything it showed and answered."""
    rng = random.Random(seed)
    sim = SimulatedTable(game="time-splicers", players=("ana", "ben", "cleo"), seed=seed, deck=deck)
    referee = sim.referee
    shown: list[Any] = []

    def answer(outcome: Any) -> None:
        shown.append(outcome.refusal)
        shown.extend(e.note for e in outcome.events if hasattr(e, "note"))

    for _ in range(steps):
        if referee.is_over(sim.game, sim.ctx):
            break
        if sim.game.turning_up is not None:  # the table turned a card up: someone enters it
            shown += [
                sim.menu("ben"),
                referee.view(sim.game, sim.ctx),
                referee.player_view(sim.game, sim.ctx, "ben"),
            ]
            answer(sim.flip(f"{sim.game.current_player}-1"))  # refused until the card is entered
            answer(sim.tap("ben", rng.choice(sim.menu("ben")).action))
            continue
        who = referee.player_to_move(sim.game)
        answer(sim.tap(who, EnterPortal()))  # before the flip: refused
        sim.advance(60)
        answer(sim.flip(f"{who}-1"))
        answer(sim.flip(f"{who}-1"))  # again: refused
        while sim.ctx.turn_open and sim.game.turning_up is None:
            menu = sim.menu(who)
            shown += [menu, referee.view(sim.game, sim.ctx), referee.player_view(sim.game, sim.ctx, who)]
            if not menu or rng.random() < 0.1:
                for outcome in sim.run_out(f"{who}-1"):
                    answer(outcome)
                break
            answer(sim.tap(who, rng.choice(menu).action))
    answer(sim.clock_command("start"))
    answer(sim.clock_command("abort"))
    shown += [referee.view(sim.game, sim.ctx), referee.player_view(sim.game, sim.ctx, "ana")]
    shown += [sim.snapshot()["recent"], sim.tap("ana", EnterPortal()).refusal]
    return shown


@pytest.mark.parametrize("lang", LANGS)
def test_every_refusal_of_the_rules_is_translated(lang):
    refusals = []
    for _, layout, action, _, _ in ILLEGAL:
        result = play(table(**layout), action)
        assert isinstance(result, Rejected)
        refusals.append(result)
    assert untranslated(texts_in(refusals), lang) == set()
    shown = render(refusals[0].reason, lang)
    assert "Ann" in shown and "Bob" in shown and shown != str(refusals[0].reason)


@pytest.mark.parametrize("seed, deck", [(0, "hub"), (1, "hub"), (2, "hub"), (0, "table"), (1, "table")])
def test_pages_menus_and_notes_of_whole_games_are_translated(seed, deck):
    shown = texts_in(play_game(seed, deck))
    assert len(shown) > 100
    for lang in LANGS:
        assert untranslated(shown, lang) == set(), lang


def test_a_card_a_timeline_and_a_count_read_naturally():
    """Spot checks of the wording a native player reads (the catalogs are written, not generated)."""
    setup = make_setup(
        table="ts", game="time-splicers", players=("ana", "ben"), seats=(Seat("ana", 1, "a-1"),)
    )
    setup = dataclasses.replace(setup, deck="hub")
    referee = SplicersReferee.for_table(setup, GAME.data)
    state = referee.start(setup)
    refused = apply(table(**_with(hands={"Ann": ["red-9"]})), PlaceCard("red-9"), by="Ann")
    assert isinstance(refused, Rejected)
    assert render(refused.reason, "es").startswith("El 9 rojo no puede ir a la derecha del 5 rojo")
    assert render(refused.reason, "de").startswith("Rot 9 kann nicht rechts neben Rot 5")
    view = referee.view(state, Context())
    assert render(view.summary, "de") == "Zug 1: ana ist dran: dreh Sanduhr 1 um, um zu beginnen"
    deck = view.panels[2]["lines"][0]
    assert render(deck, "es") == f"Mazo: {state.deck_size} cartas"


def test_what_a_table_deck_asks_reads_naturally():
    """The words of a table that shuffles its own box: the card to turn up, and a wrong entry."""
    sim = SimulatedTable(game="time-splicers", players=("ana", "ben"), seed=1, deck="table")
    summary = sim.referee.view(sim.game, sim.ctx).summary
    assert render(summary, "es") == "Da la vuelta a la carta inicial del mazo e indícala en un móvil"
    [group] = {render(item.group, "de") for item in sim.menu("ana")}
    assert group == "Als Startkarte aufgedeckt"
    assert sim.tap("ana", RevealCard("red-5")).refusal is None
    refused = sim.tap("ben", RevealCard("red-5")).refusal
    assert render(refused.reason, "es") == "No hay ninguna carta por destapar: la partida sigue"
    sim.flip("ana-1")
    refused = sim.tap("ana", PlaceCard("red-5")).refusal
    assert render(refused.reason, "es") == "No queda ningún 5 rojo en las manos y el mazo"
    assert render(refused.reason, "de") == "In den Händen und dem Nachziehstapel ist kein Rot 5 mehr"
