"""The companion command as a user runs it: help, bad arguments, a real table, resuming a saved game."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from companion.mqtt.broker import free_port

COMMANDS = ["run", "sim", "score", "referee", "bench", "serial-bridge", "address", "node"]


def companion(*args: str, input: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        input=input,
        timeout=60,
        env=env,
    )


def test_help_lists_every_command():
    result = companion("--help")
    assert result.returncode == 0
    for command in COMMANDS:
        assert command in result.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command):
    result = companion(command, "--help")
    assert result.returncode == 0 and "Usage:" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--players", "0"], "Invalid value for '--players'"),
        (["run", "--time-scale", "-2"], "must be a positive number"),
        (["run", "--no-such-flag"], "No such option"),
        (["score", "chess", "x.json"], "'chess' is not one of"),
    ],
)
def test_wrong_arguments_are_explained(args, message):
    result = companion(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--memory", "--broker", "ftp://example"], "must start with mqtt://"),
        (["run", "--memory", "--table", "Bad Table"], "table id 'Bad Table' must be"),
        (["run", "--memory", "--resume", "/nonexistent/game.jsonl"], "cannot read event log"),
    ],
)
def test_bad_settings_give_one_line_and_status_2(args, message):
    result = companion(*args)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert result.stdout == ""


def test_broken_config_file(tmp_path):
    bad = tmp_path / "hub.toml"
    bad.write_text("[hub]\nplayers = = 3\n")
    result = companion("run", "--memory", "--config", str(bad))
    assert result.returncode == 2 and "is not valid TOML" in result.stderr and result.stderr.count("\n") == 1
    bad.write_text("[hub]\nplayerz = 3\n")
    result = companion("run", "--memory", "--config", str(bad))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "unknown key 'playerz' in [hub]; did you mean 'players'?" in result.stderr


def test_broken_game_log_is_refused_before_starting(tmp_path):
    log = tmp_path / "game.jsonl"
    log.write_text('{"setup": {"table": "x"}}\n{"type": "ClockStarted", "at_s": 1, "length_s": 720}\n')
    result = companion("run", "--memory", "--resume", str(log))
    assert result.returncode == 2 and "table setup is incomplete" in result.stderr


def _start_table(data_dir: Path, *extra: str) -> tuple[subprocess.Popen, str, list[str]]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "run",
            "--table",
            f"cli{os.getpid() % 1000}",
            "--data-dir",
            str(data_dir),
            "--port",
            str(port),
            "--mqtt-port",
            str(free_port()),
            "--players",
            "2",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip())
        if line.startswith("Dashboard: "):
            return proc, line.split(" ", 1)[1].strip(), lines
    proc.kill()
    pytest.fail(f"companion run did not print the dashboard: {lines} {proc.stderr.read()}")


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as res:
        return json.loads(res.read())


def _post(url: str) -> dict:
    with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=5) as res:
        return json.loads(res.read())


def _stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    return out


@pytest.mark.broker
def test_run_starts_a_playable_table_and_a_saved_game_resumes(tmp_path):
    proc, url, lines = _start_table(tmp_path)
    try:
        assert any(line.startswith("Simulated sandtimers: 2 players x 2 timers") for line in lines)
        assert any("Game log:" in line for line in lines)
        deadline = time.monotonic() + 10
        while not all(n["online"] for n in _get(url + "api/state")["nodes"]):
            assert time.monotonic() < deadline, "simulated nodes did not come online"
            time.sleep(0.05)
        assert _post(url + "api/clock/start")["ok"]
        assert _post(url + "api/sim/red-1/flip")["ok"]
        deadline = time.monotonic() + 5
        while _get(url + "api/state")["events"] < 2:
            assert time.monotonic() < deadline, "the flip did not arrive"
            time.sleep(0.02)
    finally:
        out = _stop(proc)
    assert "Table stopped." in out

    proc, url, lines = _start_table(tmp_path, "--resume", "latest")
    try:
        assert any(line.startswith("Resumed 2 events") and "master clock: paused" in line for line in lines)
        state = _get(url + "api/state")
        assert state["clock"]["phase"] == "paused"
        assert state["players"][0]["timers"][0]["flips"] == 1
        assert _post(url + "api/clock/resume")["ok"]
    finally:
        _stop(proc)


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--memory", "--game", "chess"], "unknown game 'chess'"),
        (["run", "--memory", "--game", "space-and-time", "--players", "3"], "exactly 2 players"),
        (["run", "--memory", "--game", "time-n-space", "--variant", "speedy"], "has no variant 'speedy'"),
    ],
)
def test_a_game_the_table_cannot_play_is_refused_before_starting(args, message):
    result = companion(*args)
    assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1
