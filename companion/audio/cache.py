"""Where cue sounds are cached, and how big the cache may grow.

The sounds are made again whenever they are missing (about a second with speech), so they are a
cache, never data: they live in the user's cache folder, not beside the game logs, and a cache
that is missing, full or read-only only costs that second (the hub builds them in a temporary
folder instead, see :class:`companion.audio.service.CueService`).

The folder is, in order: ``$CACHE_DIRECTORY`` (what systemd's ``CacheDirectory=`` sets for the
hub's service, ``/var/cache/companion``), ``$XDG_CACHE_HOME/companion``, ``~/.cache/companion``;
the sounds go in its ``sounds`` folder, one folder per language. After every build the oldest
files are removed until the whole folder is under :data:`LIMIT_BYTES`, never one the build just
used (a sound removed that another hub still lists is built again at that hub's next build).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

log = logging.getLogger(__name__)

LIMIT_BYTES = 64 * 1024 * 1024
"""The most the sounds cache keeps (the sounds of one language take 1-3 MB; a club of tables with
many clock lengths and languages takes more, and the oldest go first)."""


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """The companion's cache folder (see the module docstring for the order)."""
    env = os.environ if environ is None else environ
    unit = env.get("CACHE_DIRECTORY", "")
    if unit:
        return Path(unit.split(":")[0])  # systemd lists several folders with ':' when the unit names several
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg and Path(xdg).is_absolute():  # the XDG spec: a relative value is to be ignored
        return Path(xdg) / "companion"
    return Path(env.get("HOME") or Path.home()) / ".cache" / "companion"


def sounds_cache(environ: Mapping[str, str] | None = None) -> Path:
    """Where cue sounds are built by default."""
    return cache_root(environ) / "sounds"


def trim(folder: Path, *, limit_bytes: int = LIMIT_BYTES, keep: Iterable[Path] = ()) -> int:
    """Remove the oldest files under ``folder`` (by when they were written) until it holds at most
    ``limit_bytes``, never one of ``keep`` (the sounds in use); return the bytes removed. Best effort:
    a file that cannot be read or removed is left."""
    kept = {Path(p).resolve() for p in keep}
    files: list[tuple[float, int, Path]] = []
    total = 0
    for path in folder.rglob("*"):
        try:
            stat = path.lstat()
        except OSError:
            continue
        if not path.is_file() or path.is_symlink():
            continue
        total += stat.st_size
        files.append((stat.st_mtime, stat.st_size, path))
    removed = 0
    for _, size, path in sorted(files):
        if total - removed <= limit_bytes:
            break
        if path.resolve() in kept:
            continue
        try:
            path.unlink()
        except OSError:
            continue
        removed += size
    if removed:
        log.info("sounds cache %s: removed %d kB of the oldest sounds", folder, removed // 1024)
    return removed
