"""What the pages show of a table: the dashboard's snapshot and each player's phone view.

The parts that ask the referee (game view, menus, scores, timer labels) are built
once per table version and shared by every page that asks; only the master clock's
reading (and for ``/api/state`` each timer's sand now) is added per request. The live
stream gives a timer's sand as it was at its last report (``upper_s`` at ``at_s``) and
the pages run it down, so a stream frame changes only when something happens.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Callable, Hashable, Sequence
from functools import partial
from typing import Any

from companion.rules.deck import DECK_TITLES
from companion.rules.outcome import Rejected
from companion.rules.pages import to_json
from companion.rules.setup import Seat, TableSetup, player_id
from companion.rules.text import Text, text, verbatim
from companion.table import events as ev
from companion.table.decide import undo_note, undo_plan
from companion.table.model import KNOCKED, ActionRefused, HeldFlip, Table
from companion.table.nodes import NodeLink
from companion.table.results import explain
from companion.table.state import TimerState
from companion.table.story import stage_of

RECENT = 30
"""Events listed on the dashboard."""


def timer_name(setup: TableSetup, node: str) -> Text | str:
    """A sandtimer as players call it ("ana timer 2"); a node not seated is named by its id."""
    seat = setup.seat_of(node)
    return text("{player} timer {index}", player=seat.player, index=seat.index) if seat else node


def describe(event: ev.Event | ActionRefused, setup: TableSetup) -> Text:
    """One line for the dashboard's list of recent events."""

    def who(node: str) -> Text | str:
        return timer_name(setup, node)

    match event:
        case ev.TimerFlipped(node=n, upper_s=u, early=True) if setup.early_lifts == "warn":
            return text(
                "{who} flipped before the sand ran through ({sand} s of sand): allowed at this table",
                who=who(n),
                sand=round(u),
            )
        case ev.TimerFlipped(node=n, upper_s=u):
            return text("{who} flipped ({sand} s of sand)", who=who(n), sand=round(u))
        case ev.TimerKnocked(node=n):
            return text("{who} was knocked over and stood up again: nothing counted", who=who(n))
        case ev.FlipRefused(node=n, reason=r):
            return text("{who} flip refused: {reason}", who=who(n), reason=r)
        case ev.TimerEmptied(node=n):
            return text("{who} ran out", who=who(n))
        case ev.ClockStarted(length_s=length):
            return text("master clock started ({minutes} min)", minutes=round(length / 60, 2))
        case ev.ClockPaused():
            return text("master clock paused")
        case ev.ClockResumed():
            return text("master clock resumed")
        case ev.ClockExpired(reason=reason) if reason:
            return text("the game is over: {reason}", reason=reason)
        case ev.ClockExpired():
            return text("master clock ran out: the game is over")
        case ev.ClockAborted(unscored=unscored) if unscored:
            return text("game ended early; it cannot be scored: {reason}", reason=unscored)
        case ev.ClockAborted():
            return text("game ended early")
        case ev.GameStepped(note=note, player=player, actions=actions):
            kind = type(actions[0]).__name__ if actions else "action"
            if note:
                return note
            return (
                text("{player}: {kind}", player=player, kind=kind)
                if player
                else text("game: {kind}", kind=kind)
            )
        case ActionRefused(player=player, reason=reason):
            return text("{player}: refused: {reason}", player=player, reason=reason)
        case ev.StepUndone(note=note):
            return text("undone: {note}", note=note)
        case ev.SeatAdded(player=player, index=index):
            return text("{player} timer {index} joined the table", player=player, index=index)
        case ev.ClockCheckpoint():
            return text("master clock checkpoint")
    return verbatim(type(event).__name__)


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


def worth_telling(events: Sequence[Any], *, started: bool) -> list[Any]:
    """The events of one transaction (or a log read back) that the Recent list tells: what the players
    and the host did and what the rules decided, never the table's bookkeeping (the clock's
    checkpoints, a sand that ran out before the game started, a run-out the rules said in their own
    words in the same moment). ``started``: the master clock had started before the first event."""
    told: list[Any] = []
    for i, event in enumerate(events):
        if not isinstance(event, (ActionRefused, ev.LoggedEvent)):
            continue
        if isinstance(event, ev.ClockStarted):
            started = True
        if isinstance(event, ev.ClockCheckpoint):
            continue
        if isinstance(event, ev.TimerEmptied):
            said = any(
                isinstance(later, ev.GameStepped) and later.at_s == event.at_s
                for later in events[i + 1 : i + 3]
            )
            if said or not started:
                continue
        told.append(event)
    return told


