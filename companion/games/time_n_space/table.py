"""Time 'n' Space at a hub table, introductory and full game: the referee between nodes, phones and engine.

The referee keeps a complete engine state
(:class:`~companion.games.time_n_space.state.GameState`, which carries the variant)
and checks every flip. Light mode, timers and scoring only, has its own referee in
:mod:`.light`.

How a flip maps onto the engine. A node flip means the player lifted the sandtimer
and put it down again on a time symbol:

* The sandtimer stands on a symbol: the sand must have run through (``ran_out``), the
  symbol's action happens with the player's stored choices (the *intent* for that
  timer, or the preselected defaults), then the sandtimer goes onto the symbol the
  intent names (default: the same symbol again, else the first useful one).
* The sandtimer stands in front of the player (the very first flip, or after it was
  set aside): a placement only.

Phone actions: ``lift`` (lift a finished sandtimer and set it aside), ``lift-together``
(the planet's owner lifts the ships that arrived at their planet at the same moment,
in the order they decide), ``finish`` (after the master clock: lift every finished
sandtimer), ``handover`` (which of several identical counters the owner hands over
first) and ``starting-orders`` (full game, before the clock).

Every decision applies each engine action exactly once, in order (:class:`_Steps`, over
the contract's :class:`~companion.rules.referee.Steps`), and returns the engine's events as its facts, the actions in the JSON of
:func:`~companion.games.time_n_space.codec.action_to_json` (plus ``handover``, kept in
:class:`TableGame`) for an undo, and a note. Timers are ``Timer 1`` and ``Timer 2`` at
the table (the seat index) and 0 and 1 in the engine.

An intent (stored per node by the session, replaced as a whole on each tap) may hold:
``symbol`` and ``destination`` (the next placement), ``forfeit`` / ``upgrade`` (bools),
``beam`` ([[plant, spot], ...]), ``deliver`` ([[colour, value], ...]), ``trade``
([[colour, value], ...]) with ``spaces`` ([[building, spot], ...]), ``build`` (a
building id), ``moon`` (``research``, ``bottom`` or ``skip``), and before a full game
``start_orders`` / ``start_spaces`` (the 2 secretly picked counters and their spaces).
A key that is absent means "the default". :meth:`TimeNSpaceReferee.check_intent` refuses an
intent naming a symbol, place, building, colour or choice that does not exist before the
table stores it.

Ending early ("End game", confirmed by the host): :meth:`TimeNSpaceReferee.game_ended_early`
plays the end of the game as "End of the Game" describes it, at once: the master clock has
run out, every sandtimer still on a time symbol counts as run through and is lifted with
its default action (production, beam, trading, research, spaceships last, so deliveries
see the goods beamed and orders placed in the same moment), and the final scoring follows.
After that the phones' actions are refused: the game is over.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.errors import InvalidRecordError
from companion.games.time_n_space import actions as A
from companion.games.time_n_space.choices import (
    Handover,
    intent_refusal,
    lift_choice,
    placement,
    starting_placements,
    together,
)
from companion.games.time_n_space.codec import action_from_json, action_to_json
from companion.games.time_n_space.components import Components
from companion.games.time_n_space.engine import (
    apply,
    final_scores,
    is_over,
    setup_full,
    setup_intro,
)
from companion.games.time_n_space.menus import phone_menu
from companion.games.time_n_space.shared import GAME_NAME, check_setup
from companion.games.time_n_space.state import (
    PHASE_ENDING,
    PHASE_OVER,
    PHASE_RUNNING,
    PHASE_SETUP,
    RESEARCH,
    SHIP,
    GameState,
    Order,
    Timer,
)
from companion.games.time_n_space.views import describe, player_view, table_view
from companion.games.time_n_space.words import (
    END,
    GENERAL,
    REASON_FULL_SAND,
    REASON_GAME_OVER,
    REASON_NOT_THROUGH,
    SETUP_FULL,
    SPACESHIP,
    TABLE_RULE,
    SetupTextError,
    counter_text,
    symbol_label,
)
from companion.rules.outcome import Decision, Rejected, Step
from companion.rules.pages import MenuItem, View
from companion.rules.referee import Referee, Steps
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, TextError, text

VARIANTS = ("intro", "full")


@dataclass(frozen=True)
class TableGame:
    """The introductory or full game at a table: the engine state and the planet owners' picks."""

    game: GameState
    handover: Handover = ()
    """(owner, colour, value, building, spot): which of several identical order counters the owner
    hands over first when another player fulfils one ("1. Your spaceship"); otherwise the first one."""

    def with_pick(self, owner: str, color: str, value: int, building: str, spot: int) -> TableGame:
        """The owner's new pick for (colour, value), replacing an earlier one."""
        kept = tuple(h for h in self.handover if h[:3] != (owner, color, value))
        return replace(self, handover=kept + ((owner, color, value, building, spot),))


