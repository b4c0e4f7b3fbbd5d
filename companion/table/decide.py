"""What anything that happens at a table causes: ``decide(table, message, *, now_s) -> Outcome``.

A pure function. A node report, a phone action, a clock command or a tick goes in
with the table as it is; out come the events to log and fold (the referee's
decisions computed once, as facts), the commands for the nodes in the order they
must be sent, and, for a caller who asked for something, the refusal or the
accepted decision. Nothing here reads a clock, writes a file or sends a message:
the session does that with what comes out (lock, decide, append, fold, publish).

While it decides, the outcome folds its own events (:func:`~companion.table.model.fold_table`),
so a step sees what the steps before it in the same transaction did; the table it
returns is exactly the fold of the old table with ``events``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from companion.errors import CompanionError
from companion.rules.codec import diff
from companion.rules.context import Context, EndedBy
from companion.rules.outcome import Decision, Rejected, Step
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, joined, text, verbatim
from companion.table import clock_rules
from companion.table import commands as cmd
from companion.table import events as ev
from companion.table import messages as msg
from companion.table.model import (
    KNOCKED,
    ActionRefused,
    AnyEvent,
    BrokerChanged,
    BrokerHealth,
    FlipHeld,
    HeldFlip,
    IntentChosen,
    LinkChanged,
    Pairing,
    PairingChanged,
    Refusal,
    RefusalShown,
    SeatRequested,
    Table,
    TableReset,
    fold_table,
)
from companion.table.nodes import MAX_SEQ_JUMP, NodeLink
from companion.table.state import StepRecord, last_step

TABLE_RULE = text("Table")

NODE_SILENCE_S = 20.0
"""Real seconds without a word from a node (it sends a heartbeat every 5) before it shows offline."""

CHECKPOINT_S = 5.0
"""Real seconds of a running master clock with no event before the hub logs a ClockCheckpoint:
a crash gives back at most this much game time."""

RefereeMaker = Callable[[TableSetup], tuple[Any, Any, int]]
"""Makes (referee, starting game state, rules version) for a new game's setup."""


@dataclass(frozen=True)
class Outcome:
    """Everything one message caused."""

    table: Table
    """The table after the message (the fold of the old table with ``events``)."""
    events: tuple[AnyEvent, ...] = ()
    """In order: logged events and live-only changes."""
    commands: tuple[cmd.Command, ...] = ()
    """For the nodes, in the order to send them."""
    refusal: Rejected | None = None
    """Why the caller's request was refused (nothing else happened)."""
    decision: Decision | None = None
    """The referee's accepted step, for a caller who asked for one (a phone action)."""
    counts: tuple[str, ...] = ()
    """Message statistics to count (``flip``, ``duplicate``, ``sequence_gap``...)."""
    rejects: tuple[tuple[str, str], ...] = ()
    """Messages that could not be used: (category, reason)."""

    @property
    def logged(self) -> list[ev.Event]:
        """The events that belong in the game's log."""
        return [e for e in self.events if isinstance(e, ev.LoggedEvent)]


