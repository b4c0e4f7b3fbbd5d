"""Race to 21 at a hub table: each player's sandtimer is their turn timer (the contract's TurnReferee)."""

from __future__ import annotations

from typing import Any

from companion.rules.context import Context
from companion.rules.outcome import Rejected, Step, refuse
from companion.rules.pages import MenuItem, View
from companion.rules.setup import TableSetup
from companion.rules.text import text
from companion.rules.turns import Applied, TurnReferee

from . import engine, pages
from .model import Add, Count, RaceState


class RaceReferee(TurnReferee[RaceState]):
    title = text("Race to 21")
    turn_rule = engine.RULE
    what_next = text("tap how much to add")

    def start(self, setup: TableSetup) -> RaceState:
        return engine.start(setup.players)

    # --- the game's steps: the one place its state changes --------------------------------
    def step(self, state: RaceState, ctx: Context, action: Any) -> Applied[RaceState]:
        if not isinstance(action, Count):
            refuse(text("Race to 21 has no such action"), engine.RULE)
        outcome = engine.apply(state, action)
        if isinstance(outcome, Rejected):
            refuse(outcome.reason, outcome.rule)
        after = outcome.state
        won = text("{player} reached 21", player=after.winner) if after.winner else None
        return Applied(after, outcome.events, pages.notes(outcome.events), ends_turn=True, ends_game=won)

    def time_out(self, state: RaceState, ctx: Context, player: str) -> Applied[RaceState]:
        note = text("{player}'s time ran out: the turn passes", player=player)
        return Applied(engine.pass_turn(state), notes=[note], ends_turn=True)

    def player_to_move(self, state: RaceState) -> str:
        return "" if state.winner else state.players[state.to_move]

    def is_over(self, state: RaceState, ctx: Context) -> bool:
        return bool(state.winner) or ctx.is_over

    # --- the phones -------------------------------------------------------------------------
    def player_action(self, state: RaceState, ctx: Context, player: str, action: Any) -> Step:
        closed = self.closed(state, ctx, player)
        if closed is not None:
            return closed
        if not isinstance(action, Add):
            return Rejected(text("Race to 21 has no such action"), engine.RULE)
        return self.play(state, ctx, player, Count(player, action.amount))

    def menu(self, state: RaceState, ctx: Context, player: str, *, intents: dict[str, Any]) -> list[MenuItem]:
        if not self.can_play(state, ctx, player):
            return []
        return pages.menu(state)

    # --- the pages --------------------------------------------------------------------------
    def view(self, state: RaceState, ctx: Context) -> View:
        return pages.view(state, ctx)

    def player_view(self, state: RaceState, ctx: Context, player: str) -> View:
        return pages.view(state, ctx)

    def scores(self, state: RaceState, ctx: Context) -> dict[str, Any] | None:
        if not (state.winner or ctx.is_over):
            return None
        winners = [state.winner] if state.winner else []
        return {
            "winners": winners,
            "ranking": sorted(state.players, key=lambda p: p not in winners),
            "players": {p: {"total": 1 if p in winners else 0} for p in state.players},
        }
