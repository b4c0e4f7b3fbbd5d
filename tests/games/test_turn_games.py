"""The turn-based games on the shared ``TurnReferee``: each engine action applied once, its events the facts.

For every game whose sandtimer is a turn timer, a seeded random game is played through the product
(``companion.testing.SimulatedTable``) with the package's engine ``apply`` counted: every decision the
table logs holds exactly the events of the engine actions applied for it, each applied once (no check by
applying first and applying again), and nothing of a refused tap reached the log.
"""

from __future__ import annotations

import importlib
import pkgutil
import random

import pytest

from companion.games import all_games
from companion.rules.outcome import Accepted
from companion.table import events as ev
from companion.testing import SimulatedTable

TURN_GAMES = [g for g in all_games() if not g.uses_sandtimers]


def count_engine_calls(monkeypatch, info) -> list:
    """Every answer of the game's engine ``apply``, wherever the package's modules call it from."""
    engine = importlib.import_module(f"{info.package}.engine")
    real = engine.apply
    answers: list = []

    def counted(*args, **kwargs):
        answer = real(*args, **kwargs)
        answers.append(answer)
        return answer

    package = importlib.import_module(info.package)
    for found in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{info.package}.{found.name}")
        for name, value in list(vars(module).items()):
            if value is real:
                monkeypatch.setattr(module, name, counted)
    return answers


@pytest.mark.parametrize("info", TURN_GAMES, ids=[g.name for g in TURN_GAMES])
@pytest.mark.parametrize("seed", range(2))
def test_each_engine_action_is_applied_once_and_its_events_are_the_facts(monkeypatch, info, seed):
    players = ("ana", "ben") if info.name == "space-and-time" else ("ana", "ben", "eva")
    table = SimulatedTable(game=info.name, players=players, seed=seed, deck="hub")
    answers = count_engine_calls(monkeypatch, info)
    rng = random.Random(seed)
    table.start()
    checked = 0
    for _ in range(120):
        if table.state.ended_by:
            break
        player = table.referee.player_to_move(table.game)
        node = f"{player}-1" if player in players else f"{players[0]}-1"
        moves = [item.action for item in table.menu(player) if item.action is not None]
        answers.clear()
        if not table.ctx.turn_open or not moves:
            outcome = table.flip(node) if rng.random() < 0.9 else table.run_out(node)[0]
        else:
            outcome = table.tap(player, rng.choice(moves))
        if isinstance(outcome, list):
            continue
        steps = [e for e in outcome.logged if isinstance(e, ev.GameStepped)]
        facts = tuple(fact for step in steps for fact in step.facts)
        accepted = [a for a in answers if isinstance(a, Accepted)]
        assert facts == tuple(event for a in accepted for event in a.events)
        engine_actions = [
            a for step in steps for a in step.actions if not type(a).__module__.startswith("companion.rules")
        ]
        assert len(accepted) <= len(engine_actions) or not steps, "an engine action was applied twice"
        if outcome.refusal is not None:
            assert steps == []
        checked += len(steps)
    assert checked > 10
