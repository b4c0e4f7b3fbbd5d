"""How fast each game's rules decide: random legal games played through the table referee.

Each registered game (``companion.games.all_games()``) is played from its start by a seeded
random walk over what the table itself would offer: a tap on one of the phone menu's actions
(``Referee.menu``), or a flip of a seated timer (with a timer choice from the menu now and
then, checked by ``Referee.check_intent``), or its sand running out. Only the referee's answers
are timed (``timer_flipped``, ``timer_emptied``, ``player_action``), not building the menus;
``actions_per_s`` counts the engine actions the accepted steps applied, ``steps_per_s`` every
answer, refusals included. A game that ends starts again with the next seed. The wall time
spent per game (menus, setups) is capped at five times the budget.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace
from typing import Any

from companion.rules.context import Context
from companion.rules.outcome import Decision
from companion.rules.setup import default_setup


@dataclass
class EngineRate:
    game: str
    steps: int
    accepted: int
    actions: int
    seconds: float
    games: int

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "accepted": self.accepted,
            "actions": self.actions,
            "games": self.games,
            "seconds": round(self.seconds, 4),
            "actions_per_s": round(self.actions_per_s, 1),
            "steps_per_s": round(self.steps_per_s, 1),
        }


def measure_game(info: Any, *, budget_s: float, seed: int = 1) -> EngineRate:
    """Play random games of ``info`` for about ``budget_s`` seconds of the referee's time."""
    rng = random.Random(seed)
    players = max(info.min_players, min(4, info.max_players))
    rate = EngineRate(info.name, 0, 0, 0, 0.0, 0)
    started = time.perf_counter()
    while rate.seconds < budget_s and time.perf_counter() - started < budget_s * 5:
        rate.games += 1
        setup = default_setup(
            "bench",
            players=players,
            timers=max(1, min(4, info.timers_per_player)),
            game=info.name,
            seed=rng.randrange(1 << 30),
        )
        setup = replace(setup, deck="hub")  # the hub supplies what is drawn: nobody enters it here
        referee = info.make_referee(setup)
        state = referee.start(setup)
        ctx = Context(started=True)
        opened = referee.clock_started(state, ctx)
        if isinstance(opened, Decision):
            state = opened.state
            ctx = ctx.with_turn(opens=opened.opens_turn, ends=opened.ends_turn)
        idle = 0
        while rate.seconds < budget_s and idle < 50 and referee.scores(state, ctx) is None:
            player = rng.choice(setup.players)
            seats = [seat for seat in setup.seats if seat.player == player]
            items = referee.menu(state, ctx, player, intents={})
            taps = [item.action for item in items if item.action is not None]
            roll = rng.random()
            begin = time.perf_counter()
            if taps and roll < 0.5:
                step = referee.player_action(state, ctx, player, rng.choice(taps))
            elif roll < 0.9:
                seat = rng.choice(seats)
                choices = [
                    item.intent for item in items if item.intent is not None and item.node == seat.node
                ]
                intent = rng.choice(choices) if choices and rng.random() < 0.5 else None
                if intent is not None and referee.check_intent(state, ctx, seat, intent) is not None:
                    intent = None
                step = referee.timer_flipped(state, ctx, seat, intent=intent, ran_out=rng.random() < 0.8)
            else:
                step = referee.timer_emptied(state, ctx, rng.choice(seats))
            rate.seconds += time.perf_counter() - begin
            rate.steps += 1
            if isinstance(step, Decision) and step.changed:
                rate.accepted += 1
                rate.actions += len(step.actions)
                state = step.state
                ctx = ctx.with_turn(opens=step.opens_turn, ends=step.ends_turn)
                if step.ends_game:
                    break
                idle = 0
            else:
                idle += 1
    return rate


def measure_engines(*, budget_s: float) -> tuple[dict[str, EngineRate], dict[str, str]]:
    """Every registered game's rate (see the module docstring), and the games that could not be
    measured, each with the one-line reason (a game that does not import, or whose referee fails)."""
    from companion.games import find_game, game_names

    rates: dict[str, EngineRate] = {}
    skipped: dict[str, str] = {}
    for name in game_names():
        try:
            rates[name] = measure_game(find_game(name), budget_s=budget_s)
        except Exception as exc:  # one broken game must not stop the bench
            skipped[name] = f"{type(exc).__name__}: {exc}".splitlines()[0][:160]
    return rates, skipped
