"""A phone offers and preselects only what the rules accept now, in every game (a property test).

Random states of every registered game and variant are reached the way a group reaches them
(:func:`companion.testing.play_randomly`: flips, taps, choices, undos, time passing), with the hub's
deck and with the box on the table. In each state, for every player's menu:

* every move a button posts is accepted by the referee (``player_action`` answers a decision);
* every choice a button stores for a timer passes the referee's ``check_intent``;
* for a timer whose flip the rules take now (the game has started, the master clock allows it and
  the flip with no choice of the player's is accepted once its sand has run through, let run through
  first when it still runs), the flip with the preselected choices is accepted, and so is the flip
  after any offered choice.

Nothing is applied to the table: the referee is asked and its answer thrown away, as the menus'
own previews do.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import all_games, find_game
from companion.rules.outcome import Decision, Rejected
from companion.table import clock_rules
from companion.testing import SimulatedTable, play_randomly
from tests.games.test_contract import players_for

CASES = [(info.name, variant.name) for info in all_games() for variant in info.variants]


def table_for(info: Any, variant: str, seed: int, deck: str) -> SimulatedTable:
    players = players_for(info)
    if "vs-computer" in variant:
        players = players[:1]
    table = SimulatedTable(game=info.name, variant=variant, players=players, seed=seed, deck=deck)
    for node in table.nodes:
        table.hello(node)
    return table


def flip_answer(table: SimulatedTable, node: str, intent: Any) -> Decision | Rejected | None:
    """The referee's answer to a flip of ``node`` now with ``intent``, its sand let run through first;
    None when the table's clock rules refuse every flip now (the rules are not asked)."""
    state = table.state
    referee = table.referee
    seat = table.setup.seat_of(node)
    assert seat is not None
    if clock_rules.flip_refusal(state, at_s=table.clock.now_s(), rules_decide_end=referee.rules_decide_end):
        return None
    game, ctx = state.game, state.context
    if state.timers[node].phase == "running":
        emptied = referee.timer_emptied(game, ctx, seat)
        if isinstance(emptied, Decision):
            game = emptied.state
    return referee.timer_flipped(game, ctx, seat, intent=intent, ran_out=True)


def problems(table: SimulatedTable) -> list[str]:
    """What the phones offer now that the rules would refuse."""
    found: list[str] = []
    referee, state = table.referee, table.state
    for player in table.setup.players:
        menu = table.menu(player)
        for item in menu:
            if item.action is not None:
                answer = referee.player_action(state.game, state.context, player, item.action)
                if isinstance(answer, Rejected):
                    found.append(f"{player} is offered {item.id} ({item.label}), refused: {answer}")
            if item.intent is not None:
                seat = table.setup.seat_of(item.node)
                assert seat is not None and seat.player == player, item
                refused = referee.check_intent(state.game, state.context, seat, item.intent)
                if refused is not None:
                    found.append(
                        f"{player} is offered the choice {item.id} ({item.label}), refused: {refused}"
                    )
        for node in {item.node for item in menu if item.intent is not None}:
            if not state.context.started or not isinstance(flip_answer(table, node, None), Decision):
                continue  # the rules take no flip of this timer now, whatever its choices
            stored = table.session.table.intents.get(node)
            base = flip_answer(table, node, stored)
            if isinstance(base, Rejected) and any(i.selected and i.node == node for i in menu):
                found.append(f"{player}'s preselected choices for {node} are refused at its flip: {base}")
            for item in menu:
                if item.node == node and item.intent is not None:
                    answer = flip_answer(table, node, item.intent)
                    if isinstance(answer, Rejected):
                        found.append(
                            f"{player}'s choice {item.id} ({item.label}) is refused at the flip: {answer}"
                        )
    return found


@pytest.mark.parametrize("game,variant", CASES, ids=[f"{g}-{v or 'default'}" for g, v in CASES])
@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(seed=st.integers(0, 10_000), deck=st.sampled_from(["hub", "table"]), rounds=st.integers(4, 30))
def test_every_offered_and_preselected_action_is_accepted_by_the_rules(game, variant, seed, deck, rounds):
    table = table_for(find_game(game), variant, seed, deck)
    rng = random.Random(seed)
    found = problems(table)
    table.start()
    for _ in range(rounds):
        found += problems(table)
        if found:
            break
        play_randomly(table, rng, steps=4, undos=1)
    assert found == [], "\n".join(found[:8])
