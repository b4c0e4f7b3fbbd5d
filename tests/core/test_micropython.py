"""The node core's shared checks, under CPython here and under a real MicroPython interpreter."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.micropython import core_checks

HERE = Path(__file__).resolve().parent.parent / "micropython"
RUNNER = HERE / "run.mjs"
INTERPRETER = HERE / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"


@pytest.mark.parametrize("name, check", core_checks.checks(), ids=[n for n, _ in core_checks.checks()])
def test_check_under_cpython(name, check):
    check()


def test_checks_under_micropython():
    node = shutil.which("node")
    if node is None or not INTERPRETER.exists():
        pytest.fail(
            "MicroPython (WebAssembly) is not installed: run `make test`, which runs npm ci in tests/micropython"
        )
    result = subprocess.run(
        [node, str(RUNNER), str(HERE / "core_checks.py"), "companion/core"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    passed = set(re.findall(r"^PASS (\w+)$", result.stdout, re.M))
    assert passed == {name for name, _ in core_checks.checks()}
    assert "0 failed" in result.stdout


def test_micropython_reports_failures():
    """The runner must fail loudly, or the test above could pass on a broken core."""
    result = subprocess.run(
        [shutil.which("node") or "node", str(RUNNER), "/dev/stdin"],
        input="assert 2 + 2 == 5, 'boom'\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1 and "boom" in result.stderr


def test_interpreter_is_micropython():
    result = subprocess.run(
        [shutil.which("node") or "node", str(RUNNER), "/dev/stdin"],
        input="import sys\nprint(sys.implementation.name)\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.strip() == "micropython"
