"""The append-only log of a game, in memory and optionally on disk.

On disk it is JSON Lines. The first line is the header: the log format, the table's
setup, the game's starting state and the rules version; each further line is one
event (see :mod:`companion.table.events`). The events of one transaction are written
together and flushed (and fsynced by default) before the hub answers the node, so an
accepted flip survives a crash of the hub.

Group commit: :meth:`EventLog.write` writes a transaction's lines without syncing and
:meth:`EventLog.sync` makes everything written so far durable with one fsync, so reports that
arrive together share it (``TableSession.handle_batch``). Events count as logged
(:meth:`EventLog.events`) only once synced; a write or sync that fails cuts the file back to
what was synced before, so nothing of it is left half on disk.

One writer at a time: the log file is locked (``flock``, exclusive) while a hub has it open,
and a second hub that tries to open it, on this machine or through shared storage that
honours the lock, gets :class:`LogInUseError` (see docs/club.md).

Logs written in formats 1 and 2 are migrated when read (:mod:`companion.table.migrate`): their
actions are replayed once through today's rules, which turns them into today's facts.
``open_existing`` keeps the old file beside the new one.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from companion.errors import CompanionError, InvalidRecordError
from companion.rules.codec import Codec
from companion.rules.setup import TableSetup
from companion.table import events as ev
from companion.table import migrate

FORMAT = 3
"""The log format this hub writes."""


class LogInUseError(CompanionError, BlockingIOError):
    """Another running hub holds this game log (one writer at a time)."""


class StorageError(CompanionError, OSError):
    """A game log could not be started: its disk is full or failing (``errno``/``strerror`` say which)."""

    def __init__(self, message: str, cause: OSError) -> None:
        super().__init__(cause.errno, cause.strerror)
        self.message = message

    def __str__(self) -> str:
        return self.message


def describe_failure(path: Path, exc: OSError) -> str:
    """One line on why ``path`` could not be written."""
    import errno

    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk holding {path} is full ({exc.strerror}): free some space, then start again"
    return f"cannot write {path}: {exc.strerror or exc}"


LOCK_WAIT_S = 1.0
"""How long opening a log waits for its lock: a live hub holds it for good, but a process forked by
another thread of this one (a subprocess being started) holds a copy of an open log's file for the
moment until it runs its program, and that must not look like another hub."""


def _open_locked(path: Path) -> IO[bytes]:
    """Open ``path`` for appending (unbuffered: what a write leaves is on the file, or cut from it)
    and take its exclusive lock, or raise :class:`LogInUseError`."""
    fh = open(path, "ab", buffering=0)
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fh
        except BlockingIOError:
            if time.monotonic() < deadline:
                time.sleep(0.02)
                continue
            fh.close()
            raise LogInUseError(
                f"the game log {path} is open in another running hub; stop that hub first "
                "(only one hub may write a log)"
            ) from None
        except OSError:  # a file system without locks: go on unlocked rather than not at all
            return fh


def codec_of(setup: TableSetup) -> Codec:
    from companion.games import find_game

    return find_game(setup.game).codec


@dataclass(frozen=True)
class SavedGame:
    """A log read back: everything needed to fold the game again."""

    setup: TableSetup
    start: Any
    """The game's starting state."""
    events: list[ev.Event]
    rules: int = 0
    migrated_from: int | None = None
    """The format the game was first written in, when it was migrated."""
    converted: bool = False
    """True when this reading converted an old format (the file itself is still in it)."""
    notes: list[str] = field(default_factory=list)
    """What reading the log had to do (a torn last line, a migration)."""


