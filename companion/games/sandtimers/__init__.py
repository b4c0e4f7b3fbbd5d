"""The hub's default table: sandtimers and the master clock, no game rules."""

from __future__ import annotations

from typing import Any

from companion.rules.context import Context
from companion.rules.game import GameInfo, Variant
from companion.rules.outcome import Decision
from companion.rules.referee import Referee
from companion.rules.setup import TableSetup


class FreeTimers(Referee[None]):
    """No game rules: sandtimers and master clock only (every flip counts, no phone actions)."""

    game = "sandtimers"

    def start(self, setup: TableSetup) -> None:
        return None

    def replay(self, state: None, ctx: Context, action: Any) -> Decision:
        return Decision(None)


GAME = GameInfo(
    name="sandtimers",
    title="Sandtimers and master clock only",
    uses_sandtimers=True,
    referee=lambda setup, data: FreeTimers(setup),
    package=__name__,
    min_players=1,
    max_players=8,
    timers_per_player=2,
    variants=(Variant("intro", "12-minute clock", 12), Variant("full", "30-minute clock", 30)),
    legacy_actions=lambda action: (),
)
