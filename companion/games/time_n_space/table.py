"""Time 'n' Space at a hub table: the referee between the sandtimer nodes, the phones and the engine.

Variants (``TableSetup.variant``):

* ``intro`` (default) and ``full``: the referee keeps a complete engine state
  (:class:`~companion.games.time_n_space.state.GameState`) and checks every flip.
* ``light``: timers and master clock only, no cubes; at the end the table enters the
  collected counters as a score sheet (``{"type": "score-sheet", "sheet": {...}}``).

How a flip maps onto the engine (intro and full game). A node flip means the player
lifted the sandtimer and put it down again on a time symbol:

* The sandtimer stands on a symbol: the sand must have run through (``ran_out``), the
  symbol's action happens with the player's stored choices (the *intent* for that
  timer, or the preselected defaults), then the sandtimer goes onto the symbol the
  intent names (default: the same symbol again, else the first useful one).
* The sandtimer stands in front of the player (the very first flip, or after it was
  set aside): a placement only.

Every accepted step is logged as engine actions in the JSON of
:func:`~companion.games.time_n_space.codec.action_to_json` (plus ``handover``, a planet
owner's pick among identical counters, kept in :class:`TableGame`), so :meth:`replay`
rebuilds the game from the log. Timers are ``Timer 1`` and ``Timer 2`` at the table (the seat
index) and 0 and 1 in the engine.

An intent (stored per node by the session, replaced as a whole on each tap) may hold:
``symbol`` and ``destination`` (the next placement), ``forfeit`` / ``upgrade`` (bools),
``beam`` ([[plant, spot], ...]), ``deliver`` ([[colour, value], ...]), ``trade``
([[colour, value], ...]) with ``spaces`` ([[building, spot], ...]), ``build`` (a
building id), ``moon`` (``research``, ``bottom`` or ``skip``), and before a full game
``start_orders`` / ``start_spaces`` (the 2 secretly picked counters and their spaces).
A key that is absent means "the default".
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import ConfigError, InvalidRecordError
from companion.games.base import Rejected
from companion.games.time_n_space import actions as A
from companion.games.time_n_space.codec import action_from_json, action_to_json
from companion.games.time_n_space.components import default_components
from companion.games.time_n_space.engine import (
    END,
    GENERAL,
    PLAYING,
    apply,
    final_scores,
    is_legal,
    is_over,
    legal_placements,
    setup_full,
    setup_intro,
)
from companion.games.time_n_space.scoring import COLORS, parse_record, score_record
from companion.games.time_n_space.state import (
    PHASE_ENDING,
    PHASE_OVER,
    PHASE_RUNNING,
    PHASE_SETUP,
    RESEARCH,
    SHIP,
    Building,
    Cube,
    GameState,
    Order,
    PlayerState,
)
from companion.table.referee import Decision, MenuItem, Step, View
from companion.table.state import Seat, TableSetup

GAME = "time-n-space"
VARIANTS = ("intro", "full", "light")
TABLE_RULE = "Table"
SCORING = "Final Scoring"

REASON_FULL_SAND = (
    "Let the sand run through completely before you flip this sandtimer: "
    "every sandtimer runs a full minute on its time symbol"
)
REASON_NOT_THROUGH = "The sand on this timer has not run through yet"
REASON_NOT_STARTED = "The sandtimers may not be flipped before the game starts"
REASON_CLOCK_OVER = "The master clock has run out: no one may place another sandtimer"

_TYPE = {"production": "production plant", "beam": "beam station", "trading": "trading center"}
_ROMAN = {1: "I", 2: "II", 3: "III"}
_PHASE = {
    PHASE_SETUP: "waiting for the master clock",
    PHASE_RUNNING: "running",
    PHASE_ENDING: "master clock ran out: running sandtimers finish",
    PHASE_OVER: "game over",
}


def table_referee(setup: TableSetup) -> TimeNSpaceReferee:
    """The Time 'n' Space referee of a hub table (``companion.table.referee.referee_for`` calls this)."""
    return TimeNSpaceReferee(setup)


# --- light mode state --------------------------------------------------------------------


@dataclass(frozen=True)
class LightState:
    """Light mode: the phase, each sandtimer's status and the score sheet entered so far."""

    players: tuple[str, ...]
    phase: str = PHASE_SETUP
    timers: tuple[tuple[str, int, str], ...] = ()
    """(player, timer 0-based, ``idle`` | ``running`` | ``finished``)."""
    sheet: tuple[tuple[str, str], ...] = ()
    """(player, canonical JSON of their score-sheet entry), in seat order."""

    def status(self, player: str, timer: int) -> str:
        for p, t, s in self.timers:
            if (p, t) == (player, timer):
                return s
        return "idle"

    def with_status(self, player: str, timer: int, status: str) -> LightState:
        timers = tuple((p, t, status if (p, t) == (player, timer) else s) for p, t, s in self.timers)
        return replace(self, timers=timers)

    def entries(self) -> dict[str, Any]:
        return {p: json.loads(e) for p, e in self.sheet}


_EMPTY_ENTRY: dict[str, list[Any]] = {"collected": [], "bonus": [], "above": []}


# --- intro and full game state -----------------------------------------------------------------


@dataclass(frozen=True)
class TableGame:
    """The introductory or full game at a table: the engine state and the planet owners' picks."""

    game: GameState
    handover: tuple[tuple[str, str, int, str, int], ...] = ()
    """(owner, colour, value, building, spot): which of several identical order counters the owner
    hands over first when another player fulfils one ("1. Your spaceship"); otherwise the first one."""

    def pick(self, owner: PlayerState, color: str, value: int) -> tuple[str, int] | None:
        """The owner's standing pick for (colour, value), if that spot still holds such a counter."""
        for name, c, v, bid, i in self.handover:
            if (name, c, v) == (owner.name, color, value):
                b = owner.building(bid)
                if b is not None and 0 <= i < len(b.contents) and b.contents[i] == Order(owner.name, c, v):
                    return bid, i
        return None


# --- small helpers -------------------------------------------------------------------------


def _building_label(b: Building) -> str:
    label = f"{b.id} {_TYPE[b.type]} {_ROMAN[b.stage]}"
    if b.type == "production":
        colors = sorted(set(c for c in b.spec.spots if c), key=COLORS.index)
        label += f" ({'/'.join(colors)})"
    return label


def _symbol_label(player: PlayerState, symbol: str | None, destination: str | None = None) -> str:
    if symbol is None:
        return "in front of you"
    if symbol == SHIP:
        if destination is not None:
            return f"spaceship: {player.ship} \u2192 {destination}"
        return f"spaceship: stay at {player.ship}"
    if symbol == RESEARCH:
        return "research plant"
    b = player.building(symbol)
    return _building_label(b) if b is not None else symbol


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _contents(b: Building) -> str:
    if b.type == "trading":
        return f"places {b.spec.capacity} order{'s' if b.spec.capacity != 1 else ''}"
    parts = []
    for i, c in enumerate(b.contents):
        if isinstance(c, Cube):
            parts.append(f"{c.color} cube")
        elif isinstance(c, Order):
            parts.append(f"order {c.color} {c.value}")
        else:
            want = b.spec.spots[i] if i < len(b.spec.spots) else None
            parts.append(f"free ({want})" if want else "free")
    return ", ".join(parts) or "-"


