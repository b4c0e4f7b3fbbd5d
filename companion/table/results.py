"""Final results in the forms people want them: a tie-break explanation, a CSV sheet, a game summary.

Works on the score dictionaries every game's scorer returns
(``{"players": {name: {"total": N, ...}}, "ranking": [...], "winners": [...]}``).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from companion.rules.pages import ScoreWords
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


SCORE_WORDS = {
    "total": text("Total"),
    "cards_left": text("cards left"),
    "eliminated": text("out of the game"),
    "crystals": text("time crystals"),
    "tokens": text("time-jump tokens"),
    "markers": text("victory-point markers"),
    "counters": text("scored counters"),
    "trophies": text("trophies"),
    "letter": text("role"),
    "value": text("value"),
    "players": text("players"),
    "bonus": text("bonus"),
    "points": text("points"),
    "void": text("void"),
}
"""The words for the fields games' scores share (a game names its own in its ``ScoreWords``)."""
NO_WORDS = ScoreWords()


def score_label(words: ScoreWords, key: str) -> Text | str:
    """What a field, a row or a player of a game's scores is called on the end screen: the game's own
    word (its :class:`ScoreWords`), else the shared one, else the key as it is (a player's name)."""
    own = dict(words.labels).get(key)
    return own if own is not None else SCORE_WORDS.get(key, key)


def _amount(unit: str, count: Any) -> Text | None:
    """``count`` of what a game is won on, in words ("5 trophies"); None for plain points."""
    if unit == "trophies":
        return text("{count} trophy", "{count} trophies", count=count)
    if unit == "crystals":
        return text("{count} time crystal", "{count} time crystals", count=count)
    if unit == "cards":
        return text("{count} card left", "{count} cards left", count=count)
    if unit == "victory points":
        return text("{count} victory point", "{count} victory points", count=count)
    return None


def explain(scores: dict[str, Any], words: ScoreWords = NO_WORDS) -> Text:
    """One sentence on who won and why, including the tie-break when it decided; in the game's
    ``words`` (its unit, "5 trophies", and its players' names, the computer's)."""
    named = dict(words.labels)
    if named:
        scores = {
            **scores,
            "winners": [named.get(w, w) for w in scores.get("winners", [])],
            "players": {named.get(p, p): v for p, v in scores.get("players", {}).items()},
            "ranking": [named.get(p, p) for p in scores.get("ranking", [])],
        }
    if _amount(words.unit, 0) is not None:
        return _explain_in(scores, words)
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


def _explain_in(scores: dict[str, Any], words: ScoreWords) -> Text:
    """:func:`explain` for a game won on a count of its own (``words.unit``)."""
    unit = words.unit
    players = scores.get("players", {})
    winners = list(scores.get("winners", []))
    if not winners:
        return text("No winner.")
    ranking = [p for p in scores.get("ranking", []) if p in players] or list(players)
    best = _points(players[winners[0]].get("total"))
    amount = _amount(unit, best) or text("{count} point", "{count} points", count=best)
    key = tie_break_key(scores)
    label: Text | str = score_label(words, key) if key else ""
    if len(winners) > 1:
        if key:
            return text(
                "Shared victory: {names}, tied on {amount} and on {label}.",
                names=tuple(winners),
                amount=amount,
                label=label,
            )
        return text("Shared victory: {names}, tied on {amount}.", names=tuple(winners), amount=amount)
    tied = [p for p in ranking if players[p].get("total") == best]
    winner = winners[0]
    others = tuple(p for p in tied if p != winner)
    tie_rule = scores.get("tie_rule")
    if len(tied) > 1 and tie_rule:
        rule = as_text(tie_rule) if isinstance(tie_rule, (str, Text)) else str(tie_rule)
        return text(
            "{winner} wins: tied on {amount} with {names}; {rule}.",
            winner=winner,
            amount=amount,
            names=others,
            rule=rule,
        )
    return text("{winner} wins with {amount}.", winner=winner, amount=amount)


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
