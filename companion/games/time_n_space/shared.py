"""What both table referees of Time 'n' Space share: the setup check and the table's own words.

The introductory and full game (:mod:`.table`) and light mode (:mod:`.light`) play
the same sandtimers at the same table; the sentences a player reads about them, and
which setups a table can play, are the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from companion.errors import ConfigError
from companion.games.time_n_space.components import Components
from companion.games.time_n_space.scoring import COLORS
from companion.games.time_n_space.state import PHASE_ENDING, PHASE_OVER, PHASE_RUNNING, PHASE_SETUP
from companion.rules.setup import TableSetup

GAME_NAME = "time-n-space"
TABLE_RULE = "Table"
"""Rule named by refusals that come from the hub table, not from the rulebook."""

REASON_FULL_SAND = (
    "Let the sand run through completely before you flip this sandtimer: "
    "every sandtimer runs a full minute on its time symbol"
)
REASON_NOT_THROUGH = "The sand on this timer has not run through yet"
REASON_NOT_STARTED = "The sandtimers may not be flipped before the game starts"
REASON_CLOCK_OVER = "The master clock has run out: no one may place another sandtimer"

PHASE_WORDS = {
    PHASE_SETUP: "waiting for the master clock",
    PHASE_RUNNING: "running",
    PHASE_ENDING: "master clock ran out: running sandtimers finish",
    PHASE_OVER: "game over",
}


def check_setup(setup: TableSetup, components: Components) -> None:
    """Refuse a table Time 'n' Space cannot be played at: 3 or 4 players, at most 2 sandtimers each."""
    if len(setup.players) not in (3, 4):
        raise ConfigError(f"Time 'n' Space is played by 3 or 4 players, not {len(setup.players)}")
    timers = components.timers_per_player
    for seat in setup.seats:
        if not 1 <= seat.index <= timers:
            raise ConfigError(
                f"node {seat.node} is timer {seat.index} of {seat.player}, "
                f"but every player has only {timers} sandtimers in Time 'n' Space"
            )


def counts_text(orders: Iterable[tuple[str, int]]) -> str:
    """Order counters as "gray 1 ×2, blue 3 ×1" (colour order, then value), or "none"."""
    c = Counter(orders)
    if not c:
        return "none"
    keys = sorted(c, key=lambda k: (COLORS.index(k[0]), k[1]))
    return ", ".join(f"{color} {value} \u00d7{c[(color, value)]}" for color, value in keys)