def _counts(orders: Iterable[tuple[str, int]]) -> str:
    c = Counter(orders)
    if not c:
        return "none"
    keys = sorted(c, key=lambda k: (COLORS.index(k[0]), k[1]))
    return ", ".join(f"{color} {value} \u00d7{c[(color, value)]}" for color, value in keys)


def _order_spaces(player: PlayerState) -> list[tuple[str, int]]:
    """Free order spaces (production and beam spots), least valuable first: stage I plants, then up."""
    spaces = [
        (b.stage, 0 if b.type == "production" else 1, k, b.id, i)
        for k, b in enumerate(player.buildings)
        if b.type != "trading"
        for i in b.free_spots()
    ]
    return [(bid, i) for *_, bid, i in sorted(spaces)]


def _pairs(value: Any) -> list[tuple[Any, Any]]:
    """A list of 2-item lists from an intent, as tuples (bad items are kept so the engine names them)."""
    if not isinstance(value, list):
        return []
    return [tuple(x) if isinstance(x, list) and len(x) == 2 else (x, None) for x in value]


def _merge(intent: dict[str, Any], node: str, **changes: Any) -> dict[str, Any]:
    out = {k: v for k, v in intent.items() if k != "node"}
    out.update(changes)
    out["node"] = node
    return out


# --- the referee ------------------------------------------------------------------------------


