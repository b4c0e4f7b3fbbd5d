"""Race to 21: the example game of docs/adding-a-game.md (not a game the hub ships).

Players take turns adding 1, 2 or 3 to a shared count; whoever brings it to exactly 21 wins. Each
player's sandtimer is their turn timer: flip it to start your turn, tap how much to add, and with the
turn limit on, a turn whose sand runs out passes to the next player.
"""

from companion.rules.game import GameInfo, Variant

from .model import Add
from .referee import RaceReferee

GAME = GameInfo(
    name="race-21",
    title="Race to 21",
    uses_sandtimers=False,
    referee=lambda setup, data: RaceReferee(setup),
    package=__name__,
    min_players=2,
    max_players=6,
    timers_per_player=1,
    variants=(Variant("standard", "Race to 21", 20),),
    state_modules=(f"{__name__}.model",),
    moves=(Add,),
)
