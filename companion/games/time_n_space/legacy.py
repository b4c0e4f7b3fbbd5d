"""Reading old logs: Time 'n' Space's actions as logs of formats 1 and 2 wrote them, as today's typed actions.

This module exists only so that logs written by earlier hubs (formats 1 and 2) still open.
Those logs stored each engine action in the game's own JSON (``{"action": "place_timer",
"player": "red", "timer": 0, "symbol": "ship", "destination": "moon-1"}``), a planet
owner's pick as ``{"action": "handover", ...}`` and light mode's steps as
``{"action": "light_flip", ...}``. :func:`legacy_actions` turns one such action into the
typed actions of :mod:`.model` and :mod:`.light` (``GAME.legacy_actions``); the table then
replays them once through today's rules. Nothing writes this form any more.
"""

from __future__ import annotations

from typing import Any

from companion.errors import InvalidRecordError
from companion.games.time_n_space import model as A
from companion.games.time_n_space.light import (
    LightEnd,
    LightExpired,
    LightFlip,
    LightRanOut,
    LightSheet,
    LightStart,
)

_NAMES = (
    "place_starting_orders",
    "start_game",
    "place_timer",
    "sand_ran_out",
    "lift_timer",
    "park_timer",
    "lift_together",
    "master_clock_expired",
)
"""The engine actions of the old JSON form."""


def legacy_actions(raw: dict[str, Any]) -> tuple[Any, ...]:
    """Today's actions for one action of an old log; :class:`InvalidRecordError` when it is none."""
    name = raw.get("action") if isinstance(raw, dict) else None
    where = "the logged action"
    if name == "handover":
        return (
            A.ChooseHandover(
                _field(raw, "player", str, where),
                _field(raw, "color", str, where),
                _field(raw, "value", int, where),
                _field(raw, "building", str, where),
                _field(raw, "spot", int, where),
            ),
        )
    if name == "light_start":
        return (LightStart(),)
    if name == "light_expired":
        return (LightExpired(),)
    if name == "light_end":
        return (LightEnd(),)
    if name in ("light_flip", "light_ran_out"):
        player, timer = _field(raw, "player", str, where), _field(raw, "timer", int, where)
        return (LightFlip(player, timer) if name == "light_flip" else LightRanOut(player, timer),)
    if name == "light_sheet":
        return (LightSheet(tuple(_entry(p, e) for p, e in _field(raw, "players", dict, where).items())),)
    return (action_from_json(raw, where),)


def _entry(player: str, entry: dict[str, Any]) -> A.SheetEntry:
    return A.SheetEntry(
        player,
        tuple(A.SheetCounter(c["color"], c["value"], c["from"]) for c in entry["collected"]),
        tuple(entry["bonus"]),
        tuple(A.SheetCounter(c["color"], c["value"]) for c in entry["above"]),
    )


def _bad(where: str, problem: str) -> InvalidRecordError:
    return InvalidRecordError(f"{where} {problem}")


def _field(
    obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str, *, optional: bool = False
) -> Any:
    if key not in obj:
        if optional:
            return None
        raise _bad(where, f"is missing the field {key!r}")
    value = obj[key]
    if value is None and optional:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise _bad(
            where, f"field {key!r} must be a {names.replace('str', 'string').replace('int', 'whole number')}"
        )
    return value


def _spot_from(value: Any, where: str) -> tuple[str, int]:
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
        raise _bad(where, "names a spot that is not [building, spot]")
    if not isinstance(value[1], int) or isinstance(value[1], bool):
        raise _bad(where, "names a spot that is not [building, spot]")
    return value[0], value[1]


def _placements(value: Any, where: str) -> tuple[A.OrderPlacement, ...]:
    if not isinstance(value, list):
        raise _bad(where, "must list orders as objects with color, value, building and spot")
    out = []
    for i, item in enumerate(value):
        iw = f"{where}, order {i + 1}"
        if not isinstance(item, dict):
            raise _bad(iw, "must be an object with color, value, building and spot")
        out.append(
            A.OrderPlacement(
                _field(item, "color", str, iw),
                _field(item, "value", int, iw),
                _field(item, "building", str, iw),
                _field(item, "spot", int, iw),
            )
        )
    return tuple(out)