class TimeNSpaceReferee:
    """Time 'n' Space refereed at a hub table (see the module docstring)."""

    game = GAME
    rules_decide_end = True
    """A finished sandtimer may still be lifted after the master clock ran out ("End of the Game")."""

    def __init__(self, setup: TableSetup) -> None:
        variant = setup.variant or "intro"
        if variant not in VARIANTS:
            raise ConfigError(
                f"Time 'n' Space has no variant {variant!r}; choose intro, full or light (timers and scoring only)"
            )
        if len(setup.players) not in (3, 4):
            raise ConfigError(f"Time 'n' Space is played by 3 or 4 players, not {len(setup.players)}")
        timers = default_components().timers_per_player
        for seat in setup.seats:
            if not 1 <= seat.index <= timers:
                raise ConfigError(
                    f"node {seat.node} is timer {seat.index} of {seat.player}, "
                    f"but every player has only {timers} sandtimers in Time 'n' Space"
                )
        self.setup = setup
        self.variant = variant
        self.light = variant == "light"
        self.timers = timers

    # --- start and replay ----------------------------------------------------------------
    def start(self, setup: TableSetup) -> TableGame | LightState:
        players = list(setup.players)
        if self.light:
            timers = tuple((p, t, "idle") for p in players for t in range(self.timers))
            return LightState(tuple(players), timers=timers)
        if self.variant == "full":
            return TableGame(setup_full(players, seed=setup.seed))
        return TableGame(setup_intro(players))

    def replay(self, state: Any, action: dict[str, Any]) -> Any:
        if self.light:
            return _light_replay(state, action)
        if action.get("action") == "handover":
            key = (action["player"], action["color"], action["value"])
            kept = tuple(h for h in state.handover if h[:3] != key)
            return replace(state, handover=kept + ((*key, action["building"], action["spot"]),))
        result = apply(state.game, action_from_json(action, "the logged action"))
        if isinstance(result, Rejected):
            raise InvalidRecordError(f"the logged action {action} does not apply: {result}")
        return replace(state, game=result.state)

    def _run(self, table: TableGame, actions: Iterable[Any]) -> Step:
        """Apply engine actions in order; all of them, or a rejection and nothing."""
        logged: list[dict[str, Any]] = []
        notes: list[str] = []
        state = table.game
        for action in actions:
            result = apply(state, action)
            if isinstance(result, Rejected):
                return result
            state = result.state
            logged.append(action_to_json(action))
            notes.append(describe(result.events, state))
        return Decision(replace(table, game=state), tuple(logged), tuple(notes))

    # --- time facts ------------------------------------------------------------------------
    def clock_started(self, state: Any) -> Step:
        if self.light:
            return _light_step(state, {"action": "light_start"}, "master clock started")
        return self._run(state, [A.StartGame()])

    def clock_expired(self, state: Any) -> Step:
        if self.light:
            if state.phase != PHASE_RUNNING:
                return Decision(state)
            return _light_step(state, {"action": "light_expired"}, "master clock ran out")
        if state.game.phase != PHASE_RUNNING:
            return Decision(state)
        return self._run(state, [A.MasterClockExpired()])

    def timer_emptied(self, state: Any, seat: Seat) -> Step:
        t = seat.index - 1
        if self.light:
            if state.status(seat.player, t) != "running":
                return Decision(state)
            return _light_step(
                state,
                {"action": "light_ran_out", "player": seat.player, "timer": t},
                f"{seat.player} timer {seat.index}: sand ran through",
            )
        player = state.game.player(seat.player)
        if player is None or t >= len(player.timers):
            return Decision(state)
        timer = player.timers[t]
        if timer.symbol is None or not timer.running:
            return Decision(state)  # e.g. the sand of a refused flip ran out
        return self._run(state, [A.SandRanOut(seat.player, t)])

    # --- a node was flipped --------------------------------------------------------------
    def timer_flipped(self, state: Any, seat: Seat, *, intent: dict[str, Any] | None, ran_out: bool) -> Step:
        if self.light:
            return _light_flip(state, seat, ran_out)
        name, t = seat.player, seat.index - 1
        intent = intent or {}
        game = state.game
        player = game.player(name)
        if player is None or t >= len(player.timers):
            return Rejected(
                f"Node {seat.node} is not one of the sandtimers of a player in this game", TABLE_RULE
            )
        timer = player.timers[t]
        actions: list[Any] = []
        if timer.symbol is not None:
            # lifting: the action happens now, then the sandtimer goes onto its next symbol
            if timer.running:
                if not ran_out:
                    result = apply(game, A.LiftTimer(name, t, None))
                    return result if isinstance(result, Rejected) else Rejected(REASON_NOT_THROUGH, GENERAL)
                actions.append(A.SandRanOut(name, t))  # the node says so; its empty report was not seen
                game = _after(game, actions[-1])
            elif not ran_out:
                return Rejected(REASON_FULL_SAND, GENERAL)
            lift = A.LiftTimer(name, t, self.choice(game, name, t, intent, state))
            lifted = apply(game, lift)
            if isinstance(lifted, Rejected):
                return lifted
            actions.append(lift)
            if lifted.state.phase in (PHASE_ENDING, PHASE_OVER):
                return self._run(state, actions)  # no placing after the master clock: the timer is set aside
            place = self.placement(lifted.state, name, t, intent, previous=timer.symbol)
            actions.append(place)
            return self._run(state, actions)
        if game.phase == PHASE_RUNNING and not ran_out:
            return Rejected(REASON_FULL_SAND, GENERAL)
        return self._run(state, [self.placement(game, name, t, intent, previous=None)])

    # --- what a flip does, by default or as the player chose --------------------------------
    def placement(
        self, game: GameState, name: str, t: int, intent: dict[str, Any], *, previous: str | None
    ) -> A.PlaceTimer:
        """The next placement: the intent's symbol, else the default (same symbol, else a useful one)."""
        symbol = intent.get("symbol")
        if symbol is not None:
            return A.PlaceTimer(name, t, symbol, intent.get("destination"))
        default = self.default_placement(game, name, t, previous=previous)
        # nothing is legal: try the obvious one anyway so the engine names the reason
        return default if default is not None else A.PlaceTimer(name, t, previous or SHIP)

    def default_placement(
        self, game: GameState, name: str, t: int, *, previous: str | None
    ) -> A.PlaceTimer | None:
        legal = legal_placements(_running(game), name, t)
        if not legal:
            return None
        if previous is not None:
            again = A.PlaceTimer(name, t, previous)
            if again in legal:
                return again
        player = game.player(name)
        assert player is not None
        for option in legal:
            if option.symbol not in (SHIP, RESEARCH) and _useful(game, player, option.symbol):
                return option
        if A.PlaceTimer(name, t, RESEARCH) in legal:
            return A.PlaceTimer(name, t, RESEARCH)
        return legal[0]

    def choice(
        self, game: GameState, name: str, t: int, intent: dict[str, Any], table: TableGame | None = None
    ) -> A.Choice | None:
        """The choice a lift of this sandtimer carries now: the intent's, else the default; None forfeits.

        Deliveries hand over the counters the planet's owner picked (``table.handover``), else the first.
        """
        player = game.player(name)
        assert player is not None
        timer = player.timers[t]
        if intent.get("forfeit") or timer.symbol is None:
            return None
        symbol = timer.symbol
        if symbol == SHIP:
            here = timer.destination or player.ship
            owner = game.owner_of(here)
            if owner is not None:
                if owner.name == name:
                    return None
                wanted = (
                    _pairs(intent["deliver"])
                    if "deliver" in intent
                    else _default_deliver(game, player, owner)
                )
                if not wanted:
                    return None
                picked: set[tuple[str, int]] = set()
                orders = []
                for c, v in wanted:
                    space = table.pick(owner, c, v) if table is not None else None
                    if space in picked:
                        space = None
                    if space is not None:
                        picked.add(space)
                    orders.append(A.Delivery(c, v, space))
                return A.Deliver(tuple(orders))
            if game.variant == "intro":
                return None
            mode = intent.get("moon")
            if mode not in ("research", "bottom", "skip"):
                mode = _default_moon(game, player, here)
            if mode == "skip":
                return None
            return A.MoonTile(mode == "research")
        if symbol == RESEARCH:
            target = intent.get("build") or _default_build(player)
            return A.Build(target) if target is not None else None
        b = player.building(symbol)
        if b is None:
            return None
        if intent.get("upgrade"):
            return A.Upgrade()
        if b.type == "production":
            if not any(game.supply_of(b.spec.spots[i]) > 0 for i in b.free_spots() if b.spec.spots[i]):
                return None
            return A.Produce()
        if b.type == "beam":
            cubes = _pairs(intent["beam"]) if "beam" in intent else _default_beam(game, player, b)
            return A.Beam(tuple(cubes)) if cubes else None
        counters, spaces = self.trade_selection(player, b, intent)
        if not counters:
            return None
        return A.Trade(
            tuple(A.OrderPlacement(c, v, s[0], s[1]) for (c, v), s in zip(counters, spaces, strict=False))
        )

    def trade_selection(
        self, player: PlayerState, center: Building, intent: dict[str, Any]
    ) -> tuple[list[tuple[Any, Any]], list[tuple[Any, Any]]]:
        """(counters, spaces) a trading center lift places: chosen ones first, then defaults."""
        free = _order_spaces(player)
        if "trade" in intent:
            counters = _pairs(intent["trade"])
        else:
            counters = _default_counters(player, min(center.spec.capacity, len(free)))
        chosen = [s for s in _pairs(intent.get("spaces")) if s in free]
        spaces = chosen + [s for s in free if s not in chosen]
        return counters, spaces[: len(counters)]

    def timer_label(self, state: Any, seat: Seat) -> str:
        """The time symbol a sandtimer stands on, for the dashboard."""
        if self.light or not isinstance(state, TableGame):
            return ""
        player = state.game.player(seat.player)
        if player is None or not 0 <= seat.index - 1 < len(player.timers):
            return ""
        timer = player.timers[seat.index - 1]
        return _symbol_label(player, timer.symbol, timer.destination) if timer.symbol else ""

    # --- the phone -------------------------------------------------------------------------
    def player_action(self, state: Any, player: str, action: dict[str, Any]) -> Step:
        kind = action.get("type") if isinstance(action, dict) else None
        if self.light:
            if kind == "score-sheet":
                return _light_sheet(state, action.get("sheet"))
            return Rejected(
                "In light mode the hub tracks only timers and clock; enter the collected counters as a score sheet",
                TABLE_RULE,
            )
        if kind == "score-sheet":
            return Rejected(
                "This table tracks every counter, so the hub scores the game itself; "
                "score sheets are entered in light mode only",
                TABLE_RULE,
            )
        if kind == "handover":
            return self._handover(state, player, action)
        if kind == "starting-orders":
            orders = action.get("orders")
            try:
                placements = _placements(orders)
            except ValueError as exc:
                return Rejected(str(exc), "Setup for the Full Game")
            return self._run(state, [A.PlaceStartingOrders(player, placements)])
        if kind == "lift":
            t = action.get("timer")
            if not isinstance(t, int) or isinstance(t, bool) or not 1 <= t <= self.timers:
                return Rejected(f"Name the sandtimer to lift: timer 1 to {self.timers}", TABLE_RULE)
            intent = action.get("intent") if isinstance(action.get("intent"), dict) else {}
            if state.game.player(player) is None:
                return Rejected(f"{player} does not play in this game", TABLE_RULE)
            lift = A.LiftTimer(player, t - 1, self.choice(state.game, player, t - 1, intent, state))
            return self._run(state, [lift])
        if kind == "finish":
            if state.game.phase != PHASE_ENDING:
                return Rejected(
                    "Finished sandtimers are lifted all at once only after the master clock ran out", END
                )
            actions = []
            game = state.game
            for p in game.players:
                for t, timer in enumerate(p.timers):
                    if timer.symbol is None or timer.running:
                        continue
                    lift = A.LiftTimer(p.name, t, self.choice(game, p.name, t, {}, state))
                    if not is_legal(game, lift):
                        lift = A.LiftTimer(p.name, t, None)
                    if not is_legal(game, lift):
                        continue
                    actions.append(lift)
                    game = _after(game, lift)
            if not actions:
                return Rejected("No sandtimer has finished and waits to be lifted", END)
            return self._run(state, actions)
        return Rejected(f"Time 'n' Space has no phone action {kind!r}", TABLE_RULE)

    def menu(self, table: Any, player: str, *, intents: dict[str, dict[str, Any]]) -> list[MenuItem]:
        if self.light:
            return []
        state = table.game
        me = state.player(player)
        if me is None:
            return []
        items: list[MenuItem] = []
        seats = sorted((s for s in self.setup.seats if s.player == player), key=lambda s: s.index)
        if state.variant == "full" and state.phase == PHASE_SETUP and not me.ready and seats:
            node = seats[0].node
            items += self._starting_menu(me, node, intents.get(node, {}))
        for seat in seats:
            t = seat.index - 1
            if t >= len(me.timers):
                continue
            items += self._timer_menu(table, me, seat, intents.get(seat.node, {}))
        if state.phase == PHASE_ENDING and any(
            tm.symbol is not None and not tm.running for p in state.players for tm in p.timers
        ):
            items.append(
                MenuItem(
                    "finish",
                    "Lift every finished sandtimer now (default actions)",
                    "End of the game",
                    action={"type": "finish"},
                )
            )
        items += self._handover_menu(table, me)
        return items

    def _handover_menu(self, table: TableGame, me: PlayerState) -> list[MenuItem]:
        """For identical orders on my control center: which one I hand over first."""
        if table.game.phase in (PHASE_ENDING, PHASE_OVER):
            return []
        spots: dict[tuple[str, int], list[tuple[str, int]]] = {}
        for bid, i, order in me.placed_orders():
            spots.setdefault((order.color, order.value), []).append((bid, i))
        items = []
        for (color, value), where in spots.items():
            if len(where) < 2:
                continue
            current = table.pick(me, color, value) or where[0]
            for bid, i in where:
                b = me.building(bid)
                assert b is not None
                items.append(
                    MenuItem(
                        f"handover-{color}-{value}-{bid}-{i}",
                        f"{color} {value} from {_building_label(b)} spot {i + 1}",
                        f"My planet: which {color} {value} I hand over first",
                        action={
                            "type": "handover",
                            "color": color,
                            "value": value,
                            "building": bid,
                            "spot": i,
                        },
                        selected=(bid, i) == current,
                    )
                )
        return items

    def _handover(self, table: TableGame, player: str, action: dict[str, Any]) -> Step:
        me = table.game.player(player)
        color, value, bid, spot = (action.get(k) for k in ("color", "value", "building", "spot"))
        b = me.building(bid) if me is not None and isinstance(bid, str) else None
        if (
            b is None
            or not isinstance(spot, int)
            or isinstance(spot, bool)
            or not 0 <= spot < len(b.contents)
            or b.contents[spot] != Order(player, color, value)
        ):
            return Rejected(
                f"You show no {color} {value} order on {bid} spot "
                f"{spot + 1 if isinstance(spot, int) else spot}",
                "1. Your spaceship",
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
            self.replay(table, logged),
            (logged,),
            (f"{player} will hand over the {color} {value} on {bid} spot {spot + 1} first",),
        )

    def _timer_menu(
        self, table: TableGame, me: PlayerState, seat: Seat, intent: dict[str, Any]
    ) -> list[MenuItem]:
        game = table.game
        t, node, n = seat.index - 1, seat.node, seat.index
        timer = me.timers[t]
        items: list[MenuItem] = []
        pre = f"t{n}"
        if timer.symbol is not None:
            here = _symbol_label(me, timer.symbol, timer.destination)
            group = f"Timer {n}: when lifted from {here}"
            items += self._choice_menu(game, me, t, node, intent, group, pre)
            if not timer.running:
                action = {
                    "type": "lift",
                    "timer": n,
                    "intent": {k: v for k, v in intent.items() if k != "node"},
                }
                doing = choice_text(self.choice(game, me.name, t, intent, table))
                items.append(
                    MenuItem(
                        f"{pre}-lift",
                        f"Lift now ({doing}) and set it aside",
                        f"Timer {n}: now",
                        action=action,
                    )
                )
        if game.phase in (PHASE_ENDING, PHASE_OVER):
            return items
        after = game
        if timer.symbol is not None:
            after = _running(after)
            if timer.running:
                after = _after(after, A.SandRanOut(me.name, t))
            lift = A.LiftTimer(me.name, t, self.choice(after, me.name, t, intent))
            if not is_legal(after, lift):
                lift = A.LiftTimer(me.name, t, None)
            after = _after(after, lift)
        after = _running(after)
        legal = legal_placements(after, me.name, t)
        chosen = self.placement(after, me.name, t, intent, previous=timer.symbol) if legal else None
        mover = after.player(me.name)
        assert mover is not None
        group = f"Timer {n}: next symbol"
        if not legal:
            items.append(MenuItem(f"{pre}-next-none", "No free time symbol for this sandtimer", group))
        for option in legal:
            key = option.symbol + (f"-{option.destination}" if option.destination else "")
            items.append(
                MenuItem(
                    f"{pre}-next-{key}",
                    _upper_first(_symbol_label(mover, option.symbol, option.destination)),
                    group,
                    intent=_merge(intent, node, symbol=option.symbol, destination=option.destination),
                    selected=option == chosen,
                )
            )
        return items

    def _choice_menu(
        self,
        game: GameState,
        me: PlayerState,
        t: int,
        node: str,
        intent: dict[str, Any],
        group: str,
        pre: str,
    ) -> list[MenuItem]:
        timer = me.timers[t]
        symbol = timer.symbol
        forfeit = bool(intent.get("forfeit"))
        items: list[MenuItem] = []

        def forfeit_item() -> MenuItem:
            return MenuItem(
                f"{pre}-forfeit",
                "Forfeit the action",
                group,
                intent=_merge(intent, node, forfeit=True, upgrade=False),
                selected=forfeit,
            )

        if symbol == SHIP:
            here = timer.destination or me.ship
            owner = game.owner_of(here)
            if owner is None and game.variant == "intro" or owner is not None and owner.name == me.name:
                where = "your own planet" if owner is not None else "a moon in the introductory game"
                return [MenuItem(f"{pre}-nothing", f"Nothing to do at {where}", group)]
            if owner is not None:
                wanted = (
                    _pairs(intent["deliver"]) if "deliver" in intent else _default_deliver(game, me, owner)
                )
                have = Counter(wanted)
                seen: Counter[tuple[str, int]] = Counter()
                for bid, i, order in owner.placed_orders():
                    key = (order.color, order.value)
                    seen[key] += 1
                    k = seen[key]
                    on = have[key] >= k and not forfeit
                    count = dict(have)
                    count[key] = k - 1 if on else k
                    new = [list(x) for x in wanted if x != key] + [list(key)] * count[key]
                    items.append(
                        MenuItem(
                            f"{pre}-deliver-{bid}-{i}",
                            f"Fulfil {owner.name}'s {order.color} {order.value} ({bid})",
                            group,
                            intent=_merge(intent, node, deliver=new, forfeit=False),
                            selected=on,
                        )
                    )
                items.append(
                    MenuItem(
                        f"{pre}-deliver-none",
                        "Fulfil nothing",
                        group,
                        intent=_merge(intent, node, deliver=[], forfeit=False),
                        selected=not forfeit and not wanted,
                    )
                )
                return items
            pile = game.pile(here)
            mode = intent.get("moon")
            if mode not in ("research", "bottom", "skip"):
                mode = _default_moon(game, me, here)
            mode = "skip" if forfeit else mode
            top = pile[0].stage2 if pile else None
            top_label = f"{_TYPE[top.type]} II" if top is not None else "no tile"
            options = [
                ("research", f"Take the top tile ({top_label}) into the research plant"),
                ("bottom", "Put the top tile under the pile"),
                ("skip", "Skip: one or no tile is left"),
            ]
            allowed = {
                "research": bool(pile) and me.research is None,
                "bottom": bool(pile),
                "skip": len(pile) <= 1,
            }
            for key, label in options:
                if not allowed[key] and mode != key:
                    continue
                items.append(
                    MenuItem(
                        f"{pre}-moon-{key}",
                        label,
                        group,
                        intent=_merge(intent, node, moon=key, forfeit=False),
                        selected=mode == key,
                    )
                )
            return items
        if symbol == RESEARCH:
            target = intent.get("build") or _default_build(me)
            for b in me.buildings:
                if b.stage == 1 and b.is_unoccupied() and all(tm.symbol != b.id for tm in me.timers):
                    items.append(
                        MenuItem(
                            f"{pre}-build-{b.id}",
                            f"Build onto {_building_label(b)}",
                            group,
                            intent=_merge(intent, node, build=b.id, forfeit=False),
                            selected=not forfeit and target == b.id,
                        )
                    )
            items.append(forfeit_item())
            return items
        b = me.building(symbol) if symbol else None
        if b is None:
            return items
        upgrade = bool(intent.get("upgrade")) and not forfeit
        doing = not forfeit and not upgrade
        if b.type == "production":
            items.append(
                MenuItem(
                    f"{pre}-produce",
                    "Produce into every free spot",
                    group,
                    intent=_merge(intent, node, forfeit=False, upgrade=False),
                    selected=doing,
                )
            )
        elif b.type == "beam":
            cubes = _pairs(intent["beam"]) if "beam" in intent else _default_beam(game, me, b)
            room = len(b.free_spots())
            for source in me.buildings:
                if source.type != "production":
                    continue
                for i, c in enumerate(source.contents):
                    if not isinstance(c, Cube):
                        continue
                    on = (source.id, i) in cubes
                    added = cubes + [(source.id, i)]
                    new = [x for x in cubes if x != (source.id, i)] if on else added[len(added) - room :]
                    items.append(
                        MenuItem(
                            f"{pre}-beam-{source.id}-{i}",
                            f"Beam {c.color} from {source.id} spot {i + 1}",
                            group,
                            intent=_merge(
                                intent, node, beam=[list(x) for x in new], forfeit=False, upgrade=False
                            ),
                            selected=doing and on,
                        )
                    )
            items.append(
                MenuItem(
                    f"{pre}-beam-none",
                    "Beam nothing",
                    group,
                    intent=_merge(intent, node, beam=[], forfeit=False, upgrade=False),
                    selected=doing and not cubes,
                )
            )
        else:
            counters, spaces = self.trade_selection(me, b, intent)
            have = Counter(counters)
            cap = b.spec.capacity
            base = counters if "trade" in intent else []  # the first tap starts a selection of one's own
            for key in sorted(
                set((o.color, o.value) for o in me.above), key=lambda k: (COLORS.index(k[0]), k[1])
            ):
                left = sum(1 for o in me.above if (o.color, o.value) == key)
                new = (base + [key])[-cap:] if cap else base
                items.append(
                    MenuItem(
                        f"{pre}-trade-{key[0]}-{key[1]}",
                        f"Place {key[0]} {key[1]} ({have[key]} of {left} chosen)",
                        group,
                        intent=_merge(
                            intent, node, trade=[list(x) for x in new], forfeit=False, upgrade=False
                        ),
                        selected=doing and have[key] > 0,
                    )
                )
            items.append(
                MenuItem(
                    f"{pre}-trade-none",
                    "Place no orders",
                    group,
                    intent=_merge(intent, node, trade=[], forfeit=False, upgrade=False),
                    selected=doing and not counters,
                )
            )
            chosen_spaces = [s for s in _pairs(intent.get("spaces")) if s in _order_spaces(me)]
            space_group = f"{group}: order spaces"
            for bid, i in _order_spaces(me):
                on = (bid, i) in spaces
                new_spaces = [x for x in chosen_spaces if x != (bid, i)] if on else chosen_spaces + [(bid, i)]
                target = me.building(bid)
                assert target is not None
                items.append(
                    MenuItem(
                        f"{pre}-space-{bid}-{i}",
                        f"{_building_label(target)} spot {i + 1}",
                        space_group,
                        intent=_merge(intent, node, spaces=[list(x) for x in new_spaces]),
                        selected=doing and on,
                    )
                )
        if b.stage == 2:
            items.append(
                MenuItem(
                    f"{pre}-upgrade",
                    "Upgrade to stage III instead (unoccupied only)",
                    group,
                    intent=_merge(intent, node, upgrade=True, forfeit=False),
                    selected=upgrade,
                )
            )
        items.append(forfeit_item())
        return items

    def _starting_menu(self, me: PlayerState, node: str, intent: dict[str, Any]) -> list[MenuItem]:
        counters, spaces = _starting_selection(me, intent)
        have = Counter(counters)
        chosen_spaces = [s for s in _pairs(intent.get("start_spaces")) if s in _order_spaces(me)]
        items = []
        group = "Starting orders: pick 2 counters"
        for key in sorted(
            set((o.color, o.value) for o in me.above), key=lambda k: (COLORS.index(k[0]), k[1])
        ):
            new = (counters + [key])[-2:]
            items.append(
                MenuItem(
                    f"start-pick-{key[0]}-{key[1]}",
                    f"{key[0]} {key[1]}",
                    group,
                    intent=_merge(intent, node, start_orders=[list(x) for x in new]),
                    selected=have[key] > 0,
                )
            )
        group = "Starting orders: pick 2 order spaces"
        for bid, i in _order_spaces(me):
            on = (bid, i) in spaces
            new_spaces = (
                [x for x in chosen_spaces if x != (bid, i)] if on else (chosen_spaces + [(bid, i)])[-2:]
            )
            b = me.building(bid)
            assert b is not None
            items.append(
                MenuItem(
                    f"start-space-{bid}-{i}",
                    f"{_building_label(b)} spot {i + 1}",
                    group,
                    intent=_merge(intent, node, start_spaces=[list(x) for x in new_spaces]),
                    selected=on,
                )
            )
        orders = [
            {"color": c, "value": v, "building": s[0], "spot": s[1]}
            for (c, v), s in zip(counters, spaces, strict=False)
        ]
        label = "Place " + " and ".join(
            f"{o['color']} {o['value']} on {o['building']} spot {o['spot'] + 1}" for o in orders
        )
        items.append(
            MenuItem(
                "start-place", label, "Starting orders", action={"type": "starting-orders", "orders": orders}
            )
        )
        return items

    # --- pages -------------------------------------------------------------------------------
    def view(self, state: Any) -> View:
        if self.light:
            return _light_view(state)
        game: GameState = state.game
        supply = ", ".join(f"{c} {n}" for c, n in zip(COLORS, game.supply, strict=True))
        summary = (
            f"Time 'n' Space, {'full' if game.variant == 'full' else 'introductory'} game: "
            f"{_PHASE[game.phase]} \u00b7 supply {supply}"
        )
        players_rows = []
        for p in game.players:
            timers = "; ".join(_timer_text(p, tm) for tm in p.timers)
            players_rows.append(
                [p.name, p.planet, p.ship, timers, len(p.above), len(p.collected), sum(p.bonus)]
            )
        panels: list[dict[str, Any]] = [
            {
                "kind": "table",
                "title": "Players",
                "columns": ["Player", "Planet", "Ship", "Sandtimers", "Above", "Collected", "Bonus"],
                "rows": players_rows,
            },
            {"kind": "table", "title": "Goods supply", "columns": list(COLORS), "rows": [list(game.supply)]},
            {"kind": "lines", "title": "Board", "lines": _board_lines(game)},
            {
                "kind": "table",
                "title": "Orders on the control centers",
                "columns": ["Player", "Placed orders", "Still above", "Collected below"],
                "rows": [
                    [
                        p.name,
                        _counts((o.color, o.value) for *_, o in p.placed_orders()),
                        _counts((o.color, o.value) for o in p.above),
                        _collected(p),
                    ]
                    for p in game.players
                ],
            },
        ]
        panels += [_control_center_panel(p, f"{p.name}'s control center") for p in game.players]
        return View(summary, tuple(panels), {"phase": game.phase, "variant": game.variant})

    def player_view(self, state: Any, player: str) -> View:
        if self.light:
            return _light_player_view(state, player)
        game: GameState = state.game
        me = game.player(player)
        if me is None:
            return View(f"{player} does not play in this game")
        where = game.owner_of(me.ship)
        at = f"{me.ship} ({where.name}'s planet)" if where is not None else me.ship
        summary = f"{me.name}: planet {me.planet}, spaceship at {at} \u00b7 {_PHASE[game.phase]}"
        timer_lines = [f"Timer {t + 1}: {_timer_text(me, tm)}" for t, tm in enumerate(me.timers)]
        if game.variant == "full" and not me.ready:
            timer_lines.append("Pick and place your 2 starting orders before the master clock starts")
        counters = [
            f"Above your control center: {_counts((o.color, o.value) for o in me.above)}",
            f"Collected: {', '.join(f'{c.color} {c.value} ({c.source})' for c in me.collected) or 'none'}",
            f"Bonus counters: {', '.join(str(b) for b in me.bonus) or 'none'}",
        ]
        voids = [c for c in COLORS if any(o.color == c for o in me.above)]
        if voids:
            counters.append(f"Still void at the end if not placed: {', '.join(voids)}")
        panels = (
            {"kind": "lines", "title": "My sandtimers", "lines": timer_lines},
            _control_center_panel(me, "My control center"),
            {"kind": "lines", "title": "My counters", "lines": counters},
        )
        return View(summary, panels)

    def scores(self, state: Any) -> dict[str, Any] | None:
        if self.light:
            entries = state.entries()
            if set(entries) != set(state.players):
                return None
            return score_record({"players": {p: entries[p] for p in state.players}})
        return final_scores(state.game) if is_over(state.game) else None


