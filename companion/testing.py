"""A table to play on without hardware or a broker: the product's own way in, for tests and demos.

:class:`SimulatedTable` is a real :class:`~companion.table.session.TableSession` on a
:class:`~companion.clock.FakeClock`, with a simulated sandtimer for every seat (the node's own sand
physics, :class:`~companion.core.sand.Sandtimer`). Everything goes through
:meth:`TableSession.handle <companion.table.session.TableSession.handle>` with the typed messages
of :mod:`companion.table.messages`, exactly as the MQTT bridge, the web API and the ticker send
them; the driver only builds those messages the way a node or a phone would, the way gpiozero's
``MockFactory`` stands in for pins::

    table = SimulatedTable(game="timeline", players=("ana", "ben"))
    table.start()
    table.flip("ana-1")                      # ana starts her turn
    table.tap("ana", table.menu("ana")[0].action)
    table.advance(60)                        # the sand runs out; the nodes say so
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.clock import FakeClock
from companion.core.protocol import Message as NodeMessage
from companion.core.sand import Sandtimer
from companion.rules.context import Context
from companion.rules.pages import MenuItem
from companion.rules.referee import Referee
from companion.rules.setup import Seat, TableSetup, make_setup
from companion.table import commands as cmd
from companion.table import messages as msg
from companion.table.decide import Outcome
from companion.table.log import EventLog
from companion.table.session import TableSession
from companion.table.state import TableState

BOOT = "0a1b2c3d"
"""The boot id simulated nodes report (a real node draws a new one at every start)."""
MAX_STEPS = 10_000
"""Bound on the events one :meth:`SimulatedTable.advance` delivers."""


@dataclass
class SimulatedNode:
    """What one sandtimer node knows of itself: its sand, its boot and its report numbers."""

    node: str
    sand: Sandtimer
    boot: str = BOOT
    seq: int = 0
    running: bool = False
    """Sand was running at the last flip and its run-out is not reported yet."""

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq


def seats_for(players: Sequence[str], timers: int) -> tuple[Seat, ...]:
    """``timers`` seats per player, nodes named ``<player>-<n>``."""
    return tuple(
        Seat(player, index, f"{player}-{index}") for player in players for index in range(1, timers + 1)
    )


class SimulatedTable:
    """A table played through the product's messages, on a fake clock with simulated sandtimers."""

    def __init__(
        self,
        setup: TableSetup | None = None,
        *,
        game: str = "sandtimers",
        players: Sequence[str] = ("ana", "ben"),
        timers: int | None = None,
        variant: str = "",
        seed: int = 0,
        deck: str = "hub",
        log_path: Path | None = None,
        start_s: float = 1000.0,
        referee: Referee[Any] | None = None,
        **options: Any,
    ) -> None:
        """``setup`` as given, or one built from the keywords (``timers`` per player: the game's number by
        default; ``options`` are :func:`~companion.rules.setup.make_setup`'s). ``log_path`` keeps the log
        on disk; without it the log lives in memory. ``referee``: a referee of the game built by the
        test (a dealt record, a corrected data set) instead of the registry's."""
        if setup is None:
            from companion.games import find_game

            info = find_game(game)
            count = info.timers_per_player if timers is None else timers
            setup = make_setup(
                table=options.pop("table", "test"),
                game=info.name,
                players=tuple(players),
                seats=seats_for(players, count),
                variant=variant,
                seed=seed,
                deck=deck,
                **options,
            )
        self.clock = FakeClock(start_s)
        log = EventLog.for_new_game(setup, log_path, referee=referee) if log_path is not None else None
        self.session = TableSession(setup, clock=self.clock, log=log, referee=referee)
        self.nodes: dict[str, SimulatedNode] = {}
        for seat in setup.seats:
            self._node(seat.node)

    @classmethod
    def resumed(cls, log: EventLog, *, start_s: float | None = None) -> SimulatedTable:
        """The table of a saved game, as a restarted hub would take it up (its clock where the log ends)."""
        table = cls.__new__(cls)
        events = log.events()
        table.clock = FakeClock(
            start_s if start_s is not None else max((e.at_s for e in events), default=0.0)
        )
        table.session = TableSession(log.setup, clock=table.clock, log=log)
        table.nodes = {}
        for seat in log.setup.seats:
            table._node(seat.node)
        return table

    # --- what the table is now -------------------------------------------------------------------
    @property
    def state(self) -> TableState:
        return self.session.state

    @property
    def game(self) -> Any:
        """The game's own state."""
        return self.session.state.game

    @property
    def ctx(self) -> Context:
        return self.session.state.context

    @property
    def referee(self) -> Referee[Any]:
        return self.session.referee

    @property
    def setup(self) -> TableSetup:
        return self.session.setup

    def menu(self, player: str) -> list[MenuItem]:
        """The buttons ``player``'s phone shows now."""
        table = self.session.table
        mine = {
            node: intent
            for node, intent in table.intents.items()
            if (seat := table.setup.seat_of(node)) is not None and seat.player == player
        }
        return table.referee.menu(table.state.game, table.state.context, player, intents=mine)

    def snapshot(self) -> dict[str, Any]:
        return self.session.snapshot()

    def player_snapshot(self, player: str) -> dict[str, Any] | None:
        return self.session.player_snapshot(player)

    # --- a node's side ---------------------------------------------------------------------------
    def _node(self, node: str) -> SimulatedNode:
        known = self.nodes.get(node)
        if known is None:
            sand = Sandtimer(self.clock.now_ms, self.session.setup.sand_ms)
            known = self.nodes[node] = SimulatedNode(node, sand)
        return known

    def report(self, node: str, report: msg.Report) -> Outcome:
        """Deliver one report of ``node`` as the bridge would."""
        return self.handle(msg.NodeReport(node, report))

    def hello(self, node: str, *, boot: str | None = None) -> Outcome:
        """``node`` (re)connects; a new ``boot`` starts its report numbers again."""
        sim = self._node(node)
        if boot is not None and boot != sim.boot:
            sim.boot, sim.seq = boot, 0
        return self.report(
            node, msg.Hello(sim.boot, self.clock.now_ms(), sim.sand.duration_ms, "sim", "simulated")
        )

    def heartbeat(self, node: str, *, queued: int = 0, battery_mv: int | None = None) -> Outcome:
        sim = self._node(node)
        return self.report(
            node,
            msg.Heartbeat(
                sim.boot, self.clock.now_ms(), sim.sand.upper_ms(), sim.sand.lower_ms(), queued, battery_mv
            ),
        )

    def flip(self, node: str) -> Outcome:
        """Turn ``node`` over (whatever sand it has left) and report it."""
        sim = self._node(node)
        upper, lower = sim.sand.flip()
        sim.running = upper > 0
        return self.report(node, msg.Flipped(sim.boot, self.clock.now_ms(), sim.next_seq(), upper, lower))

    def empty(self, node: str) -> Outcome:
        """``node`` reports that its sand ran out (now)."""
        sim = self._node(node)
        sim.running = False
        return self.report(node, msg.Emptied(sim.boot, self.clock.now_ms(), sim.next_seq()))

    def run_out(self, node: str) -> list[Outcome]:
        """Let time pass until ``node``'s sand has run through (every node reporting what happens meanwhile)."""
        left = self._node(node).sand.ms_until_empty()
        return self.advance((left or 0) / 1000.0)

    def advance(self, seconds: float) -> list[Outcome]:
        """Let ``seconds`` of game time pass: the sand runs, each node whose sand runs out reports it at
        that moment, and the ticker's Tick comes at the end (and at every report)."""
        outcomes: list[Outcome] = []
        until_ms = self.clock.now_ms() + int(round(seconds * 1000))
        for _ in range(MAX_STEPS):
            due = [
                (at, node)
                for node, sim in self.nodes.items()
                if sim.running and (at := sim.sand.emptied_at_ms()) is not None and at <= until_ms
            ]
            if not due:
                break
            at, node = min(due)
            self.clock.advance(max(0, at - self.clock.now_ms()) / 1000.0)
            outcomes.append(self.empty(node))
            outcomes.append(self.tick())
        self.clock.advance(max(0, until_ms - self.clock.now_ms()) / 1000.0)
        outcomes.append(self.tick())
        return outcomes

    # --- the hub's and the phones' side ----------------------------------------------------------
    def handle(self, message: msg.Message) -> Outcome:
        """One message through the session; the simulated sand follows the master clock (paused with it)."""
        outcome = self.session.handle(message)
        paused = self.session.state.clock.phase == "paused"
        for sim in self.nodes.values():
            if paused:
                sim.sand.pause()
            else:
                sim.sand.resume()
        return outcome

    def clock_command(self, action: msg.ClockAction) -> Outcome:
        return self.handle(msg.ClockCommand(action))

    def start(self) -> Outcome:
        """The host starts the master clock."""
        return self.clock_command("start")

    def tick(self) -> Outcome:
        return self.handle(msg.Tick())

    def tap(self, player: str, action: Any) -> Outcome:
        """``player`` taps a move on their phone (one of the game's typed moves)."""
        return self.handle(msg.PlayerAction(player, action))

    def choose(self, player: str, node: str, intent: Any) -> Outcome:
        """``player`` chooses what their timer ``node`` does at its next flip (None forgets it)."""
        return self.handle(msg.ChooseIntent(player, node, intent))

    def undo(self, step: int | None = None) -> Outcome:
        return self.handle(msg.Undo(step))

    def close(self) -> None:
        self.session.log.close()


