"""Logs of formats 1 and 2 read as today's: their game actions replayed once through today's rules.

Format 1 logged each engine action (``GameActed``) and no facts; format 2 logged facts, the change
each step made to the game's state, and the actions in each game's own JSON, with the game's
state wrapped in the referee's bookkeeping (whose turn runs, the latest notes). Today's log
records typed actions and keeps that bookkeeping in the table, so neither old change fits the
states of today. Reading such a log therefore replays its actions, translated by the game's
``legacy_actions``, through today's referee (a game of the hub deck, as every old game was)
and records what that decides, as facts, with the old notes and times. Undos are taken back
the way they were. The old file is kept by :meth:`~companion.table.log.EventLog.open_existing`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.codec import diff
from companion.rules.context import Context
from companion.rules.setup import TableSetup
from companion.rules.text import Text, joined, verbatim
from companion.table import events as ev
from companion.table.state import TableState, evolve, initial_state


@dataclass(frozen=True)
class OldStep:
    """One game step of an old log: who, when, its note and its actions in the game's old JSON."""

    line: int
    at_s: float
    player: str
    note: Text
    actions: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class OldUndo:
    """An undo of an old log: the old step it took back (its line), with its time and note."""

    line: int
    at_s: float
    note: Text
    step_line: int


OldItem = ev.Event | OldStep | OldUndo


def replayed(setup: TableSetup, items: Iterable[OldItem], path: Path) -> tuple[Any, list[ev.Event], int]:
    """(starting game state, today's events, rules version) of an old log's game.

    ``items`` are the old log's table events (kept as they are), its game steps and its undos, in
    order. :class:`InvalidRecordError` names the line that today's rules cannot replay."""
    from companion.games import find_game

    info = find_game(setup.game)
    referee = info.make_referee(setup)
    start = referee.start(setup)
    state = initial_state(setup, start)
    events: list[ev.Event] = []
    new_index: dict[int, int] = {}
    """Old step line -> index of its migrated GameStepped."""

    def add(event: ev.Event) -> None:
        nonlocal state
        events.append(event)
        state = evolve(state, event)

    for item in items:
        if isinstance(item, OldStep):
            where = f"event log {path} line {item.line}"
            stepped = _step(info, referee, state, item, where)
            new_index[item.line] = len(events)
            add(stepped)
        elif isinstance(item, OldUndo):
            where = f"event log {path} line {item.line}"
            target = new_index.get(item.step_line)
            if target is None:
                raise InvalidRecordError(
                    f"{where}: the undo names line {item.step_line}, which is no game step"
                )
            add(_undo(referee, state, target, item, where))
        else:
            add(item)
    return start, events, info.rules_version


def _step(info: Any, referee: Any, state: TableState, old: OldStep, where: str) -> ev.GameStepped:
    if info.legacy_actions is None:
        raise InvalidRecordError(f"{where}: this version cannot read {info.title}'s old game actions")
    game, ctx = state.game, state.context
    actions: list[Any] = []
    facts: list[Any] = []
    opens = ends = False
    ended: Text | None = None
    notes: list[Text] = []
    for raw in old.actions:
        try:
            translated = info.legacy_actions(raw)
        except (InvalidRecordError, KeyError, TypeError, ValueError) as exc:
            raise InvalidRecordError(f"{where}: {raw!r} is not an action of {info.title}: {exc}") from None
        for action in translated:
            decided = referee.replay(game, ctx, action)
            game = decided.state
            ctx = ctx.with_turn(opens=decided.opens_turn, ends=decided.ends_turn)
            actions.append(action)
            facts.extend(decided.facts)
            notes.extend(decided.notes)
            opens, ends = opens or decided.opens_turn, ends or decided.ends_turn
            ended = ended or decided.ends_game
    return ev.GameStepped(
        old.at_s,
        old.player,
        joined(notes) or old.note,
        tuple(facts),
        diff(state.game, game),
        tuple(actions),
        rules=info.rules_version,
        opens_turn=opens,
        ends_turn=ends,
        ended=ended if ended and not state.ended_by else Text(""),
        ended_by="rules" if ended and not state.ended_by else "",
        after=game,
    )


