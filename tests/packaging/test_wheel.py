"""The wheel as a user gets it: its metadata, its files, and its commands in a fresh venv that has
only the hub's own dependencies (no extra), where a command needing an extra names it."""

from __future__ import annotations

import email.parser
import os
import sysconfig
import zipfile
from pathlib import Path

import companion
from tests.packaging.conftest import REPO

EXAMPLE_NODE = REPO / "firmware" / "pi" / "node.example.toml"


def _metadata(wheel: Path) -> tuple[email.message.Message, list[str], str]:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(archive.read(info).decode())
        entry_points = archive.read(info.replace("METADATA", "entry_points.txt")).decode()
    return metadata, names, entry_points


def test_wheel_metadata_one_version_spdx_licence_and_extras(wheel_venv):
    metadata, names, entry_points = _metadata(wheel_venv.wheel)
    assert metadata["Name"] == "sandtimer-companion"
    assert metadata["Version"] == companion.__version__
    assert wheel_venv.wheel.name == f"sandtimer_companion-{companion.__version__}-py3-none-any.whl"
    assert metadata["License-Expression"] == "MIT" and metadata.get_all("License-File") == ["LICENSE"]
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    requires = metadata.get_all("Requires-Dist")
    plain = [r for r in requires if "extra ==" not in r]
    for optional, extra in (("gpiozero", "pi"), ("pyserial", "serial"), ("amqtt", "broker")):
        assert not any(r.startswith(optional) for r in plain), f"{optional} is installed with the hub"
        assert any(r.startswith(optional) and f'extra == "{extra}"' in r for r in requires)
    assert {"broker", "pi", "serial", "test"} <= set(metadata.get_all("Provides-Extra"))
    assert "companion = companion.cli:main" in entry_points
    assert "companion-node = companion_node_pi.__main__:main" in entry_points


def test_wheel_holds_the_hub_the_pi_node_and_their_data_and_nothing_else(wheel_venv):
    _, names, _ = _metadata(wheel_venv.wheel)
    packaged = set(names)
    for root in (REPO / "companion", REPO / "firmware" / "pi" / "companion_node_pi"):
        for path in root.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                inside = path.relative_to(root.parent).as_posix()
                assert inside in packaged, f"{inside} is missing from the wheel"
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {
        "companion",
        "companion_node_pi",
        f"sandtimer_companion-{companion.__version__}.dist-info",
    }


def test_commands_run_from_the_installed_wheel(wheel_venv, tmp_path):
    version = wheel_venv.run(wheel_venv.bin("companion"), "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout == f"companion {companion.__version__}\n"
    top = wheel_venv.run(wheel_venv.bin("companion"), "--help", cwd=tmp_path)
    assert top.returncode == 0 and all(c in top.stdout for c in ("run", "serial-bridge", "address", "node"))
    run_help = wheel_venv.run(wheel_venv.bin("companion"), "run", "--help", cwd=tmp_path)
    assert (
        run_help.returncode == 0
        and "--config FILE" in run_help.stdout
        and "--check-config" in run_help.stdout
    )
    node_help = wheel_venv.run(wheel_venv.bin("companion-node"), "--help", cwd=tmp_path)
    assert node_help.returncode == 0 and node_help.stdout.startswith("usage: companion-node ")
    where = wheel_venv.run(
        wheel_venv.bin("python"),
        "-c",
        "import companion, companion_node_pi; print(companion.__file__);print(companion_node_pi.__file__)",
        cwd=tmp_path,
    )
    assert all(line.startswith(str(wheel_venv.venv)) for line in where.stdout.split()), where.stdout


def test_the_hub_alone_runs_without_the_extras_and_names_each_missing_one(wheel_venv, tmp_path):
    for module in ("gpiozero", "serial", "amqtt"):
        probe = wheel_venv.run(wheel_venv.bin("python"), "-c", f"import {module}", cwd=tmp_path)
        assert probe.returncode == 1 and "ModuleNotFoundError" in probe.stderr, module
    ok = wheel_venv.run(wheel_venv.bin("companion"), "run", "--check-config", "--players", "3", cwd=tmp_path)
    assert ok.returncode == 0 and "settings OK" in ok.stdout and "3 players" in ok.stdout, ok.stderr
    amqtt = wheel_venv.run(
        wheel_venv.bin("companion"), "run", "--embedded", "amqtt", "--memory", cwd=tmp_path
    )
    assert amqtt.returncode == 2 and amqtt.stderr == (
        "companion: --embedded amqtt needs amqtt, which is not installed: "
        "pip install 'sandtimer-companion[broker]'\n"
    )
    bridge = wheel_venv.run(
        wheel_venv.bin("companion"), "serial-bridge", "--table", "t", "--port", "/dev/null"
    )
    assert bridge.returncode == 1 and bridge.stderr == (
        "Error: companion serial-bridge needs pyserial, which is not installed: "
        "pip install 'sandtimer-companion[serial]'\n"
    )
    checked = wheel_venv.run(
        wheel_venv.bin("companion-node"), "--config", str(EXAMPLE_NODE), "--check-config"
    )
    assert checked.returncode == 0 and "node red-1 at table kitchen" in checked.stdout
    node = wheel_venv.run(wheel_venv.bin("companion-node"), "--config", str(EXAMPLE_NODE))
    assert node.returncode == 1 and node.stderr == (
        "error: companion-node needs gpiozero, which is not installed: pip install 'sandtimer-companion[pi]'\n"
    )


def test_with_the_extras_the_pi_node_loads_from_the_wheel(wheel_venv, tmp_path):
    """The project's venv has every extra; on the path, the wheel's own packages still come first."""
    env = dict(os.environ, PYTHONPATH=sysconfig.get_path("purelib"))
    loaded = wheel_venv.run(
        wheel_venv.bin("python"),
        "-c",
        "import gpiozero, serial, companion_node_pi; from companion_node_pi import PiNode;"
        "print(companion_node_pi.__file__)",
        env=env,
        cwd=tmp_path,
    )
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.startswith(str(wheel_venv.venv))


def test_building_and_installing_stays_quick(wheel_venv):
    assert wheel_venv.seconds < 60, f"wheel build and install took {wheel_venv.seconds:.1f} s"
