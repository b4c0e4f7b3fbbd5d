"""Every Timeline variant the docs name is accepted: by the game, by a hub's setup and by the setup
page's API, and deals the number of cards it says.

The names are read from the variants table of docs/games/timeline.md; ``N`` stands for a few sizes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.clock import FakeClock
from companion.errors import ConfigError, UnknownGameError
from companion.games import referee_for
from companion.games.timeline import GAME
from companion.hub import create_app
from companion.i18n import render
from companion.rules.setup import Seat, make_setup

DOC = Path(__file__).resolve().parents[2] / "docs" / "games" / "timeline.md"


def documented_variants() -> list[tuple[str, int]]:
    """(name, cards dealt) for each name of the docs' variants table, ``N`` expanded."""
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| Variant | Cards dealt to each player |") :].split("\n\n", 1)[0]
    names: list[tuple[str, int]] = []
    for row in table.splitlines()[2:]:
        for name in re.findall(r"`([^`]+)`", row.split("|")[1]):
            if name in ("hand-N", "N"):
                names += [(name.replace("N", str(n)), n) for n in (1, 2, 7)]
            elif name == "standard":
                names.append((name, 4))
            else:
                names.append((name, int(name.rsplit("-", 1)[1])))
    return names


VARIANTS = documented_variants()


def test_the_docs_name_the_variants():
    assert {"standard", "hand-4", "hand-3", "hand-5", "hand-6", "hand-7", "7"} <= {n for n, _ in VARIANTS}


@pytest.mark.parametrize(("name", "cards"), VARIANTS)
def test_every_documented_variant_is_accepted_and_deals_its_cards(name, cards):
    variant = GAME.variant(name)
    assert variant.name == ("standard" if cards == 4 else f"hand-{cards}")
    setup = make_setup(
        table="tl",
        game="timeline",
        players=("ana", "ben"),
        seats=(Seat("ana", 1, "ana-1"), Seat("ben", 1, "ben-1")),
        variant=variant.name,
    )
    state = referee_for(setup).start(setup)
    assert [state.held(p) for p in ("ana", "ben")] == [cards, cards]
    app = create_app({"table": "t1", "players": 2, "timers": 1}, clock=FakeClock())
    body = {"game": "timeline", "variant": name, "players": ["ana", "ben"], "timers": 1}
    res = app.test_client().post("/api/setup", json=body)
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["setup"]["variant"] == variant.name
    hub = create_app({"table": "t2", "game": "timeline", "variant": name, "players": 3, "timers": 1})
    assert hub.extensions["companion.session"].referee.hand_size == cards


@pytest.mark.parametrize("name", ["speed", "hand-0", "hand-x"])
def test_a_variant_the_docs_do_not_name_is_refused_with_the_choices(name):
    with pytest.raises(UnknownGameError, match="hand-N deals N cards"):
        GAME.variant(name)


@pytest.mark.parametrize(
    ("deck", "spanish"), [("table", "La caja tiene 55 cartas"), ("hub", "El mazo tiene 79 cartas")]
)
def test_a_deck_too_small_for_the_deal_is_a_setup_error_in_the_hosts_language(deck, spanish):
    """The box holds 55 cards (a table deck); the hub deck's card list 79."""
    setup = make_setup(
        table="tl",
        game="timeline",
        players=tuple(f"p{i}" for i in range(8)),
        seats=tuple(Seat(f"p{i}", 1, f"p{i}-1") for i in range(8)),
        variant="hand-10",
        deck=deck,
    )
    with pytest.raises(ConfigError, match="too few to deal 10 cards to each of 8 players") as caught:
        referee_for(setup)
    assert render(caught.value.text, "es").startswith(spanish)
