"""Time 'n' Space at a hub table, introductory and full game: the referee between nodes, phones and engine.

The referee's state is the engine's own
(:class:`~companion.games.time_n_space.model.GameState`, which knows its variant, and the
planet owners' hand-over picks); the table keeps the rest (the master clock, how the game
ended, the latest notes). Light mode, timers and scoring only, has its own referee in
:mod:`.light`.

How a flip maps onto the engine. A node flip means the player lifted the sandtimer
and put it down again on a time symbol:

* The sandtimer stands on a symbol: the sand must have run through (``ran_out``), the
  symbol's action happens with the player's stored choices (the :class:`~.model.Intent`
  for that timer, or the preselected defaults, see :mod:`.choices`), then the sandtimer
  goes onto the symbol the intent names (default: the same symbol again, else the first
  useful one).
* The sandtimer stands in front of the player (the very first flip, or after it was
  set aside): a placement only.

Phone moves (:mod:`.model`): :class:`~.model.Lift` (lift a finished sandtimer and set it
aside), :class:`~.model.LiftShipsTogether` (the planet's owner lifts the ships that
arrived at their planet at the same moment, in the order they decide),
:class:`~.model.LiftEveryFinished` (after the master clock), :class:`~.model.HandOverFirst`
(which of several identical counters the owner hands over first) and
:class:`~.model.StartingOrders` (full game, before the clock).

Every decision applies each engine action exactly once, in order (:class:`_Steps`, over
the contract's :class:`~companion.rules.referee.Steps`), and returns the engine's events as
its facts, the engine actions themselves (typed, for an undo) and a note. Timers are
``Timer 1`` and ``Timer 2`` at the table (the seat index) and 0 and 1 in the engine.

Ending early ("End game", confirmed by the host): :meth:`TimeNSpaceReferee.game_ended_early`
plays the end of the game as "End of the Game" describes it, at once: the master clock has
run out, every sandtimer still on a time symbol counts as run through and is lifted with
its default action (production, beam, trading, research, spaceships last, so deliveries
see the goods beamed and orders placed in the same moment), and the final scoring follows.
After that the phones' actions are refused: the game is over.
"""

from __future__ import annotations

from typing import Any

from companion.errors import InvalidRecordError
from companion.games.time_n_space import model as M
from companion.games.time_n_space.choices import NO_CHOICE, check_intent, lift_choice, placement, together
from companion.games.time_n_space.components import Components
from companion.games.time_n_space.engine import apply
from companion.games.time_n_space.model import (
    PHASE_ENDING,
    PHASE_OVER,
    PHASE_RUNNING,
    PHASE_SETUP,
    RESEARCH,
    SHIP,
    GameState,
    Intent,
    Timer,
)
from companion.games.time_n_space.pages import phone_menu, player_view, table_view
from companion.games.time_n_space.scoring import final_scores
from companion.games.time_n_space.setup import setup_full, setup_intro
from companion.games.time_n_space.words import (
    END,
    GENERAL,
    REASON_FULL_SAND,
    REASON_GAME_OVER,
    REASON_NOT_THROUGH,
    SPACESHIP,
    TABLE_RULE,
    SetupTextError,
    describe,
    symbol_label,
)
from companion.rules.context import Context
from companion.rules.outcome import Decision, IllegalAction, Rejected, checked, refuse
from companion.rules.pages import MenuItem, View
from companion.rules.referee import Referee, Steps
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, text

GAME_NAME = "time-n-space"
VARIANTS = ("intro", "full")
GAME_OVER_NOTE = text("every sandtimer is lifted: game over, final scoring")
"""Why the rules ended the game (the last sandtimer lifted after the master clock ran out)."""


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


def decided(game: GameState, action: M.Action) -> tuple[GameState, tuple[Any, ...]]:
    """The state after an engine action and its events; the engine's refusal is raised."""
    result = apply(game, action)
    if isinstance(result, Rejected):
        raise IllegalAction(result)
    return result.state, result.events


