"""Shared helpers for the Time 'n' Space tests (no tests here): build states by legal play, drive a table."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from companion.games.time_n_space import GAME
from companion.games.time_n_space.components import COLORS
from companion.games.time_n_space.engine import apply
from companion.games.time_n_space.model import (
    Cube,
    GameState,
    Intent,
    Order,
    OrderPlacement,
    PlaceStartingOrders,
    PlaceTimer,
    SandRanOut,
    ScoreSheet,
    StartGame,
)
from companion.games.time_n_space.setup import setup_full, setup_intro
from companion.i18n import catalog_entries
from companion.rules.outcome import Accepted, Rejected
from companion.rules.text import PLACEHOLDER, Text, from_json
from companion.table import messages as msg
from companion.table.decide import undo_offer
from companion.testing import SimulatedTable, acks
from tests.conftest import replays

NAMES = ("red", "green", "orange", "purple")
BOX = GAME.data
"""The shipped component data, as the hub hands it to the engine."""


def en(value: Any) -> Any:
    """The English of the texts in a value as the pages get it (a Text or its JSON form, also inside lists and
    dicts such as a view); anything else as it is."""
    if isinstance(value, Text):
        return str(value)
    if isinstance(value, dict) and "msg" in value:
        return str(from_json(value))
    if isinstance(value, list):
        return [en(v) for v in value]
    if isinstance(value, dict):
        return {k: en(v) for k, v in value.items()}
    return value


def untranslated(value: Any) -> set[str]:
    """The message ids inside ``value`` (Texts, or their JSON form inside lists and dicts) that the Spanish or
    the German catalog lacks: an empty set means every word of it is shown in the table's language."""
    missing: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, Text):
            v = v.to_json()
        if isinstance(v, dict) and isinstance(v.get("msg"), str):
            if re.search(r"[A-Za-z]", PLACEHOLDER.sub("", v["msg"])):
                missing.update(
                    f"{lang}: {v['msg']}" for lang in ("es", "de") if v["msg"] not in catalog_entries(lang)
                )
            for arg in (v.get("args") or {}).values():
                walk(arg)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)

    walk(value)
    return missing


def said(refusal: Any) -> str:
    """A refusal (a Rejected, or its JSON form on a page) as one English sentence: "reason (rule)"."""
    if isinstance(refusal, dict):
        reason, rule = en(refusal["reason"]), en(refusal.get("rule", ""))
    else:
        reason, rule = str(refusal.reason), str(refusal.rule)
    return f"{reason} ({rule})" if rule else reason


def ok(state: GameState, *actions: Any) -> GameState:
    """Apply actions that must all be accepted."""
    for action in actions:
        result = apply(state, action)
        assert isinstance(result, Accepted), f"{action} was rejected: {result}"
        state = result.state
    return state


def intro(n: int = 3) -> GameState:
    """An introductory game whose master clock has started."""
    return ok(setup_intro(NAMES[:n], components=BOX), StartGame())


def full_setup(n: int = 3, seed: int = 1) -> GameState:
    return setup_full(NAMES[:n], seed=seed, components=BOX)


def full(n: int = 3, seed: int = 1) -> GameState:
    """A full game after every player placed a gray 1 on b1 and a yellow 1 on b2, clock started."""
    state = full_setup(n, seed)
    for name in NAMES[:n]:
        state = ok(
            state,
            PlaceStartingOrders(
                name, (OrderPlacement("gray", 1, "b1", 0), OrderPlacement("yellow", 1, "b2", 0))
            ),
        )
    return ok(state, StartGame())


def finished(
    state: GameState, player: str, timer: int, symbol: str, destination: str | None = None
) -> GameState:
    """Place a sandtimer and let its sand run through."""
    return ok(state, PlaceTimer(player, timer, symbol, destination), SandRanOut(player, timer))


def set_spots(state: GameState, player: str, building: str, contents: tuple) -> GameState:
    """Test set-up shortcut: put given contents on a building's spots (cubes taken from the supply)."""
    p = state.player(player)
    assert p is not None
    b = p.building(building)
    assert b is not None
    assert len(contents) == len(b.contents)
    supply = list(state.supply)
    for old in b.contents:
        if isinstance(old, Cube):
            supply[COLORS.index(old.color)] += 1
    for new in contents:
        if isinstance(new, Cube):
            supply[COLORS.index(new.color)] -= 1
    state = state.with_player(p.with_building(replace(b, contents=contents)))
    return replace(state, supply=tuple(supply))


def move_ship(state: GameState, player: str, location: str) -> GameState:
    p = state.player(player)
    assert p is not None
    return state.with_player(replace(p, ship=location))


def order(owner: str, color: str, value: int) -> Order:
    return Order(owner, color, value)


def score_sheet(players: dict[str, Any]) -> ScoreSheet:
    """The light-mode move a phone's score-sheet form saves, read as the hub reads the form's post."""
    return GAME.codec.read({"@": "ScoreSheet", "sheet": {"players": players}}, GAME.moves)


# --- a table driven like the nodes and phones drive the hub ----------------------------------------