@dataclass(frozen=True)
class HandoverChosen:
    """Fact: a planet owner picked which of several identical order counters goes first."""

    owner: str
    color: str
    value: int
    building: str
    spot: int


class _Steps:
    """One decision built engine action by engine action: each is applied exactly once, in order.

    The engine's side of :class:`~companion.rules.referee.Steps`, which records each
    accepted action with the state after it, its events and a note.
    """

    def __init__(self, table: TableGame) -> None:
        self.steps = Steps(table)

    @property
    def table(self) -> TableGame:
        table: TableGame = self.steps.state
        return table

    @property
    def game(self) -> GameState:
        """The engine state after the actions applied so far."""
        return self.table.game

    @property
    def applied(self) -> int:
        return len(self.steps.actions)

    def apply(self, action: A.Action, *, note: Text | None = None) -> Rejected | None:
        """Apply ``action`` and record it with its events; a rejection records nothing."""
        result = apply(self.game, action)
        if isinstance(result, Rejected):
            return result
        said = describe(result.events, result.state)
        after = replace(self.table, game=result.state)
        self.steps.add(
            after,
            action_to_json(action),
            result.events,
            text("{note}: {what}", note=note, what=said) if note else said,
        )
        return None

    def lift(self, name: str, t: int, handover: Handover, *, note: Text | None = None) -> Rejected | None:
        """Lift a finished sandtimer with its default action; forfeit it when that cannot be done.

        At a moon with two or more tiles an action cannot be forfeited: the top tile then goes under the pile.
        """
        choice = lift_choice(self.game, name, t, {}, handover)
        refused = self.apply(A.LiftTimer(name, t, choice), note=note)
        for fallback in (None, A.MoonTile(False)):
            if refused is None or fallback == choice:
                continue
            refused = self.apply(A.LiftTimer(name, t, fallback), note=note)
        return refused

    def decision(self) -> Decision:
        return self.steps.decision()


def _decide(table: TableGame, *actions: A.Action) -> Step:
    """Apply fixed engine actions in order: all of them, or the first rejection and nothing."""
    steps = _Steps(table)
    for action in actions:
        refused = steps.apply(action)
        if refused is not None:
            return refused
    return steps.decision()


