"""The import graph keeps its layers: the node core and the rules contract at the bottom, the
games above them, the table above the games, then the MQTT side, audio and the web hub, the
command line on top; no cycle between packages (docs/architecture.md draws the same picture)."""

from __future__ import annotations

import ast
from pathlib import Path

import companion

ROOT = Path(companion.__file__).parent

LAYERS = [
    {"companion", "companion.errors", "companion.clock", "companion.core", "companion.config_file"},
    {"companion.rules"},
    {"companion.games"},
    {"companion.table"},
    {
        "companion.i18n",
        "companion.audio",
        "companion.mqtt",
        "companion.node",
        "companion.serial_bridge",
        "companion.sse_client",
        "companion.net",
    },
    {"companion.doctor"},
    {"companion.hub"},
    {"companion.runtime", "companion.bench", "companion.club", "companion.club_record", "companion.testing"},
    {"companion.cli", "companion.cli_node", "companion.__main__"},
]
LAYER = {part: number for number, parts in enumerate(LAYERS) for part in parts}


def part_of(module: str) -> str:
    """``companion.table.session`` -> ``companion.table``."""
    return ".".join(module.split(".")[:2])


def imports() -> list[tuple[str, str, str]]:
    """(importing module, imported module, where) for every import of companion code, any depth."""
    found = []
    for path in ROOT.rglob("*.py"):
        module = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
        package = module.removesuffix(".__init__") if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        module = module.removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    targets = [".".join(base + ([node.module] if node.module else []))]
                elif node.module:
                    targets = [node.module]
            for target in targets:
                if target == "companion" or target.startswith("companion."):
                    found.append((module, target, f"{path.relative_to(ROOT.parent)}:{node.lineno}"))
    return found


def test_every_package_has_a_layer():
    parts = {part_of(m) for m, _, _ in imports()} | {part_of(t) for _, t, _ in imports()}
    assert parts - set(LAYER) == set()


def test_no_package_imports_one_above_it():
    upward = [
        f"{where}: {source} imports {target}"
        for source, target, where in imports()
        if LAYER[part_of(target)] > LAYER[part_of(source)]
    ]
    assert upward == []


def test_packages_of_one_layer_do_not_import_each_other_in_a_circle():
    edges: dict[str, set[str]] = {}
    for source, target, _ in imports():
        a, b = part_of(source), part_of(target)
        if a != b:
            edges.setdefault(a, set()).add(b)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in edges.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    assert [part for part in edges if reaches(part, part, {part})] == []


def test_the_check_sees_imports_inside_functions():
    assert any(
        where.startswith("companion/table/log.py") and target == "companion.games"
        for _, target, where in imports()
    )


def test_no_two_modules_import_each_other_in_a_circle():
    """Inside a package too: a module that needs another's helper and is needed by it (the web API and
    its access control did) hides which of them is the lower one; such a helper gets its own module."""
    modules = {
        ".".join(p.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__")
        for p in ROOT.rglob("*.py")
    }
    edges: dict[str, set[str]] = {}
    for source, target, _ in imports():
        while target not in modules and "." in target:
            target = target.rsplit(".", 1)[0]  # "from companion.hub.api import x" names the module
        if target != source and not source.startswith(target + "."):  # a package's own __init__ is above it
            edges.setdefault(source, set()).add(target)

    def cycle_from(start: str) -> list[str] | None:
        stack = [(start, [start])]
        seen = set()
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    return path + [start]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
        return None

    cycles = {" -> ".join(c) for m in sorted(edges) if (c := cycle_from(m)) is not None}
    assert cycles == set()
