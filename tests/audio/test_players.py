"""Local playback: the injected command gets each file, in order, without blocking the caller."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from companion.audio import synth
from companion.audio.cues import cue_schedule
from companion.audio.engine import CueEngine
from companion.audio.library import build_cue_library
from companion.audio.players import LocalPlayer

from .sim import ClockSim

FAKE_APLAY = """
import sys, time
log, mode, wav = sys.argv[1], sys.argv[2], sys.argv[-1]
with open(log, "a") as out:
    out.write(" ".join(sys.argv[3:]) + "\\n")
if mode == "slow":
    time.sleep(0.4)
if mode == "nodevice":
    print("aplay: main:831: audio open error: No such file or directory", file=sys.stderr)
    sys.exit(1)
"""


@pytest.fixture
def fake_aplay(tmp_path: Path):
    script = tmp_path / "fake_aplay.py"
    script.write_text(FAKE_APLAY)
    log = tmp_path / "calls.log"

    def command(mode: str = "ok") -> list[str]:
        return [sys.executable, str(script), str(log), mode, "-q"]

    def calls() -> list[str]:
        return log.read_text().splitlines() if log.exists() else []

    return command, calls


@pytest.fixture
def wav(tmp_path: Path) -> Path:
    return synth.write_wav(tmp_path / "tick.wav", synth.tick())


def test_the_player_runs_the_command_with_the_file(fake_aplay, wav: Path) -> None:
    command, calls = fake_aplay
    player = LocalPlayer(command())
    player.play(wav)
    assert player.wait_idle(10)
    assert calls() == [f"-q {wav}"]
    assert player.failures == 0
    player.close()


def test_default_command_is_aplay_quiet() -> None:
    assert LocalPlayer().command == ("aplay", "-q")
    with pytest.raises(ValueError, match="empty"):
        LocalPlayer(())


def test_play_never_blocks_and_plays_in_order(fake_aplay, tmp_path: Path) -> None:
    command, calls = fake_aplay
    files = [synth.write_wav(tmp_path / f"{n}.wav", synth.tick()) for n in range(3)]
    player = LocalPlayer(command("slow"))
    began = time.monotonic()
    for path in files:
        player.play(path)
    assert time.monotonic() - began < 0.1
    assert player.wait_idle(10)
    assert calls() == [f"-q {path}" for path in files]
    player.close()


def test_no_audio_device_is_logged_not_raised(
    fake_aplay, wav: Path, caplog: pytest.LogCaptureFixture
) -> None:
    command, calls = fake_aplay
    player = LocalPlayer(command("nodevice"))
    player.play(wav)
    player.play(wav)
    assert player.wait_idle(10)
    assert player.failures == 2
    assert len(calls()) == 2
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1, "the problem is reported once, not on every cue"
    assert (
        "could not play tick.wav (no audio device?): aplay: main:831: audio open error" in warnings[0].message
    )
    player.close()


def test_a_missing_player_program_is_logged_not_raised(
    tmp_path: Path, wav: Path, caplog: pytest.LogCaptureFixture
) -> None:
    player = LocalPlayer([str(tmp_path / "no-aplay"), "-q"])
    player.play(wav)
    assert player.wait_idle(10)
    assert player.failures == 1
    assert "cannot run" in caplog.text and "cues are silent" in caplog.text


def test_sounds_that_waited_too_long_are_dropped(
    fake_aplay, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    command, calls = fake_aplay
    files = [synth.write_wav(tmp_path / f"{n}.wav", synth.tick()) for n in range(2)]
    player = LocalPlayer(command("slow"), max_delay_s=0.1)
    player.play(files[0])
    player.play(files[1])  # waits 0.4 s behind the first: stale
    assert player.wait_idle(10)
    assert calls() == [f"-q {files[0]}"]
    assert "dropped cue sound 1.wav" in caplog.text


def test_the_engine_plays_cues_through_the_player(fake_aplay, tmp_path: Path) -> None:
    command, calls = fake_aplay
    schedule = cue_schedule(3)
    library = build_cue_library(tmp_path / "sounds", schedules=[schedule], speech=False)
    player = LocalPlayer(command(), sounds=library)
    sim = ClockSim(3)
    engine = CueEngine(schedule, clock=sim.clock, on_cue=player)
    engine.update(sim.master)
    sim.start()
    while (wait := engine.next_deadline_s(sim.master)) is not None or sim.master.phase == "running":
        sim.advance(wait or 0.0)
        engine.update(sim.master)
    assert player.wait_idle(10)
    names = [Path(line.split()[-1]).name for line in calls()]
    assert names == ["start.wav", "countdown.wav", "countdown.wav", "end.wav"]
    assert player.play_cue(schedule[0]) is True
    player.close()


def test_a_cue_without_a_sound_file_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    player = LocalPlayer(sounds={})
    assert player.play_cue(cue_schedule(60)[0]) is False
    assert "no sound file for cue 'start'" in caplog.text
