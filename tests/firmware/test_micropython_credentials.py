"""The MicroPython node's broker login and TLS settings, under CPython here and under real MicroPython."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.firmware.conftest import REPO
from tests.firmware.mpy import run_checks

for extra in (REPO / "tests" / "firmware" / "fakes", REPO / "firmware" / "micropython"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from tests.firmware import mpy_credentials_checks  # noqa: E402

MODULE_DIRS = ["companion/core", "firmware/micropython", "tests/firmware/fakes", "tests/firmware/fakes/umqtt"]
CHECKS = mpy_credentials_checks.checks()


@pytest.mark.parametrize("name, check", CHECKS, ids=[n for n, _ in CHECKS])
def test_check_under_cpython(name, check):
    check()


def test_checks_under_micropython():
    passed = run_checks(Path(mpy_credentials_checks.__file__), MODULE_DIRS)
    assert passed == {name for name, _ in CHECKS}


def test_example_config_shows_the_login_and_tls_keys():
    text = (REPO / "firmware" / "micropython" / "config.example.py").read_text()
    for key in ("broker_user", "broker_password", "broker_tls", "broker_ca", "broker_tls_name"):
        assert f'"{key}"' in text
