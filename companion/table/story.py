"""Where a game stands, said once for every page: the dashboard, the phones and the end screen.

A game goes through these stages, each said in the same words wherever it is shown:

* ``setup``: the master clock has not started;
* ``playing`` and ``paused``: the master clock runs, or is paused;
* ``last-lifts``: the master clock ran out, and the rules still judge the last flips (Time 'n'
  Space: the finished sandtimers are lifted one last time) before they score the game
  (``ctx.clock_over`` and not ``ctx.ended_by``);
* ``over``: the game ended (by its rules, by the master clock or by the host), with how it ended
  and, when the rules scored it, who won and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from companion.rules.pages import ScoreWords
from companion.rules.referee import Referee
from companion.rules.text import Text, text
from companion.table.results import explain
from companion.table.state import TableState

StageKey = Literal["setup", "playing", "paused", "last-lifts", "over"]

SHORT: dict[str, Text] = {
    "setup": text("ready to start"),
    "playing": text("running"),
    "paused": text("paused"),
    "last-lifts": text("last lifts"),
    "over": text("game over"),
}
"""A stage in one or two words, beside the master clock."""


@dataclass(frozen=True)
class Stage:
    """Where the game stands, in words."""

    key: StageKey
    title: Text
    """The stage as a sentence: "The game is over", "The master clock is paused"..."""
    how: Text = Text("")
    """How it came to this stage: why the game ended, what the last lifts are."""
    result: Text = Text("")
    """Who won and why, once the rules scored the game (or why it has no scores)."""
    winners: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "short": SHORT[self.key].to_json(),
            "title": self.title.to_json(),
            "how": self.how.to_json(),
            "result": self.result.to_json(),
            "winners": list(self.winners),
        }


def stage_of(state: TableState, referee: Referee[Any], scores: dict[str, Any] | None) -> Stage:
    """The stage of the game ``state`` is in, with ``scores`` as ``referee`` gives them (None before
    the end). A referee that judges flips after the master clock (``rules_decide_end``) has last
    lifts; one with no scoring at all (a table that only times the sandtimers) says so at the end."""
    rules_decide_end = referee.rules_decide_end
    keeps_score = type(referee).scores is not Referee.scores
    clock, ctx = state.clock, state.context
    if ctx.ended_by or clock.phase == "aborted" or (clock.phase == "expired" and not rules_decide_end):
        return _over(state, scores, keeps_score=keeps_score, words=referee.score_words())
    if clock.phase == "expired":
        return Stage(
            "last-lifts",
            text("Last lifts: the master clock has run out"),
            text("Each finished sandtimer is lifted one last time; the game is scored when the last one is."),
        )
    if clock.phase == "paused":
        return Stage("paused", text("The master clock is paused: wait until it is resumed"))
    if clock.phase == "running":
        return Stage("playing", text("The game is on"))
    return Stage("setup", text("The game has not started: the host starts the master clock"))


def _over(state: TableState, scores: dict[str, Any] | None, *, keeps_score: bool, words: ScoreWords) -> Stage:
    clock, ended_by = state.clock, state.context.ended_by
    left = clock.length_s - clock.run_before_s
    if clock.phase == "aborted" or ended_by == "host":
        how = text("The host ended the game early.")
    elif ended_by == "rules" and clock.end_reason and left > 0.5:
        how = text(
            "The rules ended it with {time} left on the master clock: {reason}",
            time=_mm_ss(left),
            reason=clock.end_reason,
        )
    elif ended_by == "rules" and clock.end_reason:
        how = text("The rules ended it: {reason}", reason=clock.end_reason)
    else:
        how = text("The master clock ran out.")
    if scores is not None:
        return Stage("over", text("The game is over"), how, explain(scores), tuple(scores.get("winners", ())))
    if clock.phase == "aborted" and clock.end_reason:
        result = text("It cannot be scored: {reason}", reason=clock.end_reason)
    elif not keeps_score:
        result = text("This table keeps no score: it only times the sandtimers.")
    else:
        result = text("The rules have not scored it.")
    return Stage("over", text("The game is over"), how, result)


def _mm_ss(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    return f"{s // 60:02d}:{s % 60:02d}"
