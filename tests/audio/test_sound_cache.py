"""Cue sounds live in the cache folder, bounded, never beside the game logs; a bad cache costs only speed."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from companion.audio.cache import cache_root, sounds_cache, trim
from companion.audio.service import CueService
from companion.audio.settings import CueSettings
from companion.clock import FakeClock
from companion.hub import HubConfig, create_app


def test_the_cache_folder_follows_the_unit_then_xdg_then_home():
    assert cache_root({"CACHE_DIRECTORY": "/var/cache/companion", "XDG_CACHE_HOME": "/x"}) == Path(
        "/var/cache/companion"
    )
    assert cache_root({"CACHE_DIRECTORY": "/var/cache/a:/var/cache/b"}) == Path("/var/cache/a")
    assert cache_root({"XDG_CACHE_HOME": "/home/ana/.xdg"}) == Path("/home/ana/.xdg/companion")
    assert cache_root({"XDG_CACHE_HOME": "relative", "HOME": "/home/ana"}) == Path(
        "/home/ana/.cache/companion"
    )
    assert sounds_cache({"HOME": "/home/ben"}) == Path("/home/ben/.cache/companion/sounds")


def test_a_hub_builds_its_sounds_in_the_cache_not_in_the_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    data = tmp_path / "data"
    app = create_app(HubConfig(table="c1", data_dir=data, audio={"speech": False}), clock=FakeClock())
    service = app.extensions["companion.cues"]
    library = service.prepare(720)
    assert library.directory == tmp_path / "cache" / "companion" / "sounds" / "en"
    assert (library.directory / "start.wav").is_file()
    written = sorted(p.relative_to(data).as_posix() for p in data.rglob("*") if p.is_file())
    assert written and all(name.startswith("tables/") for name in written), written


def test_the_cache_is_trimmed_to_its_limit_oldest_first_keeping_what_is_in_use(tmp_path):
    folder = tmp_path / "sounds"
    old = []
    for n in range(10):
        path = folder / "es" / f"old-{n}.wav"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\0" * 10_000)
        os.utime(path, (time.time() - 1000 + n, time.time() - 1000 + n))
        old.append(path)
    service = CueService(
        CueSettings(speech=False), clock=FakeClock(), sounds_dir=folder, cache_limit_bytes=300_000
    )
    library = service.prepare(720)
    used = sum(p.stat().st_size for p in library.paths.values())
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert total <= 300_000 and all(p.is_file() for p in library.paths.values())
    assert used > 200_000, "the limit leaves room for a few old files only"
    gone = [p for p in old if not p.exists()]
    assert gone and gone == old[: len(gone)], "the oldest go first"
    assert trim(folder, limit_bytes=0, keep=library.paths.values()) > 0
    assert all(p.is_file() for p in library.paths.values()), "never a sound in use"


def test_an_unwritable_cache_only_costs_a_build_in_a_temporary_folder(tmp_path, caplog):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be")
    service = CueService(
        CueSettings(speech=False), clock=FakeClock(), sounds_dir=blocked, cache_limit_bytes=1000
    )
    with caplog.at_level(logging.WARNING):
        library = service.prepare(720)
    assert (library.directory / "start.wav").is_file() and not library.directory.is_relative_to(blocked)
    assert [r.levelname for r in caplog.records] == ["WARNING"] and "for this run" in caplog.text
    assert library.paths and service.prepare(720).directory == library.directory


def test_a_full_disk_under_the_cache_only_costs_a_build_elsewhere(small_disk):
    small_disk.fill()
    service = CueService(
        CueSettings(speech=False),
        clock=FakeClock(),
        sounds_dir=small_disk.path / "sounds",
        cache_limit_bytes=10**6,
    )
    library = service.prepare(720)
    assert not library.directory.is_relative_to(small_disk.path) and (library.directory / "end.wav").is_file()
    leftovers = [p for p in small_disk.path.rglob("*") if p.is_file() and not p.name.startswith(".filler")]
    assert leftovers == [], "no half-written sound or manifest left on the full disk"