def choice_from_json(value: Any, where: str = "the choice") -> A.Choice | None:
    """Decode a lift's choice; ``null`` is a forfeit."""
    if value is None:
        return None
    if not isinstance(value, dict) or len(value) != 1:
        raise _bad(
            where, "must be null or an object with one of deliver, moon, produce, beam, trade, build, upgrade"
        )
    ((kind, body),) = value.items()
    if kind == "deliver":
        if not isinstance(body, list):
            raise _bad(where, "'deliver' must list the orders to fulfil")
        orders = []
        for i, item in enumerate(body):
            iw = f"{where}, delivery {i + 1}"
            if not isinstance(item, dict):
                raise _bad(iw, "must be an object with color and value")
            space = item.get("space")
            cubes = item.get("cubes")
            if cubes is not None and not isinstance(cubes, list):
                raise _bad(iw, "field 'cubes' must list [building, spot] pairs")
            orders.append(
                A.Delivery(
                    _field(item, "color", str, iw),
                    _field(item, "value", int, iw),
                    None if space is None else _spot_from(space, iw),
                    None if cubes is None else tuple(_spot_from(c, iw) for c in cubes),
                )
            )
        return A.Deliver(tuple(orders))
    if kind == "moon":
        if body not in ("research", "bottom"):
            raise _bad(where, '\'moon\' must be "research" or "bottom"')
        return A.MoonTile(body == "research")
    if kind == "produce":
        if body is None:
            return A.Produce()
        if not isinstance(body, list) or any(not isinstance(i, int) or isinstance(i, bool) for i in body):
            raise _bad(where, "'produce' must be null or a list of spot numbers")
        return A.Produce(tuple(body))
    if kind == "beam":
        if not isinstance(body, list):
            raise _bad(where, "'beam' must list [production plant, spot] pairs")
        return A.Beam(tuple(_spot_from(c, where) for c in body))
    if kind == "trade":
        return A.Trade(_placements(body, where))
    if kind == "build":
        if not isinstance(body, str):
            raise _bad(where, "'build' must name a building")
        return A.Build(body)
    if kind == "upgrade":
        if body is not True:
            raise _bad(where, "'upgrade' must be true")
        return A.Upgrade()
    raise _bad(where, f"has an unknown kind {kind!r}")


def action_from_json(value: Any, where: str = "the action") -> A.Action:
    """Decode one action; raises :class:`InvalidRecordError` with one sentence when malformed."""
    if not isinstance(value, dict):
        raise _bad(where, "must be an object with an 'action' field")
    name = _field(value, "action", str, where)
    if name == "start_game":
        return A.StartGame()
    if name == "master_clock_expired":
        return A.MasterClockExpired()
    if name == "lift_together":
        lifts = []
        for i, x in enumerate(_field(value, "lifts", list, where)):
            lw = f"{where}, lift {i + 1}"
            if not isinstance(x, dict):
                raise _bad(lw, "must be an object with player, timer and choice")
            lifts.append(
                A.LiftTimer(
                    _field(x, "player", str, lw),
                    _field(x, "timer", int, lw),
                    choice_from_json(x.get("choice"), lw),
                )
            )
        return A.LiftTogether(_field(value, "owner", str, where), tuple(lifts))
    if name not in _NAMES:
        raise _bad(where, f"has an unknown action {name!r}; use one of {', '.join(sorted(_NAMES))}")
    player = _field(value, "player", str, where)
    if name == "place_starting_orders":
        return A.PlaceStartingOrders(player, _placements(_field(value, "orders", list, where), where))
    timer = _field(value, "timer", int, where)
    if name == "place_timer":
        return A.PlaceTimer(
            player,
            timer,
            _field(value, "symbol", str, where, optional=True),
            _field(value, "destination", str, where, optional=True),
        )
    if name == "sand_ran_out":
        return A.SandRanOut(player, timer)
    if name == "park_timer":
        return A.ParkTimer(player, timer)
    return A.LiftTimer(player, timer, choice_from_json(value.get("choice"), where))
