"""A live table: the event log, the folded state, the node registry and message counters.

The session is the hub's single authority on game time. Node reports arrive as
validated protocol messages; their node timestamps are mapped onto the hub clock,
decided into events, appended to the log and folded into the state. Every change
is announced to listeners (the live dashboard stream, the MQTT bridge).
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from companion.clock import Clock
from companion.core.protocol import Message
from companion.games.base import Rejected
from companion.table import decide
from companion.table import events as ev
from companion.table.log import EventLog
from companion.table.nodes import NodeInfo
from companion.table.referee import Decision, TableReferee, referee_for
from companion.table.results import explain
from companion.table.state import TableSetup, TableState, apply_event, fold, undone_indexes

log = logging.getLogger(__name__)

Listener = Callable[[str, dict[str, Any]], None]

REJECTION_CATEGORIES = ("malformed", "schema", "unknown_node", "unknown_topic", "wrong_table")


@dataclass(frozen=True)
class Reply:
    """A command the hub sends back to one node (``ack`` or ``config``)."""

    node: str
    kind: str
    fields: dict[str, Any]


class MessageStats:
    """Counts of messages the hub received, refused or ignored as duplicates."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.recent: deque[dict[str, Any]] = deque(maxlen=50)

    def count(self, name: str) -> None:
        self.counts[name] += 1

    def reject(self, category: str, reason: str, *, topic: str | None, at_s: float) -> None:
        self.counts["rejected"] += 1
        self.counts[f"rejected_{category}"] += 1
        self.recent.append({"category": category, "reason": reason, "topic": topic, "at_s": round(at_s, 3)})

    def to_dict(self) -> dict[str, Any]:
        return {"counts": dict(self.counts), "recent_rejections": list(self.recent)}


def describe(event: ev.Event, setup: TableSetup) -> str:
    """One line for the dashboard's list of recent events."""

    def who(node: str) -> str:
        seat = setup.seat_of(node)
        return f"{seat.player} timer {seat.index}" if seat else node

    match event:
        case ev.TimerFlipped(node=n, upper_s=u):
            return f"{who(n)} flipped ({u:.0f} s of sand)"
        case ev.FlipRefused(node=n, reason=r):
            return f"{who(n)} flip refused: {r}"
        case ev.TimerEmptied(node=n):
            return f"{who(n)} ran out"
        case ev.ClockStarted(length_s=length):
            return f"master clock started ({length / 60:g} min)"
        case ev.ClockPaused():
            return "master clock paused"
        case ev.ClockResumed():
            return "master clock resumed"
        case ev.ClockExpired():
            return "master clock ran out: the game is over"
        case ev.ClockAborted():
            return "game ended early"
        case ev.GameActed(note=note, player=player, action=action):
            return note or f"{player or 'game'}: {action.get('type', 'action')}"
        case ev.ActionRefused(player=player, reason=reason):
            return f"{player}: refused: {reason}"
        case ev.StepUndone(note=note):
            return f"undone: {note}"
        case ev.SeatAdded(player=player, index=index):
            return f"{player} timer {index} joined the table"
    return type(event).__name__


MAX_UNPAIRED = 32


@dataclass
class Pairing:
    """Setting up a new game: each seat gets the node that is flipped when the hub asks for it."""

    setup: TableSetup
    """The new game's setup; its seats' nodes are filled in as they are paired."""
    order: list[tuple[str, int]]
    assigned: dict[tuple[str, int], str]

    def current(self) -> tuple[str, int] | None:
        for seat in self.order:
            if seat not in self.assigned:
                return seat
        return None

    def to_dict(self) -> dict[str, Any]:
        current = self.current()
        return {
            "game": self.setup.game,
            "variant": self.setup.variant,
            "current": {"player": current[0], "index": current[1]} if current else None,
            "seats": [{"player": p, "index": i, "node": self.assigned.get((p, i))} for p, i in self.order],
        }


