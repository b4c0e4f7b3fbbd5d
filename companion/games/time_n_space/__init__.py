"""Time 'n' Space (Stronghold Games / eggertspiele, 2013): rules engine and final scoring.

``score_record`` is the scorer behind ``companion score time-n-space FILE``. The rules
engine is pure: build a state with :func:`setup_intro` or :func:`setup_full`, then feed
actions to :func:`apply`, which returns ``Accepted(state, events)`` or
``Rejected(reason, rule)``. :func:`final_scores` scores a state with ``score_record``.
``referee_record`` replays a JSON game record (``companion referee time-n-space FILE``).
"""

from typing import Any

from companion.games.time_n_space.actions import (
    Beam,
    Build,
    Deliver,
    Delivery,
    LiftTimer,
    LiftTogether,
    MasterClockExpired,
    MoonTile,
    OrderPlacement,
    ParkTimer,
    PlaceStartingOrders,
    PlaceTimer,
    Produce,
    SandRanOut,
    StartGame,
    Trade,
    Upgrade,
)
from companion.games.time_n_space.codec import action_from_json, action_to_json, referee_record, state_to_json
from companion.games.time_n_space.components import ComponentDataError, Components, load_components
from companion.games.time_n_space.engine import (
    SetupError,
    apply,
    final_scores,
    is_legal,
    is_over,
    legal_placements,
    replay,
    scoring_record,
    setup_full,
    setup_intro,
)
from companion.games.time_n_space.scoring import COLORS, score_record
from companion.games.time_n_space.state import RESEARCH, SHIP, GameState


def table_referee(setup: Any) -> Any:
    """The hub's table referee for Time 'n' Space (see :mod:`companion.games.time_n_space.table`).

    Imported on first use: the engine and the command-line scorer do not need the table.
    """
    from companion.games.time_n_space.table import table_referee as make

    return make(setup)


__all__ = [
    "COLORS",
    "RESEARCH",
    "SHIP",
    "Beam",
    "Build",
    "ComponentDataError",
    "Components",
    "Deliver",
    "Delivery",
    "GameState",
    "LiftTimer",
    "LiftTogether",
    "MasterClockExpired",
    "MoonTile",
    "OrderPlacement",
    "ParkTimer",
    "PlaceStartingOrders",
    "PlaceTimer",
    "Produce",
    "SandRanOut",
    "SetupError",
    "StartGame",
    "Trade",
    "Upgrade",
    "action_from_json",
    "action_to_json",
    "apply",
    "final_scores",
    "is_legal",
    "is_over",
    "legal_placements",
    "load_components",
    "referee_record",
    "replay",
    "score_record",
    "scoring_record",
    "setup_full",
    "setup_intro",
    "state_to_json",
    "table_referee",
]
