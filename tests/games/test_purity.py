"""Every registered game's rules are pure: no clock, no global randomness, no I/O, no hub.

One test for every game the registry knows, over every module of the game's package
(imports inside functions too). A seeded private generator (``random.Random(seed)``)
is allowed; any other use of the ``random`` module is not. Data files reach a game
through ``companion.games.data``, called by the package's ``GAME.load_data``.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from companion.games import all_games

FORBIDDEN = {
    "time": "reads the clock",
    "datetime": "reads the clock",
    "os": "does I/O",
    "pathlib": "does I/O",
    "io": "does I/O",
    "socket": "does I/O",
    "threading": "runs threads",
    "subprocess": "runs programs",
    "importlib": "loads files",
    "flask": "is part of the hub, not the rules",
    "paho": "is part of the hub, not the rules",
    "gpiozero": "is hardware",
    "serial": "is hardware",
    "companion.table": "is the table above the rules",
    "companion.hub": "is the hub above the rules",
    "companion.mqtt": "is the hub above the rules",
}


def package_modules(package: str) -> list[Path]:
    root = Path(importlib.import_module(package).__file__).parent  # type: ignore[arg-type]
    return sorted(root.rglob("*.py"))


def impurities(path: Path) -> list[str]:
    """What in one module breaks purity, as sentences."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
        for inner in ast.walk(block)
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue  # imports for type hints only
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        for name in names:
            for banned, why in FORBIDDEN.items():
                if name == banned or name.startswith(banned + "."):
                    found.append(f"line {node.lineno} imports {name}, which {why}")
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            found.append(f"line {node.lineno} imports from random (only random.Random(seed) is allowed)")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "random":
            if node.attr != "Random":
                found.append(f"line {node.lineno} uses random.{node.attr}: the global generator")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("open", "input", "print")
        ):
            found.append(f"line {node.lineno} calls {node.func.id}()")
    return found


GAMES = all_games()


@pytest.mark.parametrize("info", GAMES, ids=lambda g: g.name)
def test_a_games_rules_read_no_clock_draw_no_global_randomness_and_do_no_io(info):
    modules = package_modules(_package_of(info))
    assert modules, f"{info.name} has no modules"
    problems = {str(path.name): impurities(path) for path in modules}
    assert {name: found for name, found in problems.items() if found} == {}


def _package_of(info) -> str:
    from companion.games import _CATALOG

    return _CATALOG[info.name][0]


def test_the_check_finds_what_it_is_for(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import random\nimport time as clock\nfrom pathlib import Path\n"
        "if TYPE_CHECKING:\n    import socket\n"
        "def f(seed):\n    import os\n    rng = random.Random(seed)\n    random.shuffle([])\n    return open('x')\n"
    )
    found = impurities(sample)
    assert any("imports time" in f for f in found) and any("imports pathlib" in f for f in found)
    assert any("imports os" in f for f in found) and any("random.shuffle" in f for f in found)
    assert any("calls open()" in f for f in found) and not any("random.Random" in f for f in found)
    assert not any("socket" in f for f in found)  # for type hints only


def test_every_game_names_its_package_and_the_registry_agrees_with_the_packages():
    from companion.games import _CATALOG

    for info in GAMES:
        package, aliases = _CATALOG[info.name]
        assert info.aliases == aliases and info.package == package
        if info.name != "sandtimers":
            assert importlib.import_module(f"{package}.engine")
