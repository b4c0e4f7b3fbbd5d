"""The box on the table, entered on a phone: a typical draw of every game with random components, in real
headless Chromium at 390 x 844, in English and in Spanish (issue 22).

Each test starts a real table (mosquitto, the hub, simulated sandtimer nodes) at a table deck, drives the
game through the session's ``handle`` as far as the moment of its typical draw, and keeps the physical
box to itself (a seeded shuffle the hub never sees). Then it taps on the phone page, as the player who
sees the component would, and counts the taps until the hub holds the entry:

* Time 'n' Space (full game): the tile found on top of a moon's pile at a lift of the spaceship there;
* Space Dealer: the card kept from "draw 2 TechLevel 2 cards";
* Timeline: the card turned over (right or wrong; and, beside it, its year typed on the pad);
* Time Splicers: the starting card turned up, then a card placed;
* Space and Time: every coin of the Night board dealt by hand.

It also checks what the phone offers: only what the pile can still hold, the likeliest first, labelled in
the page's language, on the first screen without sideways scrolling; and for a long list a search box that
finds an entry by part of its name, accents ignored. The taps measured are written to
``test-artifacts/table-deck-taps.json``.
"""

from __future__ import annotations

import json
import os
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from companion.games import all_games
from companion.hub import HubConfig
from companion.i18n import render
from companion.rules.text import from_json
from companion.runtime import RunOptions, Table
from companion.table import messages as msg
from tests.conftest import flip_for_turn, wait_seated_online, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.browser]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LANGUAGES = ("en", "es")
ARTIFACTS = Path(os.environ.get("COMPANION_ARTIFACTS", "test-artifacts"))
MEASURED = ARTIFACTS / "table-deck-taps.json"
TYPICAL_TAPS = 2
"""Issue 22: a typical draw is entered in at most two taps."""


