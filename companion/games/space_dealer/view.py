"""A JSON-ready picture of a Space Dealer table, for the dashboard and the players' pages.

It shows the orbital ring with its ships and neutral orders, the victory-point track (points
and markers per player, scored by the same function as the score command), each player's
timers (a sabotaged one is flagged, so the hub can show that node red) and the timer spaces
blocked by rockets.
"""

from __future__ import annotations

from typing import Any

from companion.games.space_dealer.actions import BuildCard, DiscardCard, MoveShip, RaiseTechLevel, UseCard
from companion.games.space_dealer.engine import final_score, planning_capacity, timer_limit
from companion.games.space_dealer.state import GameState, Timer


def _job(timer: Timer) -> dict[str, Any] | None:
    job = timer.job
    if job is None:
        return None
    if isinstance(job, RaiseTechLevel):
        return {"job": "raise-tech-level"}
    if isinstance(job, BuildCard):
        return {"job": "build", "card": job.card, "x": job.x}
    if isinstance(job, DiscardCard):
        return {"job": "discard", "card": job.card}
    if isinstance(job, UseCard):
        return {"job": "use", "card": job.card}
    if isinstance(job, MoveShip):
        return {"job": "move", "ship": job.ship, "to": job.to}
    return {"job": type(job).__name__}


def snapshot(state: GameState) -> dict[str, Any]:
    """The table as plain JSON types: phase, victory-point track, ring, players and pool."""
    score = final_score(state)
    ring = []
    for field in range(state.ring_size):
        owner = state.field_owner(field)
        planet = state.neutral_at(field)
        ring.append(
            {
                "field": field,
                "planet": owner if owner is not None else "neutral",
                "ships": [s.id for s in state.ships if s.field == field],
                "arriving": [s.id for s in state.ships if s.destination == field],
                "order": planet.order if planet else None,
                "goods": planet.goods.as_dict() if planet else {},
            }
        )
    players = {}
    for p in state.players:
        players[p.name] = {
            "points": score.players[p.name].total,
            "markers_placed": p.markers_placed,
            "markers_left": state.data.placeable_markers - p.markers_placed,
            "tech_level": p.tech_level,
            "planning": list(p.planning),
            "planning_capacity": planning_capacity(state, p),
            "stack": len(p.stack),
            "plants": [list(side) for side in p.plants],
            "built": [
                {
                    "card": b.card,
                    "type": state.cards[b.card].type,
                    "x": b.x,
                    "covered": b.covered,
                    "blocked_by": b.blocked_by,
                    "attack_markers": b.attack_markers,
                    "stored": b.stored.as_dict(),
                    "order_done": any(o.order == b.card for o in state.satisfied),
                }
                for b in p.built
            ],
            "timers": [
                {
                    "index": t.index,
                    "status": t.status.value,
                    "usable": t.index < timer_limit(state, p),
                    "sabotaged_by": t.sabotaged_by,
                    "clears_block": t.clears_block,
                    **({"job": _job(t)} if t.job is not None else {}),
                }
                for t in p.timers
            ],
            "neutral_cards": list(p.neutral_cards),
        }
    return {
        "game": "space-dealer",
        "phase": state.phase.value,
        "players": players,
        "ranking": list(score.ranking),
        "ring": ring,
        "ships": {
            s.id: {
                "controller": s.controller,
                "field": s.field,
                "destination": s.destination,
                "cargo": s.cargo.as_dict(),
            }
            for s in state.ships
        },
        "pool": state.pool.as_dict(),
        "attack_markers_in_pool": state.attack_pool,
        "stacks": {"2": len(state.stack2), "3": len(state.stack3), "orders": len(state.order_stack)},
    }