class TimeNSpaceReferee(Referee[TableGame]):
    """The introductory and the full game refereed at a hub table (see the module docstring)."""

    game = GAME_NAME
    rules_decide_end = True
    """A finished sandtimer may still be lifted after the master clock ran out ("End of the Game")."""

    def __init__(self, setup: TableSetup, components: Components) -> None:
        variant = setup.variant or "intro"
        if variant == "light":
            raise SetupTextError(
                text("light mode has its own referee: LightReferee (timers and scoring only)")
            )
        if variant not in VARIANTS:
            raise SetupTextError(
                text(
                    "Time 'n' Space has no variant {variant}; choose intro, full or light (timers and scoring only)",
                    variant=repr(variant),
                )
            )
        check_setup(setup, components)
        super().__init__(setup)
        self.variant = variant
        self.components = components
        self.timers = components.timers_per_player

    # --- start and replay ----------------------------------------------------------------
    def start(self, setup: TableSetup) -> TableGame:
        players = list(setup.players)
        if self.variant == "full":
            return TableGame(setup_full(players, seed=setup.seed, components=self.components))
        return TableGame(setup_intro(players, components=self.components))

    def replay(self, state: TableGame, action: dict[str, Any]) -> TableGame:
        if action.get("action") == "handover":
            keys = ("player", "color", "value", "building", "spot")
            owner, color, value, building, spot = (action[k] for k in keys)
            return state.with_pick(owner, color, value, building, spot)
        result = apply(state.game, action_from_json(action, "the logged action"))
        if isinstance(result, Rejected):
            raise InvalidRecordError(f"the logged action {action} does not apply: {result}")
        return replace(state, game=result.state)

    # --- time facts ------------------------------------------------------------------------
    def clock_started(self, state: TableGame) -> Step:
        return _decide(state, A.StartGame())

    def clock_expired(self, state: TableGame) -> Step:
        if state.game.phase != PHASE_RUNNING:
            return Decision(state)
        return _decide(state, A.MasterClockExpired())

    def game_ended_early(self, state: TableGame) -> Step:
        """The host ended the game: it ends as "End of the Game" says, at once, and is scored.

        The master clock has run out; every sandtimer still on a time symbol counts as run
        through and is lifted with its default action (see the module docstring for the order),
        or forfeited when that cannot be done; then the final scoring follows. A game whose
        master clock never started is not scored: every counter is still above its control center.
        """
        game = state.game
        if game.phase == PHASE_SETUP:
            return Rejected(
                text(
                    "The master clock never started, so there is nothing to score: "
                    "every player still holds all their order counters"
                ),
                END,
            )
        if game.phase == PHASE_OVER:
            return Decision(state)
        steps = _Steps(state)
        note = text("The game was ended early")
        if game.phase == PHASE_RUNNING:
            refused = steps.apply(A.MasterClockExpired(), note=note)
            if refused is not None:
                return refused
        for name, t in _resolution_order(steps.game):
            timer = _engine_timer(steps.game, name, t)
            if timer.running:
                refused = steps.apply(A.SandRanOut(name, t), note=None if steps.applied else note)
                if refused is not None:
                    return refused
            refused = steps.lift(name, t, state.handover, note=None if steps.applied else note)
            if refused is not None:
                return Rejected(
                    text("The game cannot be scored as it stands: {reason}", reason=refused.reason),
                    refused.rule,
                )
        if not steps.applied:
            return Decision(state)
        return steps.decision()

    def check_intent(self, state: TableGame, seat: Seat, intent: dict[str, Any]) -> Rejected | None:
        """Refuse a phone's choice that names a symbol, place, building, colour or choice that does not exist."""
        player = state.game.player(seat.player)
        if player is None or not 1 <= seat.index <= len(player.timers):
            return Rejected(
                text("Node {node} is not one of the sandtimers of a player in this game", node=seat.node),
                TABLE_RULE,
            )
        if state.game.phase == PHASE_OVER:
            return Rejected(REASON_GAME_OVER, END)
        refused = intent_refusal(state.game, seat.player, seat.index - 1, intent)
        return None if refused is None else Rejected(*refused)

    def timer_emptied(self, state: TableGame, seat: Seat) -> Step:
        t = seat.index - 1
        player = state.game.player(seat.player)
        if player is None or t >= len(player.timers):
            return Decision(state)
        timer = player.timers[t]
        if timer.symbol is None or not timer.running:
            return Decision(state)  # e.g. the sand of a refused flip ran out
        return _decide(state, A.SandRanOut(seat.player, t))

    # --- a node was flipped --------------------------------------------------------------
    def timer_flipped(
        self, state: TableGame, seat: Seat, *, intent: dict[str, Any] | None, ran_out: bool
    ) -> Step:
        name, t = seat.player, seat.index - 1
        intent = intent or {}
        player = state.game.player(name)
        if player is None or t >= len(player.timers):
            return Rejected(
                text("Node {node} is not one of the sandtimers of a player in this game", node=seat.node),
                TABLE_RULE,
            )
        timer = player.timers[t]
        steps = _Steps(state)
        if timer.symbol is None:  # a placement only
            if state.game.phase == PHASE_RUNNING and not ran_out:
                return Rejected(REASON_FULL_SAND, GENERAL)
            refused = steps.apply(placement(steps.game, name, t, intent, previous=None))
            return refused or steps.decision()
        # lifting: the action happens now, then the sandtimer goes onto its next symbol
        if timer.running:
            if not ran_out:
                return Rejected(REASON_NOT_THROUGH, GENERAL)
            refused = steps.apply(A.SandRanOut(name, t))  # the node says so; its empty report was not seen
            if refused is not None:
                return refused
        elif not ran_out:
            return Rejected(REASON_FULL_SAND, GENERAL)
        refused = steps.apply(A.LiftTimer(name, t, lift_choice(steps.game, name, t, intent, state.handover)))
        if refused is not None:
            return refused
        if steps.game.phase not in (PHASE_ENDING, PHASE_OVER):  # no placing after the master clock
            refused = steps.apply(placement(steps.game, name, t, intent, previous=timer.symbol))
        return refused or steps.decision()

    def timer_label(self, state: TableGame, seat: Seat) -> Text | str:
        """The time symbol a sandtimer stands on, for the dashboard."""
        player = state.game.player(seat.player)
        if player is None or not 0 <= seat.index - 1 < len(player.timers):
            return ""
        timer = player.timers[seat.index - 1]
        return symbol_label(state.game, player, timer.symbol, timer.destination) if timer.symbol else ""

    # --- the phone -------------------------------------------------------------------------
    def player_action(self, state: TableGame, player: str, action: dict[str, Any]) -> Step:
        kind = action.get("type") if isinstance(action, dict) else None
        if state.game.player(player) is None:
            return Rejected(text("{player} does not play in this game", player=player), TABLE_RULE)
        if state.game.phase == PHASE_OVER:
            return Rejected(REASON_GAME_OVER, END)
        match kind:
            case "lift":
                return self._lift(state, player, action)
            case "lift-together":
                return self._lift_together(state, player, action)
            case "finish":
                return self._finish(state)
            case "handover":
                return self._handover(state, player, action)
            case "starting-orders":
                try:
                    placements = starting_placements(action.get("orders"))
                except TextError as exc:
                    return Rejected(exc.text, SETUP_FULL)
                return _decide(state, A.PlaceStartingOrders(player, placements))
            case "score-sheet":
                return Rejected(
                    text(
                        "This table tracks every counter, so the hub scores the game itself; "
                        "score sheets are entered in light mode only"
                    ),
                    TABLE_RULE,
                )
        return Rejected(text("Time 'n' Space has no phone action {action}", action=repr(kind)), TABLE_RULE)

    def _timer(self, value: Any) -> int | None:
        """A table timer number (1-based) as the engine's (0-based), or None."""
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= self.timers:
            return value - 1
        return None

    def _lift(self, state: TableGame, player: str, action: dict[str, Any]) -> Step:
        """Lift a finished sandtimer with the choices on the phone and set it aside."""
        t = self._timer(action.get("timer"))
        if t is None:
            return Rejected(
                text("Name the sandtimer to lift: timer 1 to {last}", last=self.timers), TABLE_RULE
            )
        chosen = action.get("intent")
        intent: dict[str, Any] = chosen if isinstance(chosen, dict) else {}
        return _decide(
            state, A.LiftTimer(player, t, lift_choice(state.game, player, t, intent, state.handover))
        )

    def _lift_together(self, state: TableGame, owner: str, action: dict[str, Any]) -> Step:
        """Ships that arrived at ``owner``'s planet lifted at the same moment, in the order the owner decided.

        One engine action (``LiftTogether``); each lifter fulfils the default orders of those
        the ships before left (see :func:`~companion.games.time_n_space.choices.together`).
        """
        ships = self._ships(action.get("lifts"))
        if ships is None:
            return Rejected(
                text(
                    "Name two or more ships lifted together, each by its player and timer 1 to {last}, "
                    "in the order the planet's owner decides",
                    last=self.timers,
                ),
                SPACESHIP,
            )
        steps = _Steps(state)
        order: Text | str = ships[0][0]
        for name, _ in ships[1:]:
            order = text("{earlier}, then {later}", earlier=order, later=name)
        note = text(
            "{player} let the ships at their planet go in this order: {players}", player=owner, players=order
        )
        refused = steps.apply(together(state.game, owner, ships, state.handover), note=note)
        return refused or steps.decision()

    def _ships(self, lifts: Any) -> list[tuple[str, int]] | None:
        """(player, engine timer) of each ``{"player", "timer"}`` of a ``lift-together``; None if malformed."""
        if not isinstance(lifts, list) or len(lifts) < 2:
            return None
        ships = []
        for lift in lifts:
            name = lift.get("player") if isinstance(lift, dict) else None
            t = self._timer(lift.get("timer")) if isinstance(lift, dict) else None
            if not isinstance(name, str) or t is None:
                return None
            ships.append((name, t))
        return ships

    def _finish(self, state: TableGame) -> Step:
        """After the master clock: lift every finished sandtimer with its default action."""
        if state.game.phase != PHASE_ENDING:
            return Rejected(
                text("Finished sandtimers are lifted all at once only after the master clock ran out"), END
            )
        steps = _Steps(state)
        for p in state.game.players:
            for t, timer in enumerate(p.timers):
                if timer.symbol is None or timer.running:
                    continue
                steps.lift(p.name, t, state.handover)  # the default, else forfeited
        if not steps.applied:
            return Rejected(text("No sandtimer has finished and waits to be lifted"), END)
        return steps.decision()

    def _handover(self, state: TableGame, player: str, action: dict[str, Any]) -> Step:
        me = state.game.player(player)
        color, value, bid, spot = (action.get(k) for k in ("color", "value", "building", "spot"))
        b = me.building(bid) if me is not None and isinstance(bid, str) else None
        if (
            b is None
            or not isinstance(bid, str)
            or not isinstance(spot, int)
            or isinstance(spot, bool)
            or not 0 <= spot < len(b.contents)
            or not isinstance(color, str)
            or not isinstance(value, int)
            or b.contents[spot] != Order(player, color, value)
        ):
            return Rejected(
                text(
                    "You show no {counter} order on {building} spot {spot}",
                    counter=counter_text(color, value),
                    building=str(bid),
                    spot=spot + 1 if isinstance(spot, int) and not isinstance(spot, bool) else repr(spot),
                ),
                SPACESHIP,
            )
        logged = {
            "action": "handover",
            "player": player,
            "color": color,
            "value": value,
            "building": bid,
            "spot": spot,
        }
        return Decision(
            state.with_pick(player, color, value, bid, spot),
            actions=(logged,),
            facts=(HandoverChosen(player, color, value, bid, spot),),
            notes=(
                text(
                    "{player} will hand over the {counter} on {building} spot {spot} first",
                    player=player,
                    counter=counter_text(color, value),
                    building=bid,
                    spot=spot + 1,
                ),
            ),
        )

    def menu(self, state: TableGame, player: str, *, intents: dict[str, dict[str, Any]]) -> list[MenuItem]:
        return phone_menu(self.setup.seats, state.game, state.handover, player, intents)

    # --- pages -------------------------------------------------------------------------------
    def view(self, state: TableGame) -> View:
        colours = {p: self.setup.colour_of(p) for p in self.setup.players}
        return table_view(state.game, self.setup.seats, colours)

    def player_view(self, state: TableGame, player: str) -> View:
        return player_view(state.game, player)

    def scores(self, state: TableGame) -> dict[str, Any] | None:
        return final_scores(state.game) if is_over(state.game) else None


_RESOLVE_ORDER = {"production": 0, "beam": 1, "trading": 2, RESEARCH: 3, SHIP: 4}


def _resolution_order(game: GameState) -> list[tuple[str, int]]:
    """(player, timer) of every sandtimer on a time symbol, in the order an early end lifts them:
    production plants, beam stations, trading centers, research plants, spaceships; then by seat."""
    placed = []
    for seat, p in enumerate(game.players):
        for t, timer in enumerate(p.timers):
            if timer.symbol is None:
                continue
            b = p.building(timer.symbol)
            kind = b.type if b is not None else timer.symbol
            placed.append((_RESOLVE_ORDER.get(kind, 5), seat, t, p.name))
    return [(name, t) for *_, t, name in sorted(placed)]


def _engine_timer(game: GameState, name: str, t: int) -> Timer:
    player = game.player(name)
    assert player is not None
    return player.timers[t]