# --- defaults --------------------------------------------------------------------------------


def _after(game: GameState, action: Any) -> GameState:
    result = apply(game, action)
    return game if isinstance(result, Rejected) else result.state


def _running(game: GameState) -> GameState:
    """The state as if the clock ran (to preview placements before the start)."""
    return replace(game, phase=PHASE_RUNNING) if game.phase == PHASE_SETUP else game


def _demand(game: GameState, me: PlayerState) -> Counter[str]:
    """How many orders of each colour the other players show on their control centers."""
    return Counter(o.color for p in game.players if p.name != me.name for *_, o in p.placed_orders())


def _useful(game: GameState, me: PlayerState, symbol: str) -> bool:
    """Whether lifting from this building would do something now."""
    b = me.building(symbol)
    if b is None:
        return False
    if b.type == "production":
        return any(b.spec.spots[i] and game.supply_of(b.spec.spots[i]) > 0 for i in b.free_spots())
    if b.type == "beam":
        return bool(b.free_spots()) and any(
            isinstance(c, Cube) for s in me.buildings if s.type == "production" for c in s.contents
        )
    return bool(me.above) and bool(_order_spaces(me))


def _default_beam(game: GameState, me: PlayerState, station: Building) -> list[tuple[str, int]]:
    """Cubes to beam: the colours other players order most first, up to the station's free spots."""
    demand = _demand(game, me)
    cubes = [
        (b.id, i, c.color)
        for b in me.buildings
        if b.type == "production"
        for i, c in enumerate(b.contents)
        if isinstance(c, Cube)
    ]
    cubes.sort(key=lambda x: -demand[x[2]])
    return [(bid, i) for bid, i, _ in cubes[: len(station.free_spots())]]


