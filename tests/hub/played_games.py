"""Whole games played to their end for the pictures of the game that was played (no tests here).

:func:`play_greedily` plays a game at a :class:`~companion.testing.SimulatedTable` the way an eager
group would: each player in turn looks at what their phone offers and their timers could do now, asks
the referee (without applying anything) what each would leave them with, and takes what gains the
most for them by the game's own count (``Referee.standing``), else something at random; time passes
as sand runs out. Seeded, so a picture is the same every time.
"""

from __future__ import annotations

import random
from typing import Any

from companion.games import find_game
from companion.rules.outcome import Decision
from companion.table import clock_rules
from companion.table import messages as msg
from companion.testing import SimulatedTable

USUAL = 0.6
"""How often a player with nothing to gain taps what their phone lists first (the usual choice)."""


def _gain(table: SimulatedTable, player: str, decision: Any) -> float:
    """How much ``decision`` gains ``player`` by the game's count (negative: it loses)."""
    if not isinstance(decision, Decision):
        return float("-inf")
    before = table.referee.standing(table.game, table.ctx)
    after = table.referee.standing(decision.state, table.ctx)
    if before is None or after is None:
        return 0.0
    sign = -1 if after.lower_is_better else 1
    return sign * (dict(after.values).get(player, 0) - dict(before.values).get(player, 0))


def _options(table: SimulatedTable, player: str) -> list[tuple[float, Any]]:
    """(gain, how to do it) for everything ``player`` can do now."""
    referee, state = table.referee, table.state
    out: list[tuple[float, Any]] = []
    for item in table.menu(player):
        if item.action is not None:
            answer = referee.player_action(state.game, state.context, player, item.action)
            out.append((_gain(table, player, answer), ("tap", player, item.action)))
        elif item.intent is not None:
            out.append((0.0, ("choose", player, item.node, item.intent)))
    for seat in table.setup.seats:
        if seat.player != player or table.nodes[seat.node].sand.ms_until_empty():
            continue  # only a timer whose sand has run through is worth a flip
        if clock_rules.flip_refusal(
            state, at_s=table.clock.now_s(), rules_decide_end=referee.rules_decide_end
        ):
            continue
        intent = table.session.table.intents.get(seat.node)
        answer = referee.timer_flipped(state.game, state.context, seat, intent=intent, ran_out=True)
        if isinstance(answer, Decision):
            out.append((_gain(table, player, answer) + 0.01, ("flip", seat.node)))
    return out


def play_greedily(
    table: SimulatedTable, rng: random.Random, *, rounds: int = 1500, to_the_end: bool = True
) -> None:
    """Play until the game is over (or ``rounds`` rounds of every player), then let the clock run out
    (``to_the_end`` False: stop there, the game in progress).

    A round: each player, in a random order, does what gains them most (else something at random);
    then a moment passes, or, when nobody could do anything, the time until the next sand runs out."""
    info = find_game(table.setup.game)
    for _ in range(rounds):
        if table.state.context.ended_by or table.state.clock.is_over:
            break
        acted = False
        for player in rng.sample(list(table.setup.players), len(table.setup.players)):
            options = _options(table, player)
            if not options:
                continue
            best = max(gain for gain, _ in options)
            acted = True
            if best > 0.01:
                how = rng.choice([how for gain, how in options if gain == best])
            elif rng.random() < USUAL:  # the phone lists what a player usually does first
                how = options[0][1]
            else:
                how = rng.choice([how for _, how in options])
            if how[0] == "tap":
                table.tap(how[1], how[2])
            elif how[0] == "choose":
                table.choose(how[1], how[2], how[3])
            else:
                table.flip(how[1])
        for item in table.snapshot()["view"].get("host_actions") or []:
            table.handle(msg.TableAction(info.codec.read(item["action"], info.moves)))
        waits = [ms for sim in table.nodes.values() if (ms := sim.sand.ms_until_empty())]
        table.advance(2.0 if acted or not waits else min(waits) / 1000.0 + 0.1)
    if not to_the_end:
        return
    table.advance(table.setup.clock_length_s)
    for item in table.snapshot()["view"].get("host_actions") or []:
        table.handle(msg.TableAction(info.codec.read(item["action"], info.moves)))


def finished_game(
    game: str,
    log_path: Any,
    *,
    variant: str = "",
    players: tuple[str, ...] = (),
    seed: int = 1,
    rounds: int | None = None,
    end_early: bool = False,
) -> SimulatedTable:
    """A whole game of ``game`` played greedily with the hub's deck, its log at ``log_path``;
    ``rounds``: stop after so many rounds, the game still in progress (or, ``end_early``, ended then by
    the host and scored as it stands)."""
    table = SimulatedTable(
        game=game, variant=variant, players=players, deck="hub", seed=seed, log_path=log_path, table="played"
    )
    for node in table.nodes:
        table.hello(node)
    for _ in range(5):  # what a game asks before its clock (starting orders, ...): the usual choice
        if table.start().refusal is None:
            break
        for player in table.setup.players:
            first = next((item for item in table.menu(player) if item.action is not None), None)
            if first is not None:
                table.tap(player, first.action)
    if rounds is None:
        play_greedily(table, random.Random(seed))
    else:
        play_greedily(table, random.Random(seed), rounds=rounds, to_the_end=False)
        if end_early:
            table.clock_command("abort")
    return table
