"""JSON form of Time 'n' Space actions, and the ``companion referee time-n-space`` record.

An action is an object with an ``action`` name and its fields, for example
``{"action": "place_timer", "player": "red", "timer": 0, "symbol": "ship", "destination": "moon-1"}``
or ``{"action": "lift_timer", "player": "red", "timer": 0, "choice": {"produce": null}}``.
The hub can keep its event log in this form; :func:`referee_record` replays a whole game.
"""

from __future__ import annotations

from typing import Any

from companion.errors import InvalidRecordError
from companion.games.base import Rejected
from companion.games.time_n_space import actions as A
from companion.games.time_n_space.components import Components
from companion.games.time_n_space.engine import apply, final_scores, setup_full, setup_intro
from companion.games.time_n_space.scoring import COLORS
from companion.games.time_n_space.state import Cube, GameState, Order

_NAMES: dict[type, str] = {
    A.PlaceStartingOrders: "place_starting_orders",
    A.StartGame: "start_game",
    A.PlaceTimer: "place_timer",
    A.SandRanOut: "sand_ran_out",
    A.LiftTimer: "lift_timer",
    A.ParkTimer: "park_timer",
    A.LiftTogether: "lift_together",
    A.MasterClockExpired: "master_clock_expired",
}


def _spot(ref: tuple[str, int]) -> list[Any]:
    return [ref[0], ref[1]]


def _placement(p: A.OrderPlacement) -> dict[str, Any]:
    return {"color": p.color, "value": p.value, "building": p.building, "spot": p.spot}


def choice_to_json(choice: A.Choice | None) -> dict[str, Any] | None:
    """The JSON form of a lift's choice (``None`` for a forfeit)."""
    if choice is None:
        return None
    if isinstance(choice, A.Deliver):
        orders = []
        for d in choice.orders:
            item: dict[str, Any] = {"color": d.color, "value": d.value}
            if d.space is not None:
                item["space"] = _spot(d.space)
            if d.cubes is not None:
                item["cubes"] = [_spot(c) for c in d.cubes]
            orders.append(item)
        return {"deliver": orders}
    if isinstance(choice, A.MoonTile):
        return {"moon": "research" if choice.research else "bottom"}
    if isinstance(choice, A.Produce):
        return {"produce": None if choice.spots is None else list(choice.spots)}
    if isinstance(choice, A.Beam):
        return {"beam": [_spot(c) for c in choice.cubes]}
    if isinstance(choice, A.Trade):
        return {"trade": [_placement(p) for p in choice.orders]}
    if isinstance(choice, A.Build):
        return {"build": choice.building}
    return {"upgrade": True}


def action_to_json(action: A.Action) -> dict[str, Any]:
    """The JSON form of an action."""
    out: dict[str, Any] = {"action": _NAMES[type(action)]}
    if isinstance(action, A.PlaceStartingOrders):
        out.update(player=action.player, orders=[_placement(p) for p in action.orders])
    elif isinstance(action, A.PlaceTimer):
        out.update(player=action.player, timer=action.timer, symbol=action.symbol)
        if action.destination is not None:
            out["destination"] = action.destination
    elif isinstance(action, (A.SandRanOut, A.ParkTimer)):
        out.update(player=action.player, timer=action.timer)
    elif isinstance(action, A.LiftTimer):
        out.update(player=action.player, timer=action.timer, choice=choice_to_json(action.choice))
    elif isinstance(action, A.LiftTogether):
        out.update(
            owner=action.owner,
            lifts=[
                {"player": x.player, "timer": x.timer, "choice": choice_to_json(x.choice)}
                for x in action.lifts
            ],
        )
    return out


# --- decoding ---------------------------------------------------------------------------


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
    if name not in _NAMES.values():
        raise _bad(where, f"has an unknown action {name!r}; use one of {', '.join(sorted(_NAMES.values()))}")
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


def _content(content: Any) -> dict[str, Any] | None:
    if isinstance(content, Cube):
        return {"cube": content.color}
    if isinstance(content, Order):
        return {"order": {"color": content.color, "value": content.value}}
    return None


def state_to_json(state: GameState) -> dict[str, Any]:
    """A JSON-ready picture of the table for screens and exports (not needed to replay a game)."""
    return {
        "variant": state.variant,
        "phase": state.phase,
        "supply": dict(zip(COLORS, state.supply, strict=True)),
        "piles": {moon: len(pile) for moon, pile in zip(state.moons, state.piles, strict=True)},
        "players": {
            p.name: {
                "planet": p.planet,
                "ship": p.ship,
                "planet_bonus": bonus,
                "research": None if p.research is None else p.research.id,
                "timers": [
                    {"symbol": t.symbol, "running": t.running, "destination": t.destination} for t in p.timers
                ],
                "buildings": [
                    {
                        "id": b.id,
                        "type": b.type,
                        "stage": b.stage,
                        "spots": [_content(c) for c in b.contents],
                        "capacity": b.spec.capacity,
                    }
                    for b in p.buildings
                ],
                "above": [{"color": o.color, "value": o.value} for o in p.above],
                "collected": [{"color": c.color, "value": c.value, "from": c.source} for c in p.collected],
                "bonus": list(p.bonus),
            }
            for p, bonus in zip(state.players, state.planet_bonus, strict=True)
        },
    }


def referee_record(record: Any, *, components: Components) -> dict[str, Any]:
    """Replay a game record through the rules and report every rejected action.

    Input: ``{"variant": "intro" | "full", "players": [3 or 4 names], "seed": N (full game),
    "actions": [action objects]}``. Rejected actions are listed with their reason and rule
    and leave the game unchanged, as at a real table. Output: ``accepted`` (count),
    ``rejected``, ``phase``, ``over``, ``scores`` (the final scoring of the resulting state)
    and ``state`` (the table as :func:`state_to_json` shows it). ``components``: the game's data.
    """
    if not isinstance(record, dict):
        raise InvalidRecordError("the game record must be a JSON object with variant, players and actions")
    allowed = {"variant", "players", "seed", "actions"}
    extra = sorted(set(record) - allowed)
    if extra:
        raise InvalidRecordError(f"the game record has an unknown field {extra[0]!r}")
    variant = _field(record, "variant", str, "the game record")
    players = _field(record, "players", list, "the game record")
    actions = _field(record, "actions", list, "the game record")
    if variant == "intro":
        if "seed" in record:
            raise InvalidRecordError("the introductory game is not shuffled; leave 'seed' out")
        state = setup_intro(players, components=components)
    elif variant == "full":
        seed = _field(record, "seed", int, "the game record")
        state = setup_full(players, seed=seed, components=components)
    else:
        raise InvalidRecordError(f'variant must be "intro" or "full", not {variant!r}')
    decoded = [action_from_json(a, f"action {i + 1}") for i, a in enumerate(actions)]
    accepted = 0
    rejected = []
    for i, (raw, action) in enumerate(zip(actions, decoded, strict=True), start=1):
        result = apply(state, action)
        if isinstance(result, Rejected):
            rejected.append(
                {"index": i, "action": raw, "reason": str(result.reason), "rule": str(result.rule)}
            )
            continue
        accepted += 1
        state = result.state
    return {
        "accepted": accepted,
        "rejected": rejected,
        "phase": state.phase,
        "over": state.phase == "over",
        "scores": final_scores(state),
        "state": state_to_json(state),
    }