class EventLog:
    """Events in the order the hub accepted them."""

    def __init__(
        self,
        setup: TableSetup,
        path: Path | None = None,
        *,
        fsync: bool = True,
        start: Any = None,
        rules: int = 0,
        codec: Codec | None = None,
        events: list[ev.Event] | None = None,
        migrated_from: int | None = None,
    ) -> None:
        self.setup = setup
        self.start = start
        """The game's starting state (folding the log starts from it)."""
        self.rules = rules
        self.path = path
        self.fsync = fsync
        self.codec = codec if codec is not None else codec_of(setup)
        self.migrated_from = migrated_from
        self._events: list[ev.Event] = list(events or [])
        self._pending: list[ev.Event] = []
        """Written but not yet synced (group commit)."""
        self._synced_at = 0
        """File size when everything written was last synced: a failed write or sync cuts back to it."""
        self._lock = threading.Lock()
        self._fh: IO[bytes] | None = None
        self.bytes_written = 0
        self.syncs = 0
        """fsyncs made (with ``len(self)``: how many events each one carried)."""
        self.fsync_fn: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)
        """How a file descriptor is synced (tests inject a hook that records the order). fdatasync
        where there is one: it syncs the lines and the file's length, all a log needs to be read back,
        and skips the times (a tenth less CPU per synced report here, docs/performance.md)."""
        self.sync_s = 0.0
        """A running average of how long an fsync takes here (seconds)."""
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._attach(_open_locked(path))
                if self._synced_at == 0:
                    self._write_records([self.header()])
                    self._sync_file()
            except (
                OSError
            ) as exc:  # a full disk: leave no empty log behind (``--resume latest`` would pick it)
                self._abandon(path)
                if isinstance(exc, CompanionError):
                    raise
                raise StorageError(describe_failure(path, exc), exc) from exc

    @classmethod
    def for_new_game(
        cls, setup: TableSetup, path: Path | None = None, *, fsync: bool = True, referee: Any = None
    ) -> EventLog:
        """A log for a new game of ``setup``: its header holds the game's starting state."""
        from companion.games import find_game

        info = find_game(setup.game)
        referee = referee if referee is not None else info.make_referee(setup)
        return cls(setup, path, fsync=fsync, start=referee.start(setup), rules=info.rules_version)

    def header(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "setup": self.setup.to_dict(),
            "rules": self.rules,
            "game": self.codec.encode(self.start),
        }
        if self.migrated_from is not None:
            out["migrated_from"] = self.migrated_from
        return out

    def __len__(self) -> int:
        return len(self._events)

    def events(self) -> list[ev.Event]:
        """The events synced so far, in order."""
        with self._lock:
            return list(self._events)

    @property
    def pending(self) -> int:
        """Events written and not yet synced."""
        return len(self._pending)

    def append(self, *events: ev.Event) -> None:
        """Log events of one transaction: encoded first, then written and synced once."""
        if not events:
            return
        with self._lock:
            self._write_events(events)
            self._sync_locked()

    def write(self, *events: ev.Event) -> None:
        """Write one transaction's events without syncing; :meth:`sync` makes them durable.

        If writing fails, the file is cut back to where this transaction began (the
        transactions written before it stay, waiting for their sync) and the error is raised.
        """
        if not events:
            return
        with self._lock:
            self._write_events(events)

    def sync(self) -> None:
        """Make every written event durable with one fsync; then they count as logged.

        If the sync fails, everything written since the last sync is cut from the file and
        dropped (none of it was acknowledged) and the error is raised.
        """
        with self._lock:
            self._sync_locked()

    def _write_events(self, events: tuple[ev.Event, ...]) -> None:
        lines = [ev.event_to_dict(event, self.codec) for event in events]
        if self._fh is not None:
            self._write_records(lines)
        self._pending.extend(events)

    def _write_records(self, records: list[dict[str, Any]]) -> None:
        assert self._fh is not None
        data = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode("utf-8")
        before = self._fh.tell()
        try:
            view = memoryview(data)
            while view:
                view = view[self._fh.write(view) or 0 :]
        except BaseException:
            self._cut(before)
            raise
        self.bytes_written += len(data)

    def _sync_locked(self) -> None:
        if not self._pending:
            return
        if self._fh is not None:
            try:
                self._sync_file()
            except BaseException:
                self._pending.clear()
                self._cut(self._synced_at)
                raise
        self._events.extend(self._pending)
        self._pending.clear()

    def _sync_file(self) -> None:
        assert self._fh is not None
        if self.fsync:
            began = time.perf_counter()
            self.fsync_fn(self._fh.fileno())
            self.sync_s += (time.perf_counter() - began - self.sync_s) / 8
            self.syncs += 1
        self._synced_at = self._fh.tell()

    def _cut(self, size: int) -> None:
        """Drop what was written after ``size`` bytes (best effort: the disk may be failing)."""
        assert self._fh is not None
        try:
            os.ftruncate(self._fh.fileno(), size)
            self._fh.seek(size)
        except (OSError, ValueError):
            pass

    def _abandon(self, path: Path) -> None:
        """Close a log whose header could not be written and remove it if nothing is in it."""
        fh, self._fh = self._fh, None
        if fh is None:
            return
        try:
            if os.fstat(fh.fileno()).st_size == 0:
                path.unlink()
        except OSError:
            pass
        finally:
            fh.close()

    def _attach(self, fh: IO[bytes]) -> None:
        fh.seek(0, os.SEEK_END)
        self._fh = fh
        self._synced_at = fh.tell()

    def close(self) -> None:
        """Sync what is written (best effort), close the file and release its lock."""
        with self._lock:
            if self._fh is not None:
                try:
                    self._sync_locked()
                finally:
                    self._fh.close()  # closing releases the flock
                    self._fh = None

    def saved(self) -> SavedGame:
        """What reading this log back would give (encoded and decoded again, as on a resume)."""
        codec = self.codec
        start = codec.decode(json.loads(json.dumps(codec.encode(self.start))))
        events = [
            ev.event_from_dict(json.loads(json.dumps(ev.event_to_dict(e, codec))), codec)
            for e in self.events()
        ]
        return SavedGame(self.setup, start, events, self.rules, self.migrated_from)

    @classmethod
    def open_existing(cls, path: Path, *, fsync: bool = True) -> EventLog:
        """Reopen a log written earlier, to go on with its game.

        A torn last line is cut off before anything is appended. A log of an older
        format is migrated: the old file is kept as ``<name>.v<N>-backup`` and the
        migrated log takes its place.
        """
        held = _open_locked(path)  # before reading: no other hub may write while this one cuts or reads
        try:
            saved = read_log(path)
            if saved.converted:
                backup = path.with_name(f"{path.stem}.v{saved.migrated_from}-backup")
                os.replace(path, backup)
                log: EventLog | None = None
                try:
                    log = cls(
                        saved.setup,
                        path,
                        fsync=fsync,
                        start=saved.start,
                        rules=saved.rules,
                        migrated_from=saved.migrated_from,
                    )
                    log.append(*saved.events)
                except OSError as exc:  # no room for the migrated copy: the old file goes back
                    if log is not None and log._fh is not None:
                        log._fh.close()
                        log._fh = None
                    path.unlink(missing_ok=True)
                    os.replace(backup, path)
                    if isinstance(exc, CompanionError):
                        raise
                    raise StorageError(describe_failure(path, exc), exc) from exc
                held.close()
                return log
            _cut_torn_line(path)
        except BaseException:
            held.close()
            raise
        log = cls(saved.setup, None, fsync=fsync, start=saved.start, rules=saved.rules, events=saved.events)
        log.path = path
        log._attach(held)
        return log


