"""The append-only event log of a table, in memory and optionally on disk.

On disk it is JSON Lines: the first line holds the setup, each further line one
event. Every append is flushed (and fsynced by default) before the hub answers
the node, so an accepted flip survives a crash of the hub.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import IO

from companion.errors import InvalidRecordError
from companion.table import events as ev
from companion.table.state import TableSetup


class EventLog:
    """Events in the order the hub accepted them."""

    def __init__(
        self,
        setup: TableSetup,
        path: Path | None = None,
        *,
        fsync: bool = True,
        events: list[ev.Event] | None = None,
    ) -> None:
        self.setup = setup
        self.path = path
        self.fsync = fsync
        self._events: list[ev.Event] = list(events or [])
        self._lock = threading.Lock()
        self._fh: IO[str] | None = None
        if path is not None:
            fresh = not path.exists() or path.stat().st_size == 0
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(path, "a", encoding="utf-8")
            if fresh:
                self._write({"setup": setup.to_dict()})

    def __len__(self) -> int:
        return len(self._events)

    def events(self) -> list[ev.Event]:
        with self._lock:
            return list(self._events)

    def append(self, event: ev.Event) -> None:
        with self._lock:
            if self._fh is not None:
                self._write(ev.event_to_dict(event))
            self._events.append(event)

    def _write(self, data: dict) -> None:
        assert self._fh is not None
        self._fh.write(json.dumps(data, separators=(",", ":")) + "\n")
        self._fh.flush()
        if self.fsync:
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    @classmethod
    def open_existing(cls, path: Path, *, fsync: bool = True) -> EventLog:
        """Reopen a log written earlier, to go on with its game."""
        setup, events = read_log(path)
        log = cls(setup, None, fsync=fsync, events=events)
        log.path = path
        log._fh = open(path, "a", encoding="utf-8")
        return log


def last_event_time(events: list[ev.Event]) -> float:
    """Game time of the latest event (0 for none): a resumed clock starts there."""
    return max((e.at_s for e in events), default=0.0)


def latest_log(data_dir: Path, table: str) -> Path:
    """The newest game log of ``table`` in ``data_dir``."""
    logs = sorted((data_dir / "tables").glob(f"{table}-*.jsonl"))
    if not logs:
        raise InvalidRecordError(f"no saved game of table {table!r} in {data_dir / 'tables'}")
    return logs[-1]


def read_log(path: Path) -> tuple[TableSetup, list[ev.Event]]:
    """Read a log file. A torn last line (a crash mid-write) is ignored; other damage is an error."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InvalidRecordError(f"cannot read event log {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidRecordError(f"event log {path} is not UTF-8 text") from exc
    if not lines:
        raise InvalidRecordError(f"event log {path} is empty")
    records = []
    for number, line in enumerate(lines, start=1):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break  # torn final write
            raise InvalidRecordError(f"event log {path} line {number} is not valid JSON: {exc.msg}") from exc
    head = records[0]
    if not isinstance(head, dict) or "setup" not in head:
        raise InvalidRecordError(f"event log {path} does not start with a setup line")
    setup = TableSetup.from_dict(head["setup"])
    events = []
    for number, record in enumerate(records[1:], start=2):
        try:
            events.append(ev.event_from_dict(record))
        except InvalidRecordError as exc:
            raise InvalidRecordError(f"event log {path} line {number}: {exc}") from exc
    return setup, events