class RecentEvents:
    """The latest logged events with their text, newest last (the dashboard lists them).

    An event's entry (and its sentence) is made the first time a page asks for the list: at
    hundreds of reports a second most events leave the list before any page reads it."""

    def __init__(self) -> None:
        self._entries: deque[list[Any]] = deque(maxlen=RECENT)
        """[event, setup, its entry or None until asked]"""

    def add_all(self, events: Sequence[Any], setup: TableSetup, *, started: bool) -> None:
        """Keep the events of ``events`` worth telling (:func:`worth_telling`)."""
        for event in worth_telling(events, started=started):
            self.add(event, setup)

    def add(self, event: ev.Event | ActionRefused, setup: TableSetup) -> None:
        """Keep ``event`` (with the setup that names its timers) for the list."""
        self._entries.append([event, setup, None])

    def clear(self) -> None:
        self._entries.clear()

    def newest_first(self) -> list[dict[str, Any]]:
        """Each event as the page shows it: its kind, time, who and the sentence (nothing more, so a
        live page's change per event stays small); an entry once made is the same dict next time."""
        shown = []
        for held in reversed(self._entries):
            if held[2] is None:
                held[2] = _entry(held[0], held[1])
            shown.append(held[2])
        return shown


def _entry(event: ev.Event | ActionRefused, setup: TableSetup) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": type(event).__name__, "at_s": round(event.at_s, 3)}
    for name in ("node", "player"):
        value = getattr(event, name, None)
        if isinstance(value, str) and value:
            entry[name] = value
    entry["text"] = describe(event, setup).to_json()
    return entry


class Reused:
    """Parts of the snapshot kept from one table version to the next by what they were built from.

    A part whose inputs are unchanged (the same objects, or equal ones) is the very same dict as
    before: the next snapshot skips building it, and :func:`companion.table.deltas.json_diff`
    passes it by identity. A report changes one timer of a busy table, so the live stream's work
    per change follows the change, not the table."""

    def __init__(self) -> None:
        self._held: dict[Hashable, tuple[tuple[object, ...], Any]] = {}

    def part(self, key: Hashable, inputs: tuple[object, ...], build: Callable[[], Any]) -> Any:
        """The part ``key`` built from ``inputs``: the one held if its inputs are the same, else ``build()``."""
        held = self._held.get(key)
        if held is not None and held[0] == inputs:  # item by item, the same object first
            return held[1]
        value = build()
        self._held[key] = (inputs, value)
        return value

    def clear(self) -> None:
        self._held.clear()


class TableViews:
    """The snapshots of one table, the referee's part built once per table version."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version = -1
        self._table: Table | None = None
        self._body: dict[str, Any] = {}
        self._players: dict[str, dict[str, Any]] = {}
        self._reused = Reused()
        self._setup: TableSetup | None = None

    def _for(self, table: Table) -> dict[str, Any]:
        with self._lock:
            if self._table is not table or self._version != table.version:
                if table.setup is not self._setup:  # a new game: nothing of the last one is kept
                    self._setup = table.setup
                    self._reused.clear()
                self._table, self._version = table, table.version
                self._body = _body(table, self._reused)
                self._players = {}
            return self._body

    def snapshot(
        self, table: Table, *, now_s: float, extra: dict[str, Any], live_sand: bool = True
    ) -> dict[str, Any]:
        """Everything the dashboard and ``/api/state`` show, at ``now_s`` (``extra``: recent events, stats).

        ``live_sand``: each timer's ``upper_s`` is its sand at ``now_s`` (``/api/state``); without it,
        the sand at its last report ``at_s`` (the live stream: the pages run it down themselves, so a
        frame changes only when something happens)."""
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
        if live_sand:
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
        self, table: Table, player: str, *, now_s: float, extra: dict[str, Any], live_sand: bool = True
    ) -> dict[str, Any] | None:
        """What one player's phone page shows."""
        if player not in table.setup.players:
            return None
        snap = self.snapshot(table, now_s=now_s, extra=extra, live_sand=live_sand)
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