def _cut_torn_line(path: Path) -> None:
    """Drop a last line without its newline (a write the crash cut short), so appends start clean."""
    with open(path, "rb+") as fh:
        data = fh.read()
        if data and not data.endswith(b"\n"):
            fh.truncate(data.rfind(b"\n") + 1)
            fh.flush()
            os.fsync(fh.fileno())


def last_event_time(events: list[ev.Event]) -> float:
    """Game time of the latest event (0 for none): a resumed clock starts there."""
    return max((e.at_s for e in events), default=0.0)


# --- where logs are, and which is the newest ------------------------------------------------------

SEQUENCE_DIGITS = 6
LOG_NAME = re.compile(r"^(?P<table>[a-z0-9_-]+?)-(?:(?P<seq>\d{6,})-)?(?P<date>\d{8}-\d{6})(?:-\d+)?$")
"""A log's file name without ``.jsonl``: ``<table>-<seq>-<date>-<time>``; logs written before the
sequence number was added have none (``<table>-<date>-<time>``, a ``-<n>`` for two in one second)."""


def _name_of(table: str | None) -> re.Pattern[str]:
    if table is None:
        return LOG_NAME
    return re.compile(LOG_NAME.pattern.replace("(?P<table>[a-z0-9_-]+?)", f"(?P<table>{re.escape(table)})"))


def log_order(path: Path, *, table: str | None = None) -> tuple[int, str]:
    """Where a log comes in its folder's order, oldest first: by its sequence number (logs from
    before there was one come first), then by name. Never by the date in the name: a clock that
    stepped back (a Pi without a real-time clock, before NTP) would put a new game before old ones.
    ``table``: the log's table, when known (a table name may itself end in digits)."""
    found = _name_of(table).match(path.stem)
    seq = found.group("seq") if found else None
    return (int(seq) if seq else 0, path.name)


def _sequence_of(path: Path) -> int:
    return log_order(path)[0]


