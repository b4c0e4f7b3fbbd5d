"""Time 'n' Space (Stronghold Games / eggertspiele, 2013): rules engine, table referees and final scoring.

``score_record`` is the scorer behind ``companion score time-n-space FILE``. The rules
engine is pure: build a state with :func:`setup_intro` or :func:`setup_full` from the
game's component data (``GAME.data``, read once from the shipped ``components.json``;
a table's own copy through :func:`load_components`), then feed actions to
:func:`apply`, which returns ``Accepted(state, events)`` or ``Rejected(reason, rule)``.
:func:`final_scores` scores a state with ``score_record``. :func:`referee_record`
replays a JSON game record (``companion referee time-n-space FILE``).

At a hub table the introductory and full game are refereed by
:class:`~.table.TimeNSpaceReferee`, light mode (timers and scoring only) by
:class:`~.light.LightReferee`, registered on its variant.
"""

from typing import Any

from companion.games.time_n_space import codec
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
from companion.games.time_n_space.codec import action_from_json, action_to_json, state_to_json
from companion.games.time_n_space.components import (
    ComponentDataError,
    Components,
    load_components,
    shipped_components,
)
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
from companion.games.time_n_space.light import LightReferee
from companion.games.time_n_space.scoring import COLORS, score_record
from companion.games.time_n_space.state import RESEARCH, SHIP, GameState
from companion.games.time_n_space.table import TimeNSpaceReferee
from companion.rules.game import GameInfo, Variant


def referee_record(record: Any) -> dict[str, Any]:
    """Replay a JSON game record with the shipped components (see :func:`.codec.referee_record`)."""
    return codec.referee_record(record, components=GAME.data)


GAME = GameInfo(
    name="time-n-space",
    title="Time 'n' Space",
    uses_sandtimers=True,
    referee=TimeNSpaceReferee,
    aliases=("tns", "time_n_space"),
    min_players=3,
    max_players=4,
    timers_per_player=2,
    variants=(
        Variant("intro", "Introductory game", 12),
        Variant("full", "Full game", 30),
        Variant("light", "Timers and scoring only", 30, referee=LightReferee),
    ),
    engine="companion.games.time_n_space.engine",
    rules_version=1,
    load_data=shipped_components,
    state_modules=(
        "companion.games.time_n_space.actions",
        "companion.games.time_n_space.state",
        "companion.games.time_n_space.components",
        "companion.games.time_n_space.table",
        "companion.games.time_n_space.light",
    ),
    score_record=score_record,
    referee_record=referee_record,
)

__all__ = [
    "GAME",
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
    "LightReferee",
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
    "TimeNSpaceReferee",
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
]
