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


NODE_MODULES = sorted(
    [*(ROOT / "node").glob("*.py"), ROOT / "serial_bridge.py", *(ROOT.parent / "firmware/pi").rglob("*.py")]
)
"""The CPython nodes: the simulated one, the USB-serial bridge, the Raspberry Pi node."""
RADIO = ROOT / "node" / "radio.py"


def imported_names(path: Path) -> set[str]:
    """Every module ``path`` imports, and every name it imports from one (``companion.node.radio.MqttRadio``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_nodes_talk_mqtt_through_the_one_radio_only():
    """The paho glue around a node exists once (companion/node/radio.py): no other node module imports
    paho or builds a paho client itself, and the simulated node, the Pi node and the serial bridge all
    use that radio."""
    client_makers = {
        f"companion.mqtt.client.{name}" for name in ("make_client", "connect_in_background", "use_tls")
    }

    def glue(path: Path) -> list[str]:
        names = imported_names(path)
        return sorted(n for n in names if n == "paho" or n.startswith("paho.") or n in client_makers)

    assert RADIO in NODE_MODULES and len(NODE_MODULES) > 5
    assert glue(RADIO)  # the radio is where it lives
    others = {path.relative_to(ROOT.parent).as_posix(): glue(path) for path in NODE_MODULES if path != RADIO}
    assert {module: names for module, names in others.items() if names} == {}
    users = {
        path.relative_to(ROOT.parent).as_posix()
        for path in NODE_MODULES
        if imported_names(path) & {"companion.node.radio.MqttRadio", "companion.node.radio.core_radio"}
    }
    assert users == {
        "companion/node/sim.py",
        "companion/serial_bridge.py",
        "firmware/pi/companion_node_pi/node.py",
    }


def test_the_node_core_needs_no_mqtt_library():
    """NodeCore runs under MicroPython too: it returns messages and the radio sends them."""
    for path in (ROOT / "core").rglob("*.py"):
        names = imported_names(path)
        assert not {n for n in names if n.split(".")[0] in ("paho", "umqtt", "socket", "threading")}, path
        assert not {n for n in names if n.startswith("companion.") and not n.startswith("companion.core")}, (
            path
        )