def acks(outcome: Outcome, node: str | None = None) -> list[tuple[str, str]]:
    """(verdict, reason) of every ack in ``outcome`` (to ``node`` only, when given), in order."""
    return [
        (c.verdict, c.reason) for c in outcome.commands if isinstance(c, cmd.Ack) and node in (None, c.node)
    ]


def verdict(outcome: Outcome) -> str:
    """The verdict of the first ack in ``outcome`` ("" when none was sent: a flip waiting out its grace)."""
    answers = acks(outcome)
    return answers[0][0] if answers else ""


def items(menu: Iterable[MenuItem], *, group: str | None = None) -> list[MenuItem]:
    """The menu items of one group (its English heading), or all."""
    return [item for item in menu if group is None or str(item.group) == group]


def play_randomly(table: SimulatedTable, rng: Any, *, steps: int = 200, undos: int = 2) -> int:
    """Play ``steps`` random moves at ``table`` the way a group could: flip a timer, tap a button of a
    phone's menu (a move or a choice for a timer), take back the latest step, let time pass. ``rng`` is a
    ``random.Random``. Returns how many moves the rules accepted."""
    from companion.table.decide import undo_offer

    players = table.setup.players
    nodes = [seat.node for seat in table.setup.seats]
    accepted = 0
    for _ in range(steps):
        if table.state.clock.is_over and table.state.ended_by:
            break
        roll = rng.random()
        outcome: Outcome | None = None
        if roll < 0.35 and nodes:
            outcome = table.flip(rng.choice(nodes))
        elif roll < 0.8:
            player = rng.choice(players)
            menu = table.menu(player)
            if menu:
                item = rng.choice(menu)
                if item.action is not None:
                    outcome = table.tap(player, item.action)
                elif item.intent is not None:
                    outcome = table.choose(player, item.node, item.intent)
        elif roll < 0.83 and undos > 0 and undo_offer(table.session.table) is not None:
            undos -= 1
            outcome = table.undo()
        else:
            table.advance(rng.choice([2, 10, 30, 61]))
        if outcome is not None and outcome.refusal is None and outcome.logged:
            accepted += 1
    return accepted


def deliver(session: TableSession, node: str, message: NodeMessage) -> Outcome:
    """Hand ``session`` one validated protocol message of ``node``, as the MQTT bridge does."""
    if message.channel == "status":
        return session.handle(msg.NodeStatus(node, message.kind == "online"))
    return session.handle(msg.NodeReport(node, msg.report_of(message)))


def event(channel_kind: str, **fields: Any) -> NodeMessage:
    """A validated ``event`` message of the protocol (``hello``, ``heartbeat``, ``flip``, ``empty``),
    with ``v`` and the default boot id filled in."""
    from companion.core import protocol

    return protocol.validate("event", {"v": protocol.VERSION, "kind": channel_kind, "boot": BOOT, **fields})
