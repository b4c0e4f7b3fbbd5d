"""Time Splicers: walk the Timelines, splice new ones and collapse them for Time Crystals."""

from companion.rules.game import GameInfo, Variant

from .components import load_components
from .legacy import legacy_actions
from .model import MOVES
from .record import referee_record
from .referee import SplicersReferee

GAME = GameInfo(
    name="time-splicers",
    title="Time Splicers",
    uses_sandtimers=False,
    referee=SplicersReferee.for_table,
    package=__name__,
    aliases=("ts", "time_splicers"),
    min_players=2,
    max_players=6,
    timers_per_player=1,
    variants=(Variant("standard", "Standard", 90),),
    rules_version=3,  # 3: an early end (host or master clock) is scored as it stands
    load_data=load_components,
    state_modules=("companion.games.time_splicers.model", "companion.games.time_splicers.components"),
    moves=MOVES,
    random_components=True,
    load_components=load_components,
    legacy_actions=legacy_actions,
    referee_record=referee_record,
)