def _default_deliver(game: GameState, me: PlayerState, owner: PlayerState) -> list[tuple[str, int]]:
    """Every order at the planet the beam stations can pay for, the most valuable first."""
    cubes = Counter(
        c.color for b in me.buildings if b.type == "beam" for c in b.contents if isinstance(c, Cube)
    )
    orders = sorted(
        ((o.color, o.value) for *_, o in owner.placed_orders()), key=lambda k: (-k[1], COLORS.index(k[0]))
    )
    wanted = []
    for color, value in orders:
        if cubes[color] >= value:
            cubes[color] -= value
            wanted.append((color, value))
    return wanted


def _default_counters(me: PlayerState, n: int) -> list[tuple[str, int]]:
    """Counters to place: one at a time from the colour with the most counters left above, lowest value first."""
    left = Counter((o.color, o.value) for o in me.above)
    chosen: list[tuple[str, int]] = []
    for _ in range(n):
        by_color = Counter()
        for (color, _value), k in left.items():
            if k > 0:
                by_color[color] += k
        if not by_color:
            break
        color = max(by_color, key=lambda c: (by_color[c], -COLORS.index(c)))
        value = min(v for (c, v), k in left.items() if c == color and k > 0)
        left[(color, value)] -= 1
        chosen.append((color, value))
    return chosen


