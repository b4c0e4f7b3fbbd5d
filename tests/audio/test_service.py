"""The hub-facing cue service: settings → sound files, engine, dashboard payloads and local playback."""

from __future__ import annotations

import sys
from pathlib import Path

from companion.audio.service import CueService
from companion.audio.settings import CueSettings
from companion.table import events as ev

from .sim import ClockSim

RECORDING_PLAYER = "import sys; open(sys.argv[1], 'a').write(sys.argv[-1] + '\\n')"


def run_game(sim: ClockSim, service: CueService) -> None:
    service.update(sim.master)
    sim.start()
    for _ in range(1000):
        service.update(sim.master)
        wait = service.next_deadline_s(sim.master)
        if wait is None:
            return
        sim.advance(wait)
    raise AssertionError("the game never ended")


def test_a_game_feeds_the_dashboard_and_the_speaker(tmp_path: Path) -> None:
    calls = tmp_path / "calls.log"
    settings = CueSettings.from_mapping(
        {
            "language": "de",
            "speech": False,
            "local_playback": True,
            "announce_every_s": 100,
            "final_countdown_s": 2,
            "disabled": ["buzz"],
            "player_command": [sys.executable, "-c", RECORDING_PLAYER, str(calls)],
        }
    )
    sim = ClockSim(150)
    payloads: list[dict] = []
    service = CueService(settings, clock=sim.clock, sounds_dir=tmp_path / "sounds", emit=payloads.append)
    run_game(sim, service)
    assert [(p["name"], p["text"]) for p in payloads] == [
        ("start", "Das Spiel beginnt."),
        ("remaining", "Noch eine Minute und 40 Sekunden."),
        ("warning", "Noch eine Minute."),
        ("countdown", ""),
        ("countdown", ""),
        ("end", "Die Zeit ist um."),
    ]
    # A length nobody prepared got its announcement file built on the fly.
    assert (tmp_path / "sounds" / "de" / "minutes_seconds_left-1-40.wav").exists()
    assert service.on_table_event(ev.TimerEmptied(node="red-1", at_s=0), sim.master).name == "chime"
    assert service.rule_broken(sim.master) is None  # buzz is turned off
    assert service.player is not None and service.player.wait_idle(10)
    played = [Path(line).name for line in calls.read_text().splitlines()]
    assert played == [
        "start.wav",
        "minutes_seconds_left-1-40.wav",
        "minutes_left-1.wav",
        "countdown.wav",
        "countdown.wav",
        "end.wav",
        "chime.wav",
    ]
    service.close()


def test_prepare_builds_the_files_before_the_game(tmp_path: Path) -> None:
    service = CueService(CueSettings(speech=False), clock=ClockSim(60).clock, sounds_dir=tmp_path)
    library = service.prepare(45 * 60)
    assert {"minutes_left-40", "minutes_left-25", "start", "chime"} <= set(library.paths)
    assert service.player is None


def test_all_cues_off_sounds_nothing(tmp_path: Path) -> None:
    sim = ClockSim(30)
    payloads: list[dict] = []
    service = CueService(
        CueSettings(enabled=False, speech=False), clock=sim.clock, sounds_dir=tmp_path, emit=payloads.append
    )
    run_game(sim, service)
    assert service.on_table_event(ev.TimerEmptied(node="red-1", at_s=0), sim.master) is None
    assert payloads == []