@dataclass
class _Transaction:
    """An outcome being built: each event is folded in as soon as it is made."""

    table: Table
    now_s: float
    make_referee: RefereeMaker | None
    events: list[AnyEvent] = field(default_factory=list)
    commands: list[cmd.Command] = field(default_factory=list)
    counts: list[str] = field(default_factory=list)
    rejects: list[tuple[str, str]] = field(default_factory=list)
    clock_changed: bool = False

    def add(self, *events: AnyEvent) -> None:
        for event in events:
            self.events.append(event)
            self.table = fold_table(self.table, event)
            if isinstance(event, ev.CLOCK_EVENTS):
                self.clock_changed = True

    def send(self, *commands: cmd.Command) -> None:
        self.commands.extend(commands)

    def done(self, *, refusal: Rejected | None = None, decision: Decision | None = None) -> Outcome:
        commands = list(self.commands)
        if self.clock_changed:
            commands.append(table_state(self.table, now_s=self.now_s))
        return Outcome(
            self.table,
            tuple(self.events),
            tuple(commands),
            refusal,
            decision,
            tuple(self.counts),
            tuple(self.rejects),
        )

    # --- what a referee decided ----------------------------------------------------------------
    @property
    def ctx(self) -> Context:
        """The table's bookkeeping of the game as it stands in this transaction (for the referee)."""
        return self.table.state.context

    def step(self, decision: Decision, *, at_s: float, player: str = "", how: EndedBy = "rules") -> None:
        """Log an accepted step as facts and act on what it asks of the table (``how``: what ends the game
        if the step does: a step of play, the rules' answer to the clock running out, or the host)."""
        table = self.table
        change = diff(table.state.game, decision.state)
        turn = decision.opens_turn or decision.ends_turn
        ended = decision.ends_game if not table.state.ended_by else None
        if decision.actions or decision.facts or change or turn or ended:
            note = joined(decision.notes)
            self.add(
                ev.GameStepped(
                    at_s,
                    player,
                    note,
                    decision.facts,
                    change,
                    decision.actions,
                    rules=table.rules,
                    opens_turn=decision.opens_turn,
                    ends_turn=decision.ends_turn,
                    ended=ended or Text(""),
                    ended_by=how if ended else "",
                    after=decision.state,
                )
            )
        for node, pattern in decision.show:
            self.send(cmd.Show(node, pattern))
        if decision.add_seat is not None:
            self.add(SeatRequested(decision.add_seat))
        clock = self.table.state.clock
        if ended and clock.phase in ("running", "paused"):  # the master clock has nothing left to time
            self.add(ev.ClockExpired(at_s, ended))
            after = self.table.referee.clock_expired(self.table.state.game, self.ctx)
            if isinstance(after, Decision):
                self.step(after, at_s=at_s)


def table_state(table: Table, *, now_s: float) -> cmd.PublishTableState:
    """The retained table state for nodes: the master clock's phase and time left at ``now_s``."""
    clock = table.state.clock
    return cmd.PublishTableState(
        clock=clock.phase,
        remaining_ms=int(clock.remaining_s(now_s) * 1000),
        length_ms=int(clock.length_s * 1000),
        game=table.setup.game,
        time_scale=table.time_scale,
    )


def decide(
    table: Table, message: msg.Message, *, now_s: float, make_referee: RefereeMaker | None = None
) -> Outcome:
    """What ``message`` causes at ``table`` at game time ``now_s``.

    ``make_referee`` builds the referee and starting state of a new game (pairing
    completed, or a new game set up); it must be pure (the game's data read before).
    """
    tx = _Transaction(table, now_s, make_referee)
    match message:
        case msg.NodeReport():
            return _node_report(tx, message)
        case msg.NodeStatus(node=node, online=online):
            return _node_status(tx, node, online)
        case msg.BrokerStatus(online=online, detail=detail):
            return _broker(tx, online, detail)
        case msg.ClockCommand(action=action, at_s=at_s):
            return _clock_command(tx, action, now_s if at_s is None else min(at_s, now_s))
        case msg.Tick():
            return _tick(tx)
        case msg.PlayerAction(player=player, action=action):
            return _player_action(tx, player, action)
        case msg.ChooseIntent(player=player, node=node, intent=intent):
            return _choose_intent(tx, player, node, intent)
        case msg.Undo(step=step):
            return _undo(tx, step)
        case msg.NodeCommand(node=node, what=what):
            return _node_command(tx, node, what)
        case msg.BeginPairing(setup=setup):
            refused = _playable(tx, setup)
            if refused is None:
                tx.add(PairingChanged(Pairing(setup)))
            return tx.done(refusal=refused)
        case msg.CancelPairing():
            tx.add(PairingChanged(None))
            return tx.done()
        case msg.NewGame(setup=setup):
            refused = _new_game(tx, setup)
            return tx.done(refusal=refused)
    raise TypeError(f"not a table message: {message!r}")


# --- nodes --------------------------------------------------------------------------------------


def _unknown(tx: _Transaction, node: str) -> str:
    reason = f"node {node!r} is not paired with a seat at this table"
    tx.rejects.append(("unknown_node", reason))
    return reason


def _node_status(tx: _Transaction, node: str, online: bool) -> Outcome:
    link = tx.table.link(node)
    if tx.table.setup.seat_of(node) is None:
        reason = f"status of node {node!r}, which is not paired with a seat at this table"
        tx.rejects.append(("unknown_node", reason))
    tx.add(LinkChanged(replace(link, online=online, last_seen_s=tx.now_s)))
    return tx.done()


