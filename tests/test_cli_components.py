"""A table's own component file, as a host gives it: ``companion run --components FILE`` or ``[hub]
components`` in the config file, for every game that reads one (issue 22).

A real ``companion run`` process: a file with a typo stops it before anything starts, with one line naming
the file, the line and the field, and status 2; a file with a corrected value starts the table, and the
rules use the value (the game's starting state in the log's header, next to the same table with the
shipped file).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from companion.games import all_games
from tests.test_cli import _start_table, _stop, companion

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class ComponentFile:
    """A game's shipped component file, a typo in it, and a correction the rules must follow."""

    game: str
    shipped: str
    typo: tuple[str, str]
    """A line of the file and the same line mistyped (a field's name or its value)."""
    field: str
    """What the error must name as the field at fault."""
    correction: tuple[str, str]
    """A line of the file and the same line with a corrected value."""
    args: tuple[str, ...] = ()

    def text(self) -> str:
        return (REPO / self.shipped).read_text(encoding="utf-8")

    def changed(self, change: tuple[str, str]) -> tuple[str, int]:
        """The file with one line changed, and the number of that line."""
        old, new = change
        text = self.text()
        lines = text.split("\n")
        [number] = [i for i, line in enumerate(lines, start=1) if line.startswith(old)]
        return text.replace(old, new, 1), number


FILES = {
    "time-n-space": ComponentFile(
        "time-n-space",
        "companion/games/time_n_space/data/components.json",
        typo=('  "goods_per_color": {', '  "goods_per_colour": {'),
        field="goods_per_colour",
        correction=('    "value": 12,', '    "value": 10,'),  # goods_per_color: 12 cubes of each colour
        args=("--variant", "full", "--players", "3"),
    ),
    "space-dealer": ComponentFile(
        "space-dealer",
        "companion/games/space_dealer/data/cards.toml",
        typo=("cargo_limit = 8", "cargo_limt = 8"),
        field="box.cargo_limt",
        correction=("goods_per_colour = 10", "goods_per_colour = 9"),
        args=("--players", "3"),
    ),
    "timeline": ComponentFile(
        "timeline",
        "companion/games/timeline/data/espana-box.csv",
        typo=("hand_size,4,", "hand_size,4S,"),
        field="hand_size",
        correction=("cards,55,", "cards,53,"),
    ),
    "time-splicers": ComponentFile(
        "time-splicers",
        "companion/games/time_splicers/data/deck.csv",
        typo=("hand_maximum,7,", "hand_maximun,7,"),
        field="hand_maximun",
        correction=("starting_hand,4,", "starting_hand,5,"),
    ),
}


def started_game(data_dir: Path, *args: str) -> dict[str, Any]:
    """The game's starting state, as the table that ``companion run`` started logged it, and its setup."""
    proc, _, lines = _start_table(data_dir, *args)
    _stop(proc)
    [log] = [line.split(": ", 1)[1] for line in lines if line.startswith("Game log: ")]
    header = json.loads(Path(log).read_text(encoding="utf-8").split("\n", 1)[0])
    return header


def uses_the_correction(game: str, shipped: dict[str, Any], corrected: dict[str, Any]) -> None:
    """What each correction changes in the rules' starting state."""
    if game == "time-n-space":  # goods per colour 12 -> 10: the supply
        assert [n - 2 for n in shipped["supply"]] == corrected["supply"] == [10, 10, 10, 10]
    elif game == "space-dealer":  # goods per colour 10 -> 9: the common pool
        assert {c: n - 1 for c, n in shipped["pool"]["items"]} == dict(corrected["pool"]["items"])
        assert set(dict(corrected["pool"]["items"]).values()) == {9}
    elif game == "timeline":  # a box of 53 cards: the same deal, two cards fewer in the deck
        assert shipped["piles"]["hands"] == corrected["piles"]["hands"] == [4, 4]
        assert (shipped["piles"]["deck"], corrected["piles"]["deck"]) == (46, 44)
    elif game == "time-splicers":  # 5 cards dealt to each player
        assert [p["unseen"] for p in shipped["players"]] == [4, 4]
        assert [p["unseen"] for p in corrected["players"]] == [5, 5]
    else:
        pytest.fail(f"no correction checked for {game}")


def test_every_game_with_a_component_file_is_checked_here():
    assert {g.name for g in all_games() if g.load_components is not None} == set(FILES)


@pytest.mark.parametrize("how", ["option", "config"])
@pytest.mark.parametrize("game", sorted(FILES))
def test_a_typo_stops_the_table_with_one_line_naming_the_file_line_and_field(tmp_path, game, how):
    spec = FILES[game]
    text, line = spec.changed(spec.typo)
    path = tmp_path / f"my{Path(spec.shipped).suffix}"
    path.write_text(text, encoding="utf-8")
    if how == "option":
        result = companion("run", "--memory", "--game", game, *spec.args, "--components", str(path))
    else:
        config = tmp_path / "hub.toml"
        config.write_text(f'[hub]\ngame = "{game}"\ncomponents = {json.dumps(str(path))}\n', encoding="utf-8")
        result = companion("run", "--memory", "--config", str(config), *spec.args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    [said] = result.stderr.splitlines()
    assert said.startswith("companion: ") and str(path) in said
    assert f"line {line}" in said and spec.field in said, said


@pytest.mark.parametrize("game", sorted(FILES))
def test_a_file_that_is_not_there_is_one_line(tmp_path, game):
    missing = tmp_path / "nowhere.csv"
    result = companion("run", "--memory", "--game", game, *FILES[game].args, "--components", str(missing))
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
    [said] = result.stderr.splitlines()
    assert str(missing) in said and "No such file" in said


def test_a_game_without_a_component_file_says_so():
    for game in (g.name for g in all_games() if g.load_components is None):
        result = companion("run", "--memory", "--game", game, "--components", str(REPO / "README.md"))
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert result.stderr.splitlines() == [result.stderr.strip()]
        assert "has no component file to replace: leave out --components" in result.stderr


@pytest.mark.broker
@pytest.mark.parametrize("game", sorted(FILES))
def test_a_corrected_value_is_what_the_rules_use(tmp_path, game):
    spec = FILES[game]
    text, _ = spec.changed(spec.correction)
    path = tmp_path / f"my{Path(spec.shipped).suffix}"
    path.write_text(text, encoding="utf-8")
    shipped = started_game(tmp_path / "shipped", "--game", game, *spec.args)
    corrected = started_game(tmp_path / "corrected", "--game", game, *spec.args, "--components", str(path))
    assert (shipped["setup"]["components"], corrected["setup"]["components"]) == ("", str(path))
    uses_the_correction(game, shipped["game"], corrected["game"])


@pytest.mark.broker
def test_the_config_files_components_key_starts_the_table_with_it(tmp_path):
    text, _ = FILES["timeline"].changed(FILES["timeline"].correction)
    path = tmp_path / "mybox.csv"
    path.write_text(text, encoding="utf-8")
    config = tmp_path / "hub.toml"
    config.write_text(f'[hub]\ngame = "timeline"\ncomponents = {json.dumps(str(path))}\n', encoding="utf-8")
    header = started_game(tmp_path / "data", "--config", str(config))
    assert header["setup"]["components"] == str(path) and header["game"]["piles"]["deck"] == 44
