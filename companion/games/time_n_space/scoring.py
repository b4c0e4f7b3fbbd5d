"""Final scoring of Time 'n' Space (rulebook: "Final Scoring" and "Object of the Game").

The rule, in short:

* Each of the four order colours (gray, yellow, blue, brown) is a separate row.
* A colour of which the player still has any own counter *above* the control center
  is void: the collected counters of that colour are removed and score nothing.
  Counters already placed *on* the control center are in play and do no harm.
* A non-void row scores (sum of the printed values) x (number of different players
  the counters came from).
* A bonus counter adds its value to one row before that row is scored, but never adds
  to the player count. The scorer puts every bonus counter where it earns the most,
  i.e. on the non-void row with the most different source players (ties go to the
  first row in the order gray, yellow, blue, brown). Our reading for a player whose
  colours are all void: the bonus counter has no row to join and counts for nothing,
  neither in points nor in the tie-break.
* Most points wins; a tie goes to the tied player who scored more single counters
  (counters of void colours do not count, bonus counters placed on a row do); if that
  still ties, the victory is shared.

:func:`score_record` is the single entry point used by the command line
(``companion score time-n-space FILE``) and by the rules engine at the end of a game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.time_n_space.components import COLORS, ORDER_VALUES
from companion.games.time_n_space.model import GameState
from companion.rules.text import Text, TextError, text

MIN_PLAYERS = 3
MAX_PLAYERS = 4
_PLAYER_KEYS = ("collected", "bonus", "above")
_COLOR_LIST = ", ".join(COLORS)
"""The colours as a score sheet spells them (JSON values, shown as they are)."""


class RecordTextError(InvalidRecordError, TextError):
    """A setup or score sheet the rules do not allow: an :class:`InvalidRecordError` whose message is a Text."""


def _bad(message: Text) -> RecordTextError:
    return RecordTextError(message)


@dataclass(frozen=True)
class ScoredCounter:
    """An order counter a player collected from another player."""

    color: str
    """One of :data:`COLORS`."""
    value: int
    """Printed number: goods needed, and points in the final scoring."""
    source: str
    """The player the counter belongs to (whose planet it was fulfilled at)."""


@dataclass(frozen=True)
class PlayerSheet:
    """What the final scoring needs to know about one player."""

    name: str
    collected: tuple[ScoredCounter, ...] = ()
    """Counters collected beneath the control center."""
    bonus: tuple[int, ...] = ()
    """Values of the bonus order counters the player holds."""
    above: tuple[tuple[str, int], ...] = ()
    """(colour, value) of own counters still above the control center."""


@dataclass(frozen=True)
class Row:
    """The score of one colour row."""

    value: int
    """Sum of the values of the scored collected counters (0 when void)."""
    players: int
    """Number of different players those counters came from (0 when void)."""
    bonus: int
    """Sum of the bonus counter values the scorer added to this row."""
    points: int
    """(value + bonus) x players."""
    void: bool
    """True when the player still has a counter of this colour above the control center."""


@dataclass(frozen=True)
class PlayerScore:
    """The final score of one player."""

    name: str
    total: int
    counters: int
    """Scored single counters (for the tie-break): non-void collected plus placed bonus counters."""
    rows: tuple[tuple[str, Row], ...]


def score_player(sheet: PlayerSheet) -> PlayerScore:
    """Score one player's rows, placing bonus counters where they earn most ("Final Scoring")."""
    void = {color: any(c == color for c, _ in sheet.above) for color in COLORS}
    value = {color: 0 for color in COLORS}
    sources: dict[str, set[str]] = {color: set() for color in COLORS}
    count = 0
    for counter in sheet.collected:
        if void[counter.color]:
            continue
        value[counter.color] += counter.value
        sources[counter.color].add(counter.source)
        count += 1
    open_rows = [color for color in COLORS if not void[color]]
    bonus = {color: 0 for color in COLORS}
    if open_rows and sheet.bonus:
        # Each bonus value b adds b x players(row); the best row is the one with most players.
        best = max(open_rows, key=lambda color: (len(sources[color]), -COLORS.index(color)))
        bonus[best] = sum(sheet.bonus)
        count += len(sheet.bonus)
    rows = []
    for color in COLORS:
        players = len(sources[color])
        rows.append(
            (
                color,
                Row(
                    value=value[color],
                    players=players,
                    bonus=bonus[color],
                    points=(value[color] + bonus[color]) * players,
                    void=void[color],
                ),
            )
        )
    total = sum(row.points for _, row in rows)
    return PlayerScore(name=sheet.name, total=total, counters=count, rows=tuple(rows))


