"""Every Space and Time variant the docs name is accepted: by the game, by a hub's setup and by the
setup page's API (issue 13: "documented Space and Time variants (e.g. ``vs-computer``) are refused").

The names are read from the variants table of docs/games/space-and-time.md, so a variant added to
the docs is tested at once; ``N`` stands for each difficulty of ``ai_levels.json``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.clock import FakeClock
from companion.errors import UnknownGameError
from companion.games import referee_for
from companion.games.space_and_time import GAME
from companion.games.space_and_time.referee import VsComputerReferee, parse_variant
from companion.hub import HubConfig, create_app
from companion.rules.setup import Seat, make_setup

DOC = Path(__file__).resolve().parents[2] / "docs" / "games" / "space-and-time.md"


def documented_variants() -> list[str]:
    """The variant names of the docs' table ("| `vs-computer-b` (or `vs-computer`) | ..."), N expanded."""
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| Variant | Who plays |") :].split("\n\n", 1)[0]
    names: list[str] = []
    for row in table.splitlines()[2:]:
        first_cell = row.split("|")[1]
        for name in re.findall(r"`([^`]+)`", first_cell):
            if name.endswith("-N"):
                names += [name[:-1] + str(level) for level in sorted(GAME.data)]
            else:
                names.append(name)
    return names


VARIANTS = documented_variants()


def test_the_docs_name_the_variants_of_the_issue():
    assert {"standard", "vs-computer", "vs-computer-a", "vs-computer-b", "vs-computer-a-3"} <= set(VARIANTS)


def players_for(name: str) -> tuple[str, ...]:
    return ("ana",) if name.startswith("vs-computer") else ("ana", "ben")


@pytest.mark.parametrize("name", VARIANTS)
def test_every_documented_variant_is_accepted_by_the_game(name):
    variant = GAME.variant(name)
    computer, difficulty = parse_variant(name)
    assert parse_variant(variant.name) == (computer, difficulty), "its one name plays the same"
    assert GAME.variant(variant.name).name == variant.name and variant.clock_minutes == 60
    setup = make_setup(
        table="sat",
        game="space-and-time",
        players=players_for(name),
        seats=tuple(Seat(p, 1, f"{p}-1") for p in players_for(name)),
        variant=variant.name,
    )
    referee = referee_for(setup)
    assert (referee.computer, referee.difficulty) == (computer, difficulty)
    assert isinstance(referee, VsComputerReferee) == (computer is not None)


@pytest.mark.parametrize("name", VARIANTS)
def test_every_documented_variant_is_accepted_by_the_setup_page_and_the_hub(name):
    app = create_app({"table": "t1", "players": 2, "timers": 1}, clock=FakeClock())
    body = {"game": "space-and-time", "variant": name, "players": list(players_for(name)), "timers": 1}
    res = app.test_client().post("/api/setup", json=body)
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["setup"]["variant"] == GAME.variant(name).name
    # a hub started with --game space-and-time --variant NAME
    config = {"table": "t2", "game": "space-and-time", "variant": name, "players": len(players_for(name))}
    hub = create_app(dict(config, timers=1), clock=FakeClock())
    referee = hub.extensions["companion.session"].referee
    assert (referee.computer, referee.difficulty) == parse_variant(name)
    assert HubConfig(**config).clock_length_s() == 3600


def test_the_setup_page_offers_the_usual_variants_and_names_each_once():
    offered = [v.name for v in GAME.variants]
    assert offered == ["standard", "vs-computer-b", "vs-computer-a", "vs-computer-b-1", "vs-computer-b-4"]
    assert {GAME.variant(name).name for name in ("vs-computer", "vs-computer-b-2", "VS-Computer-B")} == {
        "vs-computer-b"
    }
    assert GAME.variant("vs-computer-a-2").name == "vs-computer-a"


@pytest.mark.parametrize("name", ["speed", "vs-computer-c", "vs-computer-b-9"])
def test_a_variant_the_docs_do_not_name_is_refused_with_the_choices(name):
    with pytest.raises(UnknownGameError, match="Space and Time has no variant"):
        GAME.variant(name)
