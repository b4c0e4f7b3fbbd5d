"""Space and Time: the two-player coin game refereed by the hub (issue 7).

The modules: :mod:`.model` (state, moves, events), :mod:`.engine` (the rules), :mod:`.referee`
(the game at a hub table: :class:`~.referee.SpaceTimeReferee` for two people and
:class:`~.referee.VsComputerReferee` for the ``vs-computer`` variants), :mod:`.pages` (words,
views, picture, buttons), :mod:`.hubdeck` (the boards the hub deals itself), :mod:`.ai` (the
computer opponent, its levels in ``data/ai_levels.json``), :mod:`.record` (``companion referee
space-and-time FILE``) and :mod:`.legacy` (the actions of older logs).
"""

from companion.games.space_and_time.ai import load_ai_levels
from companion.games.space_and_time.legacy import legacy_actions
from companion.games.space_and_time.model import (
    ComputerMove,
    PlaceCoin,
    Redeal,
    ShowHints,
    Swap,
    TakeBackCoin,
)
from companion.games.space_and_time.record import referee_record
from companion.games.space_and_time.referee import SpaceAndTimeGame, SpaceTimeReferee, VsComputerReferee
from companion.rules.game import Variant

GAME = SpaceAndTimeGame(
    name="space-and-time",
    title="Space and Time",
    uses_sandtimers=False,
    referee=SpaceTimeReferee.for_table,
    package=__name__,
    aliases=("sat", "space_and_time"),
    min_players=1,
    max_players=2,
    timers_per_player=1,
    variants=(
        Variant("standard", "Two players", 60),
        Variant("vs-computer-b", "Against the computer: it plays B", 60, VsComputerReferee.playing("B")),
        Variant(
            "vs-computer-a", "Against the computer: it plays A and opens", 60, VsComputerReferee.playing("A")
        ),
        Variant("vs-computer-b-1", "Against the computer, easy", 60, VsComputerReferee.playing("B", 1)),
        Variant("vs-computer-b-4", "Against the computer, hard", 60, VsComputerReferee.playing("B", 4)),
    ),
    rules_version=1,
    load_data=load_ai_levels,
    state_modules=("companion.games.space_and_time.model",),
    moves=(Swap, ComputerMove, ShowHints, PlaceCoin, TakeBackCoin, Redeal),
    random_components=True,
    legacy_actions=legacy_actions,
    referee_record=referee_record,
)
