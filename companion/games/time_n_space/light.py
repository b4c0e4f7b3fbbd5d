"""Time 'n' Space in light mode: the hub keeps the sandtimers and the master clock, the players the cubes.

No engine state: :class:`LightState` knows the phase, whether each sandtimer is idle,
running or finished, and the score sheet entered so far. A flip is accepted when the
sand ran through (not before the start, not after the master clock ran out); the game
is over when the clock ran out and no sandtimer runs. At the end every player enters
their counters on the phone (the move :class:`~.model.ScoreSheet`, which the form posts) and, once all have,
the table shows :func:`~companion.games.time_n_space.scoring.score_record`.

Each step is one light action (a frozen dataclass of this module, logged for an undo)
decided by :func:`light_apply`, which also gives the step's facts.

Ending early ("End game", confirmed by the host) ends the game at once: no sandtimer runs
any more, and the players enter their score sheets as at the normal end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.time_n_space.components import COLORS, Components
from companion.games.time_n_space.model import (
    PHASE_ENDING,
    PHASE_OVER,
    PHASE_RUNNING,
    PHASE_SETUP,
    ClockRanOut,
    GameEnded,
    GameStarted,
    Intent,
    SandRanThrough,
    ScoreSheet,
    SheetCounter,
    SheetEntry,
)
from companion.games.time_n_space.referee import GAME_NAME, GAME_OVER_NOTE, check_setup
from companion.games.time_n_space.scoring import RecordTextError, parse_record, score_record
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
from companion.rules.context import Context
from companion.rules.outcome import Decision, checked, refuse
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
    """The players, in seat order."""
    phase: str = PHASE_SETUP
    """One of the ``PHASE_*`` values of :mod:`.model`."""
    timers: tuple[tuple[str, int, str], ...] = ()
    """(player, timer 0-based, ``idle`` | ``running`` | ``finished``)."""
    sheet: tuple[SheetEntry, ...] = ()
    """The score-sheet entries entered so far, in seat order."""

    def status(self, player: str, timer: int) -> str:
        for p, t, s in self.timers:
            if (p, t) == (player, timer):
                return s
        return "idle"

    def with_status(self, player: str, timer: int, status: str) -> LightState:
        timers = tuple((p, t, status if (p, t) == (player, timer) else s) for p, t, s in self.timers)
        return replace(self, timers=timers)

    def entries(self) -> dict[str, dict[str, Any]]:
        """Each entered player's counters, in the form of ``companion score time-n-space``."""
        return {e.player: entry_record(e) for e in self.sheet}


def entry_record(entry: SheetEntry) -> dict[str, Any]:
    """A score-sheet entry in the form of ``companion score time-n-space``."""
    return {
        "collected": [{"color": c.color, "value": c.value, "from": c.source} for c in entry.collected],
        "bonus": list(entry.bonus),
        "above": [{"color": c.color, "value": c.value} for c in entry.above],
    }


# --- light mode's actions (logged for an undo) -----------------------------------------------------


@dataclass(frozen=True)
class LightStart:
    """The master clock started."""


@dataclass(frozen=True)
class LightFlip:
    """A sandtimer was flipped after its sand ran through and runs again."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""


@dataclass(frozen=True)
class LightRanOut:
    """A sandtimer's sand ran through."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""


@dataclass(frozen=True)
class LightExpired:
    """The master clock ran out."""


@dataclass(frozen=True)
class LightEnd:
    """The host ended the game early: no sandtimer runs any more."""


@dataclass(frozen=True)
class LightSheet:
    """These score-sheet entries were entered (each replaces that player's earlier one)."""

    entries: tuple[SheetEntry, ...]
    """The entries, as the players saved them."""


LightAction = LightStart | LightFlip | LightRanOut | LightExpired | LightEnd | LightSheet


# --- facts (besides GameStarted, SandRanThrough, ClockRanOut and GameEnded of the model) -----------------


@dataclass(frozen=True)
class TimerStarted:
    """A sandtimer was flipped after its sand ran through and runs again."""

    player: str
    """Whose sandtimer."""
    timer: int
    """Which of theirs (0-based)."""


@dataclass(frozen=True)
class ScoreSheetEntered:
    """These players' score-sheet entries were entered (or replaced)."""

    players: tuple[str, ...]
    """Whose entries."""


