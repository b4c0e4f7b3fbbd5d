"""A live table: one lock around decide, append, fold and publish.

Every input (a node's report, a tap on a phone, a clock command, a tick) becomes a
message for :func:`~companion.table.decide.decide`; the session logs what comes out,
takes the folded table, counts the statistics and hands the outcome to its
listeners (the MQTT bridge sends the commands in order, the live streams wake up).
Listeners run inside the lock, so they must only queue work, never wait.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.clock import Clock
from companion.rules.referee import Referee
from companion.rules.setup import TableSetup
from companion.table import commands as cmd
from companion.table import events as ev
from companion.table import messages as msg
from companion.table import storage
from companion.table.decide import Outcome, decide
from companion.table.log import EventLog
from companion.table.model import ActionRefused, AnyEvent, Table, TableReset, table_from_log
from companion.table.state import TableState
from companion.table.views import MessageStats, RecentEvents, TableViews

log = logging.getLogger(__name__)


# --- what a session tells its listeners ------------------------------------------------------------


@dataclass(frozen=True)
class Changed:
    """A transaction changed the table (``version``): its events, in order, and the commands for the nodes."""

    version: int
    events: tuple[AnyEvent, ...]
    commands: tuple[cmd.Command, ...]


@dataclass(frozen=True)
class Counted:
    """A message that could not be used was counted (the dashboard's refused messages)."""

    category: str
    reason: str = ""


@dataclass(frozen=True)
class CuePlayed:
    """An audio cue sounds now (for the pages that play it)."""

    payload: dict[str, Any]


@dataclass(frozen=True)
class ShuttingDown:
    """The hub stops: live streams end and threads waiting on the table wake up."""


News = Changed | Counted | CuePlayed | ShuttingDown
Listener = Callable[[News], None]
"""Called inside the session's lock with every piece of news: it must only queue work, never wait."""

LogFactory = Callable[[TableSetup, Any, int], EventLog]
"""Opens the log of a new game: (setup, starting game state, rules version)."""


def _logged(outcome: Outcome) -> list[ev.Event]:
    """The events of ``outcome`` that go into the log (not the live-only changes)."""
    return outcome.logged


def make_referee(setup: TableSetup) -> tuple[Referee[Any], Any, int]:
    """The referee, starting game state and rules version of ``setup``'s game."""
    from companion.games import find_game

    info = find_game(setup.game)
    referee = info.make_referee(setup)
    return referee, referee.start(setup), info.rules_version


class RepeatedWarnings:
    """Warnings about rejected messages, said once and then counted.

    A node that is not paired repeats its heartbeat every 5 s; the terminal says so the first
    time and then, at most once per ``every_s`` real seconds, how many more times it happened.
    """

    NEW_PER_WINDOW = 5
    """New reasons said per category and ``every_s``; more (a thousand made-up node ids, each its own
    reason) are counted and summed up in one line when the next window begins."""

    def __init__(self, *, every_s: float = 300.0, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self._monotonic = monotonic
        self._seen: dict[tuple[str, str], list[float]] = {}
        """(category, reason) -> [when last said, times since]"""
        self._new: dict[str, list[float]] = {}
        """category -> [when its window began, new reasons said in it, new reasons only counted]"""

    def warn(self, category: str, reason: str) -> None:
        now = self._monotonic()
        key = (category, reason)
        seen = self._seen.get(key)
        if seen is None:
            window = self._new.setdefault(category, [now, 0, 0])
            if now - window[0] >= self.every_s:
                if window[2]:
                    log.warning(
                        "rejected %s messages: %d more from other senders in the last %d s were counted, not said",
                        category,
                        window[2],
                        self.every_s,
                    )
                window[:] = [now, 0, 0]
            if window[1] >= self.NEW_PER_WINDOW:
                window[2] += 1
                return
            window[1] += 1
            if len(self._seen) > 1024:  # bounded: forget the oldest
                self._seen.pop(next(iter(self._seen)))
            self._seen[key] = [now, 0]
            log.warning("rejected %s message: %s", category, reason)
            return
        seen[1] += 1
        if now - seen[0] >= self.every_s:
            log.warning(
                "rejected %s message: %s (%d more times since it was first said)", category, reason, seen[1]
            )
            seen[0] = now


class TableSession:
    """One table being played: thread-safe, driven by typed messages (:mod:`companion.table.messages`)
    from the MQTT bridge, the web API and the ticker, all through :meth:`handle` or :meth:`handle_batch`."""

    def __init__(
        self,
        setup: TableSetup,
        *,
        clock: Clock,
        log: EventLog | None = None,
        referee: Referee[Any] | None = None,
        log_factory: LogFactory | None = None,
    ) -> None:
        self.clock = clock
        self._log_factory = log_factory or (lambda s, game, rules: EventLog(s, start=game, rules=rules))
        self._lock = threading.RLock()
        if log is not None:
            if referee is None:
                referee = make_referee(log.setup)[0]
        else:
            if referee is None:
                referee, game, rules = make_referee(setup)
            else:
                game, rules = referee.start(setup), 0
            log = self._log_factory(setup, game, rules)
        self.log = log
        scale = getattr(clock, "scale", 1.0)
        self._table = table_from_log(
            log.setup, log.events(), referee=referee, game=log.start, rules=log.rules, time_scale=scale
        )
        state = self._table.state
        self.warnings = RepeatedWarnings()
        self.storage = storage.StorageGuard()
        """What the session remembers while the log cannot be written."""
        self.stats = MessageStats()
        self.recent = RecentEvents()
        for event in log.events()[-30:]:
            self.recent.add(event, state.setup)
        self.views = TableViews()
        self._listeners: list[Listener] = []
        self.clock_changed = threading.Event()
        """Set when the master clock changes (or on shutdown); the ticker waits on it."""

    # --- observation ---------------------------------------------------------------------
    @property
    def table(self) -> Table:
        """The table as of the latest transaction (one frozen value: read it once, use it whole)."""
        return self._table

    @property
    def setup(self) -> TableSetup:
        """The table's setup, including seats added during the game."""
        return self._table.setup

    @property
    def state(self) -> TableState:
        return self._table.state

    @property
    def referee(self) -> Referee[Any]:
        return self._table.referee

    def add_listener(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def tell(self, news: News) -> None:
        """Pass news that is not a table change to every listener (an audio cue, the hub shutting down)."""
        if isinstance(news, ShuttingDown):
            self.clock_changed.set()
        for listener in list(self._listeners):
            try:
                listener(news)
            except Exception:  # a broken listener must not break the table
                log.exception("listener failed on %s", type(news).__name__)

    # --- the transaction -----------------------------------------------------------------
    def handle(self, message: msg.Message) -> Outcome:
        """Decide ``message``, log what it caused, take the new table and tell the listeners.

        If the log cannot be written, nothing of the message takes effect: the table pauses and
        holds back what must be logged until the disk takes it again (:mod:`companion.table.storage`).
        """
        with self._lock:
            return self._handle_locked(message, self.clock.now_s())

    def _handle_locked(self, message: msg.Message, now: float) -> Outcome:
        if not self._table.storage.ok:
            self._try_storage_again(now)
        outcome = decide(self._table, message, now_s=now, make_referee=make_referee)
        if storage.needs_disk(outcome):
            if self._table.storage.ok:
                try:
                    self._append(outcome)
                except OSError as exc:
                    self._storage_failed(exc, now)
            if not self._table.storage.ok:
                outcome = storage.held_back(self._table, message)
        self._take(outcome, now)
        return outcome

    def _storage_failed(self, exc: OSError, now: float) -> None:
        self._take(self.storage.failed(self._table, exc, now_s=now, where=self.log.path), now)

    def _try_storage_again(self, now: float) -> None:
        """While the log cannot be written: try again (at most once a second); go on if it works."""
        if self.storage.is_probe_due() and self.storage.try_again(self.log) is None:
            self._take(self.storage.recovered(self._table, now_s=now), now)

    def handle_batch(self, messages: Sequence[msg.Message]) -> list[Outcome | Exception]:
        """Decide ``messages`` in order as :meth:`handle` would, with one fsync for all (group commit).

        Under the lock each message is decided on the table the ones before it made and its
        events are written to the log without syncing; then one sync makes them all durable,
        and only then does each outcome become the table and reach the listeners, in order, so
        no ack leaves before its line is on disk. A message that fails (in deciding or writing)
        gets its exception in the result and takes no effect; the others go on. If the sync
        fails, none of the messages written since the last sync take effect. A message that
        starts a new game (a new log) closes the group before it and is its own transaction.
        """
        results: list[Outcome | Exception] = []
        with self._lock:
            group: list[tuple[int, msg.Message, Outcome, float]] = []
            for message in messages:
                index = len(results)
                now = self.clock.now_s()
                try:
                    if not group and not self._table.storage.ok:
                        self._try_storage_again(now)
                    table = group[-1][2].table if group else self._table
                    outcome = decide(table, message, now_s=now, make_referee=make_referee)
                    disk = storage.needs_disk(outcome)
                    if disk and (
                        not table.storage.ok or any(isinstance(e, TableReset) for e in outcome.events)
                    ):
                        self._commit(group, results)  # then on its own, on the table the group made
                        group = []
                        outcome = self._handle_locked(message, now)
                    else:
                        try:
                            self.log.write(*_logged(outcome))
                        except OSError as exc:  # the disk is full: what came before is synced, if it can be
                            self._commit(group, results)
                            group = []
                            if self._table.storage.ok:
                                self._storage_failed(exc, now)
                            outcome = self._handle_locked(message, now)
                        else:
                            group.append((index, message, outcome, now))
                    results.append(outcome)
                except Exception as exc:  # this message takes no effect; the next ones go on
                    results.append(exc)
            self._commit(group, results)
        return results

    def _commit(
        self, group: list[tuple[int, msg.Message, Outcome, float]], results: list[Outcome | Exception]
    ) -> None:
        """Sync the group's writes with one fsync, then take each outcome in order. If the sync fails
        because of the disk, none of them took effect: the table holds them back (each message is
        handled again, on the table as it is); on another failure their results become the error."""
        if not group:
            return
        try:
            self.log.sync()
        except OSError as exc:
            if self._table.storage.ok:
                self._storage_failed(exc, group[0][3])
            for index, message, _, now in group:
                results[index] = self._handle_locked(message, now)
            return
        except Exception as exc:
            log.error("could not sync the game log; %d messages take no effect: %s", len(group), exc)
            for index, *_ in group:
                results[index] = exc
            return
        for _, _, outcome, now in group:
            self._take(outcome, now)

    def _take(self, outcome: Outcome, now: float) -> None:
        """The logged (and synced) outcome becomes the table; count it and tell the listeners."""
        setup = outcome.table.setup
        for event in outcome.events:
            if isinstance(event, (ActionRefused, ev.LoggedEvent)):
                self.recent.add(event, setup)
        self._table = outcome.table
        for name in outcome.counts:
            self.stats.count(name)
        for category, reason in outcome.rejects:
            self.stats.reject(category, reason, topic=None, at_s=now)
            self.warnings.warn(category, reason)
        if outcome.events or outcome.commands:
            if any(isinstance(e, (*ev.CLOCK_EVENTS, TableReset)) for e in outcome.events):
                self.clock_changed.set()
            self.tell(Changed(outcome.table.version, outcome.events, outcome.commands))
        elif outcome.rejects:
            self.tell(Counted(outcome.rejects[0][0]))

    def _append(self, outcome: Outcome) -> None:
        """Write and sync the logged events (a new game starts a new log); nothing is kept if writing fails.

        A new game's log is opened before the old one is closed, so a log that cannot be started
        leaves the table with its game and its log as they were."""
        batch: list[ev.Event] = []
        for event in outcome.events:
            if isinstance(event, TableReset):
                self.log.append(*batch)
                batch = []
                new_log = self._log_factory(event.setup, event.game, event.rules)
                self.log.close()
                self.log = new_log
                self.recent.clear()
            elif isinstance(event, ev.LoggedEvent):
                batch.append(event)
        self.log.append(*batch)

    def reject_message(self, category: str, reason: str, *, topic: str | None = None) -> None:
        """Count a message that could not be used (it never reached :meth:`handle`); nothing else changes."""
        with self._lock:
            self.stats.reject(category, reason, topic=topic, at_s=self.clock.now_s())
            self.warnings.warn(category, f"{reason} (on {topic})")
        self.tell(Counted(category, reason))

    # --- views ---------------------------------------------------------------------------------
    def _live(self) -> tuple[Table, dict[str, Any]]:
        with self._lock:  # a moment's copy: the views are built outside the lock
            extra = {"recent": self.recent.newest_first(), "stats": self.stats.to_dict()}
            return self._table, extra

    def snapshot(self, *, live_sand: bool = True) -> dict[str, Any]:
        """Everything the dashboard and ``/api/state`` show, at this moment (``live_sand``: see
        :meth:`TableViews.snapshot`)."""
        table, extra = self._live()
        return self.views.snapshot(table, now_s=self.clock.now_s(), extra=extra, live_sand=live_sand)

    def player_snapshot(self, player: str, *, live_sand: bool = True) -> dict[str, Any] | None:
        """What one player's phone page shows."""
        table, extra = self._live()
        return self.views.player_snapshot(
            table, player, now_s=self.clock.now_s(), extra=extra, live_sand=live_sand
        )


def next_deadline_s(table: Table, *, now_s: float) -> float | None:
    """Game seconds from ``now_s`` to the table's next deadline (a held flip's grace window, the master
    clock running out), or None when nothing is due: the ticker sleeps that long before its next Tick.
    While the log cannot be written nothing is due (a held refusal cannot be flagged): the ticker's
    plain wait paces the retries."""
    if not table.storage.ok:
        return None
    deadlines = [held.due_s for held in table.held.values()]
    if table.state.clock.expires_at_s is not None:
        deadlines.append(table.state.clock.expires_at_s)
    return max(0.0, min(deadlines) - now_s) if deadlines else None