def record(game: str, lang: str, **taps: int) -> None:
    """Keep what a test measured, per game and language, for the docs and the report."""
    ARTIFACTS.mkdir(exist_ok=True)
    known = json.loads(MEASURED.read_text(encoding="utf-8")) if MEASURED.exists() else {}
    known.setdefault(game, {})[lang] = taps
    MEASURED.write_text(json.dumps(known, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def plain(words: str) -> str:
    """Lower case without accents: what the phone's search compares."""
    return "".join(c for c in unicodedata.normalize("NFD", words) if not unicodedata.combining(c)).lower()


class Phone:
    """One player's phone page on the table, and the taps made on it."""

    def __init__(self, browser: Any, table: Table, player: str, lang: str) -> None:
        self.session = table.app.extensions["companion.session"]
        self.player = player
        self.lang = lang
        self.page = browser.new_page(**PHONE)
        self.page.set_default_timeout(10_000)
        self.page.goto(f"{table.url}play/{player}?lang={lang}")

    def button(self, item_id: str) -> Any:
        return self.page.locator(f"#menu button.option[data-id='{item_id}']")

    def group(self, item_id: str) -> Any:
        return self.page.locator(
            "#menu section.group", has=self.page.locator(f"button.option[data-id='{item_id}']")
        )

    def wait_for(self, item_id: str) -> None:
        self.button(item_id).wait_for(state="attached")

    def entries(self, prefix: str) -> list[tuple[str, str, bool]]:
        """The menu's buttons whose id starts with ``prefix``, in page order: (id, words, shown)."""
        return self.page.evaluate(
            """(prefix) => [...document.querySelectorAll("#menu button.option")]
                 .filter((b) => b.dataset.id.startsWith(prefix))
                 .map((b) => [b.dataset.id, b.textContent, !b.hidden])""",
            prefix,
        )

    def tap(self, item_id: str) -> int:
        """Tap a button as a player does: "more" first when its group is folded. Returns the taps."""
        taps = 0
        button = self.button(item_id)
        if not button.is_visible():
            self.group(item_id).locator("button.more").tap()
            taps += 1
            button.wait_for(state="visible")
        button.tap()
        return taps + 1

    def labels_in_language(self, prefix: str) -> None:
        """Every offered button says what the hub's menu says, in the page's language."""
        menu = {i["id"]: i for i in self.session.player_snapshot(self.player)["menu"]}
        for item_id, words, _ in self.entries(prefix):
            assert words == render(from_json(menu[item_id]["label"]), self.lang), item_id
        group = from_json(menu[self.entries(prefix)[0][0]]["group"])
        if self.lang != "en":
            assert render(group, self.lang) != render(group, "en"), "the group's title is translated"

    def on_first_screen(self, item_id: str) -> None:
        """The button is on the first screen of a 390 x 844 phone: no scrolling, nothing sideways."""
        assert self.page.evaluate("window.scrollY") == 0
        box = self.button(item_id).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, (item_id, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (item_id, box)
        self.no_sideways_scrolling()

    def no_sideways_scrolling(self) -> None:
        overflow = self.page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"the phone page scrolls sideways by {overflow} px at 390 px"

    def has_search(self, item_id: str) -> bool:
        return self.group(item_id).locator("input.search").is_visible()

    def search_finds(self, prefix: str) -> None:
        """A long list has a search box; typing part of an entry's name (without its accents) shows that
        entry and only entries whose names hold what was typed. The box is cleared again afterwards."""
        offered = self.entries(prefix)
        accented = [e for e in offered if plain(e[1]) != e[1].lower()]
        item_id, words, _ = (accented or offered)[-1]
        word = max(re.findall(r"\w+", words), key=lambda w: (w != plain(w), len(w)))
        query = plain(word)
        box = self.group(item_id).locator("input.search")
        assert box.is_visible(), f"a search box over the {len(offered)} entries"
        box.fill(query)
        self.button(item_id).wait_for(state="visible")
        shown = [e for e in self.entries(prefix) if e[2]]
        assert item_id in [e[0] for e in shown], (query, words)
        assert all(query in plain(e[1]) for e in shown), (query, shown)
        assert len(shown) < len(offered) or len(offered) <= 3
        box.fill("")
        self.page.wait_for_function(
            "(id) => document.querySelector(`#menu button.option[data-id='${id}']`) !== null", arg=item_id
        )

    def close(self) -> None:
        self.page.close()


def likeliest_first(weights: list[float]) -> None:
    assert all(a >= b - 1e-9 for a, b in zip(weights, weights[1:], strict=False)), weights


def nodes_online(session: Any) -> None:
    wait_seated_online(session, timeout_s=15)


def ok(session: Any, message: msg.Message) -> None:
    outcome = session.handle(message)
    assert outcome.refusal is None, outcome.refusal


@contextmanager
def table_of(mosquitto: Any, table_id: str, **hub: Any) -> Iterator[tuple[Table, Any]]:
    """A real table of the game, as a hub started without ``--deck`` plays it: with the box."""
    options = RunOptions(
        hub=HubConfig(table=table_id, **hub),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    with Table(options) as table:
        session = table.app.extensions["companion.session"]
        assert session.setup.deck == "table", "the table deck is the default"
        yield table, session


def test_every_game_with_random_components_has_its_draw_here():
    """A game that gains piles or decks gets its typical draw measured here too."""
    assert {g.name for g in all_games() if g.random_components} == set(DRAWS)


# --- Time 'n' Space: the tile on top of a moon's pile ------------------------------------------------


def time_n_space(browser: Any, mosquitto: Any, table_id: str, lang: str) -> None:
    from companion.games.time_n_space.model import OrderPlacement, StartingOrders
    from tests.games.test_time_n_space_helpers import intent

    with table_of(
        mosquitto, table_id, game="time-n-space", variant="full", players=3, timers=2, sand_s=1.0
    ) as (table, session):
        nodes_online(session)
        game = lambda: session.state.game  # noqa: E731
        box = random.Random(f"time-n-space {lang}")
        tiles = sorted(game().possible_tops("moon-1").kinds())
        shuffled = box.sample(tiles, len(tiles))  # the players' shuffle: 3 piles of 8, stage II up
        top = game().tile(shuffled[0])  # moon 1's pile is shuffled[0:8], top first
        for player in session.setup.players:
            pick = (OrderPlacement("gray", 1, "b1", 0), OrderPlacement("yellow", 1, "b2", 0))
            ok(session, msg.PlayerAction(player, StartingOrders(pick)))
        ok(session, msg.ClockCommand("start"))
        ok(session, msg.ChooseIntent("red", "red-1", intent(symbol="ship", destination="moon-1")))
        table.fleet.nodes["red-1"].flip()
        wait_until(
            lambda: (
                game().player("red").timers[0].symbol == "ship" and not game().player("red").timers[0].running
            ),
            timeout_s=10,
            message="red's ship at moon 1, its sand run through",
        )

        phone = Phone(browser, table, "red", lang)
        prefix = "t1-moon-research-"
        phone.page.wait_for_selector(f"#menu button[data-id^='{prefix}']")
        offered = phone.entries(prefix)
        kind = lambda tile_id: (game().tile(tile_id).stage2, game().tile(tile_id).stage3)  # noqa: E731
        holds = Counter(kind(t) for t in game().possible_tops("moon-1").items())
        assert [kind(i.removeprefix(prefix)) for i, _, _ in offered] == list(
            dict.fromkeys(kind(i.removeprefix(prefix)) for i, _, _ in offered)
        ), "one button per kind of tile"
        assert {kind(i.removeprefix(prefix)) for i, _, _ in offered} == set(holds)
        likeliest_first([holds[kind(i.removeprefix(prefix))] for i, _, _ in offered])
        phone.labels_in_language(prefix)
        if lang == "es":
            assert [w for _, w, _ in offered[:2]] == [
                "Llevar estación de teletransporte II a la planta de investigación",
                "Llevar centro comercial II a la planta de investigación",
            ]
        phone.on_first_screen(offered[0][0])
        assert not phone.has_search(offered[0][0]), f"{len(offered)} kinds of tile need no search"

        target = next(i for i, _, _ in offered if kind(i.removeprefix(prefix)) == (top.stage2, top.stage3))
        taps = phone.tap(target)
        wait_until(
            lambda: (
                (chosen := session.table.intents.get("red-1")) is not None
                and chosen.tile is not None
                and kind(chosen.tile) == (top.stage2, top.stage3)
            ),
            message="the tile red found on top reaching the hub",
        )
        phone.page.wait_for_selector(f"#menu button[data-id='{target}'].selected")
        table.fleet.nodes["red-1"].flip()  # the sandtimer itself is lifted: the action happens
        wait_until(
            lambda: game().player("red").research is not None, message="the tile in red's research plant"
        )
        taken = game().player("red").research
        assert (taken.stage2, taken.stage3) == (top.stage2, top.stage3)
        assert game().height("moon-1") == 7
        assert taps <= TYPICAL_TAPS
        record("time-n-space", lang, tile=taps)
        phone.close()


# --- Space Dealer: the card kept from "draw 2 TechLevel 2 cards" -------------------------------------


def space_dealer(browser: Any, mosquitto: Any, table_id: str, lang: str) -> None:
    from companion.games.space_dealer import model as M

    with table_of(
        mosquitto,
        table_id,
        game="space-dealer",
        variant="experienced",
        players=3,
        timers=2,
        sand_s=1.0,
        clock_minutes=30,
    ) as (table, session):
        nodes_online(session)
        game = lambda: session.state.game  # noqa: E731
        for player, mines, depot in (
            ("red", "red", "depot-3"),
            ("yellow", "yellow", "depot-2"),
            ("green", "green", "depot-1"),
        ):
            ok(session, msg.PlayerAction(player, M.TakeMines(mines)))
            ok(session, msg.PlayerAction(player, M.TakeDepot(depot)))
        for field, order in ((1, "gizzi-2"), (3, "gizzi-5"), (5, "gizzi-9")):
            ok(session, msg.PlayerAction("red", M.RevealOrder(field, order)))
        ok(session, msg.ClockCommand("start"))
        ok(session, msg.ChooseIntent("red", "red-1", M.RaiseTechLevel()))
        table.fleet.nodes["red-1"].flip()
        wait_until(lambda: game().player("red").tech_level == 2, timeout_s=10, message="red at level 2")

        # the TechLevel 2 stack as the box has it: for 3 players some cards were taken out unseen
        stack = game().stack(2)
        cards = game().cards
        copies: dict[str, list[str]] = {}
        for card in stack.cards.items():
            copies.setdefault(cards[card].type, []).append(card)
        box = random.Random(f"space-dealer {lang}")
        pile = [
            c
            for kind in sorted(stack.types.kinds())
            for c in box.sample(copies[kind], stack.types.count(kind))
        ]
        box.shuffle(pile)
        kept = box.choice(pile[:2])  # red looks at the top two and keeps one
        face = lambda card: (cards[card].type, cards[card].colour, cards[card].order)  # noqa: E731

        phone = Phone(browser, table, "red", lang)
        phone.wait_for("DrawTechCards:2")
        draw_taps = phone.tap("DrawTechCards:2")
        prefix = "keep:"
        phone.page.wait_for_selector(f"#menu button[data-id^='{prefix}']")
        # "draw 2" sits in "Plan a card", below the timers' jobs: the kept card's list comes first in the
        # menu, above the place the player tapped, so the player scrolls back up to it (no tap)
        assert phone.page.locator("#menu section.group").first.locator(f"button[data-id^='{prefix}']").count()
        phone.page.evaluate("window.scrollTo(0, 0)")
        offered = phone.entries(prefix)
        possible = [c for c in stack.cards.items() if cards[c].type in stack.types]
        faces = Counter(face(c) for c in possible)
        per_type = Counter(cards[c].type for c in possible)
        chance = {f: n * stack.types.count(f[0]) / per_type[f[0]] for f, n in faces.items()}
        shown = [face(i.removeprefix(prefix)) for i, _, _ in offered]
        assert len(shown) == len(set(shown)), "cards that look the same are one button"
        assert set(shown) == set(faces), "only what the stack can still hold, and all of it"
        likeliest_first([chance[f] for f in shown])
        phone.labels_in_language(prefix)
        phone.on_first_screen(offered[0][0])
        phone.search_finds(prefix)

        target = next(i for i, _, _ in offered if face(i.removeprefix(prefix)) == face(kept))
        taps = phone.tap(target)
        wait_until(
            lambda: (mine := game().player("red").kept) is not None and face(mine) == face(kept),
            message="the card red kept reaching the hub",
        )
        assert game().player("red").kept in game().player("red").planning
        assert len(game().stack(2)) == len(stack) - 1
        assert taps <= TYPICAL_TAPS
        record("space-dealer", lang, draw=draw_taps, kept_card=taps, position=shown.index(face(kept)) + 1)
        phone.close()


# --- Timeline: the card turned over ------------------------------------------------------------------


def timeline(browser: Any, mosquitto: Any, table_id: str, lang: str) -> None:
    with table_of(
        mosquitto, table_id, game="timeline", players=2, timers=1, sand_s=600.0, clock_minutes=60
    ) as (table, session):
        nodes_online(session)
        game = lambda: session.state.game  # noqa: E731
        # the physical cards: the reference card shows 1492; red holds a card of 1000, yellow one of 1805
        red = Phone(browser, table, "red", lang)
        flip_for_turn(table, "red")
        red.wait_for("put:0")
        gaps = red.entries("put:")
        assert [i for i, _, _ in gaps] == ["put:0", "put:1"], "one button per gap of the timeline"
        red.labels_in_language("put:")
        red.on_first_screen("put:1")
        if lang == "es":
            assert "¿Dónde pusiste tu carta?" in red.page.inner_text("#menu")
        taps = red.tap("put:1")  # after the reference card
        red.wait_for("reveal:wrong")
        assert [i for i, _, _ in red.entries("reveal:")] == ["reveal:right", "reveal:wrong"]
        red.labels_in_language("reveal:")
        taps += red.tap("reveal:wrong")  # 1000 is not after 1492
        wait_until(lambda: game().to_move == "yellow", message="red's card judged wrong, yellow to move")
        assert (game().held("red"), game().piles.discard, game().piles.deck) == (4, 1, 55 - 10)
        assert taps <= TYPICAL_TAPS
        red.close()

        yellow = Phone(browser, table, "yellow", lang)
        flip_for_turn(table, "yellow")
        yellow.wait_for("put:1")
        year_taps = yellow.tap("put:1")
        yellow.wait_for("reveal:right")
        for digit in "1805":
            year_taps += yellow.tap(f"digit:{digit}")
            wait_until(
                lambda typed=digit: (
                    (pad := session.table.intents.get("yellow-1")) is not None and pad.digits.endswith(typed)
                ),
                message=f"the pad keeping {digit}",
            )
        # the reference card's year was never entered: the table says whether 1805 fits beside it
        yellow.wait_for("reveal:year-right")
        yellow.page.wait_for_function(
            "() => document.querySelector(`#menu button[data-id='reveal:year-right']`).textContent.includes('1805')"
        )
        if lang == "es":
            assert "Dice 1805: correcta" in yellow.page.inner_text("#menu")
        yellow.labels_in_language("reveal:")
        year_taps += yellow.tap("reveal:year-right")
        wait_until(lambda: game().to_move == "red", message="yellow's card right, red to move")
        assert game().years() == (None, 1805)
        yellow.no_sideways_scrolling()
        record("timeline", lang, right_or_wrong=taps, year_1805=year_taps)
        yellow.close()


# --- Time Splicers: the starting card turned up, then a card placed -----------------------------------


def time_splicers(browser: Any, mosquitto: Any, table_id: str, lang: str) -> None:
    from companion.games.time_splicers.pages import unseen_pile

    with table_of(
        mosquitto,
        table_id,
        game="time-splicers",
        players=3,
        timers=1,
        sand_s=600.0,
        clock_minutes=60,
        turn_limit=False,
    ) as (table, session):
        nodes_online(session)
        game = lambda: session.state.game  # noqa: E731
        box = random.Random(f"time-splicers {lang}")
        deck = list(unseen_pile(game()).items())
        box.shuffle(deck)  # the players' shuffle; each is dealt 4, then the starting card is turned up
        hands = {p: [deck.pop() for _ in range(4)] for p in session.setup.players}
        ok(session, msg.ClockCommand("start"))
        phone = Phone(browser, table, "red", lang)

        turned_up = []
        while game().turning_up is not None:  # a special card turned up is discarded: the next one comes
            card = deck.pop()
            prefix = "reveal:"
            phone.page.wait_for_selector(f"#menu button[data-id^='{prefix}']")
            offered = phone.entries(prefix)
            pile = unseen_pile(game())
            assert [i.removeprefix(prefix) for i, _, _ in offered] == [
                f for f in dict.fromkeys(i.removeprefix(prefix) for i, _, _ in offered)
            ]
            assert {i.removeprefix(prefix) for i, _, _ in offered} == set(pile.kinds())
            likeliest_first([pile.count(i.removeprefix(prefix)) for i, _, _ in offered])
            phone.labels_in_language(prefix)
            phone.on_first_screen(offered[0][0])
            if not turned_up:
                phone.search_finds(prefix)
            before = len(pile)
            turned_up.append(phone.tap(f"{prefix}{card}"))
            wait_until(
                lambda before=before: len(unseen_pile(game())) == before - 1, message="the card turned up"
            )
        on_table = [c for t in game().timelines for c in t.cards]
        assert len(on_table) + (game().start_card is not None) == 1, "one starting card"

        flip_for_turn(table, "red")
        prefix = "place:"
        phone.page.wait_for_selector(f"#menu button[data-id^='{prefix}']")
        offered = phone.entries(prefix)
        face_of = lambda item_id: item_id.split(":")[1]  # noqa: E731
        pile = unseen_pile(game())
        assert {face_of(i) for i, _, _ in offered} <= set(pile.kinds()), "only cards a hand can still hold"
        assert not set(on_table) & {face_of(i) for i, _, _ in offered}, "a card on the table is not offered"
        likeliest_first([pile.count(f) for f in dict.fromkeys(face_of(i) for i, _, _ in offered)])
        phone.labels_in_language(prefix)
        phone.on_first_screen(offered[0][0])
        if len(offered) > 8:
            phone.search_finds(prefix)
        mine = hands["red"]
        target = next((i for i, _, _ in offered if face_of(i) in mine), None)
        assert target is not None, f"red's hand {mine} holds a card to place: choose another shuffle"
        placed = face_of(target)
        taps = phone.tap(target)
        wait_until(
            lambda: placed in [c for t in game().timelines for c in t.cards],
            message=f"red's {placed} reaching the hub",
        )
        assert max(turned_up) <= TYPICAL_TAPS and taps <= TYPICAL_TAPS
        record("time-splicers", lang, starting_card=max(turned_up), placed_card=taps)
        phone.close()


# --- Space and Time: the coins of the Night board -----------------------------------------------------

RANK_WORDS = {
    "en": {0: "null", 1: "ace", 2: "2", 3: "3", 4: "4", 5: "5", "at": "at"},
    "es": {0: "nulo", 1: "as", 2: "2", 3: "3", 4: "4", 5: "5", "at": "en"},
}


def highlighted(page: Any) -> tuple[int, int]:
    """The cell the page's board highlights: the coin the hub asks for."""
    return tuple(
        page.evaluate(
            """() => { const td = document.querySelector("#view table.grid td.hl");
                       return [td.parentElement.rowIndex, td.cellIndex]; }"""
        )
    )


def space_and_time(browser: Any, mosquitto: Any, table_id: str, lang: str) -> None:
    from companion.games.space_and_time.model import BLOCK_CELLS, block_of
    from tests.games.test_space_and_time_table_deck import deal_by_hand

    board = deal_by_hand(random.Random(f"the box in {lang}"))
    words = RANK_WORDS[lang]
    centre = {(1, 2), (1, 3), (2, 2), (2, 3)}
    with table_of(mosquitto, table_id, game="space-and-time", players=2, timers=1) as (table, session):
        game = lambda: session.state.game  # noqa: E731
        assert game().is_dealing
        phone = Phone(browser, table, "red", lang)  # any player at the table enters the board
        phone.page.wait_for_selector("#view table.grid td.hl")
        taps: list[int] = []
        while game().is_dealing:
            r, c = highlighted(phone.page)
            assert (r, c) == game().deal.next_cell()
            phone.page.wait_for_selector("#menu button[data-id^='coin-']")
            offered = [i for i, _, _ in phone.entries("coin-") if i[5:].isdigit()]
            known = game().deal.coins()
            block = {known[x * 6 + y] for x, y in BLOCK_CELLS[block_of((r, c))]} - {None}
            could = [k for k in range(6) if k not in block]
            if (r, c) in centre:
                others = {known[x * 6 + y] for x, y in centre - {(r, c)}}
                if None not in others and len(others) == 1:
                    could.remove(others.pop())  # the four central coins may not all show one rank
            assert [int(i[5:]) for i in offered] == could, "the ranks this coin can still show, in rank order"
            if not taps:
                phone.labels_in_language("coin-")
                phone.on_first_screen(offered[0])
                assert not phone.has_search(offered[0]), "six ranks at most need no search"
            label = f"{words[board[r][c]]} {words['at']} ({r}, {c})"
            button = f"coin-{board[r][c]}"
            assert phone.button(button).text_content() == label
            first = phone.page.locator("#menu section.group").first
            assert first.locator(f"button[data-id='{button}']").count() == 1, "the coin is in the first group"
            count = sum(x is not None for x in known)
            taps.append(phone.tap(button))
            wait_until(
                lambda count=count: (
                    not game().is_dealing or sum(x is not None for x in game().deal.coins()) > count
                ),
                message=f"the coin at ({r}, {c}) reaching the hub",
            )
            if game().is_dealing:
                phone.page.wait_for_function(
                    "([r, c]) => { const td = document.querySelector('#view table.grid td.hl');"
                    " return td && (td.parentElement.rowIndex !== r || td.cellIndex !== c); }",
                    arg=[r, c],
                )
        assert game().board == tuple(map(tuple, board)), "the hub has the board on the table"
        assert len(taps) == 20, "the last coin of each 2 x 3 block follows from the other five"
        assert sum(taps) == 21, "one tap per coin, and one to open the folded group the first time"
        assert max(taps) <= TYPICAL_TAPS
        phone.no_sideways_scrolling()
        record("space-and-time", lang, coin=max(taps), board=sum(taps))
        phone.close()


DRAWS = {
    "time-n-space": time_n_space,
    "space-dealer": space_dealer,
    "timeline": timeline,
    "time-splicers": time_splicers,
    "space-and-time": space_and_time,
}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", sorted(DRAWS))
def test_a_typical_draw_is_two_taps_at_most_on_a_phone(browser, mosquitto, table_id, game, lang):
    DRAWS[game](browser, mosquitto, table_id, lang)