def _heard(tx: _Transaction, node: str, report: msg.Report) -> NodeLink:
    live = isinstance(report, (msg.Hello, msg.Heartbeat))  # a flip or empty may come from the node's buffer
    link = tx.table.link(node).heard(boot=report.boot, now_s=tx.now_s, t_ms=report.t_ms if live else None)
    if isinstance(report, msg.Hello):
        link = replace(link, node_kind=report.node_kind, firmware=report.firmware)
    dropped = report.dropped if isinstance(report, (msg.Hello, msg.Heartbeat)) else None
    if dropped is not None and dropped != link.dropped:
        if dropped > link.dropped:
            reason = (
                f"node {node!r} had to drop {dropped - link.dropped} buffered events (its buffer was full)"
            )
            tx.rejects.append(("dropped_events", reason))
        link = replace(link, dropped=dropped)
    return link


def _node_report(tx: _Transaction, message: msg.NodeReport) -> Outcome:
    node, report = message.node, message.report
    table = tx.table
    seat = table.setup.seat_of(node)
    if table.pairing is not None and isinstance(report, msg.Flipped):
        return _pair_flip(tx, node, report)
    if seat is None and table.seat_request is not None and isinstance(report, msg.Flipped):
        return _add_seat(tx, node, report)
    if seat is None:
        reason = _unknown(tx, node)
        tx.add(LinkChanged(_heard(tx, node, report)))
        if isinstance(report, (msg.Flipped, msg.Emptied)):
            tx.send(cmd.Ack(node, report.boot, report.seq, "rejected", reason))
        return tx.done()
    tx.counts.append(report.kind)
    if isinstance(report, (msg.Flipped, msg.Emptied)):
        return _sequenced(tx, seat, report)
    link = _heard(tx, node, report)
    if isinstance(report, msg.Hello):
        tx.add(LinkChanged(link))
        if report.sand_ms != table.setup.sand_ms:
            tx.send(cmd.Configure(node, table.setup.sand_ms))
        return tx.done()
    battery = report.battery_mv
    tx.add(LinkChanged(replace(link, queued=report.queued, battery_mv=battery or link.battery_mv)))
    return tx.done()


def _sequenced(tx: _Transaction, seat: Seat, report: msg.Flipped | msg.Emptied) -> Outcome:
    """A flip or empty report: answered again if the hub decided it before, else decided now."""
    node, seq, boot = seat.node, report.seq, report.boot
    before = tx.table.link(node)
    held = tx.table.held.get(node)
    if held is not None and (held.boot, held.seq) == (boot, seq):
        tx.counts.append("duplicate")  # still waiting out its grace window: answered then
        return tx.done()
    known = before.verdict(boot, seq)
    if known is not None:
        tx.counts.append("duplicate")
        tx.add(LinkChanged(_heard(tx, node, report)))
        tx.send(cmd.Ack(node, boot, seq, *known))
        return tx.done()
    last = before.seq_of(boot)
    allowed = MAX_SEQ_JUMP + (before.dropped if boot == before.boot else 0)  # plus what it said it dropped
    if seq > last + allowed:  # no node buffers that much: not heard, nothing changes
        reason = f"report {seq} of node {node!r} jumps {seq - last} ahead of its last one ({last})"
        tx.rejects.append(("sequence_jump", reason))
        tx.send(cmd.Ack(node, boot, seq, "rejected", reason))
        return tx.done()
    if seq < last:
        tx.counts.append("out_of_order")  # late, but never seen: applied
    elif seq > last + 1:
        tx.counts.append("sequence_gap")
    link = _heard(tx, node, report)
    at = max(link.to_hub(report.t_ms, tx.now_s), link.last_at_s)
    tx.add(LinkChanged(link))  # the logged report itself records its verdict (fold_table)
    if isinstance(report, msg.Flipped) and held is not None:
        tx.add(ev.TimerKnocked(node, held.at_s, at, boot, held.seq, seq), FlipHeld(node, None))
        tx.send(
            cmd.Ack(node, held.boot, held.seq, "accepted", KNOCKED),
            cmd.Ack(node, boot, seq, "accepted", KNOCKED),
        )
        return tx.done()
    if isinstance(report, msg.Flipped):
        decided = _flip(tx, seat, report, at)
        if decided is None:
            return tx.done()  # held: the ack waits for the grace window
        verdict, reason = decided
    else:
        tx.add(ev.TimerEmptied(node, at, boot, seq))
        emptied = tx.table.referee.timer_emptied(tx.table.state.game, tx.ctx, seat)
        if isinstance(emptied, Decision):
            tx.step(emptied, at_s=at)
        verdict, reason = "accepted", ""
    tx.commands.insert(0, cmd.Ack(node, boot, seq, verdict, reason))  # the ack goes out first
    return tx.done()


