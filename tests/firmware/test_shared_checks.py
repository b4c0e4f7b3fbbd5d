"""The debouncer and LED-frame checks, run under CPython here and under real MicroPython."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.firmware import mpy_checks
from tests.firmware.mpy import run_checks


@pytest.mark.parametrize("name, check", mpy_checks.checks(), ids=[n for n, _ in mpy_checks.checks()])
def test_check_under_cpython(name, check):
    check()


def test_checks_under_micropython():
    passed = run_checks(Path(mpy_checks.__file__), ["companion/core"])
    assert passed == {name for name, _ in mpy_checks.checks()}
