"""Time 'n' Space (Stronghold Games / eggertspiele, 2013): the game as the hub knows it.

The modules, by role: :mod:`.model` (state, actions, events, moves and intents),
:mod:`.engine` (the pure rules), :mod:`.setup` (the states a game starts from, the box's
tiles as the table or the hub deck has them), :mod:`.referee` (the introductory and full
game at a hub table) and :mod:`.light` (light mode's own referee), :mod:`.choices` (what a
flip does with a player's choices), :mod:`.pages` and :mod:`.picture` (what the pages show),
:mod:`.words` (the game's words), :mod:`.scoring` (``companion score time-n-space``),
:mod:`.record` (``companion referee time-n-space``), :mod:`.components` (the box's data in
``data/components.json``), :mod:`.hubdeck` (the hub's own shuffle) and :mod:`.legacy`
(reading logs of formats 1 and 2).
"""

from typing import Any

from companion.games.time_n_space.components import load_components, shipped_components
from companion.games.time_n_space.legacy import legacy_actions
from companion.games.time_n_space.light import LightReferee
from companion.games.time_n_space.model import INTENTS, MOVES
from companion.games.time_n_space.record import referee_record
from companion.games.time_n_space.referee import TimeNSpaceReferee
from companion.games.time_n_space.scoring import score_record
from companion.rules.game import GameInfo, Variant


def _referee_record(record: Any) -> dict[str, Any]:
    """``companion referee time-n-space FILE``: a record replayed with the shipped components."""
    return referee_record(record, components=GAME.data)


GAME = GameInfo(
    name="time-n-space",
    title="Time 'n' Space",
    uses_sandtimers=True,
    referee=TimeNSpaceReferee,
    package=__name__,
    aliases=("tns", "time_n_space"),
    min_players=3,
    max_players=4,
    timers_per_player=2,
    variants=(
        Variant("intro", "Introductory game", 12),
        Variant("full", "Full game", 30),
        Variant("light", "Timers and scoring only", 30, referee=LightReferee),
    ),
    rules_version=1,
    load_data=shipped_components,
    state_modules=(
        "companion.games.time_n_space.model",
        "companion.games.time_n_space.components",
        "companion.games.time_n_space.light",
    ),
    moves=MOVES,
    intents=INTENTS,
    random_components=True,
    load_components=load_components,
    legacy_actions=legacy_actions,
    score_record=score_record,
    referee_record=_referee_record,
)
