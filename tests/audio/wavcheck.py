"""Checks that a file is a valid sound: Python's wave module and sox's soxi must agree on it."""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path

import pytest


def soxi_duration_s(path: Path) -> float:
    soxi = shutil.which("soxi")
    if soxi is None:
        pytest.fail("soxi is not installed: apt-get install -y sox (.ci/run must install it)")
    done = subprocess.run([soxi, "-D", str(path)], capture_output=True, text=True, timeout=10, check=False)
    assert done.returncode == 0, f"soxi rejected {path.name}: {done.stderr.strip()}"
    return float(done.stdout.strip())


def assert_valid_wav(path: Path, *, expected_s: float | None = None, rate: int | None = None) -> float:
    """Open with ``wave`` (16-bit mono), compare with ``soxi -D`` within 1 ms; return the duration."""
    with wave.open(str(path), "rb") as src:
        assert src.getnchannels() == 1
        assert src.getsampwidth() == 2
        assert src.getcomptype() == "NONE"
        if rate is not None:
            assert src.getframerate() == rate
        frames = src.getnframes()
        assert len(src.readframes(frames)) == 2 * frames, (
            "the header promises more frames than the file holds"
        )
        duration = frames / src.getframerate()
    assert duration > 0
    assert abs(soxi_duration_s(path) - duration) <= 0.001, path.name
    if expected_s is not None:
        assert abs(duration - expected_s) <= 0.5 / src.getframerate(), (path.name, duration, expected_s)
    return duration