def rank(scores: list[PlayerScore]) -> tuple[list[str], list[str]]:
    """Ranking (best first) and the winners sharing first place (points, then counters)."""
    ordered = sorted(scores, key=lambda s: (-s.total, -s.counters))
    if not ordered:
        return [], []
    top = (ordered[0].total, ordered[0].counters)
    winners = [s.name for s in ordered if (s.total, s.counters) == top]
    return [s.name for s in ordered], winners


def score_sheets(sheets: list[PlayerSheet]) -> dict[str, Any]:
    """Score validated sheets and build the JSON-ready result."""
    scores = [score_player(sheet) for sheet in sheets]
    ranking, winners = rank(scores)
    return {
        "players": {
            s.name: {
                "total": s.total,
                "counters": s.counters,
                "rows": {
                    color: {
                        "value": row.value,
                        "players": row.players,
                        "bonus": row.bonus,
                        "points": row.points,
                        "void": row.void,
                    }
                    for color, row in s.rows
                },
            }
            for s in scores
        },
        "ranking": ranking,
        "winners": winners,
    }


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_keys(obj: Mapping[str, Any], required: tuple[str, ...], where: Text) -> None:
    missing = [k for k in required if k not in obj]
    if missing:
        raise _bad(text("{where} is missing the field {field}", where=where, field=repr(missing[0])))
    extra = sorted(k for k in obj if k not in required)
    if extra:
        raise _bad(
            text(
                "{where} has an unknown field {field}; expected only {fields}",
                where=where,
                field=repr(extra[0]),
                fields=", ".join(required),
            )
        )


def _check_color(value: Any, where: Text) -> str:
    if not isinstance(value, str):
        raise _bad(text("{where}: color must be a string, one of {colors}", where=where, colors=_COLOR_LIST))
    if value not in COLORS:
        raise _bad(
            text(
                "{where}: unknown color {color}; use one of {colors}",
                where=where,
                color=repr(value),
                colors=_COLOR_LIST,
            )
        )
    return value


def _check_value(value: Any, where: Text) -> int:
    if not _is_int(value):
        raise _bad(text("{where}: value must be a whole number 1, 2 or 3", where=where))
    if value not in ORDER_VALUES:
        raise _bad(
            text(
                "{where}: value {value} is not printed on any order counter (1, 2 or 3)",
                where=where,
                value=value,
            )
        )
    return int(value)