def _default_moon(game: GameState, me: PlayerState, moon: str) -> str:
    pile = game.pile(moon)
    if not pile:
        return "skip"
    if me.research is None:
        return "research"
    return "bottom" if len(pile) > 1 else "skip"


def _default_build(me: PlayerState) -> str | None:
    """A free stage I building for the waiting tile: one of the tile's own type first."""
    if me.research is None:
        return None
    free = [
        b
        for b in me.buildings
        if b.stage == 1 and b.is_unoccupied() and all(tm.symbol != b.id for tm in me.timers)
    ]
    same = [b for b in free if b.type == me.research.stage2.type]
    pick = same or free
    return pick[0].id if pick else None


def _starting_selection(me: PlayerState, intent: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    if "start_orders" in intent:
        counters = _pairs(intent["start_orders"])
    else:  # two different colours, the lowest values: easy for the others to fulfil
        counters = []
        for color in COLORS:
            values = sorted(o.value for o in me.above if o.color == color)
            if values and len(counters) < 2:
                counters.append((color, values[0]))
    free = _order_spaces(me)
    chosen = [s for s in _pairs(intent.get("start_spaces")) if s in free]
    spaces = (chosen + [s for s in free if s not in chosen])[: len(counters)]
    return counters, spaces


def _placements(orders: Any) -> tuple[A.OrderPlacement, ...]:
    if not isinstance(orders, list):
        raise ValueError("List the 2 starting orders as colour, value, building and spot")
    out = []
    for o in orders:
        if not isinstance(o, dict) or not {"color", "value", "building", "spot"} <= set(o):
            raise ValueError("Each starting order needs a colour, a value, a building and a spot")
        out.append(A.OrderPlacement(o["color"], o["value"], o["building"], o["spot"]))
    return tuple(out)


# --- words for the pages -------------------------------------------------------------------------


def choice_text(choice: A.Choice | None) -> str:
    """What a lift with this choice does, in a few words."""
    match choice:
        case None:
            return "forfeit the action"
        case A.Produce():
            return "produce"
        case A.Beam(cubes=cubes):
            return f"beam {len(cubes)} cube{'s' if len(cubes) != 1 else ''}"
        case A.Trade(orders=orders):
            return f"place {len(orders)} order{'s' if len(orders) != 1 else ''}"
        case A.Deliver(orders=orders):
            return "fulfil " + ", ".join(f"{d.color} {d.value}" for d in orders)
        case A.MoonTile(research=True):
            return "take the top tile"
        case A.MoonTile():
            return "put the top tile under the pile"
        case A.Build(building=b):
            return f"build onto {b}"
        case A.Upgrade():
            return "upgrade to stage III"
    return "act"


def _collected(p: PlayerState) -> str:
    """Collected counters with where they came from, e.g. "gray 1 (green), yellow 2 (red); bonus 2"."""
    text = ", ".join(f"{c.color} {c.value} ({c.source})" for c in p.collected) or "none"
    return text + (f"; bonus {', '.join(str(b) for b in p.bonus)}" if p.bonus else "")


def _timer_text(p: PlayerState, tm: Any) -> str:
    if tm.symbol is None:
        return "in front of the player"
    state = "sand running" if tm.running else "finished, waits to be lifted"
    return f"on {_symbol_label(p, tm.symbol, tm.destination)} ({state})"


def _control_center_panel(p: PlayerState, title: str) -> dict[str, Any]:
    rows = []
    for b in p.buildings:
        on = ", ".join(f"timer {t + 1}" for t, tm in enumerate(p.timers) if tm.symbol == b.id)
        rows.append([b.id, _TYPE[b.type], _ROMAN[b.stage], _contents(b), on])
    research = "empty" if p.research is None else f"{_TYPE[p.research.stage2.type]} II tile {p.research.id}"
    on = ", ".join(f"timer {t + 1}" for t, tm in enumerate(p.timers) if tm.symbol == RESEARCH)
    rows.append(["research", "research plant", "", research, on])
    return {
        "kind": "table",
        "title": title,
        "columns": ["Building", "Type", "Stage", "Spots", "Sandtimer"],
        "rows": rows,
    }


def _board_lines(game: GameState) -> list[str]:
    lines = []
    ships: dict[str, list[str]] = {}
    travelling = []
    for p in game.players:
        ships.setdefault(p.ship, []).append(p.name)
        for t, tm in enumerate(p.timers):
            if tm.symbol == SHIP and tm.destination:
                travelling.append(f"{p.name}'s ship flies {p.ship} \u2192 {tm.destination} (timer {t + 1})")
    for p, bonus in zip(game.players, game.planet_bonus, strict=True):
        here = f" \u00b7 ships: {', '.join(ships[p.planet])}" if p.planet in ships else ""
        extra = f" \u00b7 bonus counter {bonus}" if bonus is not None else ""
        lines.append(f"{p.planet} ({p.name}'s planet){extra}{here}")
    for moon, pile in zip(game.moons, game.piles, strict=True):
        here = f" \u00b7 ships: {', '.join(ships[moon])}" if moon in ships else ""
        tiles = f"{len(pile)} tiles" + (f", top: {_TYPE[pile[0].stage2.type]} II" if pile else "")
        lines.append(f"{moon}: {tiles}{here}")
    return lines + travelling


def describe(events: Iterable[Any], game: GameState) -> str:
    """The engine's events of one action, in words for the dashboard."""
    parts = []
    for e in events:
        match e:
            case A.StartingOrdersPlaced(player=p, orders=orders):
                parts.append(
                    f"{p} placed starting orders " + ", ".join(f"{o.color} {o.value}" for o in orders)
                )
            case A.GameStarted():
                parts.append("the game started")
            case A.TimerPlaced(player=p, timer=t, symbol=s, destination=d):
                who = game.player(p)
                label = _symbol_label(who, s, d) if who is not None else s
                parts.append(f"{p} timer {t + 1} \u2192 {label}")
            case A.SandRanThrough(player=p, timer=t):
                parts.append(f"{p} timer {t + 1}: sand ran through")
            case A.TimerLifted(player=p, timer=t, symbol=s):
                parts.append(f"{p} lifted timer {t + 1} from {s}")
            case A.ActionForfeited(player=p, symbol=s):
                parts.append(f"{p} forfeited the action of {s}")
            case A.TimerParked(player=p, timer=t):
                parts.append(f"{p} set timer {t + 1} aside")
            case A.ShipArrived(player=p, location=loc):
                owner = game.owner_of(loc)
                parts.append(f"{p}'s ship arrived at {loc}" + (f" ({owner.name}'s planet)" if owner else ""))
            case A.TileTaken(player=p, moon=m, tile=tile):
                parts.append(f"{p} took tile {tile} at {m} into the research plant")
            case A.TilePutUnder(player=p, moon=m, tile=tile):
                parts.append(f"{p} put tile {tile} under the pile at {m}")
            case A.OrderFulfilled(player=p, owner=o, color=c, value=v):
                parts.append(f"{p} fulfilled {o}'s {c} {v}")
            case A.BonusTaken(player=p, planet_owner=o, value=v):
                parts.append(f"{p} took the bonus counter ({v}) of {o}'s planet")
            case A.GoodsProduced(player=p, building=b, colors=cs):
                parts.append(f"{p} produced {', '.join(cs) or 'nothing'} on {b}")
            case A.GoodsBeamed(player=p, building=b, colors=cs):
                parts.append(f"{p} beamed {', '.join(cs) or 'nothing'} into {b}")
            case A.OrdersPlaced(player=p, orders=orders):
                parts.append(
                    f"{p} placed orders "
                    + (", ".join(f"{o.color} {o.value} on {o.building}" for o in orders) or "none")
                )
            case A.BuildingBuilt(player=p, building=b, tile=tile):
                parts.append(f"{p} built tile {tile} onto {b}")
            case A.BuildingUpgraded(player=p, building=b):
                parts.append(f"{p} upgraded {b} to stage III")
            case A.ClockRanOut():
                parts.append("the master clock ran out: running sandtimers may finish")
            case A.GameEnded():
                parts.append("every sandtimer is lifted: game over, final scoring")
    return "; ".join(parts)


# --- light mode ------------------------------------------------------------------------------------


def _light_step(state: LightState, action: dict[str, Any], note: str) -> Decision:
    return Decision(_light_replay(state, action), (action,), (note,))


def _light_replay(state: LightState, action: dict[str, Any]) -> LightState:
    kind = action.get("action")
    if kind == "light_start":
        return replace(state, phase=PHASE_RUNNING)
    if kind == "light_flip":
        return state.with_status(action["player"], action["timer"], "running")
    if kind == "light_ran_out":
        state = state.with_status(action["player"], action["timer"], "finished")
        return _light_maybe_over(state)
    if kind == "light_expired":
        return _light_maybe_over(replace(state, phase=PHASE_ENDING))
    if kind == "light_sheet":
        entries = state.entries()
        entries.update(action["players"])
        sheet = tuple((p, json.dumps(entries[p], sort_keys=True)) for p in state.players if p in entries)
        return replace(state, sheet=sheet)
    raise InvalidRecordError(f"the logged action {action} is not a light-mode action of Time 'n' Space")


def _light_maybe_over(state: LightState) -> LightState:
    if state.phase == PHASE_ENDING and all(s != "running" for *_, s in state.timers):
        return replace(state, phase=PHASE_OVER)
    return state


def _light_flip(state: LightState, seat: Seat, ran_out: bool) -> Step:
    t = seat.index - 1
    if state.phase == PHASE_SETUP:
        return Rejected(REASON_NOT_STARTED, PLAYING)
    if state.phase in (PHASE_ENDING, PHASE_OVER):
        return Rejected(REASON_CLOCK_OVER, END)
    status = state.status(seat.player, t)
    if not ran_out:
        return Rejected(REASON_NOT_THROUGH if status == "running" else REASON_FULL_SAND, GENERAL)
    return _light_step(
        state,
        {"action": "light_flip", "player": seat.player, "timer": t},
        f"{seat.player} timer {seat.index} started",
    )


def _light_sheet(state: LightState, sheet: Any) -> Step:
    if not isinstance(sheet, dict) or not isinstance(sheet.get("players"), dict) or not sheet["players"]:
        return Rejected(
            "The score sheet must list players with their collected, bonus and above counters", SCORING
        )
    given = sheet["players"]
    strangers = [p for p in given if p not in state.players]
    if strangers:
        return Rejected(f"{strangers[0]!r} does not play at this table ({', '.join(state.players)})", SCORING)
    entries = state.entries()
    entries.update(given)
    try:
        parse_record({"players": {p: entries.get(p, _EMPTY_ENTRY) for p in state.players}})
    except InvalidRecordError as exc:
        return Rejected(str(exc), SCORING)
    names = ", ".join(given)
    return _light_step(state, {"action": "light_sheet", "players": given}, f"score sheet entered for {names}")


def _light_view(state: LightState) -> View:
    running = [f"{p} timer {t + 1}" for p, t, s in state.timers if s == "running"]
    lines = [f"{p} timer {t + 1}: {s}" for p, t, s in state.timers]
    entered = [p for p, _ in state.sheet]
    missing = [p for p in state.players if p not in entered]
    sheet = [f"entered: {', '.join(entered) or 'nobody yet'}"]
    if missing:
        sheet.append(f"waiting for: {', '.join(missing)}")
    summary = f"Time 'n' Space, light mode (timers and scoring only): {_PHASE[state.phase]}" + (
        f" \u00b7 running: {', '.join(running)}" if running else ""
    )
    return View(
        summary,
        (
            {"kind": "lines", "title": "Sandtimers", "lines": lines},
            {"kind": "lines", "title": "Score sheet", "lines": sheet},
        ),
        {"phase": state.phase, "variant": "light"},
    )


def _light_player_view(state: LightState, player: str) -> View:
    mine = [f"Timer {t + 1}: {s}" for p, t, s in state.timers if p == player]
    entry = state.entries().get(player)
    lines = (
        [
            "Not entered yet: at the end, enter your collected counters, bonus counters and the "
            "counters still above your control center"
        ]
        if entry is None
        else [
            f"Collected: {_counts((c['color'], c['value']) for c in entry['collected'])}",
            f"Bonus counters: {', '.join(str(b) for b in entry['bonus']) or 'none'}",
            f"Still above: {_counts((c['color'], c['value']) for c in entry['above'])}",
        ]
    )
    form = {
        "kind": "counter-sheet",
        "title": "Enter my counters",
        "player": player,
        "others": [p for p in state.players if p != player],
        "colors": list(COLORS),
        "values": [1, 2, 3],
        "entry": entry if entry is not None else dict(_EMPTY_ENTRY),
        "action_type": "score-sheet",
    }
    return View(
        f"{player}: light mode, {_PHASE[state.phase]}",
        (
            {"kind": "lines", "title": "My sandtimers", "lines": mine},
            {"kind": "lines", "title": "My score sheet", "lines": lines},
            form,
        ),
    )
