"""What the next flip of a Time 'n' Space sandtimer will do, checked against the engine first.

One answer for the phone and for the flip: the phone preselects exactly what :func:`plan`
says, the lift button names it, and the referee carries out the same plan when the node is
flipped. Every part of a plan is an engine action the engine accepts on a copy of the state
(nothing is applied here), so a phone never preselects a choice the rules then refuse:

* the lift (a sandtimer standing on a time symbol) carries the player's stored choices when
  the engine accepts them as the table stands now (its sand let run through first), else the
  defaults of :mod:`.choices` (which the engine refuses only when the player has to say
  something first: which tile lies on top of a moon's pile, at a table with the box);
* the next time symbol is the stored one when it is free after that lift, else the default.
  A default never takes the symbol the player's lower-numbered idle sandtimer will go onto by
  its own default, so two timers in front of a player never preselect the same symbol.

A stored choice the table has overtaken (the cube was beamed by another lift, the symbol
was taken) is dropped from the plan's intent: the phone shows the defaults at once.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from companion.games.time_n_space import model as M
from companion.games.time_n_space.choices import NO_CHOICE, default_placement, lift_choice, running
from companion.games.time_n_space.engine import apply, legal_placements
from companion.games.time_n_space.model import SHIP, GameState, Intent
from companion.rules.outcome import IllegalAction, Rejected

PLACE_FIELDS = ("symbol", "destination")
"""The fields of an intent that say where the sandtimer goes next."""
START_FIELDS = ("start_orders", "start_spaces")
"""The fields of the full game's starting orders (picked before the clock, not at a flip)."""
LIFT_FIELDS = tuple(f.name for f in fields(Intent) if f.name not in PLACE_FIELDS + START_FIELDS)
"""The fields of an intent that say what the lift does."""


def accepted(game: GameState, action: M.Action) -> GameState | None:
    """The state after ``action`` when the engine accepts it, else None."""
    result = apply(game, action)
    return None if isinstance(result, Rejected) else result.state


@dataclass(frozen=True)
class Done:
    """One engine action of a flip, applied once: the state after it and its events."""

    action: M.Action
    state: GameState
    events: tuple[Any, ...]


def _try(game: GameState, action: M.Action) -> Done | Rejected:
    result = apply(game, action)
    return result if isinstance(result, Rejected) else Done(action, result.state, result.events)


def as_lifted(game: GameState, name: str, t: int) -> GameState:
    """The table when this sandtimer is lifted: its sand let run through when it still runs."""
    ran = _ran_out(game, name, t)
    return ran.state if ran is not None else game


def _ran_out(game: GameState, name: str, t: int) -> Done | None:
    player = game.player(name)
    assert player is not None
    if not player.timers[t].running:
        return None
    done = _try(game, M.SandRanOut(name, t))
    return done if isinstance(done, Done) else None


def _chosen(intent: Intent, names: tuple[str, ...]) -> bool:
    return any(getattr(intent, n) != getattr(NO_CHOICE, n) for n in names)


def _defaults(intent: Intent, names: tuple[str, ...]) -> Intent:
    return replace(intent, **{n: getattr(NO_CHOICE, n) for n in names})


@dataclass(frozen=True)
class Plan:
    """What a flip of one sandtimer does now."""

    intent: Intent
    """The player's choices as they will be carried out (overtaken ones back at their defaults)."""
    lift: M.LiftTimer | None
    """The lift, with its choice, when the sandtimer stands on a time symbol (else None)."""
    place: M.PlaceTimer | None
    """Where it goes next; None when nothing is free or no sandtimer is placed any more."""
    lifted: GameState
    """The state after the lift (the state as it is when there is none): where ``place`` is decided."""
    done: tuple[Done, ...] = ()
    """The engine actions of the flip in order, each applied once (the sand running out, the lift, the
    placement), up to the first one the engine refuses."""
    refused: Rejected | None = None
    """The engine's refusal of the flip's next action (nothing the rules accept was left), or None."""