class _Steps:
    """One decision built engine action by engine action: each is applied exactly once, in order.

    The engine's side of :class:`~companion.rules.referee.Steps`, which records each
    accepted action with the state after it, its events and a note. A refused action
    records nothing and raises.
    """

    def __init__(self, game: GameState) -> None:
        self.steps = Steps(game)

    @property
    def game(self) -> GameState:
        """The engine state after the actions applied so far."""
        game: GameState = self.steps.state
        return game

    @property
    def applied(self) -> int:
        return len(self.steps.actions)

    def apply(self, action: M.Action, *, note: Text | None = None) -> None:
        """Apply ``action`` and record it with its events."""
        after, events = decided(self.game, action)
        said = describe(events, after)
        self.steps.add(after, action, events, text("{note}: {what}", note=note, what=said) if note else said)

    def lift(self, name: str, t: int, *, note: Text | None = None) -> None:
        """Lift a finished sandtimer with its default action; forfeit it when that cannot be done.

        At a moon with two or more tiles an action cannot be forfeited: the top tile then goes under the pile.
        """
        choice = lift_choice(self.game, name, t)
        tried = [choice] + [c for c in (None, M.MoonTile(False)) if c != choice]
        for attempt in tried[:-1]:
            try:
                self.apply(M.LiftTimer(name, t, attempt), note=note)
                return
            except IllegalAction:
                continue
        self.apply(M.LiftTimer(name, t, tried[-1]), note=note)

    def decision(self) -> Decision:
        ended = any(isinstance(f, M.GameEnded) for f in self.steps.facts)
        return self.steps.decision(ends_game=GAME_OVER_NOTE if ended else None)


def _decide(game: GameState, *actions: M.Action) -> Decision:
    """Apply fixed engine actions in order: all of them, or the first refusal (raised) and nothing."""
    steps = _Steps(game)
    for action in actions:
        steps.apply(action)
    return steps.decision()


