"""Time 'n' Space in light mode: the hub keeps the sandtimers and the master clock, the players the cubes.

No engine state: :class:`LightState` knows the phase, whether each sandtimer is idle,
running or finished, and the score sheet entered so far. A flip is accepted when the
sand ran through (not before the start, not after the master clock ran out); the game
is over when the clock ran out and no sandtimer runs. At the end every player enters
their counters on the phone (``{"type": "score-sheet", "sheet": {"players": {...}}}``)
and, once all have, the table shows :func:`~companion.games.time_n_space.scoring.score_record`.

Each step is one light action (JSON, logged for an undo) decided by :func:`light_apply`,
which also gives the step's facts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.time_n_space.actions import ClockRanOut, GameEnded, GameStarted, SandRanThrough
from companion.games.time_n_space.components import Components
from companion.games.time_n_space.engine import END, GENERAL, PLAYING
from companion.games.time_n_space.scoring import COLORS, parse_record, score_record
from companion.games.time_n_space.shared import (
    GAME_NAME,
    PHASE_WORDS,
    REASON_CLOCK_OVER,
    REASON_FULL_SAND,
    REASON_NOT_STARTED,
    REASON_NOT_THROUGH,
    TABLE_RULE,
    check_setup,
    counts_text,
)
from companion.games.time_n_space.state import PHASE_ENDING, PHASE_OVER, PHASE_RUNNING, PHASE_SETUP
from companion.rules.outcome import Decision, Rejected, Step
from companion.rules.pages import View
from companion.rules.referee import Referee
from companion.rules.setup import Seat, TableSetup

SCORING = "Final Scoring"
EMPTY_ENTRY: dict[str, list[Any]] = {"collected": [], "bonus": [], "above": []}


@dataclass(frozen=True)
class LightState:
    """Light mode: the phase, each sandtimer's status and the score sheet entered so far."""

    players: tuple[str, ...]
    phase: str = PHASE_SETUP
    timers: tuple[tuple[str, int, str], ...] = ()
    """(player, timer 0-based, ``idle`` | ``running`` | ``finished``)."""
    sheet: tuple[tuple[str, str], ...] = ()
    """(player, canonical JSON of their score-sheet entry), in seat order."""

    def status(self, player: str, timer: int) -> str:
        for p, t, s in self.timers:
            if (p, t) == (player, timer):
                return s
        return "idle"

    def with_status(self, player: str, timer: int, status: str) -> LightState:
        timers = tuple((p, t, status if (p, t) == (player, timer) else s) for p, t, s in self.timers)
        return replace(self, timers=timers)

    def entries(self) -> dict[str, Any]:
        return {p: json.loads(e) for p, e in self.sheet}


# --- facts (besides the engine's GameStarted, SandRanThrough, ClockRanOut and GameEnded) --------------


@dataclass(frozen=True)
class TimerStarted:
    """A sandtimer was flipped after its sand ran through and runs again (timer 0-based)."""

    player: str
    timer: int


@dataclass(frozen=True)
class ScoreSheetEntered:
    """These players' score-sheet entries were entered (or replaced)."""

    players: tuple[str, ...]


def light_apply(state: LightState, action: dict[str, Any]) -> tuple[LightState, tuple[Any, ...]]:
    """The state after one light action and the facts it made; :class:`InvalidRecordError` if it is none."""
    kind = action.get("action")
    if kind == "light_start":
        return replace(state, phase=PHASE_RUNNING), (GameStarted(),)
    if kind == "light_flip":
        player, timer = action["player"], action["timer"]
        return state.with_status(player, timer, "running"), (TimerStarted(player, timer),)
    if kind == "light_ran_out":
        player, timer = action["player"], action["timer"]
        return _maybe_over(state.with_status(player, timer, "finished"), SandRanThrough(player, timer))
    if kind == "light_expired":
        return _maybe_over(replace(state, phase=PHASE_ENDING), ClockRanOut())
    if kind == "light_sheet":
        entries = state.entries()
        entries.update(action["players"])
        sheet = tuple((p, json.dumps(entries[p], sort_keys=True)) for p in state.players if p in entries)
        return replace(state, sheet=sheet), (ScoreSheetEntered(tuple(action["players"])),)
    raise InvalidRecordError(f"the logged action {action} is not a light-mode action of Time 'n' Space")


def _maybe_over(state: LightState, fact: Any) -> tuple[LightState, tuple[Any, ...]]:
    if state.phase == PHASE_ENDING and all(s != "running" for *_, s in state.timers):
        return replace(state, phase=PHASE_OVER), (fact, GameEnded())
    return state, (fact,)