def _flip(tx: _Transaction, seat: Seat, report: msg.Flipped, at: float) -> tuple[str, str] | None:
    """Decide a flip: (verdict, reason), or None when its refusal is held for the grace window."""
    table = tx.table
    setup = table.setup
    upper_s, lower_s = report.upper_ms / 1000.0, report.lower_ms / 1000.0
    referee = table.referee
    early = report.lower_ms > 0 and setup.early_lifts != "refuse"  # the table lets an early lift count
    reason = clock_rules.flip_refusal(table.state, at_s=at, rules_decide_end=referee.rules_decide_end)
    rule = clock_rules.CLOCK_RULE
    step: Step = Decision(table.state.game)
    if reason is None:
        intent = table.intents.get(seat.node)
        ran_out = report.lower_ms == 0 or early
        step = referee.timer_flipped(table.state.game, tx.ctx, seat, intent=intent, ran_out=ran_out)
        if isinstance(step, Rejected):
            reason, rule = step.reason, step.rule
            if setup.grace_s > 0:  # maybe a knock: flag it only if the node is not turned back at once
                due = tx.now_s + setup.grace_s * table.time_scale
                tx.add(
                    FlipHeld(
                        seat.node, HeldFlip(report.boot, report.seq, at, upper_s, lower_s, reason, due, rule)
                    )
                )
                return None
    if reason is not None:
        tx.add(
            ev.FlipRefused(seat.node, at, upper_s, lower_s, reason, report.boot, report.seq),
            RefusalShown(seat.player, Refusal(reason, at, rule)),
        )
        return "rejected", str(reason)
    assert isinstance(step, Decision)
    tx.add(ev.TimerFlipped(seat.node, at, upper_s, lower_s, report.boot, report.seq, early=early))
    tx.step(step, at_s=at, player=seat.player)
    if seat.node in tx.table.intents:
        tx.add(IntentChosen(seat.node, None))
    if seat.player in tx.table.refusals:
        tx.add(RefusalShown(seat.player, None))  # an accepted flip clears the red message
    return "accepted", ""


def _pair_flip(tx: _Transaction, node: str, report: msg.Flipped) -> Outcome:
    """During pairing a flip names the node of the seat the hub is asking for."""
    pairing = tx.table.pairing
    assert pairing is not None
    link = _heard(tx, node, report).reported(report.boot, report.seq, "accepted", "", at_s=tx.now_s)
    tx.add(LinkChanged(link))
    tx.send(cmd.Ack(node, report.boot, report.seq, "accepted"))
    current = pairing.current()
    if pairing.has(node) or current is None:
        return tx.done()
    pairing = replace(pairing, assigned=(*pairing.assigned, (*current, node)))
    tx.add(PairingChanged(pairing))
    tx.send(cmd.Show(node, "identify"))
    if pairing.current() is None:
        refused = _new_game(tx, pairing.paired_setup())
        if refused is not None:
            tx.add(PairingChanged(None))
    return tx.done()


def _add_seat(tx: _Transaction, node: str, report: msg.Flipped) -> Outcome:
    """The flip of an unseated node while a seat is waiting: that node takes it."""
    assert tx.table.seat_request is not None
    player, index = tx.table.seat_request
    tx.add(LinkChanged(_heard(tx, node, report)))
    tx.add(ev.SeatAdded(tx.now_s, player, index, node, report.boot, report.seq))
    tx.send(
        cmd.Ack(node, report.boot, report.seq, "accepted"),
        cmd.Show(node, "identify"),
        cmd.Configure(node, tx.table.setup.sand_ms),
    )
    return tx.done()


def _make(tx: _Transaction, setup: TableSetup) -> tuple[Any, Any, int] | Rejected:
    if tx.make_referee is None:
        raise ValueError("a new game needs make_referee")
    try:
        return tx.make_referee(setup)
    except CompanionError as exc:
        return Rejected(getattr(exc, "text", None) or verbatim(str(exc)), TABLE_RULE)


def _playable(tx: _Transaction, setup: TableSetup) -> Rejected | None:
    """Why the game of ``setup`` cannot be played at this table (checked before pairing starts), or None."""
    if setup.table != tx.table.setup.table:
        return Rejected(text("A new game keeps the table's name"), TABLE_RULE)
    made = _make(tx, setup)
    return made if isinstance(made, Rejected) else None


