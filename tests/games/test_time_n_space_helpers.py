"""Shared helpers for the Time 'n' Space engine tests (no tests here): build states by legal play."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from companion.games.base import Accepted
from companion.games.time_n_space import (
    COLORS,
    GAME,
    OrderPlacement,
    PlaceStartingOrders,
    PlaceTimer,
    SandRanOut,
    StartGame,
    apply,
    setup_full,
    setup_intro,
)
from companion.games.time_n_space.state import Cube, GameState, Order
from companion.i18n import catalog_entries
from companion.rules.text import PLACEHOLDER, Text, from_json

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