class TimeNSpaceReferee(Referee[GameState]):
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
    def start(self, setup: TableSetup) -> GameState:
        """The game as it starts: with a table deck the players shuffle the tiles (the hub knows no order)
        and tell the hub their ocher tiles; the hub deck shuffles with the setup's seed."""
        players = list(setup.players)
        hub = setup.deck == "hub"
        if self.variant == "full":
            return setup_full(players, seed=setup.seed if hub else None, components=self.components)
        return setup_intro(players, components=self.components, deck="hub" if hub else "table")

    def replay(self, state: GameState, ctx: Context, action: Any) -> Decision:
        result = apply(state, action)
        if isinstance(result, Rejected):
            raise InvalidRecordError(f"the logged action {action} does not apply: {result}")
        ended = any(isinstance(e, M.GameEnded) for e in result.events)
        return Decision(
            result.state,
            actions=(action,),
            facts=result.events,
            ends_game=GAME_OVER_NOTE if ended else None,
        )

    # --- time facts ------------------------------------------------------------------------
    @checked
    def clock_started(self, state: GameState, ctx: Context) -> Decision:
        return _decide(state, M.StartGame())

    @checked
    def clock_expired(self, state: GameState, ctx: Context) -> Decision:
        if state.phase != PHASE_RUNNING:
            return Decision(state)
        return _decide(state, M.MasterClockExpired())

    @checked
    def game_ended_early(self, state: GameState, ctx: Context) -> Decision:
        """The host ended the game: it ends as "End of the Game" says, at once, and is scored.

        The master clock has run out; every sandtimer still on a time symbol counts as run
        through and is lifted with its default action (see the module docstring for the order),
        or forfeited when that cannot be done; then the final scoring follows. A game whose
        master clock never started is not scored: every counter is still above its control center.
        """
        if state.phase == PHASE_SETUP:
            refuse(
                text(
                    "The master clock never started, so there is nothing to score: "
                    "every player still holds all their order counters"
                ),
                END,
            )
        if state.phase == PHASE_OVER:
            return Decision(state)
        steps = _Steps(state)
        note = text("The game was ended early")
        if state.phase == PHASE_RUNNING:
            steps.apply(M.MasterClockExpired(), note=note)
        for name, t in _resolution_order(steps.game):
            if _engine_timer(steps.game, name, t).running:
                steps.apply(M.SandRanOut(name, t), note=None if steps.applied else note)
            try:
                steps.lift(name, t, note=None if steps.applied else note)
            except IllegalAction as exc:
                refuse(
                    text("The game cannot be scored as it stands: {reason}", reason=exc.rejected.reason),
                    exc.rejected.rule,
                )
        if not steps.applied:
            return Decision(state)
        return steps.decision()

    @checked
    def check_intent(self, state: GameState, ctx: Context, seat: Seat, intent: Any) -> None:
        """Refuse a phone's choice that names a symbol, place, building, colour or choice that does not exist."""
        player = state.player(seat.player)
        if player is None or not 1 <= seat.index <= len(player.timers):
            refuse(
                text("Node {node} is not one of the sandtimers of a player in this game", node=seat.node),
                TABLE_RULE,
            )
        if state.phase == PHASE_OVER:
            refuse(REASON_GAME_OVER, END)
        check_intent(state, seat.player, seat.index - 1, intent)

    @checked
    def timer_emptied(self, state: GameState, ctx: Context, seat: Seat) -> Decision:
        t = seat.index - 1
        player = state.player(seat.player)
        if player is None or t >= len(player.timers):
            return Decision(state)
        timer = player.timers[t]
        if timer.symbol is None or not timer.running:
            return Decision(state)  # e.g. the sand of a refused flip ran out
        return _decide(state, M.SandRanOut(seat.player, t))

    # --- a node was flipped --------------------------------------------------------------
    @checked
    def timer_flipped(
        self, state: GameState, ctx: Context, seat: Seat, *, intent: Any, ran_out: bool
    ) -> Decision:
        name, t = seat.player, seat.index - 1
        chosen: Intent = intent if isinstance(intent, Intent) else NO_CHOICE
        player = state.player(name)
        if player is None or t >= len(player.timers):
            refuse(
                text("Node {node} is not one of the sandtimers of a player in this game", node=seat.node),
                TABLE_RULE,
            )
        timer = player.timers[t]
        steps = _Steps(state)
        if timer.symbol is None:  # a placement only
            if state.phase == PHASE_RUNNING and not ran_out:
                refuse(REASON_FULL_SAND, GENERAL)
            steps.apply(placement(steps.game, name, t, chosen, previous=None))
            return steps.decision()
        # lifting: the action happens now, then the sandtimer goes onto its next symbol
        if timer.running:
            if not ran_out:
                refuse(REASON_NOT_THROUGH, GENERAL)
            steps.apply(M.SandRanOut(name, t))  # the node says so; its empty report was not seen
        elif not ran_out:
            refuse(REASON_FULL_SAND, GENERAL)
        steps.apply(M.LiftTimer(name, t, lift_choice(steps.game, name, t, chosen)))
        if steps.game.phase not in (PHASE_ENDING, PHASE_OVER):  # no placing after the master clock
            steps.apply(placement(steps.game, name, t, chosen, previous=timer.symbol))
        return steps.decision()

    def timer_label(self, state: GameState, ctx: Context, seat: Seat) -> Text | str:
        """The time symbol a sandtimer stands on, for the dashboard."""
        player = state.player(seat.player)
        if player is None or not 0 <= seat.index - 1 < len(player.timers):
            return ""
        timer = player.timers[seat.index - 1]
        return symbol_label(state, player, timer.symbol, timer.destination) if timer.symbol else ""

    # --- the phone -------------------------------------------------------------------------
    @checked
    def player_action(self, state: GameState, ctx: Context, player: str, action: Any) -> Decision:
        if state.player(player) is None:
            refuse(text("{player} does not play in this game", player=player), TABLE_RULE)
        if state.phase == PHASE_OVER:
            refuse(REASON_GAME_OVER, END)
        match action:
            case M.Lift(timer=number, intent=intent):
                t = self._timer(number)
                return _decide(state, M.LiftTimer(player, t, lift_choice(state, player, t, intent)))
            case M.LiftShipsTogether(ships=ships):
                return self._lift_together(state, player, ships)
            case M.LiftEveryFinished():
                return self._finish(state)
            case M.HandOverFirst(color=color, value=value, building=building, spot=spot):
                return _decide(state, M.ChooseHandover(player, color, value, building, spot))
            case M.StartingOrders(orders=orders):
                return _decide(state, M.PlaceStartingOrders(player, orders))
            case M.OcherTile(tile=tile):
                if self.setup.deck == "hub":
                    refuse(
                        text("The hub deck dealt your ocher tile; this table does not take it from the box"),
                        TABLE_RULE,
                    )
                return _decide(state, M.TakeOcherTile(player, tile))
            case M.ScoreSheet():
                refuse(
                    text(
                        "This table tracks every counter, so the hub scores the game itself; "
                        "score sheets are entered in light mode only"
                    ),
                    TABLE_RULE,
                )
        refuse(
            text("Time 'n' Space has no phone action {action}", action=repr(type(action).__name__)),
            TABLE_RULE,
        )

    def _timer(self, number: int) -> int:
        """A table timer number (1-based) as the engine's (0-based); refused when there is no such timer."""
        if not 1 <= number <= self.timers:
            refuse(text("Name the sandtimer to lift: timer 1 to {last}", last=self.timers), TABLE_RULE)
        return number - 1

    def _lift_together(self, state: GameState, owner: str, ships: tuple[M.Ship, ...]) -> Decision:
        """Ships that arrived at ``owner``'s planet lifted at the same moment, in the order the owner decided.

        One engine action (``LiftTogether``); each lifter fulfils the default orders of those
        the ships before left (see :func:`~companion.games.time_n_space.choices.together`).
        """
        if len(ships) < 2 or not all(1 <= s.timer <= self.timers for s in ships):
            refuse(
                text(
                    "Name two or more ships lifted together, each by its player and timer 1 to {last}, "
                    "in the order the planet's owner decides",
                    last=self.timers,
                ),
                SPACESHIP,
            )
        order: Text | str = ships[0].player
        for ship in ships[1:]:
            order = text("{earlier}, then {later}", earlier=order, later=ship.player)
        note = text(
            "{player} let the ships at their planet go in this order: {players}", player=owner, players=order
        )
        steps = _Steps(state)
        steps.apply(together(state, owner, [(s.player, s.timer - 1) for s in ships]), note=note)
        return steps.decision()

    def _finish(self, state: GameState) -> Decision:
        """After the master clock: lift every finished sandtimer with its default action."""
        if state.phase != PHASE_ENDING:
            refuse(
                text("Finished sandtimers are lifted all at once only after the master clock ran out"), END
            )
        steps = _Steps(state)
        for p in state.players:
            for t, timer in enumerate(p.timers):
                if timer.symbol is None or timer.running:
                    continue
                try:
                    steps.lift(p.name, t)  # the default, else forfeited
                except IllegalAction:
                    continue
        if not steps.applied:
            refuse(text("No sandtimer has finished and waits to be lifted"), END)
        return steps.decision()

    def menu(self, state: GameState, ctx: Context, player: str, *, intents: dict[str, Any]) -> list[MenuItem]:
        return phone_menu(self.setup.seats, state, player, intents, table_deck=self.setup.deck == "table")

    # --- pages -------------------------------------------------------------------------------
    def view(self, state: GameState, ctx: Context) -> View:
        colours = {p: self.setup.colour_of(p) for p in self.setup.players}
        return table_view(state, self.setup.seats, colours)

    def player_view(self, state: GameState, ctx: Context, player: str) -> View:
        return player_view(state, player)

    def scores(self, state: GameState, ctx: Context) -> dict[str, Any] | None:
        return final_scores(state) if state.phase == PHASE_OVER else None


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
