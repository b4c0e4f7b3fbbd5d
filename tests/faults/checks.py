"""What "nothing lost, nothing forged" means, checked against the nodes' notebooks and the game log."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.games import find_game
from companion.table import events as ev
from companion.table.log import read_log
from companion.table.state import TableState, fold
from tests.faults.nodes import RecordingNode

NodeKey = tuple[str, str, int]
"""(node, boot, seq)."""

ACCEPTED_AS: dict[str, tuple[type, ...]] = {
    "flip": (ev.TimerFlipped, ev.TimerKnocked),  # a flip turned back at once is logged as one knock
    "empty": (ev.TimerEmptied,),
}
REJECTED_AS = {"flip": ev.FlipRefused}


@dataclass
class Audit:
    """The nodes' reports, their verdicts and the log, compared."""

    produced: int = 0
    """Flips and empties the nodes made."""
    accepted: int = 0
    """Of those, answered "accepted"."""
    rejected: int = 0
    unanswered: list[NodeKey] = field(default_factory=list)
    """Made but never answered (dropped from a full buffer, or still waiting)."""
    logged: int = 0
    """Node reports in the log."""
    lost: list[NodeKey] = field(default_factory=list)
    """Answered "accepted" but not in the log."""
    duplicated: list[NodeKey] = field(default_factory=list)
    """In the log more than once."""
    forged: list[str] = field(default_factory=list)
    """In the log but not what the node sent (another number, kind or sand level)."""
    changed_verdicts: list[str] = field(default_factory=list)
    """Reports answered "accepted" once and "rejected" another time."""
    wrong_verdicts: list[str] = field(default_factory=list)
    """A verdict that does not match how the report was logged."""
    rejected_unlogged: list[NodeKey] = field(default_factory=list)
    """Answered "rejected" without a FlipRefused in the log."""

    def figures(self) -> dict[str, int]:
        return {
            "events_produced": self.produced,
            "acked_accepted": self.accepted,
            "acked_rejected": self.rejected,
            "unanswered": len(self.unanswered),
            "logged": self.logged,
            "lost": len(self.lost),
            "duplicated": len(self.duplicated),
            "forged": len(self.forged),
            "changed_verdicts": len(self.changed_verdicts),
        }

    def assert_nothing_lost_or_forged(self, *, exempt: Iterable[NodeKey] = ()) -> None:
        """Every accepted report logged exactly once, nothing else logged, no verdict changed its mind.

        ``exempt``: reports a test destroyed on purpose (a torn line): absent or once, never twice.
        """
        spared = set(exempt)
        lost = [k for k in self.lost if k not in spared]
        assert not lost, f"{len(lost)} accepted reports are missing from the log: {lost[:10]}"
        assert not self.duplicated, f"reports logged more than once: {self.duplicated[:10]}"
        assert not self.forged, f"logged reports no node made: {self.forged[:10]}"
        assert not self.changed_verdicts, f"verdicts that changed: {self.changed_verdicts[:10]}"
        assert not self.wrong_verdicts, f"verdicts unlike the log: {self.wrong_verdicts[:10]}"


def node_reports(events: Iterable[ev.Event]) -> dict[NodeKey, list[ev.Event]]:
    """The log's node reports by (node, boot, seq)."""
    out: dict[NodeKey, list[ev.Event]] = defaultdict(list)
    for event in events:
        if isinstance(event, (ev.TimerFlipped, ev.FlipRefused, ev.TimerEmptied)) and event.boot:
            out[(event.node, event.boot, event.seq)].append(event)
        elif isinstance(event, ev.TimerKnocked) and event.boot:  # both reports of the knock
            out[(event.node, event.boot, event.seq)].append(event)
            out[(event.node, event.boot, event.back_seq)].append(event)
    return out


