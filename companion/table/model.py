"""Everything a table decides on, as one frozen value, and the changes that are not logged.

:class:`Table` joins the logged part (:class:`~companion.table.state.TableState`, the
fold of the game's log) with what the hub knows besides: the nodes it heard, the
phones' choices, a pairing in progress. Those live-only changes are events too
(defined here and never written to the log), so one function, :func:`fold_table`,
is the only place a table changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from companion.rules.referee import Referee
from companion.rules.setup import TableSetup
from companion.rules.text import Text
from companion.table import events as ev
from companion.table.frozen import changed
from companion.table.nodes import NodeLink
from companion.table.state import TableState, evolve, initial_state

MAX_UNPAIRED = 32

KNOCKED = "turned back at once: a knock, nothing counted"
"""The reason acknowledged for both flips of a knock."""
"""Nodes remembered that sit in no seat (candidates for pairing)."""


@dataclass(frozen=True)
class Pairing:
    """Setting up a new game: each seat gets the node that is flipped when the hub asks for it."""

    setup: TableSetup
    """The new game's setup; its seats' nodes are filled in as they are paired."""
    assigned: tuple[tuple[str, int, str], ...] = ()
    """(player, index, node) of the seats paired so far."""

    @property
    def order(self) -> tuple[tuple[str, int], ...]:
        return tuple((seat.player, seat.index) for seat in self.setup.seats)

    def current(self) -> tuple[str, int] | None:
        done = {(p, i) for p, i, _ in self.assigned}
        for seat in self.order:
            if seat not in done:
                return seat
        return None

    def node_of(self, player: str, index: int) -> str | None:
        for p, i, node in self.assigned:
            if (p, i) == (player, index):
                return node
        return None

    def has(self, node: str) -> bool:
        return any(n == node for *_, n in self.assigned)

    def paired_setup(self) -> TableSetup:
        """The new game's setup with every paired node in its seat."""
        seats = tuple(
            replace(seat, node=self.node_of(seat.player, seat.index) or seat.node)
            for seat in self.setup.seats
        )
        return replace(self.setup, seats=seats)

    def to_dict(self) -> dict[str, Any]:
        current = self.current()
        return {
            "game": self.setup.game,
            "variant": self.setup.variant,
            "current": {"player": current[0], "index": current[1]} if current else None,
            "seats": [{"player": p, "index": i, "node": self.node_of(p, i)} for p, i in self.order],
        }


@dataclass(frozen=True)
class Refusal:
    """The latest refusal a player saw (the red message on their phone)."""

    reason: Text
    at_s: float
    rule: Text = Text("")

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason.to_json(), "rule": self.rule.to_json(), "at_s": round(self.at_s, 3)}


@dataclass(frozen=True)
class HeldFlip:
    """A refused flip waiting out the table's grace window before it is flagged (it may be a knock)."""

    boot: str
    seq: int
    at_s: float
    upper_s: float
    lower_s: float
    reason: Text
    due_s: float
    """Game time when the refusal is flagged unless the node was turned back."""
    rule: Text = Text("")


@dataclass(frozen=True)
class BrokerHealth:
    """Whether the hub reaches its MQTT broker (None: not known yet, e.g. no broker at all)."""

    online: bool | None = None
    since_s: float | None = None
    detail: Text | str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "online": self.online,
            "since_s": self.since_s,
            "detail": self.detail.to_json() if isinstance(self.detail, Text) else self.detail,
        }


