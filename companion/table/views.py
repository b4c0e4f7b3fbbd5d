"""What the pages show of a table: the dashboard's snapshot and each player's phone view.

The parts that ask the referee (game view, menus, scores, timer labels) are built
once per table version and shared by every page that asks; only what moves with
time (sand and master clock) is added per request, from the clock reading passed in.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from dataclasses import asdict
from typing import Any

from companion.rules.setup import TableSetup
from companion.table import events as ev
from companion.table.model import ActionRefused, Table
from companion.table.results import explain

RECENT = 30
"""Events listed on the dashboard."""


def describe(event: ev.Event | ActionRefused, setup: TableSetup) -> str:
    """One line for the dashboard's list of recent events."""

    def who(node: str) -> str:
        seat = setup.seat_of(node)
        return f"{seat.player} timer {seat.index}" if seat else node

    match event:
        case ev.TimerFlipped(node=n, upper_s=u, early=True) if setup.early_lifts == "warn":
            return f"{who(n)} flipped before the sand ran through ({u:.0f} s of sand): allowed at this table"
        case ev.TimerFlipped(node=n, upper_s=u):
            return f"{who(n)} flipped ({u:.0f} s of sand)"
        case ev.TimerKnocked(node=n):
            return f"{who(n)} was knocked over and stood up again: nothing counted"
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
        case ev.GameStepped(note=note, player=player, actions=actions):
            kind = actions[0].get("type", "action") if actions else "action"
            return note or f"{player or 'game'}: {kind}"
        case ActionRefused(player=player, reason=reason):
            return f"{player}: refused: {reason}"
        case ev.StepUndone(note=note):
            return f"undone: {note}"
        case ev.SeatAdded(player=player, index=index):
            return f"{player} timer {index} joined the table"
    return type(event).__name__


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


class RecentEvents:
    """The latest logged events with their text, newest last (the dashboard lists them)."""

    def __init__(self) -> None:
        self._entries: deque[dict[str, Any]] = deque(maxlen=RECENT)

    def add(self, event: ev.Event | ActionRefused, setup: TableSetup) -> None:
        if isinstance(event, ActionRefused):
            entry: dict[str, Any] = {"type": "ActionRefused", **asdict(event)}
        else:
            entry = ev.event_summary(event)
        entry["text"] = describe(event, setup)
        self._entries.append(entry)

    def clear(self) -> None:
        self._entries.clear()

    def newest_first(self) -> list[dict[str, Any]]:
        return list(self._entries)[::-1]


class TableViews:
    """The snapshots of one table, the referee's part built once per table version."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version = -1
        self._table: Table | None = None
        self._body: dict[str, Any] = {}
        self._players: dict[str, dict[str, Any]] = {}

    def _for(self, table: Table) -> dict[str, Any]:
        with self._lock:
            if self._table is not table or self._version != table.version:
                self._table, self._version = table, table.version
                self._body = _body(table)
                self._players = {}
            return self._body

    def snapshot(self, table: Table, *, now_s: float, extra: dict[str, Any]) -> dict[str, Any]:
        """Everything the dashboard and ``/api/state`` show, at ``now_s`` (``extra``: recent events, stats)."""
        body = self._for(table)
        state = table.state
        clock = state.clock
        snap = dict(body)
        snap["now_s"] = round(now_s, 3)
        snap["clock"] = {
            "phase": clock.phase,
            "length_s": clock.length_s,
            "remaining_s": round(clock.remaining_s(now_s), 3),
            "elapsed_s": round(clock.elapsed_s(now_s), 3),
        }
        players = []
        for entry in body["players"]:
            timers = []
            for timer in entry["timers"]:
                live = state.timers[timer["node"]]
                timers.append(dict(timer, upper_s=round(live.upper_at(now_s, paused=state.paused), 3)))
            players.append(dict(entry, timers=timers))
        snap["players"] = players
        snap.update(extra)
        return snap

    def player_snapshot(
        self, table: Table, player: str, *, now_s: float, extra: dict[str, Any]
    ) -> dict[str, Any] | None:
        """What one player's phone page shows."""
        if player not in table.setup.players:
            return None
        snap = self.snapshot(table, now_s=now_s, extra=extra)
        with self._lock:
            mine = self._players.get(player) if self._table is table else None
        if mine is None:
            mine = _player_part(table, player)
            with self._lock:
                if self._table is table:
                    self._players[player] = mine
        return {
            "player": player,
            "table": snap,
            "timers": next(p["timers"] for p in snap["players"] if p["name"] == player),
            **mine,
        }


def _body(table: Table) -> dict[str, Any]:
    """The part of the snapshot that changes only with the table (not with time)."""
    setup, state, referee = table.setup, table.state, table.referee
    players = []
    for player in setup.players:
        timers = []
        for seat in setup.seats:
            if seat.player != player:
                continue
            timer = state.timers[seat.node]
            link = table.link(seat.node)
            timers.append(
                {
                    "node": seat.node,
                    "index": seat.index,
                    "phase": timer.phase,
                    "upper_s": timer.upper_s,
                    "sand_s": setup.sand_s,
                    "flips": timer.flips,
                    "refused": timer.refused,
                    "online": link.online,
                    "battery_mv": link.battery_mv,
                    "label": referee.timer_label(state.game, seat),
                }
            )
        players.append({"name": player, "colour": setup.colour_of(player), "timers": timers})
    scores = referee.scores(state.game)
    return {
        "table": setup.table,
        "game": setup.game,
        "time_scale": table.time_scale,
        "players": players,
        "nodes": [link.to_dict() for link in table.seated_links()],
        "events": state.events,
        "refused_flips": state.refused_flips,
        "pairing": table.pairing.to_dict() if table.pairing else None,
        "seat_request": (
            {"player": table.seat_request[0], "index": table.seat_request[1]} if table.seat_request else None
        ),
        "unpaired": [link.to_dict() for link in table.unpaired()],
        "setup": setup.to_dict(),
        "view": referee.view(state.game).to_dict(),
        "scores": scores,
        "explanation": explain(scores) if scores else "",
        "refusals": {player: refusal.to_dict() for player, refusal in table.refusals.items()},
        "broker": table.broker.to_dict(),
    }


def _player_part(table: Table, player: str) -> dict[str, Any]:
    referee, game, setup = table.referee, table.state.game, table.setup
    mine = {}
    for node, intent in table.intents.items():
        seat = setup.seat_of(node)
        if seat is not None and seat.player == player:
            mine[node] = intent
    refusal = table.refusals.get(player)
    return {
        "view": referee.player_view(game, player).to_dict(),
        "menu": [item.to_dict() for item in referee.menu(game, player, intents=mine)],
        "refusal": refusal.to_dict() if refusal else None,
    }
