"""The pure core of the audio package does no I/O and reads no clock at import or call time."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import companion.audio

PURE = ["cues.py", "phrases.py", "engine.py", "settings.py"]
FORBIDDEN = {"subprocess", "wave", "os", "time", "random", "shutil", "socket", "flask", "paho", "pathlib"}


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_import_no_io(module: str) -> None:
    path = Path(companion.audio.__file__).parent / module
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
            if node.module.startswith("companion.audio."):
                assert node.module.rsplit(".", 1)[1] + ".py" in PURE, f"{module} imports leaf {node.module}"
    assert not imported & FORBIDDEN, f"{module} imports {sorted(imported & FORBIDDEN)}"