@dataclass(frozen=True)
class StorageHealth:
    """Whether the game's log can be written. While it cannot (a full disk), the table holds
    everything that must be logged: see :mod:`companion.table.storage`."""

    ok: bool = True
    since_s: float | None = None
    detail: str = ""
    """The system's words for the failure (``No space left on device``)."""
    message: Text = Text("")
    """What every page shows while it lasts."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "since_s": self.since_s,
            "detail": self.detail,
            "message": self.message.to_json() if self.message else "",
        }


@dataclass(frozen=True)
class Table:
    """One table: the logged state, its referee, and what the hub knows besides the log."""

    state: TableState
    referee: Referee[Any]
    time_scale: float = 1.0
    links: MappingProxyType[str, NodeLink] = field(default_factory=lambda: MappingProxyType({}))
    """Every node heard of, seated or not, least recently heard first."""
    pairing: Pairing | None = None
    seat_request: tuple[str, int] | None = None
    """A seat added during the game that waits for its node to be flipped."""
    intents: MappingProxyType[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """What each player chose on their phone for a timer's next flip (the game's typed intent), by node."""
    refusals: MappingProxyType[str, Refusal] = field(default_factory=lambda: MappingProxyType({}))
    """The latest refusal per player."""
    version: int = 0
    """Counts every change (logged or not); views are cached per version."""
    rules: int = 0
    """The version of the game's rules (recorded with every game step)."""
    broker: BrokerHealth = BrokerHealth()
    held: MappingProxyType[str, HeldFlip] = field(default_factory=lambda: MappingProxyType({}))
    """Refused flips waiting out the grace window, by node."""
    storage: StorageHealth = StorageHealth()

    @property
    def setup(self) -> TableSetup:
        """The table's setup, including seats added during the game."""
        return self.state.setup

    def link(self, node: str) -> NodeLink:
        return self.links.get(node) or NodeLink(node)

    def seated_links(self) -> list[NodeLink]:
        return [self.link(seat.node) for seat in self.setup.seats]

    def unpaired(self) -> list[NodeLink]:
        """Nodes heard of that sit in no seat, least recently heard first."""
        return [link for node, link in self.links.items() if self.setup.seat_of(node) is None]


def new_table(
    setup: TableSetup, referee: Referee[Any], *, game: Any, rules: int = 0, time_scale: float = 1.0
) -> Table:
    return Table(initial_state(setup, game), referee, time_scale, rules=rules)


def table_from_log(
    setup: TableSetup,
    events: list[ev.Event],
    *,
    referee: Referee[Any],
    game: Any,
    rules: int = 0,
    time_scale: float = 1.0,
) -> Table:
    """A table resumed from its log: the game, and the verdict on every node report it logged."""
    table = new_table(setup, referee, game=game, rules=rules, time_scale=time_scale)
    for event in events:
        table = fold_table(table, event)
    return table


# --- changes that are not logged ------------------------------------------------------------------


@dataclass(frozen=True)
class LinkChanged:
    """The hub heard from a node (or of it): its link is now ``link``."""

    link: NodeLink


@dataclass(frozen=True)
class IntentChosen:
    node: str
    intent: Any
    """The game's typed intent; None forgets the choice."""


@dataclass(frozen=True)
class RefusalShown:
    player: str
    refusal: Refusal | None
    """None clears the player's red message."""


@dataclass(frozen=True)
class PairingChanged:
    pairing: Pairing | None


@dataclass(frozen=True)
class SeatRequested:
    seat: tuple[str, int] | None


@dataclass(frozen=True)
class ActionRefused:
    """A player's action was refused by the rules: shown in red and counted, never logged (it changes
    nothing, and a page without a login must not be able to make the hub write)."""

    at_s: float
    player: str
    reason: Text


@dataclass(frozen=True)
class FlipHeld:
    node: str
    held: HeldFlip | None
    """None: the node's held flip was flagged or turned back."""


@dataclass(frozen=True)
class BrokerChanged:
    health: BrokerHealth


@dataclass(frozen=True)
class StorageChanged:
    health: StorageHealth


@dataclass(frozen=True)
class TableReset:
    """A new game begins at this table: a new log starts with ``setup`` and the game's starting state."""

    setup: TableSetup
    referee: Referee[Any]
    game: Any
    rules: int = 0


LiveEvent = (
    LinkChanged
    | IntentChosen
    | RefusalShown
    | PairingChanged
    | SeatRequested
    | TableReset
    | ActionRefused
    | BrokerChanged
    | FlipHeld
    | StorageChanged
)
"""Changes the hub keeps in memory only."""

