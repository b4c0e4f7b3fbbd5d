"""A wheel built from this checkout (into a temporary folder) and a fresh venv with it installed.

Building and installing must stay fast and offline: the wheel is built without build isolation
(with the project venv's setuptools), installed with ``--no-deps``, and the venv reaches its
dependencies through a ``.pth`` file pointing at a folder of links to exactly the distributions
the hub needs without any extra (the closure of the wheel's ``Requires-Dist``), taken from the
project's venv. So the venv has no gpiozero, pyserial or amqtt, as after ``pip install
sandtimer-companion`` on a fresh machine, and the commands have to manage without them.
"""

from __future__ import annotations

import fcntl
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
DISTRIBUTION = "sandtimer-companion"
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "companion", "firmware/pi/companion_node_pi")


def dependency_closure(name: str, extras: tuple[str, ...] = ()) -> set[str]:
    """The installed distributions ``name[extras]`` needs, itself excluded (names canonicalized)."""
    found: set[str] = set()
    todo = [(name, extras)]
    seen: set[tuple[str, tuple[str, ...]]] = set()
    while todo:
        current, wanted = todo.pop()
        key = (canonicalize_name(current), wanted)
        if key in seen:
            continue
        seen.add(key)
        dist = importlib.metadata.distribution(current)
        for text in dist.requires or ():
            req = Requirement(text)
            environments = [{"extra": e} for e in wanted] or [{"extra": ""}]
            if req.marker is not None and not any(req.marker.evaluate(env) for env in environments):
                continue
            found.add(canonicalize_name(req.name))
            todo.append((req.name, tuple(sorted(req.extras))))
    found.discard(canonicalize_name(name))
    return found


def link_site(distributions: set[str], into: Path) -> Path:
    """A folder of links to the top-level files of ``distributions`` (and their metadata)."""
    into.mkdir(parents=True)
    for name in sorted(distributions):
        dist = importlib.metadata.distribution(name)
        for file in dist.files or ():
            if file.parts[0] == ".." or file.suffix == ".pth":
                continue  # scripts in bin/, path hooks
            top = file.parts[0]
            source = Path(str(dist.locate_file(top)))
            target = into / top
            if not target.exists() and source.exists():
                target.symlink_to(source)
    return into


def build_wheel(out: Path) -> Path:
    """``pip wheel`` of a copy of the sources (so no build/ or *.egg-info lands in the checkout)."""
    src = out / "src"
    for name in SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, src / name)
    dist = out / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(dist),
            str(src),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (wheel,) = dist.glob("*.whl")
    return wheel


@dataclass
class WheelVenv:
    wheel: Path
    venv: Path
    hub_site: Path
    seconds: float
    """How long building and installing took."""

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)

    def run(
        self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), capture_output=True, text=True, timeout=60, env=env, cwd=cwd)


def _build_wheel_venv(base: Path) -> WheelVenv:
    started = time.monotonic()
    wheel = build_wheel(base)
    hub_site = link_site(dependency_closure(DISTRIBUTION), base / "hub-site")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    purelib = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "hub_dependencies.pth").write_text(f"{hub_site}\n", encoding="utf-8")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return WheelVenv(wheel, venv, hub_site, time.monotonic() - started)


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WheelVenv]:
    """Built once per run: the first test process builds it under a lock, the others (pytest-xdist
    workers share the parent of their temporary folders) wait for it and use the same one."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder, made = base / "wheel-venv", base / "wheel-venv.json"
    with open(base / "wheel-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if made.exists():
            found = json.loads(made.read_text(encoding="utf-8"))
            built = WheelVenv(*(Path(found[k]) for k in ("wheel", "venv", "hub_site")), found["seconds"])
        else:
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            built = _build_wheel_venv(folder)
            fields = {"wheel": str(built.wheel), "venv": str(built.venv), "hub_site": str(built.hub_site)}
            made.write_text(json.dumps({**fields, "seconds": built.seconds}), encoding="utf-8")
    yield built