def lift_plan(
    game: GameState, name: str, t: int, intent: Intent
) -> tuple[M.LiftTimer, Intent, Done | Rejected]:
    """The lift this sandtimer's flip makes on ``game`` (its sand already through), the intent it
    carries out and the engine's answer to it."""
    if _chosen(intent, LIFT_FIELDS):
        mine = M.LiftTimer(name, t, lift_choice(game, name, t, intent))
        answer = _try(game, mine)
        if isinstance(answer, Done):
            return mine, intent, answer
        intent = _defaults(intent, LIFT_FIELDS)
    lift = M.LiftTimer(name, t, lift_choice(game, name, t, intent))
    return lift, intent, _try(game, lift)


def place_plan(
    game: GameState, name: str, t: int, intent: Intent, *, previous: str | None
) -> tuple[M.PlaceTimer | None, Intent]:
    """Where this sandtimer goes on ``game`` (after its lift): the intent's symbol when it is free,
    else the default (see the module docstring); and the intent as carried out."""
    preview = running(game)
    legal = legal_placements(preview, name, t)
    if _chosen(intent, PLACE_FIELDS):
        mine = M.PlaceTimer(name, t, intent.symbol or "", intent.destination)
        if mine in legal:
            return mine, intent
        intent = _defaults(intent, PLACE_FIELDS)
    avoid = _taken_by_lower(game, name, t)
    return default_placement(preview, name, t, previous=previous, avoid=avoid), intent


def _taken_by_lower(game: GameState, name: str, t: int) -> frozenset[str]:
    """The symbols the player's lower-numbered sandtimers in front of them go onto by default."""
    player = game.player(name)
    assert player is not None
    taken: set[str] = set()
    for u in range(t):
        if player.timers[u].symbol is None:
            place, _ = place_plan(game, name, u, NO_CHOICE, previous=None)
            if place is not None and place.symbol is not None:
                taken.add(place.symbol)
    return frozenset(taken)


def plan(game: GameState, name: str, t: int, intent: Intent = NO_CHOICE, *, placing: bool = True) -> Plan:
    """What a flip of ``name``'s sandtimer ``t`` (0-based) does now with the stored ``intent``.

    ``placing`` False: the plan of a lift only (the phone's "Lift now": the sandtimer is set aside)."""
    player = game.player(name)
    assert player is not None
    timer = player.timers[t]
    lift = None
    lifted = game
    done: list[Done] = []
    if timer.symbol is not None:
        ran = _ran_out(game, name, t)
        ready = ran.state if ran is not None else game
        done += [ran] if ran is not None else []
        lift, intent, answer = lift_plan(ready, name, t, intent)
        if isinstance(answer, Rejected):
            return Plan(intent, lift, None, ready, tuple(done), answer)
        done.append(answer)
        lifted = answer.state
    if not placing or lift is not None and lifted.phase in (M.PHASE_ENDING, M.PHASE_OVER):
        return Plan(intent, lift, None, lifted, tuple(done))
    place, intent = place_plan(lifted, name, t, intent, previous=timer.symbol)
    # nothing is free: try the obvious one anyway, so the engine names the reason
    placed = _try(lifted, place or M.PlaceTimer(name, t, timer.symbol or SHIP))
    if isinstance(placed, Rejected):
        return Plan(intent, lift, place, lifted, tuple(done), placed)
    return Plan(intent, lift, place, lifted, (*done, placed))


def check_now(game: GameState, name: str, t: int, intent: Intent) -> None:
    """Refuse choices the rules do not accept as the table stands now: the lift they ask for (tried with
    the sand run through) or a time symbol that is not free after that lift. The engine's reason is
    raised, so the phone says at once why, instead of a flip being refused later."""
    player = game.player(name)
    assert player is not None
    timer = player.timers[t]
    lifted = game
    if timer.symbol is not None:
        ready = as_lifted(game, name, t)
        if _chosen(intent, LIFT_FIELDS):
            lifted = decided(ready, M.LiftTimer(name, t, lift_choice(ready, name, t, intent)))
        else:
            lifted = plan(game, name, t, NO_CHOICE).lifted
    if _chosen(intent, PLACE_FIELDS) and lifted.phase not in (M.PHASE_ENDING, M.PHASE_OVER):
        decided(running(lifted), M.PlaceTimer(name, t, intent.symbol or "", intent.destination))


def decided(game: GameState, action: M.Action) -> GameState:
    """The state after ``action``; the engine's refusal is raised."""
    result = apply(game, action)
    if isinstance(result, Rejected):
        raise IllegalAction(result)
    return result.state