PLAYERS = ("red", "yellow", "green", "blue")
"""The players of a test table, by seat (named after their colours)."""


def intent(**choices: Any) -> Intent:
    """An intent as a phone posts it: the choices in JSON (lists for pairs), read by the game's codec."""
    return GAME.codec.read({"@": "Intent", **choices}, GAME.intents)


class Table:
    """A Time 'n' Space table on a fake clock (:class:`companion.testing.SimulatedTable`), its nodes
    reporting exactly what a test says: a flip with the sand run through or not, an empty bulb."""

    def __init__(
        self, variant: str = "intro", players: int = 3, seed: int = 0, path: Any = None, deck: str = "hub"
    ) -> None:
        self.sim = SimulatedTable(
            game="time-n-space",
            players=PLAYERS[:players],
            variant=variant,
            seed=seed,
            deck=deck,
            log_path=path,
            start_s=0.0,
            table="tns",
        )
        self.session = self.sim.session
        self.setup = self.sim.setup
        self.clock = self.sim.clock
        for node in self.sim.nodes:
            self.sim.hello(node)

    def player_of(self, node: str) -> str:
        seat = self.setup.seat_of(node)
        assert seat is not None
        return seat.player

    def choose(self, node: str, **choices: Any) -> Rejected | None:
        """Store ``choices`` for the node's next flip, as its player's phone does (None: stored)."""
        return self.sim.choose(self.player_of(node), node, intent(**choices)).refusal

    def intend(self, node: str, **choices: Any) -> None:
        assert self.choose(node, **choices) is None

    def flip(self, node: str, *, ran_out: bool = True, **choices: Any) -> dict[str, str]:
        """Turn a node over (after storing ``choices`` for it); the hub's answer to the node."""
        if choices:
            self.intend(node, **choices)
        sim = self.sim.nodes[node]
        full = self.setup.sand_ms
        upper, lower = (full, 0) if ran_out else (full // 3, full - full // 3)
        outcome = self.sim.report(
            node, msg.Flipped(sim.boot, self.clock.now_ms(), sim.next_seq(), upper, lower)
        )
        [(verdict, reason)] = acks(outcome, node)
        return {"verdict": verdict, "reason": reason} if reason else {"verdict": verdict}

    def empty(self, *nodes: str) -> None:
        """These nodes report that their sand ran out."""
        for node in nodes:
            sim = self.sim.nodes[node]
            outcome = self.sim.report(node, msg.Emptied(sim.boot, self.clock.now_ms(), sim.next_seq()))
            assert acks(outcome, node) == [("accepted", "")]

    def run(self, seconds: float) -> None:
        """Game time passes (the nodes report nothing: see :meth:`empty`)."""
        self.clock.advance(seconds)
        self.sim.tick()

    def start(self) -> None:
        assert self.sim.start().refusal is None

    def act(self, player: str, move: Any) -> Any:
        """A move from ``player``'s phone: the referee's decision, or the refusal."""
        outcome = self.sim.tap(player, move)
        return outcome.refusal if outcome.refusal is not None else outcome.decision

    @property
    def game(self) -> Any:
        """The game's state (the engine's; light mode: the light referee's)."""
        return self.session.state.game

    @property
    def intents(self) -> dict[str, Intent]:
        return dict(self.session.table.intents)

    def timer(self, player: str, n: int) -> Any:
        return self.game.player(player).timers[n - 1]

    def menu(self, player: str) -> dict[str, dict[str, Any]]:
        """The phone's menu by item id as the page gets it, its labels and groups in English."""
        snapshot = self.session.player_snapshot(player)
        assert snapshot is not None
        return {
            item["id"]: dict(item, label=en(item["label"]), group=en(item["group"]))
            for item in snapshot["menu"]
        }

    def menu_order(self, player: str) -> list[str]:
        """The ids of the phone's menu in the order the page shows them."""
        snapshot = self.session.player_snapshot(player)
        assert snapshot is not None
        return [item["id"] for item in snapshot["menu"]]

    def tap(self, player: str, item_id: str) -> Any:
        """A tap on a menu button, posted back as the page does: a choice (None: stored) or a move."""
        item = self.menu(player)[item_id]
        if item["intent"] is not None:
            chosen = GAME.codec.read(item["intent"], GAME.intents)
            return self.sim.choose(player, item["node"], chosen).refusal
        return self.act(player, GAME.codec.read(item["action"], GAME.moves))

    def undo_preview(self) -> Any:
        return undo_offer(self.session.table)

    def undo(self) -> Rejected | None:
        return self.sim.undo().refusal

    def abort(self) -> Any:
        """The host ends the game ("End game", confirmed): the ClockAborted logged, or the refusal."""
        outcome = self.sim.clock_command("abort")
        if outcome.refusal is not None:
            return outcome.refusal
        return next(e for e in outcome.logged if type(e).__name__ == "ClockAborted")

    def replays(self) -> bool:
        """A hub restart rebuilds the same state from the log, without asking the rules."""
        return replays(self.session)