def _new_game(tx: _Transaction, setup: TableSetup) -> Rejected | None:
    if setup.table != tx.table.setup.table:
        return Rejected(text("A new game keeps the table's name"), TABLE_RULE)
    made = _make(tx, setup)
    if isinstance(made, Rejected):
        return made
    referee, game, rules = made
    tx.add(TableReset(setup, referee, game, rules))
    tx.clock_changed = True
    tx.send(*(cmd.Configure(seat.node, setup.sand_ms) for seat in setup.seats))
    return None


def _node_command(tx: _Transaction, node: str, what: msg.NodeRequest) -> Outcome:
    if tx.table.setup.seat_of(node) is None and node not in tx.table.links:
        return tx.done(refusal=Rejected(text("unknown node {node}", node=node), TABLE_RULE))
    if what == "restart":
        tx.send(cmd.Restart(node))
    elif what == "identify":
        tx.send(cmd.Show(node, "identify"))
    else:
        return tx.done(
            refusal=Rejected(text("a node cannot {what}; use restart or identify", what=what), TABLE_RULE)
        )
    return tx.done()


# --- the master clock -------------------------------------------------------------------------------


def _clock_command(tx: _Transaction, action: msg.ClockAction, at: float) -> Outcome:
    state = tx.table.state
    if action == "start":
        started = clock_rules.decide_start(state, at_s=at)
        if isinstance(started, Rejected):
            return tx.done(refusal=started)
        step = tx.table.referee.clock_started(state.game, tx.ctx)
        if isinstance(step, Rejected):
            return tx.done(refusal=step)
        tx.add(started)
        tx.step(step, at_s=at)
        return tx.done()
    result: ev.ClockPaused | ev.ClockResumed | ev.ClockAborted | Rejected
    if action == "pause":
        result = clock_rules.decide_pause(state, at_s=at)
    elif action == "resume":
        result = clock_rules.decide_resume(state, at_s=at)
    elif action == "abort":
        finished = state.ended_by != ""
        result = clock_rules.decide_abort(state, at_s=at, finished=finished)
    else:
        return tx.done(
            refusal=Rejected(text("unknown clock action {action}", action=action), clock_rules.CLOCK_RULE)
        )
    if isinstance(result, Rejected):
        return tx.done(refusal=result)
    if isinstance(result, ev.ClockAborted):  # ended early: the rules score the game as it stands
        ended = tx.table.referee.game_ended_early(tx.table.state.game, tx.ctx)
        if isinstance(ended, Rejected):
            result = replace(result, unscored=ended.reason)
        tx.add(result)
        if isinstance(ended, Decision):
            tx.step(ended, at_s=at, how="host")
        return tx.done()
    tx.add(result)
    return tx.done()


def _tick(tx: _Transaction) -> Outcome:
    for node, held in sorted(tx.table.held.items(), key=lambda item: item[1].due_s):
        if held.due_s <= tx.now_s:  # not turned back in time: the refusal stands
            seat = tx.table.setup.seat_of(node)
            refused = ev.FlipRefused(
                node, held.at_s, held.upper_s, held.lower_s, held.reason, held.boot, held.seq
            )
            tx.add(refused, FlipHeld(node, None))
            if seat is not None:
                tx.add(RefusalShown(seat.player, Refusal(held.reason, held.at_s, held.rule)))
            tx.send(cmd.Ack(node, held.boot, held.seq, "rejected", str(held.reason)))
    silent_after = NODE_SILENCE_S * tx.table.time_scale
    for link in tx.table.links.values():  # a node whose last will was lost (broker restarted) goes quiet
        if link.online and link.last_seen_s is not None and tx.now_s - link.last_seen_s > silent_after:
            tx.add(LinkChanged(replace(link, online=False)))
    state = tx.table.state
    expiry = clock_rules.due_expiry(state, now_s=tx.now_s)
    if expiry is not None:
        tx.add(expiry)
        step = tx.table.referee.clock_expired(tx.table.state.game, tx.ctx)
        if isinstance(step, Decision):
            tx.step(step, at_s=expiry.at_s, how="clock")
    elif state.clock.phase == "running" and tx.now_s - state.last_at_s >= CHECKPOINT_S * tx.table.time_scale:
        tx.add(ev.ClockCheckpoint(tx.now_s))
    return tx.done()


