"""Final results in the forms people want them: a tie-break explanation, a CSV sheet, a game summary.

Works on the score dictionaries every game's scorer returns
(``{"players": {name: {"total": N, ...}}, "ranking": [...], "winners": [...]}``).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from companion.rules.text import Text, as_text, text
from companion.table import events as ev
from companion.table.state import TableState

TIE_BREAK_LABELS = {
    "counters": text("scored counters"),
    "markers": text("victory-point markers used"),
    "crystals": text("time crystals"),
    "trophies": text("trophies"),
}


def tie_break_key(scores: dict[str, Any]) -> str | None:
    """The number a game breaks ties on: the first per-player number besides the total."""
    for entry in scores.get("players", {}).values():
        for key, value in entry.items():
            if key != "total" and isinstance(value, (int, float)) and not isinstance(value, bool):
                return str(key)
    return None


def _points(value: Any) -> int | float | str:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def explain(scores: dict[str, Any]) -> Text:
    """One sentence on who won and why, including the tie-break when it decided."""
    players = scores.get("players", {})
    winners = list(scores.get("winners", []))
    if not winners:
        return text("No winner.")
    ranking = [p for p in scores.get("ranking", []) if p in players] or sorted(
        players, key=lambda p: -players[p].get("total", 0)
    )
    best = _points(players[winners[0]].get("total"))
    key = tie_break_key(scores)
    label: Text | str = TIE_BREAK_LABELS.get(key or "", key or "")
    if len(winners) > 1:
        if key:
            return text(
                "Shared victory: {names}, tied on {count} point and on {label}.",
                "Shared victory: {names}, tied on {count} points and on {label}.",
                names=tuple(winners),
                count=best,
                label=label,
            )
        return text(
            "Shared victory: {names}, tied on {count} point.",
            "Shared victory: {names}, tied on {count} points.",
            names=tuple(winners),
            count=best,
        )
    tied = [p for p in ranking if players[p].get("total") == best]
    winner = winners[0]
    others = tuple(p for p in tied if p != winner)
    tie_rule = scores.get("tie_rule")
    if len(tied) > 1 and tie_rule:
        return text(
            "{winner} wins: tied on {count} point with {names}; {rule}.",
            "{winner} wins: tied on {count} points with {names}; {rule}.",
            winner=winner,
            count=best,
            names=others,
            rule=as_text(tie_rule) if isinstance(tie_rule, (str, Text)) else str(tie_rule),
        )
    if len(tied) > 1 and key:
        against = tuple(
            text("{player} {value}", player=p, value=_points(players[p].get(key))) for p in others
        )
        return text(
            "{winner} wins: tied on {count} point with {names}, and ahead on {label} ({value} against {others}).",
            "{winner} wins: tied on {count} points with {names}, and ahead on {label} ({value} against {others}).",
            winner=winner,
            count=best,
            names=others,
            label=label,
            value=_points(players[winner].get(key)),
            others=against,
        )
    return text(
        "{winner} wins with {count} point.", "{winner} wins with {count} points.", winner=winner, count=best
    )


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
