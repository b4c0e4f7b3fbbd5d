"""Final scoring of Space Dealer: victory points from satisfied orders.

The same function scores a JSON score sheet (``companion score space-dealer FILE``)
and the state of the rules engine at the end of a game, so the two never disagree.

Rules (rulebook, "3.4 Satisfying Orders", "4. End of Game", "5.3 Neutral Planets"):

* An order at a player's planet gives the deliverer the first printed number and the
  planet's owner the second one; the deliverer places one victory-point marker on it.
* Nobody may satisfy an order at their own planet, and each order counts once.
* An order card at a neutral planet gives the deliverer its single number; the card is
  taken instead of placing a marker.
* Each colour has 11 markers and one of them stays on the score track, so a player
  can satisfy at most 10 orders at player planets ("Components", "2. Setup").
* Most points wins; a tie goes to the player who placed more markers; a remaining tie
  is a shared win.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.errors import InvalidRecordError

MARKERS_PER_COLOUR = 11
"""Victory-point markers in each colour ("Components")."""
MARKERS_ON_SCORE_TRACK = 1
"""Markers each player puts on the score track at setup ("2. Setup")."""
PLACEABLE_MARKERS = MARKERS_PER_COLOUR - MARKERS_ON_SCORE_TRACK
"""Markers a player can place on satisfied orders: 10."""
MIN_PLAYERS = 3
MAX_PLAYERS = 8


@dataclass(frozen=True)
class SatisfiedOrder:
    """One satisfied order, as the score sheet and the engine record it."""

    order: str
    """Identifier of the order (the card it is printed on)."""
    by: str
    """The player who delivered the goods."""
    owner: str | None
    """The player whose planet holds the order; ``None`` for a neutral-planet order card."""
    points: tuple[int, ...]
    """Printed numbers: ``(deliverer, owner)`` at a player's planet, ``(deliverer,)`` at a neutral planet."""

    @property
    def uses_marker(self) -> bool:
        """True when the deliverer places a victory-point marker (orders at player planets)."""
        return self.owner is not None


@dataclass(frozen=True)
class PlayerScore:
    """Points and markers of one player at the end."""

    total: int
    """Victory points."""
    markers: int
    """Victory-point markers placed on orders (the tie-break)."""


@dataclass(frozen=True)
class FinalScore:
    """The outcome of a game."""

    players: Mapping[str, PlayerScore]
    """Score of each player, in seating order."""
    ranking: tuple[str, ...]
    """Players from best to worst (points, then markers; ties keep seating order)."""
    winners: tuple[str, ...]
    """Everyone sharing first place."""

    def to_json(self) -> dict[str, Any]:
        """The documented output of ``companion score space-dealer``."""
        return {
            "players": {name: {"total": s.total, "markers": s.markers} for name, s in self.players.items()},
            "ranking": list(self.ranking),
            "winners": list(self.winners),
        }


def check_orders(players: Sequence[str], orders: Iterable[SatisfiedOrder]) -> None:
    """Raise :class:`InvalidRecordError` when the orders break a scoring rule.

    Checks: known players, no order at one's own planet, each order once, the number
    of printed points, and at most 10 markers placed per player (rulebook 3.4, 4, 5.3).
    """
    known = set(players)
    seen: set[str] = set()
    markers = dict.fromkeys(players, 0)
    for o in orders:
        if o.order in seen:
            raise InvalidRecordError(
                f"order {o.order!r} is satisfied twice; each order counts only once (rulebook 3.4)"
            )
        seen.add(o.order)
        if o.by not in known:
            raise InvalidRecordError(f"order {o.order!r} is delivered by unknown player {o.by!r}")
        if o.owner is not None and o.owner not in known:
            raise InvalidRecordError(f"order {o.order!r} belongs to unknown player {o.owner!r}")
        if o.owner is not None and o.owner == o.by:
            raise InvalidRecordError(
                f"order {o.order!r} is at {o.by}'s own planet; nobody may satisfy orders at their own planet (rulebook 3.4)"
            )
        wanted = 2 if o.owner is not None else 1
        if len(o.points) != wanted:
            kind = "an order at a player's planet" if o.owner is not None else "a neutral-planet order"
            raise InvalidRecordError(
                f"order {o.order!r} must have {wanted} point value(s) as {kind}, not {len(o.points)}"
            )
        if any(p < 0 for p in o.points):
            raise InvalidRecordError(f"order {o.order!r} has negative points")
        if o.uses_marker:
            markers[o.by] += 1
            if markers[o.by] > PLACEABLE_MARKERS:
                raise InvalidRecordError(
                    f"{o.by} satisfies more than {PLACEABLE_MARKERS} orders at player planets "
                    f"but has only {PLACEABLE_MARKERS} victory-point markers to place (rulebook 2 and 4)"
                )


