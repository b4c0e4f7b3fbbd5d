"""Final results in the forms people want them: a tie-break explanation, a CSV sheet, a game summary.

Works on the score dictionaries every game's scorer returns
(``{"players": {name: {"total": N, ...}}, "ranking": [...], "winners": [...]}``).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from companion.table import events as ev
from companion.table.state import TableState

TIE_BREAK_LABELS = {
    "counters": "scored counters",
    "markers": "victory-point markers used",
    "crystals": "time crystals",
    "trophies": "trophies",
}


def tie_break_key(scores: dict[str, Any]) -> str | None:
    """The number a game breaks ties on: the first per-player number besides the total."""
    for entry in scores.get("players", {}).values():
        for key, value in entry.items():
            if key != "total" and isinstance(value, (int, float)) and not isinstance(value, bool):
                return str(key)
    return None


def explain(scores: dict[str, Any]) -> str:
    """One sentence on who won and why, including the tie-break when it decided."""
    players = scores.get("players", {})
    winners = list(scores.get("winners", []))
    if not winners:
        return "No winner."
    ranking = [p for p in scores.get("ranking", []) if p in players] or sorted(
        players, key=lambda p: -players[p].get("total", 0)
    )
    best = players[winners[0]].get("total")
    key = tie_break_key(scores)
    label = TIE_BREAK_LABELS.get(key or "", key or "")
    if len(winners) > 1:
        names = ", ".join(winners[:-1]) + " and " + winners[-1]
        why = f"tied on {best} points" + (f" and on {label}" if key else "")
        return f"Shared victory: {names}, {why}."
    tied = [p for p in ranking if players[p].get("total") == best]
    winner = winners[0]
    if len(tied) > 1 and scores.get("tie_rule"):
        others = ", ".join(p for p in tied if p != winner)
        return f"{winner} wins: tied on {best} points with {others}; {scores['tie_rule']}."
    if len(tied) > 1 and key:
        others = ", ".join(f"{p} {players[p].get(key)}" for p in tied if p != winner)
        return (
            f"{winner} wins: tied on {best} points with {', '.join(p for p in tied if p != winner)}, "
            f"and ahead on {label} ({players[winner].get(key)} against {others})."
        )
    return f"{winner} wins with {best} points."


def scores_csv(scores: dict[str, Any]) -> str:
    """The scores as a spreadsheet: one line per player, a column per scoring row and field."""
    players = scores.get("players", {})
    ranking = scores.get("ranking", list(players))
    columns: list[str] = []
    for entry in players.values():
        for key, value in entry.items():
            if key == "rows" and isinstance(value, dict):
                for row, fields in value.items():
                    for field in fields if isinstance(fields, dict) else {"points": fields}:
                        name = f"{row}_{field}"
                        if name not in columns:
                            columns.append(name)
            elif key not in columns:
                columns.append(key)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["rank", "player", "winner", *columns])
    winners = set(scores.get("winners", []))
    for rank, name in enumerate(ranking, start=1):
        entry = players.get(name, {})
        flat: dict[str, Any] = {}
        for key, value in entry.items():
            if key == "rows" and isinstance(value, dict):
                for row, fields in value.items():
                    for field, v in (fields if isinstance(fields, dict) else {"points": fields}).items():
                        flat[f"{row}_{field}"] = v
            else:
                flat[key] = value
        writer.writerow([rank, name, "yes" if name in winners else "", *(flat.get(c, "") for c in columns)])
    return out.getvalue()


def game_times(events: list[ev.Event]) -> tuple[float | None, float | None]:
    """Game time when the master clock started and when the game ended (None when it did not)."""
    started = ended = None
    for event in events:
        if isinstance(event, ev.ClockStarted) and started is None:
            started = event.at_s
        elif isinstance(event, (ev.ClockExpired, ev.ClockAborted)):
            ended = event.at_s
    return started, ended


def played_s(state: TableState, events: list[ev.Event]) -> float:
    """Seconds the master clock ran (pauses excluded)."""
    started, ended = game_times(events)
    if started is None:
        return 0.0
    return state.clock.elapsed_s(ended if ended is not None else events[-1].at_s if events else started)
