"""``companion referee GAME FILE`` with the random components as the table had them, for every game that
has any (issue 22), and the command lines the documents print.

Each game's guide (docs/games/<game>.md) shows one record of a game played with the box; that record is
a fixture here, the guide prints it whole, and the command as the guide writes it replays it with status
0 (and prints the output the guide shows, where it shows one). Every ``companion referee`` and
``companion score`` command line of the README and the docs names a real game and, where it names a
file, runs.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.games import all_games, find_game

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [
    REPO / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    *sorted((REPO / "docs/games").glob("*.md")),
]


def moves_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    return record.get("actions", record.get("moves", []))


def named_tiles(record: dict[str, Any]) -> bool:
    """Time 'n' Space: the piles as far as known, and each tile taken that they do not give, named."""
    tiles = [a["choice"] for a in record["actions"] if (a.get("choice") or {}).get("@") == "MoonTile"]
    return "seed" not in record and bool(record.get("piles")) and any("tile" in c for c in tiles)


def entered_draws(record: dict[str, Any]) -> bool:
    """Space Dealer: the table's deck, every Mine pile, Depot, order and kept card an entry."""
    moves = {a["move"]["@"] for a in record["actions"] if a.get("@") == "Act"}
    return (
        record.get("deck") == "table" and {"TakeMines", "TakeDepot", "RevealOrder", "KeepDrawnCard"} <= moves
    )


def turned_over(record: dict[str, Any]) -> bool:
    """Timeline: only what the table turned over: years, or right and wrong."""
    return record.get("deck") == "table" and all("card" not in m for m in record["moves"])


def cards_turned_up(record: dict[str, Any]) -> bool:
    """Time Splicers: each card as it was turned up or placed."""
    kinds = {a["action"]["@"] for a in record["actions"]}
    return record.get("deck") == "table" and {"RevealCard", "PlaceCard"} <= kinds


def boards_dealt(record: dict[str, Any]) -> bool:
    """Space and Time: the boards as the coins were dealt (no seed)."""
    return "seed" not in record and len(record["boards"]) == 2


TABLE_RECORDS: dict[str, tuple[str, Callable[[dict[str, Any]], bool]]] = {
    "time-n-space": ("tests/games/data/time_n_space/table_deck_game.json", named_tiles),
    "space-dealer": ("tests/games/data/space_dealer/table-game.json", entered_draws),
    "timeline": ("tests/games/data/timeline/table_game.json", turned_over),
    "time-splicers": ("tests/games/data/time_splicers/table_game.json", cards_turned_up),
    "space-and-time": ("tests/games/data/space_and_time/example.json", boards_dealt),
}


def json_blocks(text: str) -> list[Any]:
    """Every ```json block of a document that is JSON, in order."""
    blocks = []
    for body in re.findall(r"```json\n(.*?)```", text, flags=re.S):
        try:
            blocks.append(json.loads(body))
        except ValueError:
            blocks.append(None)  # a sketch, not a record
    return blocks


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=60, cwd=REPO
    )


def test_every_game_with_random_components_documents_a_table_record():
    assert {g.name for g in all_games() if g.random_components} == set(TABLE_RECORDS)


@pytest.mark.parametrize("game", sorted(TABLE_RECORDS))
def test_the_guides_table_record_is_the_fixture_and_runs(game):
    fixture, as_the_table_had_it = TABLE_RECORDS[game]
    record = json.loads((REPO / fixture).read_text(encoding="utf-8"))
    assert as_the_table_had_it(record), f"{fixture} gives the random components as the table had them"
    guide = (REPO / "docs" / "games" / f"{game}.md").read_text(encoding="utf-8")
    command = f"companion referee {game} {fixture}"
    assert command in " ".join(guide.split()), f"docs/games/{game}.md shows how to run {fixture}"
    blocks = json_blocks(guide)
    assert record in blocks, f"docs/games/{game}.md prints {fixture} whole"
    done = run(shlex.split(command)[1:])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = json.loads(done.stdout)
    after = blocks[blocks.index(record) + 1] if blocks.index(record) + 1 < len(blocks) else None
    if isinstance(after, dict) and set(after) <= set(out) and set(after) & {"results", "accepted"}:
        assert out == after, f"the output docs/games/{game}.md prints after the record is the real one"
    assert not [m for m in moves_of(record) if not isinstance(m, (dict, list))], "every entry is an action"


def command_lines() -> list[tuple[str, str, str, str]]:
    """Every ``companion referee|score GAME FILE`` the documents print: (document, command, game, file)."""
    found = []
    for path in DOCUMENTS:
        text = " ".join(path.read_text(encoding="utf-8").split())
        for command, game, file in re.findall(r"companion (referee|score) ([\w-]+) ([^\s`|)]+)", text):
            found.append((str(path.relative_to(REPO)), command, game, file.rstrip(".,:;")))
    return found


def test_the_documents_command_lines_name_real_games_and_files():
    lines = command_lines()
    assert len({(c, g) for _, c, g, _ in lines if g != "GAME"}) >= 7, lines
    for document, command, game, file in lines:
        if game != "GAME":
            find_game(game)  # an unknown game raises
        if file not in ("FILE", "-"):
            assert (REPO / file).is_file(), f"{document}: companion {command} {game} {file}"


@pytest.mark.parametrize(
    "line",
    sorted({(c, g, f) for _, c, g, f in command_lines() if g != "GAME" and f not in ("FILE", "-")}),
    ids=lambda line: f"{line[0]}-{line[1]}-{Path(line[2]).name}",
)
def test_each_documented_command_runs(line):
    command, game, file = line
    done = run([command, game, file])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    json.loads(done.stdout)
