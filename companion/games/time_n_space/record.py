"""Game records of Time 'n' Space: ``companion referee time-n-space FILE`` replays one through the rules.

A record names the variant, the players (3 or 4, in seat order), where the random components lay,
and the engine's actions in the game's codec form, one ``{"@": "ClassName", ...}`` object each (the
classes and fields of :mod:`.model`), for example
``{"@": "PlaceTimer", "player": "red", "timer": 0, "symbol": "ship", "destination": "moon-1"}``.

The random components are given as the table had them: the full game's piles either as the hub
deck shuffled them (``seed``), or each moon's tiles top first as far as known (``piles``), or not at
all (each tile taken is then named in its ``MoonTile``, as it happened); the introductory game's
ocher tiles as each player drew them (``ocher``), else as the data file lists them (the hub deck).
Rejected actions are listed with their reason and rule and leave the game unchanged, as at a real
table.
"""

from __future__ import annotations

from typing import Any

from companion.errors import InvalidRecordError
from companion.games.time_n_space import components as C
from companion.games.time_n_space import model as M
from companion.games.time_n_space.components import COLORS, Components
from companion.games.time_n_space.engine import apply
from companion.games.time_n_space.model import Cube, GameState, Order
from companion.games.time_n_space.scoring import final_scores
from companion.games.time_n_space.setup import setup_full, setup_intro
from companion.rules.codec import Codec
from companion.rules.outcome import Rejected

CODEC = Codec.of_modules(M, C)
"""Reads and writes the record's actions (the classes of :mod:`.model`)."""
ENGINE_ACTIONS: tuple[type, ...] = (
    M.PlaceStartingOrders,
    M.StartGame,
    M.PlaceTimer,
    M.SandRanOut,
    M.LiftTimer,
    M.ParkTimer,
    M.LiftTogether,
    M.ChooseHandover,
    M.TakeOcherTile,
    M.MasterClockExpired,
)
"""The actions a record may hold."""


def _field(record: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in record:
        raise InvalidRecordError(f"{where} is missing the field {key!r}")
    value = record[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = {str: "a string", int: "a whole number", list: "a list"}
        raise InvalidRecordError(f"{where} field {key!r} must be {names.get(kind, kind.__name__)}")
    return value


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
    "actions": [actions in codec form]}``. Rejected actions are listed with their reason and rule
    and leave the game unchanged, as at a real table. Output: ``accepted`` (count),
    ``rejected``, ``phase``, ``over``, ``scores`` (the final scoring of the resulting state)
    and ``state`` (the table as :func:`state_to_json` shows it). ``components``: the game's data.
    """
    if not isinstance(record, dict):
        raise InvalidRecordError("the game record must be a JSON object with variant, players and actions")
    allowed = {"variant", "players", "seed", "piles", "ocher", "actions"}
    extra = sorted(set(record) - allowed)
    if extra:
        raise InvalidRecordError(f"the game record has an unknown field {extra[0]!r}")
    variant = _field(record, "variant", str, "the game record")
    players = _field(record, "players", list, "the game record")
    actions = _field(record, "actions", list, "the game record")
    if variant == "intro":
        for key in ("seed", "piles"):
            if key in record:
                raise InvalidRecordError(
                    f"the introductory game has no tiles at the moons; leave {key!r} out"
                )
        ocher = _field(record, "ocher", dict, "the game record") if "ocher" in record else None
        state = setup_intro(players, components=components, deck="hub" if ocher is None else "table")
        for player, tile in (ocher or {}).items():
            result = apply(state, M.TakeOcherTile(str(player), str(tile)))
            if isinstance(result, Rejected):
                raise InvalidRecordError(f"the ocher tile of {player!r}: {result}")
            state = result.state
    elif variant == "full":
        if "ocher" in record:
            raise InvalidRecordError("only the introductory game draws ocher tiles; leave 'ocher' out")
        seed = _field(record, "seed", int, "the game record") if "seed" in record else None
        piles = _piles(record["piles"]) if "piles" in record else None
        state = setup_full(players, components=components, seed=seed, piles=piles)
    else:
        raise InvalidRecordError(f'variant must be "intro" or "full", not {variant!r}')
    decoded = [_action(a, i) for i, a in enumerate(actions, start=1)]
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


def _action(raw: Any, number: int) -> Any:
    try:
        return CODEC.read(raw, ENGINE_ACTIONS)
    except InvalidRecordError as exc:
        raise InvalidRecordError(f"action {number}: {exc}") from None


def _piles(value: Any) -> dict[str, list[str]]:
    """The record's ``piles``: each moon's tiles, top first, as far as the table knew them."""
    if not isinstance(value, dict) or not all(
        isinstance(tiles, list) and all(isinstance(t, str) for t in tiles) for tiles in value.values()
    ):
        raise InvalidRecordError(
            "the game record field 'piles' must map each moon to its tiles, top first, like "
            '{"moon-1": ["t05", "t12"]}'
        )
    return {str(moon): list(tiles) for moon, tiles in value.items()}
