"""Space and Time speaks the table's language: every word is a message id in the Spanish and German
catalogs, the engine's refusals included, and the words of a whole game against the computer all
render completely in Spanish and German."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from companion.games.base import Rejected
from companion.games.space_and_time import GAME, legal_moves
from companion.games.space_and_time.table import SpaceTimeReferee
from companion.i18n import catalog_entries, render
from companion.rules.setup import Seat, make_setup
from companion.rules.text import PLACEHOLDER
from tests.games.test_timeline_i18n import TURNS, check_entry, is_joined, literal_texts, texts_in

PACKAGE = Path(__file__).resolve().parents[2] / "companion" / "games" / "space_and_time"
LANGUAGES = ("es", "de")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_of_the_game_is_translated_and_the_catalog_holds_nothing_else(lang):
    entries = catalog_entries(lang)
    messages = literal_texts(*sorted(PACKAGE.glob("*.py")))
    assert len(messages) > 80
    for msgid, plural in {**messages, **literal_texts(TURNS)}.items():
        assert msgid in entries, f"{lang}: no translation of {msgid!r}"
        check_entry(msgid, plural, entries[msgid], lang)
    own = json.loads((PACKAGE / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert set(own) == set(messages)


def played_game(players: tuple[str, ...], variant: str, seed: int) -> list[Any]:
    setup = make_setup(
        table="sat",
        game="space-and-time",
        players=players,
        seats=tuple(Seat(p, i, f"{p}-{i}") for p in players for i in (1, 2)),
        seed=seed,
        variant=variant,
    )
    referee = SpaceTimeReferee.for_table(setup, GAME.data)
    state = referee.start(setup)
    rng = random.Random(seed)
    seen: list[Any] = []

    def look(state) -> None:
        seen.append(referee.view(state))
        for p in players:
            seen.append(referee.player_view(state, p))
            seen.append(referee.menu(state, p, intents={}))
            seen.append(referee.timer_label(state, setup.seat_of(f"{p}-1")))
        seen.append(state.last)

    seen.append(referee.player_action(state, players[0], {"type": "hints", "show": True}))
    state = seen[-1].state
    for turn in range(30):  # then the host ends it: scores and the end words too
        if state.is_over:
            break
        mover = referee.player_to_move(state)
        if mover not in players:  # the computer's turn before anyone flipped
            mover = players[0]
        seen.append(referee.timer_flipped(state, setup.seat_of(f"{mover}-2"), intent=None, ran_out=True))
        seen.append(referee.player_action(state, mover, {"type": "swap", "cells": [[0, 0], [0, 0]]}))
        step = referee.timer_flipped(state, setup.seat_of(f"{mover}-1"), intent=None, ran_out=True)
        if isinstance(step, Rejected):  # not this player's turn (against the computer): ask it to move
            seen.append(step)
            state = referee.player_action(state, mover, {"type": "computer_move"}).state
            continue
        state = step.state
        look(state)
        seen.append(referee.player_action(state, mover, {"type": "swap", "cells": [[0, 0], [3, 9]]}))
        seen.append(referee.player_action(state, mover, {"type": "place"}))
        if turn % 9 == 4:
            state = referee.timer_emptied(state, setup.seat_of(f"{mover}-1")).state
            continue
        move = rng.choice(legal_moves(state.game))
        step = referee.player_action(state, mover, {"type": "swap", "cells": [list(move[0]), list(move[1])]})
        seen.append(step)
        state = step.state
        look(state)
    if turn < 3:
        pytest.fail("the game did not start")
    if not state.is_over:
        state = referee.game_ended_early(state).state
    look(state)
    seen.append(referee.scores(state))
    seen.append(referee.player_action(state, players[0], {"type": "swap", "cells": [[0, 0], [0, 1]]}))
    return seen


@pytest.mark.parametrize(("players", "variant"), [(("ana", "ben"), ""), (("ana",), "vs-computer-a-1")])
def test_a_whole_game_shows_only_words_the_catalogs_know(players, variant):
    seen = played_game(players, variant, 3)
    refusals = [s for s in seen if isinstance(s, Rejected)]
    seen += [r.reason for r in refusals] + [r.rule for r in refusals]
    texts = [t for t in texts_in(seen) if not t.verbatim and not is_joined(t)]
    assert len({t.msgid for t in texts}) > 30
    for lang in LANGUAGES:
        entries = catalog_entries(lang)
        missing = sorted({t.msgid for t in texts if t.msgid not in entries})
        assert missing == [], f"{lang}: {missing}"
        for message in texts:
            shown = render(message, lang)
            assert shown and not PLACEHOLDER.search(shown), (lang, message.msgid, shown)


def test_roles_rounds_and_ranks_are_words_of_the_table():
    setup = make_setup(
        table="sat", game="space-and-time", players=("ana", "ben"), seats=(Seat("ana", 1, "ana-1"),)
    )
    referee = SpaceTimeReferee.for_table(setup, GAME.data)
    state = referee.start(setup)
    summary = referee.view(state).summary
    assert [render(summary, lang) for lang in ("en", "es", "de")] == [
        "Night round: ana (A, Space) to move: flip timer 1 to start",
        "Ronda de Noche: le toca a ana (A, Espacio): gira el reloj 1 para empezar",
        "Nachtrunde: ana (A, Raum) ist am Zug: Dreh Sanduhr 1 um, um zu beginnen",
    ]
    refused = referee.player_action(state, "ana", {"type": "swap", "cells": [[0, 0], [0, 0]]})
    assert render(refused.reason, "es") == "Primero gira tu reloj 1 para empezar tu turno"