class LightReferee(Referee[LightState]):
    """Light mode at a hub table (see the module docstring)."""

    game = GAME_NAME
    rules_decide_end = True
    """A flip after the master clock ran out is refused here, with the rulebook's words."""

    def __init__(self, setup: TableSetup, components: Components) -> None:
        check_setup(setup, components)
        super().__init__(setup)
        self.timers = components.timers_per_player

    def start(self, setup: TableSetup) -> LightState:
        players = tuple(setup.players)
        return LightState(players, timers=tuple((p, t, "idle") for p in players for t in range(self.timers)))

    def replay(self, state: LightState, action: dict[str, Any]) -> LightState:
        return light_apply(state, action)[0]

    def _step(self, state: LightState, action: dict[str, Any], note: str) -> Decision:
        after, facts = light_apply(state, action)
        return Decision(after, actions=(action,), facts=facts, notes=(note,))

    # --- what happens at the table ---------------------------------------------------------------
    def clock_started(self, state: LightState) -> Step:
        return self._step(state, {"action": "light_start"}, "master clock started")

    def clock_expired(self, state: LightState) -> Step:
        if state.phase != PHASE_RUNNING:
            return Decision(state)
        return self._step(state, {"action": "light_expired"}, "master clock ran out")

    def timer_emptied(self, state: LightState, seat: Seat) -> Step:
        t = seat.index - 1
        if state.status(seat.player, t) != "running":
            return Decision(state)
        action = {"action": "light_ran_out", "player": seat.player, "timer": t}
        return self._step(state, action, f"{seat.player} timer {seat.index}: sand ran through")

    def timer_flipped(
        self, state: LightState, seat: Seat, *, intent: dict[str, Any] | None, ran_out: bool
    ) -> Step:
        t = seat.index - 1
        if state.phase == PHASE_SETUP:
            return Rejected(REASON_NOT_STARTED, PLAYING)
        if state.phase in (PHASE_ENDING, PHASE_OVER):
            return Rejected(REASON_CLOCK_OVER, END)
        if not ran_out:
            running = state.status(seat.player, t) == "running"
            return Rejected(REASON_NOT_THROUGH if running else REASON_FULL_SAND, GENERAL)
        action = {"action": "light_flip", "player": seat.player, "timer": t}
        return self._step(state, action, f"{seat.player} timer {seat.index} started")

    def player_action(self, state: LightState, player: str, action: dict[str, Any]) -> Step:
        if not isinstance(action, dict) or action.get("type") != "score-sheet":
            return Rejected(
                "In light mode the hub tracks only timers and clock; enter the collected counters as a score sheet",
                TABLE_RULE,
            )
        sheet = action.get("sheet")
        if not isinstance(sheet, dict) or not isinstance(sheet.get("players"), dict) or not sheet["players"]:
            return Rejected(
                "The score sheet must list players with their collected, bonus and above counters", SCORING
            )
        given = sheet["players"]
        strangers = [p for p in given if p not in state.players]
        if strangers:
            return Rejected(
                f"{strangers[0]!r} does not play at this table ({', '.join(state.players)})", SCORING
            )
        entries = state.entries()
        entries.update(given)
        try:
            parse_record({"players": {p: entries.get(p, EMPTY_ENTRY) for p in state.players}})
        except InvalidRecordError as exc:
            return Rejected(str(exc), SCORING)
        note = f"score sheet entered for {', '.join(given)}"
        return self._step(state, {"action": "light_sheet", "players": given}, note)

    # --- what the pages show ---------------------------------------------------------------------
    def scores(self, state: LightState) -> dict[str, Any] | None:
        entries = state.entries()
        if set(entries) != set(state.players):
            return None
        return score_record({"players": {p: entries[p] for p in state.players}})

    def view(self, state: LightState) -> View:
        running = [f"{p} timer {t + 1}" for p, t, s in state.timers if s == "running"]
        lines = [f"{p} timer {t + 1}: {s}" for p, t, s in state.timers]
        entered = [p for p, _ in state.sheet]
        missing = [p for p in state.players if p not in entered]
        sheet = [f"entered: {', '.join(entered) or 'nobody yet'}"]
        if missing:
            sheet.append(f"waiting for: {', '.join(missing)}")
        summary = f"Time 'n' Space, light mode (timers and scoring only): {PHASE_WORDS[state.phase]}" + (
            f" \u00b7 running: {', '.join(running)}" if running else ""
        )
        return View(
            summary,
            (
                {"kind": "lines", "title": "Sandtimers", "lines": lines},
                {"kind": "lines", "title": "Score sheet", "lines": sheet},
            ),
            {"phase": state.phase, "variant": "light"},
        )

    def player_view(self, state: LightState, player: str) -> View:
        mine = [f"Timer {t + 1}: {s}" for p, t, s in state.timers if p == player]
        entry = state.entries().get(player)
        lines = (
            [
                "Not entered yet: at the end, enter your collected counters, bonus counters and the "
                "counters still above your control center"
            ]
            if entry is None
            else [
                f"Collected: {counts_text((c['color'], c['value']) for c in entry['collected'])}",
                f"Bonus counters: {', '.join(str(b) for b in entry['bonus']) or 'none'}",
                f"Still above: {counts_text((c['color'], c['value']) for c in entry['above'])}",
            ]
        )
        form = {
            "kind": "counter-sheet",
            "title": "Enter my counters",
            "player": player,
            "others": [p for p in state.players if p != player],
            "colors": list(COLORS),
            "values": [1, 2, 3],
            "entry": entry if entry is not None else dict(EMPTY_ENTRY),
            "action_type": "score-sheet",
        }
        return View(
            f"{player}: light mode, {PHASE_WORDS[state.phase]}",
            (
                {"kind": "lines", "title": "My sandtimers", "lines": mine},
                {"kind": "lines", "title": "My score sheet", "lines": lines},
                form,
            ),
        )