def new_log_path(folder: Path, table: str, *, wall: Callable[[], float] = time.time) -> Path:
    """Name and create (empty) the log of a new game of ``table`` in ``folder``:
    ``<table>-<seq>-<date>-<time>.jsonl``, ``seq`` one more than any log in the folder has, so
    the folder's order is the order games began whatever the clock said; the date is the wall
    clock's (``wall``), for people. Created exclusively: two hubs never get the same file."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(wall()))
    seq = 1 + max((_sequence_of(p) for p in folder.glob("*.jsonl")), default=0)
    while True:
        path = folder / f"{table}-{seq:0{SEQUENCE_DIGITS}d}-{stamp}.jsonl"
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            return path
        except FileExistsError:  # another hub took this number a moment ago
            seq += 1


def _has_header(path: Path) -> bool:
    """Whether a log got as far as its first line (a start that failed leaves an empty file or a
    cut-off header, which holds no game)."""
    try:
        with open(path, "rb") as fh:
            return b"\n" in fh.read(1 << 20)
    except OSError:
        return False


def table_logs(data_dir: Path, table: str) -> list[Path]:
    """The game logs of ``table`` in ``data_dir``, oldest first (:func:`log_order`)."""
    pattern = _name_of(table)
    logs = [p for p in (data_dir / "tables").glob(f"{table}-*.jsonl") if pattern.match(p.stem)]
    return sorted(logs, key=lambda p: log_order(p, table=table))


def latest_log(data_dir: Path, table: str) -> Path:
    """The newest game log of ``table`` in ``data_dir`` by the folder's own order, passing over
    logs that never got their first line (nothing was played in them)."""
    for path in reversed(table_logs(data_dir, table)):
        if _has_header(path):
            return path
    raise InvalidRecordError(f"no saved game of table {table!r} in {data_dir / 'tables'}")


def read_log(path: Path) -> SavedGame:
    """Read a log file. A torn last line (a crash mid-write) is ignored; other damage is an error."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidRecordError(f"cannot read event log {path}: {exc.strerror or exc}") from exc
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InvalidRecordError(f"event log {path} is not UTF-8 text") from exc
    if not lines:
        raise InvalidRecordError(f"event log {path} is empty")
    records = []
    notes = []
    if not raw.endswith(b"\n") and len(lines) > 1:
        # the write was cut before its newline: no node was told it was accepted
        notes.append(f"line {len(lines)} was cut short by a crash and is left out")
        lines = lines[:-1]
    for number, line in enumerate(lines, start=1):
        try:
            records.append(json.loads(line))
        except (json.JSONDecodeError, RecursionError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "it is nested too deeply"
            raise InvalidRecordError(f"event log {path} line {number} is not valid JSON: {reason}") from None
    head = records[0]
    if not isinstance(head, dict) or "setup" not in head:
        raise InvalidRecordError(f"event log {path} does not start with a setup line")
    setup = TableSetup.from_dict(head["setup"])
    try:
        version = head.get("format", 1)
        if version in (1, 2):
            saved = _migrated(setup, version, records[1:], path)
        else:
            saved = _read(setup, head, records[1:], path)
    except CompanionError:
        raise
    except Exception as exc:  # a log that names things this version does not know
        raise InvalidRecordError(f"event log {path} cannot be read by this version: {exc}") from None
    saved.notes[:0] = notes
    return saved


def _read(setup: TableSetup, head: dict[str, Any], records: list[Any], path: Path) -> SavedGame:
    if head.get("format") != FORMAT:
        raise InvalidRecordError(
            f"event log {path} has format {head.get('format')!r}; this hub reads {FORMAT} and older"
        )
    codec = codec_of(setup)
    start = codec.decode(head.get("game"))
    events = []
    for number, record in enumerate(records, start=2):
        try:
            events.append(ev.event_from_dict(record, codec))
        except InvalidRecordError as exc:
            raise InvalidRecordError(f"event log {path} line {number}: {exc}") from exc
    rules = head.get("rules", 0)
    migrated = head.get("migrated_from")
    return SavedGame(setup, start, events, rules if isinstance(rules, int) else 0, migrated)


def _migrated(setup: TableSetup, version: int, records: list[Any], path: Path) -> SavedGame:
    """A log of format 1 or 2, its actions replayed once through today's rules (see :mod:`.migrate`)."""
    items = migrate.old_items(records, path, codec=codec_of(setup), version=version)
    start, events, rules = migrate.replayed(setup, items, path)
    notes = [
        f"written in format {version}: its game actions were replayed once through the rules (version "
        f"{rules}) and kept as facts"
    ]
    return SavedGame(setup, start, events, rules, migrated_from=version, converted=True, notes=notes)
