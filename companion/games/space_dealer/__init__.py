"""Space Dealer (eggertspiele, 2006): rules engine, final scoring and the hub's table referee.

Public entry points:

* :data:`GAME`: the game as the hub knows it; ``GAME.data`` is the shipped card data
  (``cards.toml``, read once), ``GAME.make_referee(setup)`` the table referee of a setup
  (:class:`~.table.SpaceDealerReferee` for the rules for experienced players,
  :class:`~.table.BasicSpaceDealerReferee` for the basic game).
* :func:`score_record` scores a JSON score sheet (``companion score space-dealer FILE``).
* :func:`setup` and :func:`apply` run the pure rules engine (``engine`` module); the
  actions are in ``actions``, the state in ``state``. ``setup`` takes the card data:
  ``GAME.data``, or a corrected copy from :func:`load_card_data`.
* :func:`final_score` scores an engine state with the same function as the command.
* :func:`referee_record` replays a JSON game record (``companion referee space-dealer FILE``).
"""

from typing import Any

from companion.games.space_dealer import record as _record
from companion.games.space_dealer.cards import CardData, CardDataError, load_card_data, shipped_card_data
from companion.games.space_dealer.engine import (
    SetupError,
    Start,
    apply,
    final_score,
    is_legal,
    setup,
)
from companion.games.space_dealer.record import action_from_json, action_to_json
from companion.games.space_dealer.scoring import (
    FinalScore,
    PlayerScore,
    SatisfiedOrder,
    score_orders,
    score_record,
)
from companion.games.space_dealer.table import BasicSpaceDealerReferee, SpaceDealerReferee, default_referee
from companion.rules.game import GameInfo, Variant


def referee_record(record: Any) -> dict[str, Any]:
    """Replay a JSON game record with the shipped cards (``companion referee space-dealer FILE``)."""
    return _record.referee_record(record, data=GAME.data)


GAME = GameInfo(
    name="space-dealer",
    title="Space Dealer",
    uses_sandtimers=True,
    referee=default_referee,
    aliases=("sd", "space_dealer"),
    min_players=3,
    max_players=8,
    timers_per_player=2,
    variants=(
        Variant("experienced", "With the experienced rules", 30, referee=SpaceDealerReferee),
        Variant("basic", "Basic game", 30, referee=BasicSpaceDealerReferee),
    ),
    engine="companion.games.space_dealer.engine",
    rules_version=1,
    load_data=shipped_card_data,
    state_modules=(
        "companion.games.space_dealer.actions",
        "companion.games.space_dealer.state",
        "companion.games.space_dealer.engine",
        "companion.games.space_dealer.cards",
        "companion.games.space_dealer.scoring",
        "companion.games.space_dealer.table",
        "companion.rules.text",
    ),
    score_record=score_record,
    referee_record=referee_record,
)

__all__ = [
    "GAME",
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
]
