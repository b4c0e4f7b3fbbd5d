"""Space and Time speaks the table's language: every word is a message id in the Spanish and German
catalogs, the engine's refusals included, and the words of a whole game against the computer all
render completely in Spanish and German."""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from companion.games.space_and_time.engine import legal_moves
from companion.games.space_and_time.model import (
    ComputerMove,
    EndEarly,
    PlaceCoin,
    ShowHints,
    Swap,
    TakeBackCoin,
)
from companion.i18n import catalog_entries, render
from companion.rules.context import Context
from companion.rules.outcome import Rejected
from companion.rules.pages import MenuItem, View
from companion.rules.setup import Seat, make_setup
from companion.rules.text import PLACEHOLDER, Text
from companion.testing import SimulatedTable, acks

PACKAGE = Path(__file__).resolve().parents[2] / "companion" / "games" / "space_and_time"
TURNS = PACKAGE.parents[1] / "rules" / "turns.py"
LANGUAGES = ("es", "de")


def literal_texts(*paths: Path) -> dict[str, str]:
    """The ``text("id", "plural")`` calls written in the files: id -> its plural ("" for none)."""
    found: dict[str, str] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "text":
                msgid, *rest = node.args
                assert isinstance(msgid, ast.Constant), f"{path.name}:{node.lineno}: not a literal id"
                found[msgid.value] = rest[0].value if rest and isinstance(rest[0], ast.Constant) else ""
    return found


def check_entry(msgid: str, plural: str, entry: Any, lang: str) -> None:
    """A catalog entry has the id's placeholders (one and other forms for a counting message)."""
    wanted = set(PLACEHOLDER.findall(msgid)) | set(PLACEHOLDER.findall(plural))
    if plural:
        assert isinstance(entry, Mapping) and set(entry) == {"one", "other"}, (lang, msgid)
        forms = list(entry.values())
    else:
        assert isinstance(entry, str) and entry, (lang, msgid)
        forms = [entry]
    for form in forms:
        assert set(PLACEHOLDER.findall(form)) == wanted, (lang, msgid, form)


def texts_in(value: Any) -> list[Text]:
    """Every Text inside ``value`` (views, menus, refusals, dicts, tuples, a text's arguments)."""
    found: list[Text] = []
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, Text):
            found.append(item)
            todo.extend(arg for _, arg in item.args)
        elif isinstance(item, Mapping):
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(item, MenuItem):
            todo.extend((item.label, item.group))
        elif isinstance(item, View):
            todo.extend((item.summary, item.panels, item.extra))
        elif isinstance(item, Rejected):
            todo.extend((item.reason, item.rule))
    return found


def words_of_its_own(message: Text) -> bool:
    """False for ``joined(...)``'s "{p0}; {p1}", which only strings other texts together."""
    return bool(PLACEHOLDER.sub("", message.msgid).strip("; "))


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


