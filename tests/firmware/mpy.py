"""Run a check file under the real MicroPython interpreter (WebAssembly build, via Node)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MPY = REPO / "tests" / "micropython"
RUNNER = MPY / "run.mjs"
INTERPRETER = MPY / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"


def run_checks(script: Path, module_dirs: list[str]) -> set[str]:
    """Run ``script`` with ``module_dirs`` copied into /lib; return the names it printed as PASS."""
    node = shutil.which("node")
    if node is None or not INTERPRETER.exists():
        pytest.fail("MicroPython (WebAssembly) is not installed: run `npm ci` in tests/micropython")
    result = subprocess.run(
        [node, str(RUNNER), str(script), *module_dirs], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert ", 0 failed" in result.stdout, result.stdout
    return set(re.findall(r"^PASS (\w+)$", result.stdout, re.M))
