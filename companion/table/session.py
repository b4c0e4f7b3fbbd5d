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
from typing import Any

from companion.clock import Clock
from companion.core.protocol import Message as NodeMessage
from companion.rules.outcome import Decision, Rejected
from companion.rules.referee import Referee
from companion.rules.setup import TableSetup
from companion.rules.text import Text
from companion.table import commands as cmd
from companion.table import events as ev
from companion.table import messages as msg
from companion.table import storage
from companion.table.decide import Outcome, decide, table_state, undo_note, undo_plan
from companion.table.log import EventLog
from companion.table.model import ActionRefused, Table, TableReset, table_from_log
from companion.table.nodes import NodeLink
from companion.table.state import TableState
from companion.table.views import MessageStats, RecentEvents, TableViews

log = logging.getLogger(__name__)

Listener = Callable[[str, dict[str, Any]], None]
"""Called with ``("change", {"version", "events", "commands"})`` after every transaction that changed
something, ``("stats", {...})`` for a refused message, and ``("cue", payload)`` / ``("shutdown", {})``
for broadcasts."""

LogFactory = Callable[[TableSetup, Any, int], EventLog]
"""Opens the log of a new game: (setup, starting game state, rules version)."""


def _logged(outcome: Outcome) -> list[ev.Event]:
    """The events of ``outcome`` that go into the log (not the live-only changes)."""
    return [e for e in outcome.events if type(e).__name__ in ev.EVENT_TYPES]  # type: ignore[misc]


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

    def __init__(self, *, every_s: float = 300.0, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self._monotonic = monotonic
        self._seen: dict[tuple[str, str], list[float]] = {}
        """(category, reason) -> [when last said, times since]"""

    def warn(self, category: str, reason: str) -> None:
        now = self._monotonic()
        key = (category, reason)
        seen = self._seen.get(key)
        if seen is None:
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
    """One table being played: thread-safe, driven by node messages, API calls and a ticker."""

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

    @property
    def nodes(self) -> dict[str, NodeLink]:
        """Nodes sitting in a seat of the current setup."""
        table = self._table
        return {seat.node: table.link(seat.node) for seat in table.setup.seats}

    @property
    def unpaired(self) -> dict[str, NodeLink]:
        """Nodes heard from that sit in no seat (candidates for pairing), most recent last."""
        return {link.node: link for link in self._table.unpaired()}

    @property
    def pairing(self) -> Any:
        return self._table.pairing

    @property
    def seat_request(self) -> tuple[str, int] | None:
        return self._table.seat_request

    @property
    def intents(self) -> dict[str, dict[str, Any]]:
        return dict(self._table.intents)

    @property
    def refusals(self) -> dict[str, dict[str, Any]]:
        return {player: refusal.to_dict() for player, refusal in self._table.refusals.items()}

    def add_listener(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def announce(self, kind: str) -> None:
        """Wake every listener without a change (e.g. ``shutdown`` to end live streams)."""
        self.broadcast(kind, {})

    def broadcast(self, kind: str, data: dict[str, Any]) -> None:
        """Pass something that is not table state to every listener (e.g. an audio ``cue``)."""
        if kind == "shutdown":
            self.clock_changed.set()
        for listener in list(self._listeners):
            try:
                listener(kind, data)
            except Exception:  # a broken listener must not break the table
                log.exception("listener failed on %s", kind)

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
            if isinstance(event, ActionRefused) or type(event).__name__ in ev.EVENT_TYPES:
                self.recent.add(event, setup)  # type: ignore[arg-type]
        self._table = outcome.table
        for name in outcome.counts:
            self.stats.count(name)
        for category, reason in outcome.rejects:
            self.stats.reject(category, reason, topic=None, at_s=now)
            self.warnings.warn(category, reason)
        if outcome.events or outcome.commands:
            if any(isinstance(e, (*ev.CLOCK_EVENTS, TableReset)) for e in outcome.events):
                self.clock_changed.set()
            self.broadcast(
                "change",
                {
                    "version": outcome.table.version,
                    "events": outcome.events,
                    "commands": outcome.commands,
                },
            )
        elif outcome.rejects:
            self.broadcast("stats", {"category": outcome.rejects[0][0]})

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
            elif type(event).__name__ in ev.EVENT_TYPES:
                batch.append(event)  # type: ignore[arg-type]
        self.log.append(*batch)

    # --- messages from nodes ---------------------------------------------------------------
    def reject_message(self, category: str, reason: str, *, topic: str | None = None) -> None:
        """Count a message that could not be used; the state stays as it was."""
        with self._lock:
            self.stats.reject(category, reason, topic=topic, at_s=self.clock.now_s())
            self.warnings.warn(category, f"{reason} (on {topic})")
        self.broadcast("stats", {"category": category, "reason": reason})

    def node_status(self, node: str, *, online: bool) -> None:
        """A node's retained availability changed (or its last will was published)."""
        self.handle(msg.NodeStatus(node, online))

    def node_message(self, node: str, message: NodeMessage) -> list[cmd.Command]:
        """Apply one validated event message from ``node``; return the commands it caused, in order."""
        return list(self.handle(msg.NodeReport(node, message)).commands)

    def broker_status(self, *, online: bool, detail: Text | str = "") -> None:
        """The hub's connection to its broker came up or went down."""
        self.handle(msg.BrokerStatus(online, detail))

    def command_node(self, node: str, what: str) -> Rejected | None:
        """Ask a node to ``restart`` or to ``identify`` itself."""
        return self.handle(msg.NodeCommand(node, what)).refusal

    # --- a new game: setup and pairing ------------------------------------------------------
    def begin_pairing(self, setup: TableSetup) -> None:
        """Start pairing the seats of ``setup`` (whose node ids are ignored) by flips, in seat order."""
        if setup.table != self.setup.table:
            raise ValueError("a new game keeps the table id")
        make_referee(setup)  # the game's data is read now, and a setup it cannot play is refused now
        self.handle(msg.BeginPairing(setup))

    def cancel_pairing(self) -> None:
        self.handle(msg.CancelPairing())

    def reset(self, setup: TableSetup) -> None:
        """Start a new game at this table with ``setup`` (same table id), keeping what is known of nodes."""
        if setup.table != self.setup.table:
            raise ValueError("a new game keeps the table id")
        refused = self.handle(msg.NewGame(setup)).refusal
        if refused is not None:
            raise ValueError(refused.reason)

    # --- hub controls ------------------------------------------------------------------------
    def _clock(self, action: str, at_s: float | None = None) -> ev.Event | Rejected:
        outcome = self.handle(msg.ClockCommand(action, at_s))
        if outcome.refusal is not None:
            return outcome.refusal
        return next(e for e in outcome.events if isinstance(e, ev.CLOCK_EVENTS))

    def start_clock(self) -> ev.Event | Rejected:
        return self._clock("start")

    def pause_clock(self) -> ev.Event | Rejected:
        return self._clock("pause")

    def resume_clock(self) -> ev.Event | Rejected:
        return self._clock("resume")

    def abort_clock(self) -> ev.Event | Rejected:
        return self._clock("abort")

    def pause_after_restart(self) -> ev.Event | None:
        """A resumed game whose master clock was running is paused: the hub was away,
        so the players decide when it goes on."""
        if self.state.clock.phase != "running":
            return None
        result = self._clock("pause", at_s=self.state.last_at_s)  # the hub was away from here on
        return None if isinstance(result, Rejected) else result

    def tick(self) -> float | None:
        """Apply what is due (the master clock running out); return game seconds to the next deadline."""
        outcome = self.handle(msg.Tick())
        if not outcome.table.storage.ok:
            return (
                None  # nothing is due until the log can be written: the ticker's plain wait paces the retries
            )
        deadlines = [held.due_s for held in outcome.table.held.values()]
        if outcome.table.state.clock.expires_at_s is not None:
            deadlines.append(outcome.table.state.clock.expires_at_s)
        return max(0.0, min(deadlines) - self.clock.now_s()) if deadlines else None

    # --- undo ----------------------------------------------------------------------------------
    def undo_preview(self) -> Text | None:
        """What an undo would take back, in words, or None when there is nothing it could undo now."""
        plan = undo_plan(self._table)
        return None if isinstance(plan, Rejected) else undo_note(plan[0])

    def undo(self, step: int | None = None) -> ev.StepUndone | Rejected:
        """Take back the latest accepted player step (``step``: the one the host confirmed); refused if
        later steps depend on it or another step is the latest now."""
        outcome = self.handle(msg.Undo(step))
        if outcome.refusal is not None:
            return outcome.refusal
        return next(e for e in outcome.events if isinstance(e, ev.StepUndone))

    # --- players' phones -------------------------------------------------------------------------
    def player_action(self, player: str, action: dict[str, Any]) -> Decision | Rejected:
        """A player tapped an action on their phone: apply it or refuse it with the rule."""
        outcome = self.handle(msg.PlayerAction(player, action))
        if outcome.refusal is not None:
            return outcome.refusal
        assert outcome.decision is not None
        return outcome.decision

    def set_intent(self, player: str, node: str, intent: dict[str, Any] | None) -> Rejected | None:
        """Remember what ``player`` wants their timer ``node`` to do at its next flip."""
        return self.handle(msg.ChooseIntent(player, node, intent)).refusal

    # --- views ---------------------------------------------------------------------------------
    def table_state_fields(self) -> dict[str, Any]:
        """Fields of the retained table-state message for nodes."""
        return table_state(self._table, now_s=self.clock.now_s()).fields

    def table_state_command(self) -> cmd.PublishTableState:
        return table_state(self._table, now_s=self.clock.now_s())

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