class TableSession:
    """One table being played: thread-safe, driven by node messages, API calls and a ticker."""

    def __init__(
        self,
        setup: TableSetup,
        *,
        clock: Clock,
        log: EventLog | None = None,
        referee: TableReferee | None = None,
        log_factory: Callable[[TableSetup], EventLog] | None = None,
    ) -> None:
        self.clock = clock
        self._log_factory = log_factory or (lambda s: EventLog(s))
        self.log = log if log is not None else self._log_factory(setup)
        self.referee = referee if referee is not None else referee_for(setup)
        self._lock = threading.RLock()
        self._state = fold(self.log.setup, self.log.events(), self.referee)
        self.intents: dict[str, dict[str, Any]] = {}
        """What each player chose on their phone for a timer's next flip, by node (UI state, not logged)."""
        self.refusals: dict[str, dict[str, Any]] = {}
        """The latest refusal per player, for the red message on their phone."""
        self.nodes: dict[str, NodeInfo] = {seat.node: NodeInfo(seat.node) for seat in self.setup.seats}
        """Nodes sitting in a seat of the current setup."""
        self.unpaired: OrderedDict[str, NodeInfo] = OrderedDict()
        """Nodes heard from that sit in no seat (candidates for pairing), most recent last."""
        self.pairing: Pairing | None = None
        self.seat_request: tuple[str, int] | None = None
        """A seat added during the game that waits for its node to be flipped."""
        self._unannounced_shows: list[tuple[str, str]] = []
        self.stats = MessageStats()
        self.recent: deque[dict[str, Any]] = deque(maxlen=30)
        for event in self.log.events()[-30:]:
            self.recent.append(self._recent_entry(event))
        self._listeners: list[Listener] = []
        self._unannounced: list[ev.Event] = []
        self.clock_changed = threading.Event()
        """Set when the master clock changes (or on shutdown); the ticker waits on it."""

    # --- observation ---------------------------------------------------------------
    @property
    def setup(self) -> TableSetup:
        """The table's setup, including seats added during the game."""
        return self._state.setup

    @property
    def state(self) -> TableState:
        with self._lock:
            return self._state

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        try:
            self._listeners.remove(listener)
        except ValueError:
            pass

    def announce(self, kind: str) -> None:
        """Wake every listener without a change (e.g. ``shutdown`` to end live streams)."""
        self._notify(kind, {})

    def broadcast(self, kind: str, data: dict[str, Any]) -> None:
        """Pass something that is not table state to every listener (e.g. an audio ``cue``)."""
        self._call_listeners(kind, data)

    def _notify(self, kind: str, data: dict[str, Any]) -> None:
        with self._lock:
            fresh, self._unannounced = self._unannounced, []
            shows, self._unannounced_shows = self._unannounced_shows, []
        if fresh:  # every accepted event is announced once, with the first notification after it
            self._call_listeners("events", {"events": fresh})
        if shows:
            self._call_listeners("show", {"shows": shows})
        self._call_listeners(kind, data)

    def _call_listeners(self, kind: str, data: dict[str, Any]) -> None:
        if kind in ("clock", "shutdown"):
            self.clock_changed.set()
        for listener in list(self._listeners):
            try:
                listener(kind, data)
            except Exception:  # a broken listener must not break the table
                log.exception("listener failed on %s", kind)

    def _recent_entry(self, event: ev.Event) -> dict[str, Any]:
        entry = ev.event_to_dict(event)
        entry["text"] = describe(event, self.setup)
        return entry

    def _append(self, event: ev.Event) -> None:
        """Log an accepted event and fold it in (caller holds the lock)."""
        self.log.append(event)
        self._state = apply_event(self._state, event, self.referee)
        self.recent.append(self._recent_entry(event))
        self._unannounced.append(event)

    def _append_decision(self, decision: Decision, *, at_s: float, player: str = "") -> None:
        """Log the engine actions of an accepted step (caller holds the lock)."""
        notes = list(decision.notes)
        for i, action in enumerate(decision.actions):
            note = notes[i] if i < len(notes) else ""
            self._append(ev.GameActed(at_s, action, player, note))
        # the referee's state is the fold of the logged actions; check they agree
        if decision.actions and self._state.game != decision.state:
            log.error(
                "replaying the logged actions does not give the referee's state (game %s)", self.setup.game
            )
        self._unannounced_shows.extend(decision.show)
        if decision.add_seat is not None:
            self.seat_request = decision.add_seat
        end = decision.end_clock
        if (
            not end
            and decision.actions
            and self._state.clock.phase in ("running", "paused")
            and self.referee.scores(self._state.game) is not None
        ):
            end = "a winner is known"  # the master clock has nothing left to time
        if end and self._state.clock.phase in ("running", "paused"):
            self._append(ev.ClockExpired(at_s, end))
            self.clock_changed.set()
            step = self.referee.clock_expired(self._state.game)
            if isinstance(step, Decision):
                self._append_decision(step, at_s=at_s)

    def _refuse(self, player: str, reason: str, at_s: float) -> None:
        self.refusals[player] = {"reason": reason, "at_s": round(at_s, 3)}

    # --- messages from nodes ----------------------------------------------------------
    def reject_message(self, category: str, reason: str, *, topic: str | None = None) -> None:
        """Count a message that could not be used; the state stays as it was."""
        with self._lock:
            self.stats.reject(category, reason, topic=topic, at_s=self.clock.now_s())
        log.warning("rejected %s message on %s: %s", category, topic, reason)
        self._notify("stats", {"category": category, "reason": reason})

    def node_status(self, node: str, *, online: bool) -> None:
        """A node's retained availability changed (or its last will was published)."""
        with self._lock:
            info = self.nodes.get(node)
            if info is None:
                reason = f"status of node {node!r}, which is not paired with a seat at this table"
                self.stats.reject("unknown_node", reason, topic=None, at_s=self.clock.now_s())
                log.warning("rejected unknown_node message: %s", reason)
                info = self._remember_unpaired(node)
            info.online = online
            info.last_seen_s = self.clock.now_s()
        self._notify("node", {"node": node, "online": online})

    def node_message(self, node: str, msg: Message) -> list[Reply]:
        """Apply one validated event message from ``node``; return the replies to send."""
        with self._lock:
            now = self.clock.now_s()
            info = self.nodes.get(node)
            kind = msg.kind
            if self.pairing is not None and msg.kind == "flip":
                replies = self._pair_flip(node, msg, now)
                kind = "pairing" if self.pairing is not None else "reset"
                unknown = False
            elif info is None and self.seat_request is not None and msg.kind == "flip":
                replies = self._add_seat(node, msg, now)
                kind = "seat"
                unknown = False
            elif info is None:
                reason = f"node {node!r} is not paired with a seat at this table"
                self.stats.reject("unknown_node", reason, topic=None, at_s=now)
                unpaired = self._remember_unpaired(node)
                unpaired.last_seen_s = now
                unpaired.online = True
                if msg.kind == "hello":
                    unpaired.node_kind, unpaired.firmware = msg.node_kind, msg.firmware
                replies = []
                if msg.kind in ("flip", "empty"):
                    replies.append(
                        Reply(
                            node,
                            "ack",
                            {"boot": msg.boot, "seq": msg.seq, "verdict": "rejected", "reason": reason},
                        )
                    )
                unknown = True
            else:
                unknown = False
                replies = self._node_message_locked(info, msg, now)
        if unknown:
            log.warning(
                "rejected unknown_node message: node %r is not paired with a seat at this table", node
            )
            self._notify("stats", {"category": "unknown_node"})
        elif kind == "reset":  # the last seat was paired: a new game begins
            self._notify("reset", {})
            self._notify("clock", {})
        else:
            self._notify(kind, {"node": node})
        return replies

    def _node_message_locked(self, info: NodeInfo, msg: Message, now: float) -> list[Reply]:
        self.stats.count(msg.kind)
        if msg.boot != info.boot:
            info.new_boot(msg.boot)
        info.clock.observe(msg.t_ms, now)
        info.last_seen_s = now
        info.online = True
        replies: list[Reply] = []
        if msg.kind == "hello":
            info.node_kind = msg.node_kind
            info.firmware = msg.firmware
            want_ms = int(round(self.setup.sand_s * 1000))
            if msg.sand_ms != want_ms:
                replies.append(Reply(info.node, "config", {"sand_ms": want_ms}))
            return replies
        if msg.kind == "heartbeat":
            info.queued = msg.queued
            if msg.get("battery_mv") is not None:
                info.battery_mv = msg.battery_mv
            return replies
        # sequenced: flip or empty
        if msg.seq <= info.last_seq:
            self.stats.count("duplicate")
            verdict, reason = info.verdicts.get(msg.seq, ("accepted", ""))
            return [self._ack(info, msg.seq, verdict, reason)]
        if msg.seq > info.last_seq + 1:
            self.stats.count("sequence_gap")
        info.last_seq = msg.seq
        at = max(info.clock.to_hub(msg.t_ms, now), info.last_at_s)
        info.last_at_s = at
        seat = self.setup.seat_of(info.node)
        assert seat is not None
        if msg.kind == "flip":
            event = decide.decide_flip(
                self._state,
                node=info.node,
                at_s=at,
                upper_s=msg.upper_ms / 1000.0,
                lower_s=msg.lower_ms / 1000.0,
                rules_decide_end=getattr(self.referee, "rules_decide_end", False),
            )
            step: Decision | Rejected = Decision(self._state.game)
            if isinstance(event, ev.TimerFlipped):
                step = self.referee.timer_flipped(
                    self._state.game, seat, intent=self.intents.get(info.node), ran_out=msg.lower_ms == 0
                )
                if isinstance(step, Rejected):
                    event = ev.FlipRefused(info.node, at, event.upper_s, event.lower_s, str(step))
            self._append(event)
            if isinstance(event, ev.FlipRefused):
                self._refuse(seat.player, event.reason, at)
                info.remember(msg.seq, "rejected", event.reason)
                return [self._ack(info, msg.seq, "rejected", event.reason)]
            assert isinstance(step, Decision)
            self._append_decision(step, at_s=at, player=seat.player)
            self.intents.pop(info.node, None)
            self.refusals.pop(seat.player, None)  # an accepted flip clears the red message
        else:
            self._append(ev.TimerEmptied(info.node, at))
            step = self.referee.timer_emptied(self._state.game, seat)
            if isinstance(step, Decision):
                self._append_decision(step, at_s=at)
        info.remember(msg.seq, "accepted", "")
        return [self._ack(info, msg.seq, "accepted", "")]

    @staticmethod
    def _ack(info: NodeInfo, seq: int, verdict: str, reason: str) -> Reply:
        fields: dict[str, Any] = {"boot": info.boot, "seq": seq, "verdict": verdict}
        if reason:
            fields["reason"] = reason[:200]
        return Reply(info.node, "ack", fields)

    def _remember_unpaired(self, node: str) -> NodeInfo:
        info = self.unpaired.pop(node, None) or NodeInfo(node)
        self.unpaired[node] = info
        while len(self.unpaired) > MAX_UNPAIRED:
            self.unpaired.popitem(last=False)
        return info

    # --- a new game: setup and pairing ------------------------------------------------
    def begin_pairing(self, setup: TableSetup) -> None:
        """Start pairing the seats of ``setup`` (whose node ids are ignored) by flips, in seat order."""
        if setup.table != self.setup.table:
            raise ValueError("a new game keeps the table id")
        with self._lock:
            order = [(seat.player, seat.index) for seat in setup.seats]
            self.pairing = Pairing(setup, order, {})
        self._notify("pairing", {})

    def cancel_pairing(self) -> None:
        with self._lock:
            self.pairing = None
        self._notify("pairing", {})

    def _pair_flip(self, node: str, msg: Message, now: float) -> list[Reply]:
        """During pairing a flip names the node of the seat the hub is asking for (caller holds the lock)."""
        pairing = self.pairing
        assert pairing is not None
        reply = {"boot": msg.boot, "seq": msg.seq, "verdict": "accepted"}
        if node in pairing.assigned.values():
            return [Reply(node, "ack", reply)]
        current = pairing.current()
        assert current is not None
        pairing.assigned[current] = node
        info = self.nodes.get(node) or self.unpaired.get(node) or self._remember_unpaired(node)
        info.online, info.last_seen_s = True, now
        replies = [Reply(node, "ack", reply), Reply(node, "show", {"pattern": "identify"})]
        if pairing.current() is None:
            self._finish_pairing()
        return replies

    def _add_seat(self, node: str, msg: Message, now: float) -> list[Reply]:
        """The flip of an unseated node while a seat is waiting: that node takes it (caller holds the lock)."""
        assert self.seat_request is not None
        player, index = self.seat_request
        self.seat_request = None
        self._append(ev.SeatAdded(now, player, index, node))
        info = self.unpaired.pop(node, None) or NodeInfo(node)
        info.new_boot(msg.boot)
        info.online, info.last_seen_s, info.last_seq = True, now, msg.seq
        info.remember(msg.seq, "accepted", "")
        self.nodes[node] = info
        return [
            Reply(node, "ack", {"boot": msg.boot, "seq": msg.seq, "verdict": "accepted"}),
            Reply(node, "show", {"pattern": "identify"}),
            Reply(node, "config", {"sand_ms": int(round(self.setup.sand_s * 1000))}),
        ]

    def _finish_pairing(self) -> None:
        pairing = self.pairing
        assert pairing is not None
        seats = tuple(
            replace(seat, node=pairing.assigned[(seat.player, seat.index)]) for seat in pairing.setup.seats
        )
        self.pairing = None
        self._reset_locked(replace(pairing.setup, seats=seats))

    def reset(self, setup: TableSetup) -> None:
        """Start a new game at this table with ``setup`` (same table id), keeping what is known of nodes."""
        if setup.table != self.setup.table:
            raise ValueError("a new game keeps the table id")
        with self._lock:
            self.pairing = None
            self._reset_locked(setup)
        self._notify("reset", {})
        self._notify("clock", {})

    def _reset_locked(self, setup: TableSetup) -> None:
        referee = referee_for(setup)
        known = {**self.unpaired, **self.nodes}
        self.log.close()
        self.referee = referee
        self.log = self._log_factory(setup)
        self._state = fold(setup, [], referee)
        self.nodes = {seat.node: known.pop(seat.node, None) or NodeInfo(seat.node) for seat in setup.seats}
        self.unpaired = OrderedDict(known)
        self.intents.clear()
        self.refusals.clear()
        self.recent.clear()
        self.seat_request = None

    # --- hub controls ----------------------------------------------------------------
    def _control(self, decider: Callable[..., ev.Event | Rejected]) -> ev.Event | Rejected:
        with self._lock:
            result = decider(self._state, at_s=self.clock.now_s())
            if isinstance(result, Rejected):
                return result
            self._append(result)
        self._notify("clock", ev.event_to_dict(result))
        return result

    def start_clock(self) -> ev.Event | Rejected:
        with self._lock:
            at = self.clock.now_s()
            result = decide.decide_start(self._state, at_s=at)
            if isinstance(result, Rejected):
                return result
            step = self.referee.clock_started(self._state.game)
            if isinstance(step, Rejected):
                return step
            self._append(result)
            self._append_decision(step, at_s=at)
        self._notify("clock", ev.event_to_dict(result))
        return result

    def pause_clock(self) -> ev.Event | Rejected:
        return self._control(decide.decide_pause)

    def resume_clock(self) -> ev.Event | Rejected:
        return self._control(decide.decide_resume)

    def abort_clock(self) -> ev.Event | Rejected:
        return self._control(decide.decide_abort)

    def pause_after_restart(self) -> ev.Event | None:
        """A resumed game whose master clock was running is paused: the hub was away,
        so the players decide when it goes on."""
        if self.state.clock.phase != "running":
            return None
        result = self.pause_clock()
        return None if isinstance(result, Rejected) else result

    def tick(self) -> float | None:
        """Apply what is due (the master clock running out); return game seconds to the next deadline."""
        with self._lock:
            now = self.clock.now_s()
            expiry = decide.due_expiry(self._state, now_s=now)
            if expiry is not None:
                self._append(expiry)
                step = self.referee.clock_expired(self._state.game)
                if isinstance(step, Decision):
                    self._append_decision(step, at_s=expiry.at_s)
            expires = self._state.clock.expires_at_s
        if expiry is not None:
            self._notify("clock", ev.event_to_dict(expiry))
        return None if expires is None else max(0.0, expires - now)

    # --- undo ------------------------------------------------------------------------------
    def _last_step(self) -> tuple[int, int, ev.GameActed] | None:
        """(first index, count, first event) of the latest player step still in force."""
        events = self.log.events()
        undone = undone_indexes(events)
        index = len(events) - 1
        while index >= 0:
            event = events[index]
            if isinstance(event, ev.GameActed) and event.player and index not in undone:
                first = index
                while (
                    first - 1 >= 0
                    and isinstance(events[first - 1], ev.GameActed)
                    and events[first - 1].player == event.player
                    and events[first - 1].at_s == event.at_s
                    and first - 1 not in undone
                ):
                    first -= 1
                return first, index - first + 1, events[first]
            index -= 1
        return None

    def undo_preview(self) -> str | None:
        """What an undo would take back, in words, or None when there is nothing to undo."""
        with self._lock:
            step = self._last_step()
            if step is None:
                return None
            first, count, event = step
            return describe(event, self.setup)

    def undo(self) -> ev.StepUndone | Rejected:
        """Take back the latest accepted player step; refused if later steps depend on it."""
        with self._lock:
            step = self._last_step()
            if step is None:
                return Rejected("There is no accepted action to undo", "Table")
            first, count, event = step
            undo = ev.StepUndone(self.clock.now_s(), first, count, describe(event, self.setup))
            try:
                state = fold(self.log.setup, [*self.log.events(), undo], self.referee)
            except Exception:
                log.warning("undo of %r refused: later steps depend on it", undo.note, exc_info=True)
                return Rejected(f"Cannot undo '{undo.note}': later moves depend on it", "Table")
            self.log.append(undo)
            self._state = state
            self.recent.append(self._recent_entry(undo))
            self._unannounced.append(undo)
        self._notify("game", {"undo": undo.note})
        return undo

    # --- players' phones -------------------------------------------------------------------
    def player_action(self, player: str, action: dict[str, Any]) -> Decision | Rejected:
        """A player tapped an action on their phone: apply it or refuse it with the rule."""
        with self._lock:
            at = self.clock.now_s()
            if player not in self.setup.players:
                return Rejected(f"there is no player {player!r} at this table", "Table")
            step = self.referee.player_action(self._state.game, player, action)
            if isinstance(step, Rejected):
                self._append(ev.ActionRefused(at, player, str(step)))
                self._refuse(player, str(step), at)
            else:
                self._append_decision(step, at_s=at, player=player)
                self.refusals.pop(player, None)
        self._notify("game", {"player": player})
        return step

    def set_intent(self, player: str, node: str, intent: dict[str, Any] | None) -> Rejected | None:
        """Remember what ``player`` wants their timer ``node`` to do at its next flip."""
        with self._lock:
            seat = self.setup.seat_of(node)
            if seat is None or seat.player != player:
                return Rejected(f"timer {node!r} does not belong to {player}", "Table")
            if intent is None:
                self.intents.pop(node, None)
            else:
                self.intents[node] = dict(intent, node=node)
        self._notify("intent", {"player": player, "node": node})
        return None

    def player_snapshot(self, player: str) -> dict[str, Any] | None:
        """What one player's phone page shows."""
        with self._lock:
            if player not in self.setup.players:
                return None
            table = self.snapshot()
            game = self._state.game
            mine = {n: i for n, i in self.intents.items() if self.setup.seat_of(n).player == player}
            return {
                "player": player,
                "table": table,
                "timers": next(p["timers"] for p in table["players"] if p["name"] == player),
                "view": self.referee.player_view(game, player).to_dict(),
                "menu": [item.to_dict() for item in self.referee.menu(game, player, intents=mine)],
                "refusal": self.refusals.get(player),
            }

    # --- views ---------------------------------------------------------------------------
    def table_state_fields(self) -> dict[str, Any]:
        """Fields of the retained table-state message for nodes."""
        with self._lock:
            now = self.clock.now_s()
            clock = self._state.clock
            return {
                "clock": clock.phase,
                "remaining_ms": int(clock.remaining_s(now) * 1000),
                "length_ms": int(clock.length_s * 1000),
                "game": self.setup.game,
                "time_scale": self.clock.scale,
            }

    def snapshot(self) -> dict[str, Any]:
        """Everything the dashboard and ``/api/state`` show, at this moment."""
        with self._lock:
            now = self.clock.now_s()
            state = self._state
            clock = state.clock
            label_of = getattr(self.referee, "timer_label", None)
            players = []
            for player in self.setup.players:
                timers = []
                for seat in self.setup.seats:
                    if seat.player != player:
                        continue
                    timer = state.timers[seat.node]
                    info = self.nodes[seat.node]
                    timers.append(
                        {
                            "node": seat.node,
                            "index": seat.index,
                            "phase": timer.phase,
                            "upper_s": round(timer.upper_at(now, paused=state.paused), 3),
                            "sand_s": self.setup.sand_s,
                            "flips": timer.flips,
                            "refused": timer.refused,
                            "online": info.online,
                            "battery_mv": info.battery_mv,
                            "label": label_of(state.game, seat) if label_of is not None else "",
                        }
                    )
                players.append({"name": player, "colour": self.setup.colour_of(player), "timers": timers})
            scores = self.referee.scores(state.game)
            return {
                "table": self.setup.table,
                "game": self.setup.game,
                "now_s": round(now, 3),
                "time_scale": self.clock.scale,
                "clock": {
                    "phase": clock.phase,
                    "length_s": clock.length_s,
                    "remaining_s": round(clock.remaining_s(now), 3),
                    "elapsed_s": round(clock.elapsed_s(now), 3),
                },
                "players": players,
                "nodes": [info.to_dict() for info in self.nodes.values()],
                "recent": list(self.recent)[::-1],
                "events": state.events,
                "refused_flips": state.refused_flips,
                "stats": self.stats.to_dict(),
                "pairing": self.pairing.to_dict() if self.pairing else None,
                "seat_request": (
                    {"player": self.seat_request[0], "index": self.seat_request[1]}
                    if self.seat_request
                    else None
                ),
                "unpaired": [info.to_dict() for info in self.unpaired.values()],
                "setup": self.setup.to_dict(),
                "view": self.referee.view(state.game).to_dict(),
                "scores": scores,
                "explanation": explain(scores) if scores else "",
                "refusals": dict(self.refusals),
            }