def _undo(referee: Any, state: TableState, target: int, old: OldUndo, where: str) -> ev.StepUndone:
    """The undo of the migrated step ``target``: its state before, with the later steps decided again."""
    step = next((s for s in state.steps if s.index == target), None)
    if step is None or step.undone:
        raise InvalidRecordError(f"{where}: the step it undoes was undone before")
    game = step.before
    turn_open, turns = step.turn_before
    ctx: Context = replace(state.context, turn_open=turn_open, turns=turns)
    for later in state.steps:
        if later.index > step.index and not later.undone:
            for action in later.actions:
                decided = referee.replay(game, ctx, action)
                game, ctx = decided.state, ctx.with_turn(opens=decided.opens_turn, ends=decided.ends_turn)
    return ev.StepUndone(old.at_s, target, old.note, diff(state.game, game))


# --- reading the old lines ------------------------------------------------------------------------


def old_items(records: list[Any], path: Path, *, codec: Any, version: int) -> list[OldItem]:
    """The table events, game steps and undos of an old log's lines (after its header)."""
    items: list[OldItem] = []
    acted_lines: list[tuple[int, OldStep]] = []
    """Format 1: (line, step) of every game action so far (consecutive ones of one player at one moment
    were one step)."""
    for number, record in enumerate(records, start=2):
        where = f"event log {path} line {number}"
        if not isinstance(record, dict):
            raise InvalidRecordError(f"{where}: an event must be a JSON object")
        kind = record.get("type")
        if kind in ev.LEGACY_SKIPPED:
            continue
        if kind == "GameActed" and version == 1:
            action, player = record.get("action"), record.get("player", "")
            if not isinstance(action, dict) or not isinstance(player, str):
                raise InvalidRecordError(f"{where}: GameActed needs an action object")
            at_s, note = float(record.get("at_s", 0.0)), verbatim(str(record.get("note", "")))
            last = items[-1] if items else None
            if (
                isinstance(last, OldStep)
                and acted_lines
                and acted_lines[-1][0] == number - 1
                and last.player == player
                and last.at_s == at_s
            ):
                merged = replace(last, note=joined([last.note, note]), actions=(*last.actions, action))
                items[-1] = merged
                acted_lines.append((number, merged))
            else:
                step = OldStep(number, at_s, player, note, (action,))
                items.append(step)
                acted_lines.append((number, step))
        elif kind == "GameStepped" and version == 2:
            actions = record.get("actions", [])
            if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
                raise InvalidRecordError(f"{where}: GameStepped.actions must be a list of objects")
            player = record.get("player", "")
            if not isinstance(player, str):
                raise InvalidRecordError(f"{where}: GameStepped.player must be text")
            note = _note(record.get("note", ""), where)
            items.append(OldStep(number, float(record.get("at_s", 0.0)), player, note, tuple(actions)))
        elif kind == "StepUndone":
            at_s, note = float(record.get("at_s", 0.0)), _note(record.get("note", ""), where)
            if version == 1:
                first = record.get("first")
                if not isinstance(first, int):
                    raise InvalidRecordError(f"{where}: StepUndone needs first and count")
                line = first + 2  # format 1 named the log's lines after the header, from 0
                owner = next((s.line for n, s in acted_lines if n == line), None)
                if owner is None:
                    raise InvalidRecordError(
                        f"{where}: StepUndone names line {line}, which is no game action"
                    )
                items.append(OldUndo(number, at_s, note, owner))
            else:
                undone = record.get("step")
                if not isinstance(undone, int):
                    raise InvalidRecordError(f"{where}: StepUndone needs the step it undoes")
                items.append(OldUndo(number, at_s, note, _old_line(records, undone, number)))
        else:
            try:
                items.append(ev.event_from_dict(record, codec))
            except InvalidRecordError as exc:
                raise InvalidRecordError(f"{where}: {exc}") from exc
    return items


def _note(value: Any, where: str) -> Text:
    from companion.rules.text import from_json

    try:
        return from_json(value)
    except ValueError as exc:
        raise InvalidRecordError(f"{where}: {exc}") from None


def _old_line(records: list[Any], index: int, number: int) -> int:
    """The line of the event at log index ``index`` of a format-2 log (skipped lines do not count)."""
    count = 0
    for line, record in enumerate(records, start=2):
        if isinstance(record, dict) and record.get("type") in ev.LEGACY_SKIPPED:
            continue
        if count == index:
            return line
        count += 1
    raise InvalidRecordError(f"line {number}: StepUndone names step {index}, which the log does not have")