def _timer_part(
    seat: Seat,
    timer: TimerState,
    link: NodeLink,
    label: Any,
    after_end: bool,
    sand_s: float,
    held: HeldFlip | None = None,
) -> dict[str, Any]:
    knocked = bool(link.verdicts) and link.verdicts[-1][3] == KNOCKED
    return {
        "node": seat.node,
        "index": seat.index,
        "phase": timer.phase,
        "upper_s": round(timer.upper_s if timer.phase == "running" else 0.0, 3),
        "at_s": round(timer.at_s, 3),
        "sand_s": sand_s,
        "flips": timer.flips,
        "refused": timer.refused.to_json() if timer.refused else "",
        "refused_at_s": round(timer.at_s, 3) if timer.refused else None,
        "counting": not after_end,
        "online": link.online,
        "battery_mv": link.battery_mv,
        "label": label,
        "checking": None
        if held is None
        else {"reason": held.reason.to_json(), "rule": held.rule.to_json(), "until_s": round(held.due_s, 3)},
        "knocked_at_s": round(link.last_at_s, 3) if knocked else None,
    }


def _body(table: Table, reused: Reused | None = None) -> dict[str, Any]:
    """The part of the snapshot that changes only with the table (not with time); ``reused`` keeps
    the parts of the version before that did not change."""
    reused = reused if reused is not None else Reused()
    setup, state, referee = table.setup, table.state, table.referee
    clock = state.clock
    players = []
    for player in setup.players:
        timers = []
        for seat in setup.seats:
            if seat.player != player:
                continue
            timer = state.timers[seat.node]
            link = table.link(seat.node)
            after_end = clock.is_over and (
                bool(timer.refused) or (clock.ended_at_s is not None and timer.at_s >= clock.ended_at_s)
            )
            label = to_json(referee.timer_label(state.game, state.context, seat))
            inputs = (seat, timer, link, label, after_end, setup.sand_s, table.held.get(seat.node))
            timers.append(reused.part(("timer", seat.node), inputs, partial(_timer_part, *inputs)))
        players.append(
            {"name": player, "id": player_id(player), "colour": setup.colour_of(player), "timers": timers}
        )
    scores = referee.scores(state.game, state.context)
    stage = stage_of(state, referee, scores)
    plan = undo_plan(table)
    return {
        "table": setup.table,
        "game": setup.game,
        "time_scale": table.time_scale,
        "players": players,
        "nodes": [reused.part(("link", link.node), (link,), link.to_dict) for link in table.seated_links()],
        "events": state.events,
        "refused_flips": state.refused_flips,
        "pairing": table.pairing.to_dict() if table.pairing else None,
        "seat_request": (
            {"player": table.seat_request[0], "index": table.seat_request[1]} if table.seat_request else None
        ),
        "unpaired": [reused.part(("link", link.node), (link,), link.to_dict) for link in table.unpaired()],
        "setup": reused.part("setup", (setup,), setup.to_dict),
        "view": referee.view(state.game, state.context).to_dict(game_codec(setup)),
        "deck": reused.part("deck", (setup.game, setup.deck), partial(_deck_text, setup)),
        "ended_by": state.ended_by,
        "scores": to_json(scores),
        "explanation": explain(scores, referee.score_words()).to_json() if scores else "",
        "over": stage.key == "over",
        "stage": stage.to_json(),
        "end_reason": clock.end_reason.to_json() if clock.end_reason else "",
        "undo": []
        if isinstance(plan, Rejected)
        else [{"step": plan[0].index, "note": undo_note(plan[0]).to_json()}],
        "refusals": {player: refusal.to_dict() for player, refusal in table.refusals.items()},
        "broker": table.broker.to_dict(),
        "storage": table.storage.to_dict(),
    }


def _deck_text(setup: TableSetup) -> Any:
    """Which deck the table plays with, in words, for a game with piles or decks ("" for one without)."""
    from companion.games import find_game

    if not find_game(setup.game).random_components:
        return ""
    return to_json(DECK_TITLES.get(setup.deck, DECK_TITLES["table"]))


def game_codec(setup: TableSetup) -> Callable[[Any], Any]:
    """How the game's typed values (moves, intents) are written for a page: the game's codec."""
    from companion.games import find_game

    return find_game(setup.game).codec.encode


def _player_part(table: Table, player: str) -> dict[str, Any]:
    referee, game, setup, ctx = table.referee, table.state.game, table.setup, table.state.context
    mine = {}
    for node, intent in table.intents.items():
        seat = setup.seat_of(node)
        if seat is not None and seat.player == player:
            mine[node] = intent
    refusal = table.refusals.get(player)
    return {
        "view": referee.player_view(game, ctx, player).to_dict(),
        "menu": [item.to_dict(game_codec(setup)) for item in referee.menu(game, ctx, player, intents=mine)],
        "refusal": refusal.to_dict() if refusal else None,
    }
