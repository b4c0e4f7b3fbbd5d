"""The mpremote deploy script: what it stages, the commands it runs, and its refusals."""

from __future__ import annotations

import importlib.util
import shlex

import pytest

from tests.firmware.conftest import REPO

MPY = REPO / "firmware" / "micropython"
_spec = importlib.util.spec_from_file_location("deploy", MPY / "deploy.py")
deploy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(deploy)

BOARD_FILES = [
    "boot.py",
    "config.py",
    "lib/board.py",
    "lib/companion/__init__.py",
    "lib/companion/core/__init__.py",
    "lib/companion/core/debounce.py",
    "lib/companion/core/leds.py",
    "lib/companion/core/node.py",
    "lib/companion/core/protocol.py",
    "lib/companion/core/sand.py",
    "lib/companion/core/serial_lines.py",
    "lib/nodeapp.py",
    "main.py",
]
OLD_COPIES = (
    'import os; [os.remove(n) for n in ("nodeapp.py", "board.py", "mdns.py") if n in os.listdir("/")]'
)


def _commands(out: str) -> list[list[str]]:
    return [shlex.split(line[2:]) for line in out.splitlines() if line.startswith("$ ")]


def test_dry_run_wifi_node(capsys, tmp_path):
    assert (
        deploy.main(
            [
                "--config",
                str(MPY / "config.example.py"),
                "--port",
                "/dev/ttyACM0",
                "--dry-run",
                "--stage-dir",
                str(tmp_path / "stage"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("node blue-2 (pico-w, link wifi): 13 files staged in ")
    steps = _commands(out)
    assert all(s[:3] == ["mpremote", "connect", "/dev/ttyACM0"] for s in steps)
    verbs = [s[3:] for s in steps]
    assert verbs[:1] == [["mip", "install", "umqtt.simple"]]  # umqtt.robust blocks while the broker is away
    assert verbs[1] == ["exec", OLD_COPIES]  # the program moved to /lib: no stale copy at the root
    assert [v[1] for v in verbs[2:5]] == [
        'import os; os.mkdir("/lib") if "lib" not in os.listdir("/") else None',
        'import os; os.mkdir("/lib/companion") if "companion" not in os.listdir("/lib") else None',
        'import os; os.mkdir("/lib/companion/core") if "core" not in os.listdir("/lib/companion") else None',
    ]
    copies = [v for v in verbs if v[:2] == ["fs", "cp"]]
    assert [v[3] for v in copies] == [":" + f for f in BOARD_FILES]
    staged = copies[0][2].rsplit("/", 1)[0]
    assert staged == str(tmp_path / "stage")
    assert (REPO / "companion" / "core" / "node.py").read_text() in open(
        f"{staged}/lib/companion/core/node.py"
    ).read()
    assert open(f"{staged}/lib/companion/__init__.py").read() == (MPY / "companion_init.py").read_text()
    assert verbs[-1] == ["reset"] and len(steps) == 1 + 1 + 3 + 13 + 1


def test_serial_node_needs_no_umqtt(tmp_path, capsys):
    config = tmp_path / "usb.py"
    config.write_text('CONFIG = {"node_id": "u1", "table": "t", "board": "pico-usb", "link": "serial"}\n')
    assert deploy.main(["--config", str(config), "--dry-run", "--stage-dir", str(tmp_path / "stage")]) == 0
    steps = _commands(capsys.readouterr().out)
    assert (
        not any("mip" in s for s in steps)
        and steps[0][:2] == ["mpremote", "exec"]
        and len(steps) == 1 + 3 + 13 + 1
    )


@pytest.mark.parametrize(
    "text, reason",
    [
        ("CONFIG = {", "is not valid Python: line 1"),
        ("SETTINGS = {}", "defines no CONFIG"),
        ("CONFIG = dict(a=1)", "CONFIG must be a plain dict of literals"),
        ("CONFIG = [1]", "CONFIG must be a dict"),
        ('CONFIG = {"node_id": "u1", "table": "t", "board": "pico-usb"}', "a pico-usb board has no Wi-Fi"),
        (
            'CONFIG = {"node_id": "u1", "table": "t", "board": "pico-w", "link": "serial", "tilt_rest_ms": 500}',
            "tilt_rest_ms must be a whole number from 1 to 190",
        ),
    ],
)
def test_bad_config_is_refused_before_flashing(tmp_path, capsys, text, reason):
    config = tmp_path / "bad.py"
    config.write_text(text + "\n")
    assert deploy.main(["--config", str(config), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and reason in err and err.count("\n") == 1


def test_missing_mpremote_is_named(capsys):
    assert (
        deploy.main(["--config", str(MPY / "config.example.py"), "--mpremote", "/nonexistent/mpremote"]) == 2
    )
    assert "not found: pip install mpremote" in capsys.readouterr().err


def test_failed_step_stops_the_deploy(tmp_path, capsys):
    fake = tmp_path / "mpremote"
    fake.write_text('#!/bin/sh\necho "$@" >> ' + str(tmp_path / "calls") + "\nexit 1\n")
    fake.chmod(0o755)
    assert (
        deploy.main(
            [
                "--config",
                str(MPY / "config.example.py"),
                "--mpremote",
                str(fake),
                "--stage-dir",
                str(tmp_path / "stage"),
            ]
        )
        == 1
    )
    assert (tmp_path / "calls").read_text() == "mip install umqtt.simple\n"
    assert "is the board plugged in" in capsys.readouterr().err


# --- package.json: what `mpremote mip install` installs, and what deploy.py copies ------------------

PACKAGE = MPY / "package.json"


def _local_imports(path) -> set[str]:
    """Modules a node file imports that are not MicroPython's own (machine, network, ...)."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def test_package_json_is_what_mip_reads_and_every_file_exists():
    import json

    data = json.loads(PACKAGE.read_text(encoding="utf-8"))
    assert set(data) == {"urls", "deps"}
    for target, source in data["urls"]:
        # mpremote mip resolves a relative source against package.json's folder
        assert (PACKAGE.parent / source).resolve().is_file(), source
        assert not target.startswith("/") and target.endswith(".py")
    assert data["deps"] == [
        ["umqtt.simple", "latest"]
    ]  # never umqtt.robust: it blocks while the broker is away


def test_package_json_holds_every_module_the_node_imports():
    import json

    targets = {target for target, _ in json.loads(PACKAGE.read_text(encoding="utf-8"))["urls"]}
    modules = {t.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for t in targets}
    for target, source in json.loads(PACKAGE.read_text(encoding="utf-8"))["urls"]:
        for name in _local_imports((PACKAGE.parent / source).resolve()):
            top = name.split(".")[0]
            if top in ("companion", "nodeapp", "board", "mdns"):
                assert name in modules or name.rsplit(".", 1)[0] in modules, f"{target} imports {name}"
    assert {"nodeapp", "board", "mdns", "companion.core.node", "companion.core.serial_lines"} <= modules
    assert "import nodeapp" in (MPY / "main.py").read_text()  # main.py (at the root) starts the /lib program


def test_deploy_copies_exactly_the_package_files_under_lib(tmp_path):
    import json

    files = deploy.stage(MPY / "config.example.py", tmp_path / "s", discovery=True)
    under_lib = {f.relative_to("lib").as_posix() for f in files if f.parts[0] == "lib"}
    assert under_lib == {target for target, _ in json.loads(PACKAGE.read_text(encoding="utf-8"))["urls"]}
    assert {f.as_posix() for f in files if f.parts[0] != "lib"} == {"boot.py", "main.py", "config.py"}
    without = deploy.stage(MPY / "config.example.py", tmp_path / "t", discovery=False)
    assert "lib/mdns.py" not in {f.as_posix() for f in without} and len(without) == len(files) - 1


def test_a_broken_package_file_is_named(tmp_path):
    broken = tmp_path / "package.json"
    broken.write_text('{"urls": [["nodeapp.py"]]}')
    with pytest.raises(deploy.DeployError, match="is not a mip package file"):
        deploy.package(broken)
    missing = tmp_path / "package2.json"
    missing.write_text('{"urls": [["gone.py", "gone.py"]], "deps": []}')
    with pytest.raises(deploy.DeployError, match="gone.py \\(for gone.py\\) does not exist"):
        deploy.lib_files(discovery=False, path=missing)
