"""What both table referees of Time 'n' Space share: the setup check.

The introductory and full game (:mod:`.table`) and light mode (:mod:`.light`) play
the same sandtimers at the same table; the sentences a player reads about them are in
:mod:`.words`, and which setups a table can play is checked here.
"""

from __future__ import annotations

from companion.games.time_n_space.components import Components
from companion.games.time_n_space.words import SetupTextError
from companion.rules.setup import TableSetup
from companion.rules.text import text

GAME_NAME = "time-n-space"


def check_setup(setup: TableSetup, components: Components) -> None:
    """Refuse a table Time 'n' Space cannot be played at: 3 or 4 players, at most 2 sandtimers each."""
    if len(setup.players) not in (3, 4):
        raise SetupTextError(
            text("Time 'n' Space is played by 3 or 4 players, not {players}", players=len(setup.players))
        )
    timers = components.timers_per_player
    for seat in setup.seats:
        if not 1 <= seat.index <= timers:
            raise SetupTextError(
                text(
                    "node {node} is timer {index} of {player}, "
                    "but every player has only {timers} sandtimers in Time 'n' Space",
                    node=seat.node,
                    index=seat.index,
                    player=seat.player,
                    timers=timers,
                )
            )
