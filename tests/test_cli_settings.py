"""Where `companion run` takes its settings from: options, then COMPANION_RUN_* variables, then the
config file, then the defaults; `--check-config` says what it would start; `--version`; `address`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

import companion
from companion.cli import main
from companion.net.addresses import choose_lan_address

REPO = Path(__file__).resolve().parents[1]


def check(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """``companion run --check-config ARGS`` in this process: (exit code, output)."""
    result = CliRunner().invoke(main, ["run", "--check-config", *args], env=env or {})
    return result.exit_code, result.output


@pytest.fixture
def hub_toml(tmp_path: Path) -> Path:
    path = tmp_path / "hub.toml"
    path.write_text(
        '[hub]\ntable = "filetable"\nplayers = 3\nport = 8181\n[broker]\nport = 1999\nembedded = "mosquitto"\n',
        encoding="utf-8",
    )
    return path


def test_the_config_file_sets_what_no_option_gives(hub_toml):
    code, out = check("--config", str(hub_toml))
    assert code == 0, out
    assert "table 'filetable'" in out and "3 players" in out
    assert "pages on 127.0.0.1:8181" in out and "broker embedded mosquitto on port 1999" in out


def test_environment_overrides_the_file_and_options_override_both(hub_toml):
    env = {"COMPANION_RUN_PORT": "8282", "COMPANION_RUN_PLAYERS": "2", "COMPANION_RUN_MQTT_PORT": "2001"}
    code, out = check("--config", str(hub_toml), env=env)
    assert code == 0, out
    assert "pages on 127.0.0.1:8282" in out and "2 players" in out and "port 2001" in out
    assert "table 'filetable'" in out  # not in the environment: the file's
    code, out = check("--config", str(hub_toml), "--port", "8383", "--players", "4", env=env)
    assert "pages on 127.0.0.1:8383" in out and "4 players" in out and "port 2001" in out


def test_the_config_file_itself_can_come_from_the_environment(hub_toml):
    code, out = check(env={"COMPANION_RUN_CONFIG": str(hub_toml)})
    assert code == 0 and "table 'filetable'" in out and f"{hub_toml}: settings OK" in out


def test_flags_from_the_file_and_the_environment(tmp_path):
    path = tmp_path / "hub.toml"
    path.write_text('[hub]\nfull = true\nsimulate = false\n[broker]\nurl = "mqtt://10.0.0.5:1884"\n')
    code, out = check("--config", str(path))
    assert code == 0 and "broker mqtt://10.0.0.5:1884" in out
    code, out = check("--config", str(path), env={"COMPANION_RUN_BROKER": "mqtt://10.0.0.6"})
    assert "broker mqtt://10.0.0.6" in out


def test_memory_and_data_dir_from_file_and_options(tmp_path):
    path = tmp_path / "hub.toml"
    path.write_text(f'[hub]\ndata_dir = "{tmp_path / "file-logs"}"\n')
    assert f"game log {tmp_path / 'file-logs'}" in check("--config", str(path))[1]
    assert "game log in memory" in check("--config", str(path), "--memory")[1]
    path.write_text("[hub]\nmemory = true\n")
    assert "game log in memory" in check("--config", str(path))[1]
    assert (
        f"game log {tmp_path / 'cli-logs'}"
        in check("--config", str(path), "--data-dir", str(tmp_path / "cli-logs"))[1]
    )
    assert "game log in memory" in check("--memory", "--data-dir", str(tmp_path / "cli-logs"))[1]


def test_without_anything_the_defaults(tmp_path):
    code, out = check()
    assert code == 0
    assert "table 'demo'" in out and "4 players" in out and "pages on 127.0.0.1:8080" in out
    assert "broker embedded auto on port 1883" in out


def test_a_bad_environment_variable_is_one_line_naming_it():
    result = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--check-config"],
        env=dict(os.environ, COMPANION_RUN_PORT="eighty"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "environment variable COMPANION_RUN_PORT='eighty'" in result.stderr and "--port" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_config_file_is_one_line_and_starts_nothing(tmp_path):
    path = tmp_path / "hub.toml"
    path.write_text('[hub]\nplayers = "3"\n')
    result = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr
        == f'companion: config {path}: [hub] players must be a whole number, not the string "3"\n'
    )


def test_version_is_the_package_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output == f"companion {companion.__version__}\n"


def test_version_is_written_once(tmp_path):
    """pyproject.toml reads the version from companion/__init__.py; nothing else writes it."""
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert (
        'dynamic = ["version"]' in pyproject and 'version = { attr = "companion.__version__" }' in pyproject
    )
    assert f"## {companion.__version__}" in (REPO / "CHANGELOG.md").read_text(encoding="utf-8")


def test_address_prints_the_network_address_and_a_qr_code(tmp_path):
    path = tmp_path / "hub.toml"
    path.write_text("[hub]\nport = 8765\n")
    expected = choose_lan_address()  # this machine's address, the way `run --lan` chooses it
    result = CliRunner().invoke(main, ["address", "--config", str(path)])
    assert result.exit_code == 0, result.output
    first, *qr = result.output.splitlines()
    assert first.startswith(f"Dashboard on the network: {expected.url(8765)}  ({expected.interface}, ")
    assert len(qr) > 10 and all(set(line) <= set("█▀▄ ") for line in qr)
    plain = CliRunner().invoke(main, ["address", "--no-qr", "--port", "9001"])
    assert plain.output.splitlines() == [first.replace(":8765/", ":9001/")]


def test_address_refuses_an_address_of_another_machine():
    result = CliRunner().invoke(main, ["address", "--lan-address", "203.0.113.77"])
    assert result.exit_code == 2 and "203.0.113.77 is not an address of this machine" in result.output


@pytest.mark.broker
def test_a_table_starts_with_the_files_ports_and_the_environments_table(tmp_path):
    """Not only --check-config: the running table uses the settings from the file and the environment."""
    import signal
    import time

    from companion.mqtt.broker import free_port

    web, mqtt = free_port(), free_port()
    path = tmp_path / "hub.toml"
    path.write_text(
        f'[hub]\nport = {web}\nplayers = 2\nmemory = true\nsimulate = false\n[broker]\nport = {mqtt}\nembedded = "mosquitto"\n'
    )
    env = dict(os.environ, COMPANION_RUN_TABLE=f"envtable{os.getpid() % 1000}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip())
            if line.startswith("Press Ctrl+C"):  # the last line before it waits for the signal
                break
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/state", timeout=5) as answer:
            state = json.loads(answer.read())  # the pages really are on the file's port
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert f"Table 'envtable{os.getpid() % 1000}': embedded mosquitto at mqtt://127.0.0.1:{mqtt}" in lines
    assert f"Dashboard: http://127.0.0.1:{web}/" in lines
    assert not any(line.startswith("Simulated sandtimers") for line in lines)  # simulate = false
    assert [p["name"] for p in state["players"]] and len(state["players"]) == 2


def _run_check(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``companion run --check-config ARGS`` in a process of its own, with only ``env`` of COMPANION_*."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    return subprocess.run(
        [sys.executable, "-m", "companion", "run", "--check-config", "--memory", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, **env},
        cwd=REPO,
    )


def test_a_misspelt_run_variable_is_warned_about_once_with_the_nearest_name():
    result = _run_check(env={"COMPANION_RUN_PROT": "8099", "COMPANION_RUN_PLAYERS": "3"})
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "COMPANION_RUN_PROT" in line]
    assert warnings == [
        "companion: warning: environment variable COMPANION_RUN_PROT is not a setting of companion run "
        "and is ignored; did you mean COMPANION_RUN_PORT?"
    ]
    assert "3 players" in result.stdout and "127.0.0.1:8080" in result.stdout  # the real ones still count
    far = _run_check(env={"COMPANION_RUN_ZZZZZZZZ": "1"})
    assert far.returncode == 0 and "COMPANION_RUN_ZZZZZZZZ is not a setting" in far.stderr
    assert "the variables are COMPANION_RUN_BROKER," in far.stderr  # nothing close: every valid one
    quiet = _run_check(env={"COMPANION_RUN_PORT": "8099", "COMPANION_SIM_TABLE": "x"})
    assert quiet.returncode == 0 and "warning" not in quiet.stderr  # valid, or another command's


def test_an_unknown_game_lists_every_registered_game_and_the_nearest_one():
    from companion.games import TIMERS_ONLY, game_names

    result = _run_check("--game", "time-n-spce", env={})
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert "unknown game 'time-n-spce'; did you mean 'time-n-space'?" in line
    names = [TIMERS_ONLY, *game_names()]  # the registry's names, without importing every game
    assert len(names) >= 6 and line.endswith("the games are: " + ", ".join(names))
    help_text = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--help"], capture_output=True, text=True, timeout=60
    ).stdout
    flat = " ".join(help_text.split())
    assert all(name in flat for name in names)