AnyEvent = ev.Event | LiveEvent


def is_logged(event: AnyEvent) -> bool:
    return isinstance(event, ev.LoggedEvent)


def fold_table(table: Table, event: AnyEvent) -> Table:
    """The table after one event: the only place a table changes."""
    version = table.version + 1
    match event:
        case LinkChanged(link=link):
            return changed(table, links=_with_link(table, link), version=version)
        case IntentChosen(node=node, intent=intent):
            intents = {n: i for n, i in table.intents.items() if n != node}
            if intent is not None:
                intents[node] = intent
            return changed(table, intents=MappingProxyType(intents), version=version)
        case RefusalShown(player=player, refusal=refusal):
            refusals = {p: r for p, r in table.refusals.items() if p != player}
            if refusal is not None:
                refusals[player] = refusal
            return changed(table, refusals=MappingProxyType(refusals), version=version)
        case PairingChanged(pairing=pairing):
            return changed(table, pairing=pairing, version=version)
        case SeatRequested(seat=seat):
            return changed(table, seat_request=seat, version=version)
        case ActionRefused():
            return changed(table, version=version)
        case BrokerChanged(health=health):
            return changed(table, broker=health, version=version)
        case StorageChanged(health=health):
            return changed(table, storage=health, version=version)
        case FlipHeld(node=node, held=held):
            waiting = {n: h for n, h in table.held.items() if n != node}
            if held is not None:
                waiting[node] = held
            return changed(table, held=MappingProxyType(waiting), version=version)
        case TableReset(setup=setup, referee=referee, game=game, rules=rules):
            fresh = initial_state(setup, game)
            return Table(
                fresh,
                referee,
                table.time_scale,
                table.links,
                version=version,
                rules=rules,
                broker=table.broker,
                storage=table.storage,
            )
    more: dict[str, Any] = {}
    match event:
        case ev.SeatAdded():
            more["seat_request"] = None
        case ev.ClockStarted():  # a refusal from before the game does not follow the players into it
            more["refusals"] = MappingProxyType({})
    if isinstance(event, ev.NODE_REPORTS) and event.boot:
        more["links"] = _remember_report(table, event)
    return changed(table, state=evolve(table.state, event), version=version, **more)


def _with_link(table: Table, link: NodeLink) -> MappingProxyType[str, NodeLink]:
    """The links with ``link`` as the most recently heard, and at most :data:`MAX_UNPAIRED` nodes that
    sit in no seat (the least recently heard are forgotten first)."""
    links = dict(table.links)
    links.pop(link.node, None)
    links[link.node] = link
    seated = table.state.timers  # one timer per seat, seats added during the game included
    if len(links.keys() - seated.keys()) > MAX_UNPAIRED:
        strangers = [n for n in links if n not in seated]
        for node in strangers[: len(strangers) - MAX_UNPAIRED]:
            del links[node]
    return MappingProxyType(links)


def _remember_report(
    table: Table, event: ev.TimerFlipped | ev.FlipRefused | ev.TimerKnocked | ev.TimerEmptied | ev.SeatAdded
) -> MappingProxyType[str, NodeLink]:
    """The links after the hub logged its verdict on a node's report (a resumed log rebuilds them)."""
    verdict, reason = (
        ("rejected", str(event.reason)) if isinstance(event, ev.FlipRefused) else ("accepted", "")
    )
    link = table.link(event.node)
    if isinstance(event, ev.TimerKnocked):
        link = link.reported(event.boot, event.seq, "accepted", KNOCKED, at_s=event.at_s)
        link = link.reported(event.boot, event.back_seq, "accepted", KNOCKED, at_s=event.back_at_s)
    else:
        link = link.reported(event.boot, event.seq, verdict, reason, at_s=event.at_s)
    links = dict(table.links)
    links.pop(event.node, None)
    links[event.node] = link
    return MappingProxyType(links)
