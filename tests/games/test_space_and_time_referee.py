"""Whole recorded Space and Time games replayed through ``companion referee space-and-time``.

Each record's output is compared with its reviewed ``*.expected.json`` and, independently,
with a tiny second referee written here from the rules (swap, look for molecules of the two
moved ranks, five trophies end a round), so the golden files are not trusted blindly.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "space_and_time"
REPO = Path(__file__).resolve().parents[2]
GAMES = ["tie_game", "b_wins", "unfinished"]


def run_referee(source: str, *, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "companion", "referee", "space-and-time", source],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


def _connected(cells: list[tuple[int, int]]) -> bool:
    todo, seen = [cells[0]], {cells[0]}
    while todo:
        r, c = todo.pop()
        for near in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if near in cells and near not in seen:
                seen.add(near)
                todo.append(near)
    return len(seen) == 4


def independent_check(record: dict, output: dict) -> None:
    """Re-derive every accepted move's trophies, the totals and the winner from the rules."""
    boards = [[list(row) for row in b] for b in record["boards"]]
    board, rnd, player = boards[0], 0, "A"
    owners: list[dict[int, str]] = [{}, {}]
    over = False
    for move, result in zip(record["moves"], output["results"], strict=True):
        if not result["ok"]:
            continue
        assert not over, "a move was accepted after the end"
        assert result["player"] == player
        (r1, c1), (r2, c2) = move
        ranks = sorted({board[r1][c1], board[r2][c2]})
        board[r1][c1], board[r2][c2] = board[r2][c2], board[r1][c1]
        taken = []
        for rank in ranks:
            cells = [(r, c) for r in range(4) for c in range(6) if board[r][c] == rank]
            if rank not in owners[rnd] and _connected(cells):
                owners[rnd][rank] = player
                taken.append(rank)
        assert result["trophies"] == taken
        totals = {p: sum(o == p for rd in owners for o in rd.values()) for p in "AB"}
        player = "B" if player == "A" else "A"
        if max(totals.values()) >= 6 or (len(owners[rnd]) >= 5 and rnd == 1):
            over = True
        elif len(owners[rnd]) >= 5:
            rnd, board, player = 1, boards[1], "B"
    totals = {p: sum(o == p for rd in owners for o in rd.values()) for p in "AB"}
    assert output["trophies"] == totals
    expected_winner = ("B" if totals["B"] > totals["A"] else "A") if over else None
    assert output["winner"] == expected_winner


@pytest.mark.parametrize("game", GAMES)
def test_recorded_game_through_the_cli(game):
    path = DATA / f"{game}.json"
    done = run_referee(str(path))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    output = json.loads(done.stdout)
    assert output == json.loads((DATA / f"{game}.expected.json").read_text(encoding="utf-8"))
    independent_check(json.loads(path.read_text(encoding="utf-8")), output)


def test_recorded_game_from_stdin():
    text = (DATA / "tie_game.json").read_text(encoding="utf-8")
    done = run_referee("-", stdin=text)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(
        (DATA / "tie_game.expected.json").read_text(encoding="utf-8")
    )


def test_tie_game_covers_the_refusals_and_the_tie_rule():
    output = json.loads(run_referee(str(DATA / "tie_game.json")).stdout)
    refused = [r["reason"] for r in output["results"] if not r["ok"]]
    assert len(refused) == 5
    assert "are not neighbours" in refused[0]
    assert "may not swap back the two coins player A has just swapped" in refused[1]
    assert "a swap must exchange coins of different ranks" in refused[2]
    assert "is not on the board" in refused[3]
    assert refused[4] == "The game is over and player A has won; no more swaps can be made."
    # Five each: A, Space of the Night round, wins.
    assert output["trophies"] == {"A": 5, "B": 5} and output["winner"] == "A"
    # A refused player moves again: the accepted move right after each mid-game refusal
    # is by the player who was refused (the independent check follows turns the same way).
    results = output["results"]
    assert results[0]["ok"] is False and results[1] == {"ok": True, "player": "A", "trophies": []}


def test_round_two_is_opened_by_b():
    output = json.loads(run_referee(str(DATA / "tie_game.json")).stdout)
    accepted = [r for r in output["results"] if r["ok"]]
    per_round_taken, fifth_index = 0, None
    for i, r in enumerate(accepted):
        per_round_taken += len(r["trophies"])
        if per_round_taken >= 5:
            fifth_index = i
            break
    assert fifth_index is not None
    assert accepted[fifth_index + 1]["player"] == "B"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "bad_board.json",
            None,
            "the round 2 board's four central coins all show rank 5; the coins must be re-dealt",
        ),
        ("broken.json", None, "broken.json is not valid JSON: Expecting ',' delimiter at line 2 column 9"),
        ("-", '{"boards": [], "moves": []}', '"boards" must list the starting boards as dealt'),
        ("-", '{"boards": "x"', "standard input is not valid JSON"),
        ("-", "[1, 2]", "must be a JSON object"),
    ],
)
def test_bad_input_exits_2_with_one_line(name, content, message):
    source = "-" if name == "-" else str(DATA / name)
    done = run_referee(source, stdin=content)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1
    assert message in lines[0]
    assert "Traceback" not in done.stderr


def test_the_documented_example_is_the_real_output():
    doc = (REPO / "docs" / "games" / "space-and-time.md").read_text(encoding="utf-8")
    blocks = [part.split("```", 1)[0] for part in doc.split("```json\n")[1:]]
    assert len(blocks) == 2
    example_input, example_output = blocks
    done = run_referee("-", stdin=example_input)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == example_output.strip()
    independent_check(json.loads(example_input), json.loads(done.stdout))