def light_apply(state: LightState, action: Any) -> tuple[LightState, tuple[Any, ...]]:
    """The state after one light action and the facts it made; :class:`InvalidRecordError` if it is none."""
    match action:
        case LightStart():
            return replace(state, phase=PHASE_RUNNING), (GameStarted(),)
        case LightFlip(player=player, timer=timer):
            return state.with_status(player, timer, "running"), (TimerStarted(player, timer),)
        case LightRanOut(player=player, timer=timer):
            return _maybe_over(state.with_status(player, timer, "finished"), SandRanThrough(player, timer))
        case LightExpired():
            return _maybe_over(replace(state, phase=PHASE_ENDING), ClockRanOut())
        case LightEnd():
            timers = tuple((p, t, "finished" if s == "running" else s) for p, t, s in state.timers)
            ended: tuple[Any, ...] = (ClockRanOut(),) if state.phase == PHASE_RUNNING else ()
            return replace(state, phase=PHASE_OVER, timers=timers), ended + (GameEnded(),)
        case LightSheet(entries=entries):
            given = {e.player: e for e in entries}
            kept = {e.player: e for e in state.sheet} | given
            sheet = tuple(kept[p] for p in state.players if p in kept)
            return replace(state, sheet=sheet), (ScoreSheetEntered(tuple(given)),)
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

    def replay(self, state: LightState, ctx: Context, action: Any) -> Decision:
        after, facts = light_apply(state, action)
        return Decision(after, actions=(action,), facts=facts, ends_game=_ended(facts))

    def _step(self, state: LightState, action: LightAction, note: Text) -> Decision:
        after, facts = light_apply(state, action)
        return Decision(after, actions=(action,), facts=facts, notes=(note,), ends_game=_ended(facts))

    # --- what happens at the table ---------------------------------------------------------------
    def clock_started(self, state: LightState, ctx: Context) -> Decision:
        return self._step(state, LightStart(), text("master clock started"))

    def clock_expired(self, state: LightState, ctx: Context) -> Decision:
        if state.phase != PHASE_RUNNING:
            return Decision(state)
        return self._step(state, LightExpired(), text("master clock ran out"))

    @checked
    def game_ended_early(self, state: LightState, ctx: Context) -> Decision:
        """The host ended the game: no sandtimer runs any more; the players enter their score sheets."""
        if state.phase == PHASE_SETUP:
            refuse(
                text(
                    "The master clock never started, so there is nothing to score: "
                    "every player still holds all their order counters"
                ),
                END,
            )
        if state.phase == PHASE_OVER:
            return Decision(state)
        note = text("The game was ended early: enter your counters on your phones for the final scoring")
        return self._step(state, LightEnd(), note)

    @checked
    def check_intent(self, state: LightState, ctx: Context, seat: Seat, intent: Any) -> None:
        """Light mode keeps no choices for a sandtimer: the players move the pieces themselves."""
        if intent != Intent():
            refuse(
                text("In light mode the hub tracks only timers and clock; a sandtimer takes no choices"),
                TABLE_RULE,
            )

    def timer_emptied(self, state: LightState, ctx: Context, seat: Seat) -> Decision:
        t = seat.index - 1
        if state.status(seat.player, t) != "running":
            return Decision(state)
        return self._step(
            state,
            LightRanOut(seat.player, t),
            text("{player} timer {index}: sand ran through", player=seat.player, index=seat.index),
        )

    @checked
    def timer_flipped(
        self, state: LightState, ctx: Context, seat: Seat, *, intent: Any, ran_out: bool
    ) -> Decision:
        t = seat.index - 1
        if state.phase == PHASE_SETUP:
            refuse(REASON_NOT_STARTED, PLAYING)
        if state.phase in (PHASE_ENDING, PHASE_OVER):
            refuse(REASON_CLOCK_OVER, END)
        if not ran_out:
            running = state.status(seat.player, t) == "running"
            refuse(REASON_NOT_THROUGH if running else REASON_FULL_SAND, GENERAL)
        return self._step(
            state,
            LightFlip(seat.player, t),
            text("{player} timer {index} started", player=seat.player, index=seat.index),
        )

    @checked
    def player_action(self, state: LightState, ctx: Context, player: str, action: Any) -> Decision:
        if not isinstance(action, ScoreSheet):
            refuse(
                text(
                    "In light mode the hub tracks only timers and clock; enter the collected counters as a score sheet"
                ),
                TABLE_RULE,
            )
        given = _plain(action.sheet).get("players")
        if not isinstance(given, dict) or not given:
            refuse(
                text("The score sheet must list players with their collected, bonus and above counters"),
                SCORING,
            )
        strangers = [p for p in given if p not in state.players]
        if strangers:
            refuse(
                text(
                    "{player} does not play at this table ({players})",
                    player=repr(strangers[0]),
                    players=tuple(state.players),
                ),
                SCORING,
            )
        entries = state.entries() | given
        try:
            sheets = parse_record({"players": {p: entries.get(p, EMPTY_ENTRY) for p in state.players}})
        except RecordTextError as exc:
            refuse(exc.text, SCORING)
        typed = tuple(
            SheetEntry(
                s.name,
                tuple(SheetCounter(c.color, c.value, c.source) for c in s.collected),
                s.bonus,
                tuple(SheetCounter(color, value) for color, value in s.above),
            )
            for s in sheets
            if s.name in given
        )
        note = text("score sheet entered for {players}", players=tuple(given))
        return self._step(state, LightSheet(typed), note)

    # --- what the pages show ---------------------------------------------------------------------
    def scores(self, state: LightState, ctx: Context) -> dict[str, Any] | None:
        entries = state.entries()
        if set(entries) != set(state.players):
            return None
        return score_record({"players": {p: entries[p] for p in state.players}})

    def view(self, state: LightState, ctx: Context) -> View:
        running = [
            text("{player} timer {index}", player=p, index=t + 1)
            for p, t, s in state.timers
            if s == "running"
        ]
        lines = [
            text("{player} timer {index}: {status}", player=p, index=t + 1, status=STATUS_WORDS[s])
            for p, t, s in state.timers
        ]
        entered = tuple(e.player for e in state.sheet)
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

    def player_view(self, state: LightState, ctx: Context, player: str) -> View:
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
            "action_type": ScoreSheet.__name__,
        }
        return View(
            text("{player}: light mode, {phase}", player=player, phase=PHASE_WORDS[state.phase]),
            (
                {"kind": "lines", "title": text("My sandtimers"), "lines": mine},
                {"kind": "lines", "title": text("My score sheet"), "lines": lines},
                form,
            ),
        )


def _ended(facts: tuple[Any, ...]) -> Text | None:
    """Why the rules ended the game, when ``facts`` hold its end."""
    return GAME_OVER_NOTE if any(isinstance(f, GameEnded) for f in facts) else None


def _plain(value: Any) -> Any:
    """A move's JSON as ``companion score time-n-space`` reads it (lists, not the codec's tuples)."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value
