"""Time 'n' Space in light mode: the hub keeps the sandtimers and the master clock, the players the cubes.

No engine state: :class:`LightState` knows the phase, whether each sandtimer is idle,
running or finished, and the score sheet entered so far. A flip is accepted when the
sand ran through (not before the start, not after the master clock ran out); the game
is over when the clock ran out and no sandtimer runs. At the end every player enters
their counters on the phone (``{"type": "score-sheet", "sheet": {"players": {...}}}``)
and, once all have, the table shows :func:`~companion.games.time_n_space.scoring.score_record`.

Each step is one light action (JSON, logged for an undo) decided by :func:`light_apply`,
which also gives the step's facts.

Ending early ("End game", confirmed by the host) ends the game at once: no sandtimer runs
any more, and the players enter their score sheets as at the normal end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.time_n_space.actions import ClockRanOut, GameEnded, GameStarted, SandRanThrough
from companion.games.time_n_space.components import Components
from companion.games.time_n_space.scoring import COLORS, RecordTextError, parse_record, score_record
from companion.games.time_n_space.shared import GAME_NAME, check_setup
from companion.games.time_n_space.state import PHASE_ENDING, PHASE_OVER, PHASE_RUNNING, PHASE_SETUP
from companion.games.time_n_space.words import (
    COLOR_WORDS,
    END,
    GENERAL,
    NONE,
    PHASE_WORDS,
    PLAYING,
    REASON_CLOCK_OVER,
    REASON_FULL_SAND,
    REASON_NOT_STARTED,
    REASON_NOT_THROUGH,
    SCORING,
    TABLE_RULE,
    counters_text,
)
from companion.rules.outcome import Decision, Rejected, Step
from companion.rules.pages import View
from companion.rules.referee import Referee
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, joined, text

STATUS_WORDS = {"idle": text("idle"), "running": text("running"), "finished": text("finished")}
"""A sandtimer's status in light mode."""
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
    if kind == "light_end":
        timers = tuple((p, t, "finished" if s == "running" else s) for p, t, s in state.timers)
        ended: tuple[Any, ...] = (ClockRanOut(),) if state.phase == PHASE_RUNNING else ()
        return replace(state, phase=PHASE_OVER, timers=timers), ended + (GameEnded(),)
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

    def _step(self, state: LightState, action: dict[str, Any], note: Text) -> Decision:
        after, facts = light_apply(state, action)
        return Decision(after, actions=(action,), facts=facts, notes=(note,))

    # --- what happens at the table ---------------------------------------------------------------
    def clock_started(self, state: LightState) -> Step:
        return self._step(state, {"action": "light_start"}, text("master clock started"))

    def clock_expired(self, state: LightState) -> Step:
        if state.phase != PHASE_RUNNING:
            return Decision(state)
        return self._step(state, {"action": "light_expired"}, text("master clock ran out"))

    def game_ended_early(self, state: LightState) -> Step:
        """The host ended the game: no sandtimer runs any more; the players enter their score sheets."""
        if state.phase == PHASE_SETUP:
            return Rejected(
                text(
                    "The master clock never started, so there is nothing to score: "
                    "every player still holds all their order counters"
                ),
                END,
            )
        if state.phase == PHASE_OVER:
            return Decision(state)
        note = text("The game was ended early: enter your counters on your phones for the final scoring")
        return self._step(state, {"action": "light_end"}, note)

    def check_intent(self, state: LightState, seat: Seat, intent: dict[str, Any]) -> Rejected | None:
        """Light mode keeps no choices for a sandtimer: the players move the pieces themselves."""
        if any(key != "node" for key in intent):
            return Rejected(
                text("In light mode the hub tracks only timers and clock; a sandtimer takes no choices"),
                TABLE_RULE,
            )
        return None

    def timer_emptied(self, state: LightState, seat: Seat) -> Step:
        t = seat.index - 1
        if state.status(seat.player, t) != "running":
            return Decision(state)
        action = {"action": "light_ran_out", "player": seat.player, "timer": t}
        return self._step(
            state,
            action,
            text("{player} timer {index}: sand ran through", player=seat.player, index=seat.index),
        )

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
        return self._step(
            state, action, text("{player} timer {index} started", player=seat.player, index=seat.index)
        )

    def player_action(self, state: LightState, player: str, action: dict[str, Any]) -> Step:
        if not isinstance(action, dict) or action.get("type") != "score-sheet":
            return Rejected(
                text(
                    "In light mode the hub tracks only timers and clock; enter the collected counters as a score sheet"
                ),
                TABLE_RULE,
            )
        sheet = action.get("sheet")
        if not isinstance(sheet, dict) or not isinstance(sheet.get("players"), dict) or not sheet["players"]:
            return Rejected(
                text("The score sheet must list players with their collected, bonus and above counters"),
                SCORING,
            )
        given = sheet["players"]
        strangers = [p for p in given if p not in state.players]
        if strangers:
            return Rejected(
                text(
                    "{player} does not play at this table ({players})",
                    player=repr(strangers[0]),
                    players=tuple(state.players),
                ),
                SCORING,
            )
        entries = state.entries()
        entries.update(given)
        try:
            parse_record({"players": {p: entries.get(p, EMPTY_ENTRY) for p in state.players}})
        except RecordTextError as exc:
            return Rejected(exc.text, SCORING)
        note = text("score sheet entered for {players}", players=tuple(given))
        return self._step(state, {"action": "light_sheet", "players": given}, note)

    # --- what the pages show ---------------------------------------------------------------------
    def scores(self, state: LightState) -> dict[str, Any] | None:
        entries = state.entries()
        if set(entries) != set(state.players):
            return None
        return score_record({"players": {p: entries[p] for p in state.players}})

    def view(self, state: LightState) -> View:
        running = [
            text("{player} timer {index}", player=p, index=t + 1)
            for p, t, s in state.timers
            if s == "running"
        ]
        lines = [
            text("{player} timer {index}: {status}", player=p, index=t + 1, status=STATUS_WORDS[s])
            for p, t, s in state.timers
        ]
        entered = tuple(p for p, _ in state.sheet)
        missing = tuple(p for p in state.players if p not in entered)
        sheet = [text("entered: {players}", players=entered) if entered else text("entered: nobody yet")]
        if missing:
            sheet.append(text("waiting for: {players}", players=missing))
        summary = text(
            "Time 'n' Space, light mode (timers and scoring only): {phase}", phase=PHASE_WORDS[state.phase]
        )
        if running:
            summary = text("{summary} · running: {timers}", summary=summary, timers=joined(running, ", "))
        return View(
            summary,
            (
                {"kind": "lines", "title": text("Sandtimers"), "lines": lines},
                {"kind": "lines", "title": text("Score sheet"), "lines": sheet},
            ),
            {"phase": state.phase, "variant": "light"},
        )

    def player_view(self, state: LightState, player: str) -> View:
        mine = [
            text("Timer {index}: {status}", index=t + 1, status=STATUS_WORDS[s])
            for p, t, s in state.timers
            if p == player
        ]
        entry = state.entries().get(player)
        lines = (
            [
                text(
                    "Not entered yet: at the end, enter your collected counters, bonus counters and the "
                    "counters still above your control center"
                )
            ]
            if entry is None
            else [
                text(
                    "Collected: {counters}",
                    counters=counters_text((c["color"], c["value"]) for c in entry["collected"]),
                ),
                text(
                    "Bonus counters: {values}",
                    values=", ".join(str(b) for b in entry["bonus"]) if entry["bonus"] else NONE,
                ),
                text(
                    "Still above: {counters}",
                    counters=counters_text((c["color"], c["value"]) for c in entry["above"]),
                ),
            ]
        )
        form = {
            "kind": "counter-sheet",
            "title": text("Enter my counters"),
            "player": player,
            "others": [p for p in state.players if p != player],
            "colors": list(COLORS),
            "color_names": {c: COLOR_WORDS[c] for c in COLORS},
            "values": [1, 2, 3],
            "entry": entry if entry is not None else dict(EMPTY_ENTRY),
            "action_type": "score-sheet",
        }
        return View(
            text("{player}: light mode, {phase}", player=player, phase=PHASE_WORDS[state.phase]),
            (
                {"kind": "lines", "title": text("My sandtimers"), "lines": mine},
                {"kind": "lines", "title": text("My score sheet"), "lines": lines},
                form,
            ),
        )