def _broker(tx: _Transaction, online: bool, detail: Text | str) -> Outcome:
    """The hub lost or regained its broker: while it is away no node can be heard, so none is online."""
    if tx.table.broker.online == online:
        return tx.done()
    tx.add(BrokerChanged(BrokerHealth(online, tx.now_s, detail)))
    if not online:
        for link in tx.table.links.values():
            if link.online:
                tx.add(LinkChanged(replace(link, online=False)))
    return tx.done()


# --- phones -----------------------------------------------------------------------------------------


def _player_action(tx: _Transaction, player: str, action: Any) -> Outcome:
    table, at = tx.table, tx.now_s
    if player not in table.setup.players:
        return tx.done(
            refusal=Rejected(text("There is no player {player} at this table", player=player), TABLE_RULE)
        )
    step = table.referee.player_action(table.state.game, tx.ctx, player, action)
    if isinstance(step, Rejected):
        tx.add(
            ActionRefused(at, player, step.reason), RefusalShown(player, Refusal(step.reason, at, step.rule))
        )
        return tx.done(refusal=step)
    tx.step(step, at_s=at, player=player)
    if player in tx.table.refusals:
        tx.add(RefusalShown(player, None))
    return tx.done(decision=step)


def _choose_intent(tx: _Transaction, player: str, node: str, intent: Any) -> Outcome:
    seat = tx.table.setup.seat_of(node)
    if seat is None or seat.player != player:
        refused = Rejected(
            text("Timer {node} does not belong to {player}", node=node, player=player), TABLE_RULE
        )
        return tx.done(refusal=refused)
    if intent is not None:
        refused_intent = tx.table.referee.check_intent(tx.table.state.game, tx.ctx, seat, intent)
        if refused_intent is not None:
            return tx.done(refusal=refused_intent)
        tx.add(IntentChosen(node, intent))
    else:
        tx.add(IntentChosen(node, None))
    return tx.done()


def undo_plan(table: Table) -> tuple[StepRecord, Any] | Rejected:
    """What an undo would do now: (the step it takes back, the game state without it), or why it cannot.

    The later steps are decided again without the one taken back; if any of them no longer
    applies, a later move depends on it and the undo is refused. The pages offer an undo only
    when this answers a plan, so nothing is offered that is then refused.
    """
    state, referee = table.state, table.referee
    step = last_step(state)
    if step is None:
        return Rejected(text("There is no accepted action to undo"), TABLE_RULE)
    game = step.before
    turn_open, turns = step.turn_before
    ctx = replace(state.context, turn_open=turn_open, turns=turns)
    try:
        for later in state.steps:
            if later.index > step.index and not later.undone:
                for action in later.actions:
                    decided = referee.replay(game, ctx, action)
                    game = decided.state
                    ctx = ctx.with_turn(opens=decided.opens_turn, ends=decided.ends_turn)
    except Exception:  # any failure means a later step needed the one taken back
        return Rejected(
            text("Cannot undo '{note}': later moves depend on it", note=undo_note(step)), TABLE_RULE
        )
    return step, game


def _undo(tx: _Transaction, confirmed: int | None = None) -> Outcome:
    """Take back the latest player step; the game steps after it are decided again without it.

    ``confirmed``: the step the host saw and confirmed; if another step became the latest meanwhile,
    nothing is undone (the host is asked again)."""
    plan = undo_plan(tx.table)
    if isinstance(plan, Rejected):
        return tx.done(refusal=plan)
    step, game = plan
    if confirmed is not None and confirmed != step.index:
        refused = Rejected(
            text("That step can no longer be undone: the latest step is another one now"), TABLE_RULE
        )
        return tx.done(refusal=refused)
    tx.add(ev.StepUndone(tx.now_s, step.index, undo_note(step), diff(tx.table.state.game, game)))
    return tx.done()


def undo_offer(table: Table) -> Text | None:
    """What an undo would take back now, in words, or None when there is nothing it could undo."""
    plan = undo_plan(table)
    return None if isinstance(plan, Rejected) else undo_note(plan[0])


def undo_note(step: StepRecord) -> Text:
    """What an undo of ``step`` takes back, in words."""
    if step.note:
        return step.note
    kind = type(step.actions[0]).__name__ if step.actions else "action"
    if step.player:
        return text("{player}: {kind}", player=step.player, kind=kind)
    return text("game: {kind}", kind=kind)
