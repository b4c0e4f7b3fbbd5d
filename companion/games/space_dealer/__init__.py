"""Space Dealer (eggertspiele, 2006): rules engine and final scoring.

Public entry points:

* :func:`score_record` scores a JSON score sheet (``companion score space-dealer FILE``).
* :func:`setup` and :func:`apply` run the pure rules engine (``engine`` module); the
  actions are in ``actions``, the state in ``state``, the card data in ``cards.toml``
  (:func:`load_card_data` loads a corrected copy).
* :func:`final_score` scores an engine state with the same function as the command.
* :func:`referee_record` replays a JSON game record (``companion referee space-dealer FILE``).
* :func:`table_referee` referees a hub table with sandtimer nodes (``table`` module).
"""

from typing import Any

from companion.games.space_dealer.cards import CardData, CardDataError, load_card_data
from companion.games.space_dealer.engine import (
    SetupError,
    Start,
    apply,
    final_score,
    is_legal,
    setup,
)
from companion.games.space_dealer.record import action_from_json, action_to_json, referee_record
from companion.games.space_dealer.scoring import (
    FinalScore,
    PlayerScore,
    SatisfiedOrder,
    score_orders,
    score_record,
)


def table_referee(setup: Any) -> Any:
    """The hub's referee for a Space Dealer table (imported on demand: the table package loads the hub's types)."""
    from companion.games.space_dealer.table import table_referee as make

    return make(setup)


__all__ = [
    "CardData",
    "CardDataError",
    "FinalScore",
    "PlayerScore",
    "SatisfiedOrder",
    "SetupError",
    "Start",
    "action_from_json",
    "action_to_json",
    "apply",
    "final_score",
    "is_legal",
    "load_card_data",
    "referee_record",
    "score_orders",
    "score_record",
    "setup",
    "table_referee",
]