def audit(nodes: Iterable[RecordingNode], events: list[ev.Event]) -> Audit:
    """Compare what each node made and was told with what the log holds."""
    result = Audit()
    logged = node_reports(events)
    result.logged = sum(len(v) for v in logged.values())
    result.duplicated = [k for k, v in logged.items() if len(v) > 1]
    made: dict[NodeKey, tuple[str, dict[str, Any]]] = {}
    for node in nodes:
        with node._lock:
            produced = dict(node.produced)
            acks = {k: list(v) for k, v in node.acks.items()}
        for (boot, seq), (kind, payload) in produced.items():
            key = (node.node_id, boot, seq)
            made[key] = (kind, payload)
            result.produced += 1
            # "retry" (the hub could not log it then) is no verdict: the report is decided later
            answers = [answer for answer in acks.get((boot, seq), []) if answer[0] != "retry"]
            verdicts = {verdict for verdict, _ in answers}
            if len(verdicts) > 1:
                result.changed_verdicts.append(f"{key}: {answers}")
            if not answers:
                result.unanswered.append(key)
                continue
            verdict = answers[0][0]
            in_log = logged.get(key, [])
            if verdict == "accepted":
                result.accepted += 1
                wanted = ACCEPTED_AS[kind]
                if not in_log:
                    result.lost.append(key)
                elif not all(isinstance(e, wanted) for e in in_log):
                    result.wrong_verdicts.append(f"{key} accepted but logged as {in_log}")
            else:
                result.rejected += 1
                if not in_log:
                    result.rejected_unlogged.append(key)
                elif not all(isinstance(e, REJECTED_AS.get(kind, ())) for e in in_log):
                    result.wrong_verdicts.append(f"{key} rejected ({answers[0][1]}) but logged as {in_log}")
    for key, logged_events in logged.items():
        if key not in made:
            result.forged.append(f"{key} is logged but the node never made it")
            continue
        kind, payload = made[key]
        for event in logged_events:
            if kind == "flip" and isinstance(event, (ev.TimerFlipped, ev.FlipRefused)):
                if (event.upper_s, event.lower_s) != (payload["upper_ms"] / 1000, payload["lower_ms"] / 1000):
                    result.forged.append(f"{key} logged with other sand levels: {event}")
            elif kind == "flip" and isinstance(event, ev.TimerKnocked):
                pass  # a knock keeps no sand levels: neither flip counted
            elif not (kind == "empty" and isinstance(event, ev.TimerEmptied)):
                result.forged.append(f"{key} was a {kind} but is logged as {type(event).__name__}")
    return result


def fold_log(path: Path) -> tuple[TableState, list[ev.Event], list[str]]:
    """Read a log file back and fold it: (state, events, what reading had to note)."""
    saved = read_log(path)
    return fold(saved.setup, saved.events, saved.start), saved.events, saved.notes


def differences(folded: TableState, live: dict[str, Any]) -> list[str]:
    """Where the fold of a log differs from a hub's /api/state (clock, timers, counts, game view)."""
    out = []
    clock = live["clock"]
    if folded.clock.phase != clock["phase"]:
        out.append(f"clock phase: log {folded.clock.phase}, hub {clock['phase']}")
    elif folded.clock.phase != "running":  # a stopped clock has an exact elapsed time
        if abs(folded.clock.elapsed_s(0.0) - clock["elapsed_s"]) > 0.0011:
            out.append(f"clock elapsed: log {folded.clock.elapsed_s(0.0):.3f} s, hub {clock['elapsed_s']} s")
    if folded.events != live["events"]:
        out.append(f"events: log {folded.events}, hub {live['events']}")
    if folded.refused_flips != live["refused_flips"]:
        out.append(f"refused flips: log {folded.refused_flips}, hub {live['refused_flips']}")
    for player in live["players"]:
        for timer in player["timers"]:
            mine = folded.timers.get(timer["node"])
            if mine is None:
                out.append(f"timer {timer['node']} is not in the log")
                continue
            for name in ("phase", "flips"):
                if getattr(mine, name) != timer[name]:
                    out.append(f"{timer['node']} {name}: log {getattr(mine, name)!r}, hub {timer[name]!r}")
            refused = mine.refused.to_json() if mine.refused else ""  # the hub sends a text's JSON form
            if refused != timer["refused"]:
                out.append(f"{timer['node']} refused: log {refused!r}, hub {timer['refused']!r}")
    referee = find_game(folded.setup.game).make_referee(folded.setup)
    if json.loads(json.dumps(referee.view(folded.game, folded.context).to_dict())) != live["view"]:
        out.append("the game view differs")
    return out


def assert_log_is_live_state(path: Path, live: dict[str, Any], *, when: str = "") -> TableState:
    """The log file, read back and folded, is the state the hub reports (``when``: for the message)."""
    folded, _, _ = fold_log(path)
    diff = differences(folded, live)
    where = f" {when}" if when else ""
    assert not diff, f"the log {path.name} does not fold to the hub's state{where}: " + "; ".join(diff)
    return folded
