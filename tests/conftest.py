"""Shared fixtures: a real mosquitto broker on a free loopback port, unique table ids, a headless
Chromium per browser test module; hypothesis's profile for CI."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from companion.mqtt.broker import MosquittoBroker, find_mosquitto

# CI is a gate: the same commit must give the same verdict, so there hypothesis draws the same
# examples every run. A working tree's `make test` and `make fuzz` draw new ones (docs/testing.md).
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

_table_ids = itertools.count(1)

# Cue sounds go to the cache folder (companion/audio/cache.py): the tests' own, shared by every hub
# they start (processes too), never the user's ~/.cache.
if not os.environ.get("CACHE_DIRECTORY"):
    import atexit
    import shutil
    import tempfile

    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="companion-test-cache-")
    atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)

CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium, driven by Playwright (never a browser Playwright downloads)."""
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def _start_mosquitto() -> MosquittoBroker:
    if find_mosquitto() is None:
        pytest.fail("mosquitto is not installed: apt-get install -y mosquitto (.ci/run does this)")
    broker = MosquittoBroker("127.0.0.1")
    if os.environ.get("COMPANION_MQTT_DEBUG"):
        plain = broker.config_text
        broker.config_text = lambda: plain() + "log_type all\n"  # type: ignore[method-assign]
    return broker.start()


@pytest.fixture(scope="session")
def mosquitto() -> Iterator[MosquittoBroker]:
    """One real broker for the whole run; tests keep apart by using their own table id."""
    broker = _start_mosquitto()
    yield broker
    if os.environ.get("COMPANION_MQTT_DEBUG"):
        print(broker.log_text())
    broker.close()


@pytest.fixture
def fresh_mosquitto() -> Iterator[MosquittoBroker]:
    """A broker of this test's own, for tests that stop or kill it."""
    broker = _start_mosquitto()
    yield broker
    broker.close()


@pytest.fixture
def restartable_mosquitto(tmp_path) -> Iterator[MosquittoBroker]:
    """A broker of this test's own that the test may stop, kill and start again: it comes back on the
    same port with the same persistence folder (``tmp_path/broker``)."""
    if find_mosquitto() is None:
        pytest.fail("mosquitto is not installed: apt-get install -y mosquitto (.ci/run does this)")
    broker = MosquittoBroker("127.0.0.1", persistence_dir=tmp_path / "broker").start()
    yield broker
    broker.close()


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the tests of one module (each module starts its own: while the
    Playwright of a run is open, asyncio takes its loop for the main thread's, and zeroconf, which
    then runs on that loop, would stall in every later test of the process)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: apt-get install -y chromium (.ci/run does this)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield ReusingBrowser(browser)
        browser.close()


class ReusingBrowser:
    """A Chromium whose ``new_page(**options)`` takes a fresh page in a browser context left by a
    closed page with the same options, its cookies and permissions cleared, rather than a new
    context (up to half a second of a core each). A context is taken again only when all its pages
    are closed, so two pages open at once never share cookies; the hubs' origins differ by port,
    and the pages keep nothing but cookies and per-tab session storage. Everything else is the
    Playwright ``Browser``'s own."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser
        self._left: dict[str, list[Any]] = {}

    def new_page(self, **options: Any) -> Any:
        key = repr(sorted(options.items()))
        left = self._left.setdefault(key, [])
        page = None
        while left and page is None:
            context = left.pop()
            try:
                if not context.pages:
                    context.clear_cookies()
                    context.clear_permissions()
                    page = context.new_page()
            except Exception:  # closed by its test (page.context.close())
                continue
        if page is None:
            context = self._browser.new_context(**options)
            page = context.new_page()

        def left_by(_page: Any, context: Any = context) -> None:
            if context not in left:
                left.append(context)

        page.on("close", left_by)
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@pytest.fixture
def table_id() -> str:
    return f"t{os.getpid() % 10000}-{next(_table_ids)}"


def wait_until(
    predicate: Callable[[], object],
    *,
    timeout_s: float = 10.0,
    interval_s: float = 0.005,
    message: str = "condition",
) -> object:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout_s`` real seconds."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s} s waiting for {message}")
        time.sleep(interval_s)


def wait_seated_online(session: Any, *, timeout_s: float = 10.0) -> None:
    """Wait until every node seated at ``session``'s table is online (has said hello)."""
    wait_until(
        lambda: all(link.online for link in session.table.seated_links()),
        timeout_s=timeout_s,
        message="every seated node online",
    )


def flip_for_turn(table: Any, player: str, *, timeout_s: float = 10.0) -> None:
    """``player`` flips their turn timer (the simulated node ``<player>-1``) and their turn starts:
    waits for a turn counted since the flip, as the last turn may still be open."""
    context = lambda: table.app.extensions["companion.session"].state.context  # noqa: E731
    before = context().turns
    table.fleet.nodes[f"{player}-1"].flip()
    wait_until(
        lambda: context().turn_open and context().turns > before,
        timeout_s=timeout_s,
        message=f"{player}'s turn to start",
    )


def replays(session) -> bool:
    """A hub restart rebuilds the same state from the log: written as JSON, read back and folded,
    without asking the rules."""
    from companion.table.state import fold

    saved = session.log.saved()
    return fold(saved.setup, saved.events, saved.start) == session.state


def logged_actions(session) -> list[dict]:
    """The engine actions of every game step in the session's log, in order."""
    from companion.table import events as ev

    return [a for e in session.log.events() if isinstance(e, ev.GameStepped) for a in e.actions]


class SmallDisk:
    """A file system of a test's own (tmpfs), small enough to fill: ``fill()`` takes every free byte,
    ``free()`` gives them back."""

    def __init__(self, path: Path, size_mb: int) -> None:
        self.path = path
        self.size_mb = size_mb
        self._fillers: list[Path] = []

    def fill(self) -> int:
        """Write zeros until the disk refuses (ENOSPC); return how many bytes it took. (Files already
        there may still grow within the last page they hold, as on any file system.)"""
        import errno

        filler = self.path / f".filler-{len(self._fillers)}"
        self._fillers.append(filler)
        taken = 0
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            chunk = memoryview(b"\0" * 65536)
            while True:
                try:
                    taken += os.write(fd, chunk)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    return taken
        finally:
            os.close(fd)

    def free(self) -> None:
        for filler in self._fillers:
            filler.unlink(missing_ok=True)
        self._fillers.clear()

    def free_bytes(self) -> int:
        stat = os.statvfs(self.path)
        return stat.f_bavail * stat.f_frsize


def mount_small_disk(path: Path, size_mb: int) -> SmallDisk:
    """Mount a tmpfs of ``size_mb`` at ``path``; when that is refused, fail as root (and in CI), else
    skip the test saying why (only root may mount it)."""
    import subprocess

    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0755", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        why = done.stderr.strip() or f"mount exited with {done.returncode}"
        message = f"cannot mount a small file system here ({why})"
        if os.environ.get("CI") or os.geteuid() == 0:  # root can mount one: a refusal is a failure
            who = "as root" if os.geteuid() == 0 else "under CI"
            pytest.fail(f"{message}, {who} (CI runs the full-disk tests as root)")
        pytest.skip(f"{message}: the full-disk tests need root, as CI runs them")
    return SmallDisk(path, size_mb)


@pytest.fixture
def small_disk(tmp_path) -> Iterator[SmallDisk]:
    """A 16 MB tmpfs (``.path``) that the test fills and frees; unmounted when it ends."""
    import subprocess

    disk = mount_small_disk(tmp_path / "disk", 16)
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk.path)], capture_output=True)
