"""The picture of a game that was played, drawn from its log: how it went, for the end screen and the
history (``static/played.js`` draws it as SVG).

Folding the log again (never asking the rules to decide anything: only the referee's
``standing`` and ``scores`` read the folded states), it gathers, on the master clock's time (pauses
left out):

* the count the game is won on for each player over time (victory points, trophies, cards left),
  from the referee's :meth:`~companion.rules.referee.Referee.standing` after every step;
* each sandtimer's use: when its sand ran, when it stood idle, its refused flips and its knocks;
* the decisive moments: the steps that gained the most, when the lead changed hands, how it ended.

Every word is a :class:`~companion.rules.text.Text`, shown in the table's language by the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.rules.pages import Standing
from companion.rules.referee import Referee
from companion.rules.setup import TableSetup
from companion.rules.text import Text, text
from companion.table import events as ev
from companion.table.state import TableState, evolve, initial_state
from companion.table.story import stage_of

LEAD_MOMENTS = 4
"""Changes of the lead told at most (the latest ones)."""
GAIN_MOMENTS = 2
"""Biggest single steps told at most."""


@dataclass
class _Timer:
    player: str
    index: int
    runs: list[list[float]] = field(default_factory=list)
    refused: list[float] = field(default_factory=list)
    knocked: list[float] = field(default_factory=list)
    until: float | None = None
    """When the running sand runs out, unless the node says so earlier."""

    def stop(self, x: float) -> None:
        if self.until is not None and self.runs:
            self.runs[-1][1] = round(min(x, self.until), 2)
        self.until = None


def game_played(
    setup: TableSetup, start: Any, events: list[ev.Event], referee: Referee[Any]
) -> dict[str, Any]:
    """The picture's data (JSON: numbers, names and texts) for the game of ``setup`` whose log holds
    ``events`` from the game state ``start``."""
    state = initial_state(setup, start)
    timers = {seat.node: _Timer(seat.player, seat.index) for seat in setup.seats}
    standing = _safe_standing(referee, state)
    label: Text | str = standing.label if standing else ""
    lower_is_better = bool(standing and standing.lower_is_better)
    track: dict[str, list[list[float]]] = {p: [] for p in setup.players}
    last: dict[str, float] = {}
    gains: list[tuple[float, float, Text, str]] = []
    moments: list[dict[str, Any]] = []
    leader: str | None = None
    leads: list[dict[str, Any]] = []
    if standing is not None:
        last = dict(standing.values)
        for player, value in standing.values:
            track.setdefault(player, []).append([0.0, value])
    x = 0.0
    for event in events:
        state = evolve(state, event)
        x = round(state.clock.elapsed_s(event.at_s), 2)
        match event:
            case ev.TimerFlipped(node=node, upper_s=upper) if node in timers:
                timer = timers[node]
                timer.stop(x)
                if upper > 0:
                    timer.runs.append([x, round(x + upper, 2)])
                    timer.until = x + upper
            case ev.TimerEmptied(node=node) if node in timers:
                timers[node].stop(x)
            case ev.FlipRefused(node=node) if node in timers:
                timers[node].refused.append(x)
            case ev.TimerKnocked(node=node) if node in timers:
                timers[node].knocked.append(x)
            case ev.SeatAdded(player=player, index=index, node=node):
                timers[node] = _Timer(player, index)
        if not isinstance(event, (ev.GameStepped, ev.StepUndone)):
            continue
        now = _safe_standing(referee, state)
        if now is None:
            continue
        values = dict(now.values)
        for player, value in values.items():
            if value != last.get(player):
                track.setdefault(player, []).append([x, value])
        if isinstance(event, ev.GameStepped) and event.note:
            gain = max((values[p] - last.get(p, 0)) * (-1 if lower_is_better else 1) for p in values)
            if gain > 0:
                who = max(values, key=lambda p: (values[p] - last.get(p, 0)) * (-1 if lower_is_better else 1))
                gains.append((gain, x, event.note, who))
        last = values
        ahead = _leader(values, lower_is_better=lower_is_better)
        if ahead is not None and ahead != leader and any(values.values()):
            leads.append(
                {
                    "x": x,
                    "kind": "lead",
                    "player": ahead,
                    "text": text("{player} takes the lead", player=ahead),
                }
            )
        if ahead is not None:
            leader = ahead
    end_x = x
    for _gain, at, note, who in sorted(gains, key=lambda g: -g[0])[:GAIN_MOMENTS]:
        moments.append({"x": at, "kind": "gain", "player": who, "text": note})
    moments += leads[-LEAD_MOMENTS:]
    for timer in timers.values():
        timer.stop(end_x)
    scores = referee.scores(state.game, state.context)
    stage = stage_of(state, referee, scores)
    if stage.key == "over":
        moments.append({"x": end_x, "kind": "end", "player": "", "text": stage.how})
    moments.sort(key=lambda m: m["x"])
    others = [p for p in track if p not in setup.players and track[p]]  # the computer opponent
    words = dict(referee.score_words().labels)
    return {
        "names": {p: _json(words[p]) for p in (*setup.players, *others) if p in words},
        "players": [{"name": p, "colour": setup.colour_of(p)} for p in setup.players]
        + [{"name": p, "colour": "white"} for p in others],
        "measure": {"label": _json(label), "lower_is_better": lower_is_better} if standing else None,
        "track": {p: points for p, points in track.items() if points},
        "timers": [
            {"player": t.player, "index": t.index, "runs": t.runs, "refused": t.refused, "knocked": t.knocked}
            for t in timers.values()
        ],
        "moments": [dict(m, text=_json(m["text"])) for m in moments],
        "length_s": round(max(end_x, 1.0), 2),
        "clock_s": setup.clock_length_s,
        "stage": stage.to_json(),
        "winners": list(stage.winners),
    }


def _leader(values: dict[str, float], *, lower_is_better: bool) -> str | None:
    """The one player ahead (None while several share the best count)."""
    if not values:
        return None
    best = min(values.values()) if lower_is_better else max(values.values())
    ahead = [p for p, v in values.items() if v == best]
    return ahead[0] if len(ahead) == 1 else None


def _safe_standing(referee: Referee[Any], state: TableState) -> Standing | None:
    """The referee's standing of ``state``; None when it has none, or cannot say for a state of an old
    log (a picture never stops the end screen)."""
    try:
        return referee.standing(state.game, state.context)
    except Exception:
        return None


def _json(value: Text | str) -> Any:
    return value.to_json() if isinstance(value, Text) else value