def parse_record(record: Any) -> list[PlayerSheet]:
    """Validate a score-sheet record (see :func:`score_record`) and return player sheets.

    A bad sheet raises :class:`RecordTextError` (an :class:`InvalidRecordError`) with one sentence.
    """
    if not isinstance(record, dict):
        raise _bad(text("the score sheet must be a JSON object with a 'players' field"))
    _check_keys(record, ("players",), text("the score sheet"))
    players = record["players"]
    if not isinstance(players, dict):
        raise _bad(text("'players' must be an object mapping each player's name to their counters"))
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise _bad(
            text(
                "Time 'n' Space is played by {least} or {most} players, the sheet lists {players}",
                least=MIN_PLAYERS,
                most=MAX_PLAYERS,
                players=len(players),
            )
        )
    names = set(players)
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise _bad(text("each player's name must be a non-empty string"))
    sheets = []
    total_bonus = 0
    for name, entry in players.items():
        where = text("player {player}", player=repr(name))
        if not isinstance(entry, dict):
            raise _bad(text("{where} must be an object with 'collected', 'bonus' and 'above'", where=where))
        _check_keys(entry, _PLAYER_KEYS, where)
        for key in _PLAYER_KEYS:
            if not isinstance(entry[key], list):
                raise _bad(text("{where}: {field} must be a list", where=where, field=repr(key)))
        collected = []
        for i, item in enumerate(entry["collected"]):
            cwhere = text("{where}, collected counter {number}", where=where, number=i + 1)
            if not isinstance(item, dict):
                raise _bad(text("{where} must be an object with color, value and from", where=cwhere))
            _check_keys(item, ("color", "value", "from"), cwhere)
            color = _check_color(item["color"], cwhere)
            value = _check_value(item["value"], cwhere)
            source = item["from"]
            if not isinstance(source, str):
                raise _bad(text("{where}: 'from' must be the name of another player", where=cwhere))
            if source == name:
                raise _bad(
                    text(
                        "{where} comes from {player} itself; only counters fulfilled for other players are collected",
                        where=cwhere,
                        player=repr(name),
                    )
                )
            if source not in names:
                raise _bad(
                    text(
                        "{where} comes from {player}, who is not a player on this sheet",
                        where=cwhere,
                        player=repr(source),
                    )
                )
            collected.append(ScoredCounter(color, value, source))
        bonus = []
        for i, item in enumerate(entry["bonus"]):
            if not _is_int(item) or item < 1:
                raise _bad(
                    text(
                        "{where}, bonus counter {number}: value must be a positive whole number",
                        where=where,
                        number=i + 1,
                    )
                )
            bonus.append(item)
        total_bonus += len(bonus)
        above = []
        for i, item in enumerate(entry["above"]):
            awhere = text("{where}, counter {number} above the control center", where=where, number=i + 1)
            if not isinstance(item, dict):
                raise _bad(text("{where} must be an object with color and value", where=awhere))
            _check_keys(item, ("color", "value"), awhere)
            above.append((_check_color(item["color"], awhere), _check_value(item["value"], awhere)))
        sheets.append(PlayerSheet(name, tuple(collected), tuple(bonus), tuple(above)))
    if total_bonus > len(players):
        raise _bad(
            text(
                "the sheet lists {bonus} bonus counters but there is only one per planet ({players})",
                bonus=total_bonus,
                players=len(players),
            )
        )
    return sheets


def score_record(record: Any) -> dict[str, Any]:
    """Final scoring of a JSON score sheet ("Final Scoring").

    Input: ``{"players": {NAME: {"collected": [{"color", "value", "from"}...],
    "bonus": [VALUE...], "above": [{"color", "value"}...]}, ...}}`` for 3 or 4 players.
    Output: per player ``total``, ``counters`` (scored single counters for the
    tie-break) and ``rows`` per colour (``value``, ``players``, ``bonus``, ``points``,
    ``void``), then ``ranking`` (best first) and ``winners`` (everyone sharing first place).

    Raises :class:`~companion.errors.InvalidRecordError` with one sentence for bad input.
    """
    return score_sheets(parse_record(record))


def scoring_record(state: GameState) -> dict[str, Any]:
    """The score sheet of a game state, in the format of ``companion score time-n-space``."""
    return {
        "players": {
            p.name: {
                "collected": [{"color": c.color, "value": c.value, "from": c.source} for c in p.collected],
                "bonus": list(p.bonus),
                "above": [{"color": o.color, "value": o.value} for o in p.above],
            }
            for p in state.players
        }
    }


def final_scores(state: GameState) -> dict[str, Any]:
    """Final scoring of a game state through the same :func:`score_record` the command line uses."""
    return score_record(scoring_record(state))
