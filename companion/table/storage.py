"""A table whose game log cannot be written (a full disk): paused, nothing lost, going on when space returns.

The rule: nothing takes effect that is not in the log. So when a write fails,

- the table says so on every page (``Table.storage``, :data:`FULL`) and a running master clock
  pauses. That pause cannot be logged yet: it is kept in memory and written first when the log
  takes writes again, dated when the disk failed;
- while it lasts, every message that would have to be logged is held back: a node's report is
  answered ``retry`` (the node keeps it in its outbox and sends it again, see docs/protocol.md),
  a request from a page is refused with the same sentence, a tick does nothing. Messages that log
  nothing (heartbeats, statuses, pairing flips that complete no seat) go on as usual;
- at most once a :data:`PROBE_EVERY_S` the session tries again: a probe file beside the log
  (:data:`PROBE_BYTES`), then the kept pause. When that works the banner goes, the master clock stays paused for
  the host to resume, and the hub calls for the nodes' reports (``CallForReports``), which are then
  decided once each, dated when they happened on the node.

A warning is said once when the log stops and once when it is back; the failures between are
counted, and said again at most every :data:`REMIND_EVERY_S`.
"""

from __future__ import annotations

import errno
import logging
import os
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from companion.rules.outcome import Rejected
from companion.rules.text import Text, text
from companion.table import commands as cmd
from companion.table import events as ev
from companion.table import messages as msg
from companion.table.decide import Outcome, table_state
from companion.table.log import EventLog, StorageError, describe_failure
from companion.table.model import StorageChanged, StorageHealth, Table, TableReset, fold_table

log = logging.getLogger(__name__)

STORAGE_RULE = text("Storage")
FULL = text("storage full: the game is paused, nothing is lost")
FAILING = text("storage failing: the game is paused, nothing is lost")
"""For a write that failed for another reason than space (a read-only or broken disk)."""

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})

PROBE_EVERY_S = 1.0
"""Real seconds between two tries of a log that could not be written."""
PROBE_BYTES = 64 * 1024
"""What a probe writes (and removes): room for a good while of play, not just one line."""
PAUSE_AFTER_S = 0.001
"""The storage pause is dated this long after the failed write: the report that met the full disk is
stamped at that moment at the latest (made while the clock ran), and must count when it comes again."""
REMIND_EVERY_S = 300.0
"""Real seconds between two reminders in the terminal that the log still cannot be written."""


def message_for(exc: OSError) -> Text:
    """What the pages say about a failed write."""
    return FULL if exc.errno in FULL_ERRNOS else FAILING


def needs_disk(outcome: Outcome) -> bool:
    """Whether taking ``outcome`` writes the log (events to log, or a new game's log to start)."""
    return bool(outcome.logged) or any(isinstance(e, TableReset) for e in outcome.events)


def held_back(table: Table, message: msg.Message) -> Outcome:
    """What ``message`` gets while the log cannot be written: nothing changes; a node's report is
    answered ``retry`` (kept and sent again by the node), a request is refused, a tick does nothing."""
    reason = table.storage.message or FULL
    if isinstance(message, msg.NodeReport):
        report = message.report
        if isinstance(report, (msg.Flipped, msg.Emptied)):
            ack = cmd.Ack(message.node, report.boot, report.seq, "retry", str(reason))
            return Outcome(table, commands=(ack,), counts=("held_for_storage",))
        return Outcome(table)
    if isinstance(message, msg.Tick):
        return Outcome(table)
    return Outcome(table, refusal=Rejected(reason, STORAGE_RULE), counts=("held_for_storage",))


def probe(folder: Path, size: int = PROBE_BYTES) -> None:
    """Write ``size`` bytes to a file in ``folder``, sync and remove it; raise the ``OSError`` if the
    disk cannot take them."""
    path = folder / f".space-check-{os.getpid()}"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            view = memoryview(b"\0" * size)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
    finally:
        try:
            path.unlink()
        except OSError:
            pass


def check_room(folder: Path) -> None:
    """Refuse to start a table whose log folder cannot take a write: :class:`StorageError`, one line."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe(folder)
    except OSError as exc:
        raise StorageError(describe_failure(folder, exc), exc) from exc


class StorageGuard:
    """The session's memory of a log that cannot be written: the kept pause, the counts, the warnings.

    The session calls it under its lock; ``monotonic`` paces the probes and the reminders.
    """

    def __init__(
        self, *, monotonic: Callable[[], float] = time.monotonic, probe: Callable[[Path], None] = probe
    ) -> None:
        self._monotonic = monotonic
        self._probe = probe
        self.owed: list[ev.Event] = []
        """Events folded into the table that the log still has to get, oldest first."""
        self.failures = 0
        """Writes that failed since the log last took one (the first one included)."""
        self.outages = 0
        """Times the log stopped taking writes."""
        self._next_probe = 0.0
        self._last_said = 0.0
        self._failed_at = 0.0

    def failed(self, table: Table, exc: OSError, *, now_s: float, where: object) -> Outcome:
        """The log refused a write: the outcome that shows it and pauses a running master clock."""
        self.outages += 1
        self.failures = 1
        now = self._monotonic()
        self._failed_at = self._last_said = now
        self._next_probe = now + PROBE_EVERY_S
        message = message_for(exc)
        log.warning(
            "%s: cannot write the game log %s (%s); the nodes keep their reports and the hub tries "
            "again every %g s",
            message,
            where,
            exc.strerror or exc,
            PROBE_EVERY_S,
        )
        health = StorageHealth(False, now_s, exc.strerror or str(exc), message)
        events: list[StorageChanged | ev.ClockPaused] = [StorageChanged(health)]
        commands: tuple[cmd.Command, ...] = ()
        if table.state.clock.phase == "running":
            paused = ev.ClockPaused(now_s + PAUSE_AFTER_S)
            events.append(paused)
            self.owed.append(paused)
        for event in events:
            table = fold_table(table, event)
        if len(events) > 1:
            commands = (table_state(table, now_s=now_s),)
        return Outcome(table, tuple(events), commands)

    def is_probe_due(self) -> bool:
        return self._monotonic() >= self._next_probe

    def try_again(self, log_file: EventLog) -> OSError | None:
        """Write a probe beside the log, then what the log is owed; the error if it still cannot.

        The probe comes first: a log file can often take one more line on a full disk (the room left
        in its last block), which would end the pause only for the next write to fail again."""
        self._next_probe = self._monotonic() + PROBE_EVERY_S
        try:
            if log_file.path is not None:
                self._probe(log_file.path.parent)
            if self.owed:
                log_file.append(*self.owed)
                self.owed.clear()
        except OSError as exc:
            self.failures += 1
            now = self._monotonic()
            if now - self._last_said >= REMIND_EVERY_S:
                self._last_said = now
                log.warning(
                    "the game log still cannot be written (%s): %d tries failed in %.0f s",
                    exc.strerror or exc,
                    self.failures,
                    now - self._failed_at,
                )
            return exc
        return None

    def recovered(self, table: Table, *, now_s: float) -> Outcome:
        """The log takes writes again: the banner goes and the nodes are called to send what they kept."""
        log.warning(
            "the game log is written again after %.0f s (%d tries failed); the master clock stays "
            "paused until the host resumes it",
            self._monotonic() - self._failed_at,
            self.failures,
        )
        self.failures = 0
        changed = StorageChanged(replace(StorageHealth(), since_s=now_s))
        return Outcome(fold_table(table, changed), (changed,), (cmd.CallForReports(),))