def played_game(players: tuple[str, ...], variant: str, seed: int, deck: str = "hub") -> list[Any]:
    """A game played at a simulated table until the host ends it, and everything it showed or said
    (at a table deck, the boards entered on the way, with a mistake taken back)."""
    setup = make_setup(
        table="sat",
        game="space-and-time",
        players=players,
        seats=tuple(Seat(p, i, f"{p}-{i}") for p in players for i in (1, 2)),
        seed=seed,
        variant=variant,
        deck=deck,
    )
    table = SimulatedTable(setup)
    referee = table.referee
    rng = random.Random(seed)
    seen: list[Any] = []

    def look() -> None:
        game, ctx = table.game, table.ctx
        seen.append(referee.view(game, ctx))
        for p in players:
            seen.append(referee.player_view(game, ctx, p))
            seen.append(referee.menu(game, ctx, p, intents={}))
            seen.append(referee.timer_label(game, ctx, setup.seat_of(f"{p}-1")))
        seen.append(ctx.recent)

    def enter_board() -> None:
        while table.game.is_dealing:
            look()
            entries = [i for i in referee.menu(table.game, table.ctx, players[0], intents={}) if i.action]
            coin = next(i.action for i in entries if isinstance(i.action, PlaceCoin))
            seen.append(table.tap(players[0], PlaceCoin(coin.cell, 9)).refusal)
            table.tap(players[0], coin)
            if len(table.game.deal.placed) == 3:
                seen.append(table.tap(players[0], PlaceCoin(coin.cell, coin.rank)).refusal)
                table.tap(players[0], TakeBackCoin())
                table.tap(players[0], coin)
        look()

    seen.append(table.tap(players[0], ShowHints(True)).refusal)
    table.start()
    for turn in range(30):  # then the host ends it: scores and the end words too
        if table.game.is_over:
            break
        if table.game.is_dealing:
            seen.append(table.tap(players[0], Swap(((0, 0), (0, 1)))).refusal)
            enter_board()
        mover = referee.player_to_move(table.game)
        if mover not in players:  # the computer's turn before anyone flipped
            mover = players[0]
        seen.append(
            referee.timer_flipped(
                table.game, table.ctx, setup.seat_of(f"{mover}-2"), intent=None, ran_out=True
            )
        )
        seen.append(table.tap(mover, Swap(((0, 0), (0, 0)))).refusal)
        [(verdict, _)] = acks(table.flip(f"{mover}-1"), f"{mover}-1")
        if verdict == "rejected":  # not this player's turn (against the computer): ask it to move
            seen.append(table.session.table.refusals[mover].reason)
            table.tap(mover, ComputerMove())
            continue
        look()
        seen.append(table.tap(mover, Swap(((0, 0), (3, 9)))).refusal)
        seen.append(table.tap(mover, EndEarly()).refusal)
        if turn % 9 == 4:
            table.advance(setup.sand_s)  # the turn timer runs out: the turn is lost
            continue
        move = rng.choice(legal_moves(table.game))
        seen.append(table.tap(mover, Swap(move)).decision)
        look()
        table.advance(1)
    if turn < 3:
        pytest.fail("the game did not start")
    if not table.game.is_over:
        table.clock_command("abort")
    look()
    seen.append(referee.scores(table.game, table.ctx))
    seen.append(table.tap(players[0], Swap(((0, 0), (0, 1)))).refusal)
    return seen


@pytest.mark.parametrize(
    ("players", "variant", "deck"),
    [(("ana", "ben"), "", "hub"), (("ana",), "vs-computer-a-1", "hub"), (("ana", "ben"), "", "table")],
)
def test_a_whole_game_shows_only_words_the_catalogs_know(players, variant, deck):
    seen = played_game(players, variant, 3, deck)
    texts = [t for t in texts_in(seen) if not t.verbatim and words_of_its_own(t)]
    assert len({t.msgid for t in texts}) > 30
    if deck == "table":
        assert {
            "Enter the {round} board, row by row",
            "Take back {rank} at {cell}",
            "A coin shows null, ace, 2, 3, 4 or 5, not {rank}",
            "The coin at {cell} is known already: it is a {rank} (take back the last coin to correct it)",
            "The {round} board is not entered yet ({count} of 24 coins): enter its coins on a phone first",
        } <= {t.msgid for t in texts}, "the words of a board entered at the table"
    for lang in LANGUAGES:
        entries = catalog_entries(lang)
        missing = sorted({t.msgid for t in texts if t.msgid not in entries})
        assert missing == [], f"{lang}: {missing}"
        for message in texts:
            shown = render(message, lang)
            assert shown and not PLACEHOLDER.search(shown), (lang, message.msgid, shown)


def test_roles_rounds_and_ranks_are_words_of_the_table():
    table = SimulatedTable(
        make_setup(
            table="sat",
            game="space-and-time",
            players=("ana", "ben"),
            seats=(Seat("ana", 1, "ana-1"),),
            deck="hub",
        )
    )
    summary = table.referee.view(table.game, Context()).summary
    assert [render(summary, lang) for lang in ("en", "es", "de")] == [
        "Night round: ana (A, Space) to move: flip timer 1 to start",
        "Ronda de Noche: le toca a ana (A, Espacio): gira el reloj 1 para empezar",
        "Nachtrunde: ana (A, Raum) ist am Zug: Dreh Sanduhr 1 um, um zu beginnen",
    ]
    refused = table.tap("ana", Swap(((0, 0), (0, 0)))).refusal
    assert render(refused.reason, "es") == "Primero gira tu reloj 1 para empezar tu turno"