def score_orders(players: Sequence[str], orders: Iterable[SatisfiedOrder]) -> FinalScore:
    """Score satisfied orders; the winner has most points, then most markers placed (rulebook 4)."""
    orders = tuple(orders)
    check_orders(players, orders)
    totals = dict.fromkeys(players, 0)
    markers = dict.fromkeys(players, 0)
    for o in orders:
        totals[o.by] += o.points[0]
        if o.owner is not None:
            totals[o.owner] += o.points[1]
            markers[o.by] += 1
    scores = {name: PlayerScore(totals[name], markers[name]) for name in players}
    ranking = tuple(sorted(players, key=lambda n: (-totals[n], -markers[n])))
    best = (totals[ranking[0]], markers[ranking[0]]) if ranking else None
    winners = tuple(n for n in ranking if (totals[n], markers[n]) == best)
    return FinalScore(scores, ranking, winners)


# --- the JSON score sheet -------------------------------------------------------------

_RECORD_KEYS = {"players", "orders"}
_ORDER_KEYS = {"order", "by", "owner", "points"}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_record(record: Any) -> tuple[list[str], list[SatisfiedOrder]]:
    """Read the documented score-sheet JSON into players and satisfied orders."""
    if not isinstance(record, dict):
        raise InvalidRecordError('the score sheet must be a JSON object with "players" and "orders"')
    missing = sorted(_RECORD_KEYS - record.keys())
    if missing:
        raise InvalidRecordError(f"the score sheet is missing the field {missing[0]!r}")
    extra = sorted(record.keys() - _RECORD_KEYS)
    if extra:
        raise InvalidRecordError(
            f'the score sheet has an unknown field {extra[0]!r}; expected "players" and "orders"'
        )
    players = record["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise InvalidRecordError('"players" must be a list of non-empty player names')
    if len(set(players)) != len(players):
        dup = next(p for p in players if players.count(p) > 1)
        raise InvalidRecordError(f'player {dup!r} is listed twice in "players"')
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise InvalidRecordError(
            f"Space Dealer is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)} (rulebook 2)"
        )
    raw_orders = record["orders"]
    if not isinstance(raw_orders, list):
        raise InvalidRecordError('"orders" must be a list of satisfied orders')
    orders = [_parse_order(i, raw) for i, raw in enumerate(raw_orders, start=1)]
    return players, orders


def _parse_order(index: int, raw: Any) -> SatisfiedOrder:
    where = f"order #{index}"
    if not isinstance(raw, dict):
        raise InvalidRecordError(f'{where} must be a JSON object with "order", "by" and "points"')
    for key in ("order", "by", "points"):
        if key not in raw:
            raise InvalidRecordError(f"{where} is missing the field {key!r}")
    extra = sorted(raw.keys() - _ORDER_KEYS)
    if extra:
        raise InvalidRecordError(f"{where} has an unknown field {extra[0]!r}")
    name = raw["order"]
    if not isinstance(name, str) or not name.strip():
        raise InvalidRecordError(f'{where}: "order" must be a non-empty string')
    by = raw["by"]
    if not isinstance(by, str):
        raise InvalidRecordError(f'order {name!r}: "by" must be a player name')
    owner = raw.get("owner")
    if owner is not None and not isinstance(owner, str):
        raise InvalidRecordError(f'order {name!r}: "owner" must be a player name')
    points = raw["points"]
    if not isinstance(points, list) or not all(_is_int(p) for p in points):
        raise InvalidRecordError(f'order {name!r}: "points" must be a list of whole numbers')
    return SatisfiedOrder(name, by, owner, tuple(points))


def score_record(record: dict) -> dict:
    """Score a JSON score sheet; see ``docs/games/space-dealer.md`` for the format."""
    players, orders = parse_record(record)
    return score_orders(players, orders).to_json()
