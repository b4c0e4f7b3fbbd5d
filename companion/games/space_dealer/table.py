"""Space Dealer at a hub table: the referee between the sandtimer nodes, the phones and the engine.

How a table plays it (see "On the hub" in docs/games/space-dealer.md):

* Every player has 2 sandtimer nodes (timer 1 and 2 at the table, 0 and 1 in the engine).
  Before a flip the player taps a job for that timer on their phone (an *intent*:
  ``{"job": {...}}`` with a job in the JSON of :mod:`record`: ``RaiseTechLevel``,
  ``BuildCard`` with ``card`` and ``x``, ``UseCard``, ``MoveShip``, ``DiscardCard``).
  Flipping the run-out node starts that job (``StartJob``); the node shows accepted, or
  rejected with the engine's reason. When the node's sand has run through, the engine's
  ``TimerRanOut`` applies the effect (nothing, when the timer was sabotaged).
* The master clock starting starts the game (no flips or free actions before it); the
  master clock running out is ``MasterClockExpired``. Placing one's last victory-point
  marker also ends the game; running timers still complete, then the score is final.
* Free actions are phone taps posting engine actions in the same JSON, without the acting
  player (the referee fills it in) and with table timer numbers (1, 2, 3):
  ``{"type": "Sabotage", "target_player": "red", "target_timer": 1}``. A sabotage lights
  the target node red (``show``) until its sand has run out.
* Building a Robot Factory gives the player a third timer: the referee asks the hub for one
  more node (``Decision.add_seat``); the next unseated node flipped becomes timer 3.

Logged actions are engine actions in the JSON of :func:`record.action_to_json` (so the
log is a game record for ``companion referee space-dealer``), plus two bookkeeping
actions: ``{"type": "table_started"}`` (the master clock started the game) and
``{"type": "timer_node", "player", "timer", "node"}`` (the node of a timer that joined
during the game, learnt from its first report).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import ConfigError, InvalidRecordError
from companion.games.base import Rejected
from companion.games.space_dealer import actions as A
from companion.games.space_dealer.engine import (
    NEUTRAL_SHIP_IDS,
    R_BUILD,
    R_END,
    R_JOB,
    R_SETUP,
    SetupError,
    Start,
    apply,
    final_score,
    planning_capacity,
    site_problem,
    timer_limit,
)
from companion.games.space_dealer.engine import setup as new_game
from companion.games.space_dealer.record import (
    ACTION_TYPES,
    JOB_TYPES,
    _decode,
    action_from_json,
    action_to_json,
)
from companion.games.space_dealer.state import GameState, Goods, Phase, PlayerState, Timer, TimerStatus
from companion.table.referee import Decision, MenuItem, Step, View
from companion.table.state import Seat, TableSetup

GAME = "space-dealer"
VARIANTS = ("experienced", "basic")
R_START = "rulebook 2, Setup: the game starts with the 30-minute timer"
R_FACTORY = "rulebook 5.1b, Robot Factory"
LAST_NOTES = 8

PHONE_TYPES = tuple(t for t in ACTION_TYPES if t not in ("StartJob", "TimerRanOut", "MasterClockExpired"))
"""Engine actions a phone may post (jobs start with a flip, time facts come from the timers)."""
ACTOR = {"Sabotage": "attacker", "LaunchRocket": "attacker"}
"""The field naming the acting player, where it is not ``player``."""
TIMER_FIELDS = {"Sabotage": "target_timer", "PlaceBuiltCard": "timer", "AbandonJob": "timer"}
"""Fields holding a timer number: 1-based on phones, 0-based in the engine and the log."""

PHASE_TEXT = {
    Phase.RUNNING: "running",
    Phase.ENDING: "ended: running timers complete",
    Phase.OVER: "game over",
}


@dataclass(frozen=True)
class DealerTable:
    """The game as the hub keeps it: the engine state plus the table's bookkeeping."""

    game: GameState
    started: bool = False
    """The master clock has started the game."""
    nodes: tuple[tuple[str, int, str], ...] = ()
    """(player, timer number, node) of every sandtimer the referee knows."""
    starts: tuple[tuple[str, str, str], ...] = ()
    """(player, Generator side, colour of the first Mine): the secret start choices made before the clock."""
    seats_asked: tuple[tuple[str, int], ...] = ()
    """(player, timer number) the referee asked the hub to pair a node for (Robot Factories)."""
    last: tuple[str, ...] = ()
    """The latest happenings, oldest first, for the pages."""

    def node_of(self, player: str, index: int) -> str | None:
        return next((n for p, i, n in self.nodes if (p, i) == (player, index)), None)


def table_referee(setup: TableSetup) -> SpaceDealerReferee:
    """The Space Dealer referee of a hub table (``companion.table.referee.referee_for`` calls this)."""
    return SpaceDealerReferee(setup)


# --- words -----------------------------------------------------------------------------------


def goods_text(goods: Goods) -> str:
    return ", ".join(f"{n} {c}" for c, n in goods.items) or "none"


def card_text(game: GameState, card: str) -> str:
    """ "red Mine", "Robot Factory"."""
    c = game.cards.get(card)
    if c is None:
        return card
    return f"{c.colour} {c.type}" if c.colour else c.type


def order_text(game: GameState, card: str) -> str:
    """ "red+blue for 3/1"."""
    spec = game.order_cards.get(card)
    if spec is None:
        c = game.cards.get(card)
        spec = c.order if c is not None else None
    if spec is None:
        return "-"
    want = "+".join(f"{n} {c}" if n > 1 else c for c, n in spec.goods)
    return f"{want} for {'/'.join(str(p) for p in spec.points)}"


def field_text(game: GameState, field: int | None) -> str:
    if field is None:
        return "in flight"
    owner = game.field_owner(field)
    return f"field {field} ({owner}'s planet)" if owner else f"field {field} (neutral planet)"


def site_text(game: GameState, card: str, x: int | None) -> str:
    if x is None:
        return "(site chosen later)"
    if game.card_type(card).layout == "plant":
        return "left of the planet" if x < 0 else "right of the planet"
    return f"at unit {x}"


def job_text(game: GameState, job: A.Job | None) -> str:
    if job is None:
        return "-"
    if isinstance(job, A.RaiseTechLevel):
        return "raise the tech level"
    if isinstance(job, A.BuildCard):
        return f"build {card_text(game, job.card)} {site_text(game, job.card, job.x)}"
    if isinstance(job, A.DiscardCard):
        return f"discard {card_text(game, job.card)}"
    if isinstance(job, A.MoveShip):
        ship = "spaceship" if job.ship not in NEUTRAL_SHIP_IDS else "neutral spaceship"
        return f"fly the {ship} to {field_text(game, job.to)}"
    text = f"use {card_text(game, job.card)}"
    if job.colour:
        text += f" ({job.colour})"
    if job.exchanges:
        text += " (" + ", ".join(f"{g} for {t}" for g, t in job.exchanges) + ")"
    return text


def timer_text(game: GameState, timer: Timer) -> str:
    if timer.status is TimerStatus.INACTIVE:
        return "free"
    if timer.status is TimerStatus.USABLE:
        return f"done: {job_text(game, timer.job)}, choose a build site"
    text = f"running: {job_text(game, timer.job)}"
    if timer.sabotaged_by:
        text += f" \u00b7 SABOTAGED by {timer.sabotaged_by}"
    elif timer.clears_block:
        text += " \u00b7 only clears the rocket block"
    return text


def describe(game: GameState, events: Iterable[A.Event]) -> list[str]:
    """The engine's events in words for the dashboard."""
    out: list[str] = []
    for e in events:
        d, who = e.details, e.player or ""
        match e.kind:
            case "CardPlanned":
                out.append(f"{who} planned {card_text(game, d['card'])}")
            case "CardsDrawn":
                out.append(f"{who} drew 2 TechLevel {d['level']} cards")
            case "CardKept":
                out.append(f"{who} kept {card_text(game, d['card'])}")
            case "CardBuilt":
                out.append(f"{who} built {card_text(game, d['card'])}")
            case "CardBuiltOver":
                out.append(f"{who}'s {card_text(game, d['card'])} was built over")
            case "CardDiscarded":
                out.append(f"{who} discarded {card_text(game, d['card'])}")
            case "CardGiven":
                out.append(f"{who} gave {card_text(game, d['card'])} to {d['to']}")
            case "CardsTraded":
                out.append(
                    f"{who} traded {card_text(game, d['gave'])} for {d['with']}'s {card_text(game, d['got'])}"
                )
            case "BuildWaiting":
                out.append(f"{who}'s {card_text(game, d['card'])} waits for a build site")
            case "JobStarted":
                out.append(f"{who} timer {d['timer'] + 1} started")
            case "JobVoided":
                out.append(f"{who} timer {d['timer'] + 1} ran out sabotaged by {d['by']}: no effect")
            case "JobAbandoned":
                out.append(f"{who} gave up the job of timer {d['timer'] + 1}")
            case "JobFizzled":
                out.append(f"{who}'s job had no effect" + (f" ({d['why']})" if d.get("why") else ""))
            case "TimerAdded":
                out.append(f"{who} now has {d['timers']} timers")
            case "ShipLaunched":
                out.append(f"{d['ship']} spaceship left field {d['from']} for field {d['to']}")
            case "ShipLanded":
                out.append(f"{d['ship']} spaceship landed at {field_text(game, d['field'])}")
            case "ShipRecalled":
                out.append(f"{d['ship']} spaceship's flight was called off")
            case "NeutralShipTaken":
                out.append(f"{who} took the neutral spaceship")
            case "TechLevelRaised":
                out.append(f"{who} reached tech level {d['level']}")
            case "GoodsProduced":
                out.append(
                    f"{who} produced {d['colour']}" + (f" ({d['lost']} lost)" if d.get("lost") else "")
                )
            case "GoodsConverted":
                out.append(
                    f"{who} converted " + (", ".join(f"{g} to {t}" for g, t in d["exchanges"]) or "nothing")
                )
            case "GoodsSent":
                out.append(f"{who}'s Transport Probe sent {goods_text(Goods.of(d['goods']))}")
            case "GoodsTransferred":
                out.append(f"{who} moved {goods_text(Goods.of(d['goods']))}")
            case "GoodsReturned":
                out.append(f"{who} returned {goods_text(Goods.of(d['goods']))} to the pool")
            case "GoodsLost":
                out.append(f"{who} lost {goods_text(Goods.of(d['goods']))}")
            case "OrderSatisfied":
                where = f"{d['owner']}'s planet" if d.get("owner") else "a neutral planet"
                out.append(f"{who} satisfied an order at {where} (+{d['points'][0]})")
            case "OrderRevealed":
                out.append(f"new order at field {d['field']}: {order_text(game, d['order'])}")
            case "TimerSabotaged":
                out.append(f"{who} sabotaged {d['target']}'s timer {d['timer'] + 1}")
            case "SpaceBlocked":
                out.append(f"{who}'s rocket blocks {d['target']}'s {card_text(game, d['card'])}")
            case "BlockCleared":
                out.append(f"{who} cleared the rocket block on {card_text(game, d['card'])}")
            case "AttackMarkerLoaded":
                out.append(f"{who} loaded an attack marker on {card_text(game, d['card'])}")
            case "GameEnded":
                out.append(f"the game ends: {d['reason']}")
            case "GameOver":
                out.append("game over: every timer has run out")
            case "TimerRanOut" | "OrderRedrawn":
                pass
            case _:
                out.append(f"{who}: {e.kind}")
    return out


def _keep(last: tuple[str, ...], notes: Iterable[str]) -> tuple[str, ...]:
    return (last + tuple(n for n in notes if n))[-LAST_NOTES:]


def _phone(action: Any) -> dict[str, Any]:
    """An engine action as a phone posts it: no acting player, table timer numbers."""
    raw = action_to_json(action)
    kind = raw["type"]
    raw.pop(ACTOR.get(kind, "player"), None)
    if kind in TIMER_FIELDS:
        raw[TIMER_FIELDS[kind]] += 1
    return raw


# --- the referee -------------------------------------------------------------------------------


class SpaceDealerReferee:
    """Space Dealer refereed at a hub table (see the module docstring)."""

    game = GAME

    def __init__(self, setup: TableSetup, *, game: GameState | None = None) -> None:
        """``game`` replaces the seeded setup (tests, or a table laid out by hand)."""
        variant = (setup.variant or "experienced").strip().lower()
        if variant not in VARIANTS:
            raise ConfigError(f"Space Dealer has no variant {setup.variant!r}; choose experienced or basic")
        for seat in setup.seats:
            if not 1 <= seat.index <= 3:
                raise ConfigError(
                    f"node {seat.node} is timer {seat.index} of {seat.player}, but a Space Dealer "
                    "player has 2 timers, and a third one with a Robot Factory"
                )
        self.setup = setup
        self.experienced = variant == "experienced"
        self._game = game
        self.seated = {(s.player, s.index) for s in setup.seats}
        self.start(setup)  # a player count or names the game cannot take fail now, as a ConfigError

    # --- start and replay ----------------------------------------------------------------
    def start(self, setup: TableSetup) -> DealerTable:
        if self._game is not None:
            game = self._game
        else:
            try:
                game = new_game(list(setup.players), seed=setup.seed, experienced=self.experienced)
            except SetupError as exc:
                raise ConfigError(f"Space Dealer cannot start at this table: {exc}") from None
        nodes = tuple((s.player, s.index, s.node) for s in setup.seats)
        return DealerTable(game, nodes=nodes)

    def replay(self, state: DealerTable, action: dict[str, Any]) -> DealerTable:
        step = self._step(state, action)
        if isinstance(step, Rejected):
            raise InvalidRecordError(f"a logged Space Dealer action cannot be replayed: {step}")
        return step[0]

    def _step(
        self, state: DealerTable, action: dict[str, Any]
    ) -> tuple[DealerTable, list[str], tuple[str, int] | None] | Rejected:
        """Apply one logged action: (new state, notes, a seat to ask for). The only place the state changes."""
        kind = action.get("type")
        if kind == "start_choice":
            return self._start_choice(state, action)
        if kind == "table_started":
            note = "the master clock started: the game is on"
            return replace(state, started=True, last=_keep(state.last, [note])), [note], None
        if kind == "timer_node":
            entry = (str(action["player"]), int(action["timer"]), str(action["node"]))
            if state.node_of(entry[0], entry[1]) is not None:
                return state, [], None
            return replace(state, nodes=state.nodes + (entry,)), [], None
        try:
            engine_action = action_from_json(action)
        except InvalidRecordError as exc:
            return Rejected(str(exc), R_JOB)
        outcome = apply(state.game, engine_action)
        if isinstance(outcome, Rejected):
            return outcome
        game = outcome.state
        notes = describe(game, outcome.events)
        asked = None
        for e in outcome.events:
            if e.kind != "TimerAdded" or e.player is None:
                continue
            for index in range(3, e.details["timers"] + 1):
                key = (e.player, index)
                if key not in self.seated and key not in state.seats_asked and asked is None:
                    asked = key
        seats_asked = state.seats_asked + ((asked,) if asked else ())
        if asked:
            notes.append(f"{asked[0]}: flip a new sandtimer to pair it as timer {asked[1]}")
        return replace(state, game=game, seats_asked=seats_asked, last=_keep(state.last, notes)), notes, asked

    def _start_choice(
        self, state: DealerTable, action: dict[str, Any]
    ) -> tuple[DealerTable, list[str], None] | Rejected:
        """A player's secret start (rulebook 2): the table is set up again with every choice made so far."""
        if state.started:
            return Rejected("The Generator and the first Mine are chosen before the game starts", R_SETUP)
        if self._game is not None:
            return Rejected("This table was laid out by hand: its start cannot be chosen again", R_SETUP)
        player, side, mine = action.get("player"), action.get("side", "left"), action.get("mine", "")
        if not all(isinstance(v, str) for v in (player, side, mine)):
            return Rejected(
                "A start choice names the Generator's side and the colour of the first Mine", R_SETUP
            )
        starts = tuple(c for c in state.starts if c[0] != player) + ((player, side, mine),)
        try:
            game = new_game(
                list(self.setup.players),
                seed=self.setup.seed,
                experienced=self.experienced,
                starts={p: Start(side=sd, mine=m) for p, sd, m in starts},
            )
        except SetupError as exc:
            return Rejected(str(exc).removesuffix(f" ({R_SETUP})"), R_SETUP)
        note = f"{player} chose where to start"
        return replace(state, game=game, starts=starts, last=_keep(state.last, [note])), [note], None

    def _run(self, state: DealerTable, actions: Iterable[Any]) -> Step:
        """Apply actions (engine actions or bookkeeping JSON) in order: all of them, or a rejection."""
        logged: list[dict[str, Any]] = []
        notes: list[str] = []
        add_seat = None
        was_running = state.game.phase is Phase.RUNNING
        for action in actions:
            raw = action if isinstance(action, dict) else action_to_json(action)
            step = self._step(state, raw)
            if isinstance(step, Rejected):
                return step
            state, said, asked = step
            logged.append(raw)
            notes.append("; ".join(said))
            add_seat = asked or add_seat
        # the last victory-point marker ends the game at once: the master clock stops too (rulebook 4)
        ended = (
            "a player placed their last victory-point marker"
            if (was_running and state.game.phase is not Phase.RUNNING)
            else ""
        )
        return Decision(state, tuple(logged), tuple(notes), add_seat=add_seat, end_clock=ended)

    @staticmethod
    def _learn(state: DealerTable, seat: Seat) -> list[dict[str, Any]]:
        """A bookkeeping action recording a node the referee did not know yet (a seat added in the game)."""
        if state.node_of(seat.player, seat.index) == seat.node:
            return []
        return [{"type": "timer_node", "player": seat.player, "timer": seat.index, "node": seat.node}]

    def timer_label(self, state: DealerTable, seat: Seat) -> str:
        """The job a sandtimer runs, for the dashboard."""
        player = state.game.player(seat.player)
        if player is None:
            return ""
        timer = next((t for t in player.timers if t.index == seat.index - 1), None)
        if timer is None or timer.job is None:
            return ""
        label = job_text(state.game, timer.job)
        return f"{label} (sabotaged)" if timer.sabotaged_by else label

    # --- time facts --------------------------------------------------------------------------
    def clock_started(self, state: DealerTable) -> Step:
        if state.started:
            return Decision(state)
        return self._run(state, [{"type": "table_started"}])

    def clock_expired(self, state: DealerTable) -> Step:
        if state.game.phase is not Phase.RUNNING:
            return Decision(state)
        return self._run(state, [A.MasterClockExpired()])

    def timer_emptied(self, state: DealerTable, seat: Seat) -> Step:
        actions: list[Any] = self._learn(state, seat)
        p = state.game.player(seat.player)
        t = seat.index - 1
        if p is not None and t < len(p.timers) and p.timers[t].status is TimerStatus.ACTIVE:
            actions.append(A.TimerRanOut(seat.player, t))
        step = self._run(state, actions)
        return step if isinstance(step, Decision) else Decision(state)

    # --- a node was flipped -------------------------------------------------------------------
    def timer_flipped(
        self, state: DealerTable, seat: Seat, *, intent: dict[str, Any] | None, ran_out: bool
    ) -> Step:
        if not state.started:
            return Rejected(
                "The game has not started: the sandtimers wait, run out, until the master clock starts",
                R_START,
            )
        game = state.game
        name, n, t = seat.player, seat.index, seat.index - 1
        p = game.player(name)
        if p is None:
            return Rejected(f"{name} does not play in this game", R_SETUP)
        if game.phase is not Phase.RUNNING:
            return Rejected("The game has ended; no new jobs can be assigned, running timers complete", R_END)
        if t >= len(p.timers) or t >= timer_limit(game, p):
            return Rejected(
                f"Timer {n} works only while you have a Robot Factory built: it gives you one more timer",
                R_FACTORY,
            )
        actions: list[Any] = self._learn(state, seat)
        timer = p.timers[t]
        if timer.status is TimerStatus.ACTIVE:
            if not ran_out:
                return Rejected(
                    f"Timer {n} is still running its job: let the sand run through, then give it a new job",
                    R_JOB,
                )
            actions.append(A.TimerRanOut(name, t))  # the node says its sand ran out; its report was missed
            done = apply(game, actions[-1])
            if isinstance(done, Rejected):
                return done
            timer = done.state.player(name).timers[t]  # type: ignore[union-attr]
        elif not ran_out:
            return Rejected(
                f"Let the sand of timer {n} run through before you flip it again: only an inactive, "
                "run-out timer takes a job",
                R_JOB,
            )
        if timer.status is TimerStatus.USABLE:
            card = timer.job.card if isinstance(timer.job, A.BuildCard) else ""
            return Rejected(
                f"Timer {n} still holds the finished build of {card_text(game, card)}: choose its build "
                "site (or give the build up) on your phone first",
                R_BUILD,
            )
        raw = (intent or {}).get("job")
        if raw is None:
            return Rejected(f"Choose a job for timer {n} on your phone before you flip it", R_JOB)
        try:
            job = _decode(raw, JOB_TYPES, "the job")
        except InvalidRecordError as exc:
            return Rejected(str(exc), R_JOB)
        actions.append(A.StartJob(name, t, job))
        return self._run(state, actions)

    # --- phones ----------------------------------------------------------------------------------
    def player_action(self, state: DealerTable, player: str, action: dict[str, Any]) -> Step:
        if not isinstance(action, dict):
            return Rejected('An action is an object with a "type"', R_JOB)
        kind = action.get("type")
        if kind == "start_choice":
            return self._run(state, [dict(action, player=player)])
        if not state.started:
            return Rejected("The game has not started: start the master clock first", R_START)
        if kind in ("StartJob", "TimerRanOut", "MasterClockExpired"):
            return Rejected(
                "Jobs start by flipping a sandtimer, and time comes from the timers and the master clock",
                R_JOB,
            )
        if kind not in PHONE_TYPES:
            return Rejected(f"Unknown action {kind!r}: choose one of the buttons", R_JOB)
        raw = dict(action)
        actor = ACTOR.get(kind, "player")
        if raw.get(actor, player) != player:
            return Rejected("You can only act for yourself", R_JOB)
        raw[actor] = player
        if kind in TIMER_FIELDS:
            number = raw.get(TIMER_FIELDS[kind])
            if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                return Rejected("Name the timer by its number at the table: 1, 2 or 3", R_JOB)
            raw[TIMER_FIELDS[kind]] = number - 1
        step = self._run(state, [raw])
        if isinstance(step, Decision) and kind == "Sabotage":
            node = state.node_of(raw["target_player"], raw["target_timer"] + 1)
            if node is not None:
                step = replace(step, show=((node, "sabotaged"),))
        return step

    # --- menus --------------------------------------------------------------------------------
    def menu(self, state: DealerTable, player: str, *, intents: dict[str, dict[str, Any]]) -> list[MenuItem]:
        game = state.game
        me = game.player(player)
        if me is None or game.phase is Phase.OVER:
            return []
        if not state.started:
            return self._start_items(state, me)
        items: list[MenuItem] = []
        if game.phase is Phase.RUNNING:
            for t in range(len(me.timers)):
                node = state.node_of(player, t + 1)
                if node is not None and t < timer_limit(game, me):
                    items += self._job_items(game, me, t, node, intents.get(node))
        for t, timer in enumerate(me.timers):
            if timer.status is TimerStatus.USABLE and isinstance(timer.job, A.BuildCard):
                items += self._place_items(game, me, t, timer.job.card)
        if game.phase is Phase.RUNNING:
            items += self._free_items(game, me)
        return items

    def _start_items(self, state: DealerTable, me: PlayerState) -> list[MenuItem]:
        """Before the clock: the secret start choice, Generator side and first Mine (rulebook 2)."""
        if self._game is not None:
            return []
        game = state.game
        chosen = next(((sd, m) for p, sd, m in state.starts if p == me.name), None)
        first = game.cards[me.built[0].card].colour if me.built else ""
        current = chosen or ("left", first)
        colours = sorted(
            {
                game.cards[c].colour
                for c in (*me.stack, *(b.card for b in me.built))
                if game.cards[c].type == "Mine"
            }
        )
        group = "Start (secret until the clock starts): Generator and first Mine"
        return [
            MenuItem(
                f"start:{side}:{colour}",
                f"Generator {side}, {colour} Mine",
                group,
                action={"type": "start_choice", "side": side, "mine": colour},
                selected=(side, colour) == current,
            )
            for side in ("left", "right")
            for colour in colours
        ]

    def _job_items(
        self, game: GameState, me: PlayerState, t: int, node: str, intent: dict[str, Any] | None
    ) -> list[MenuItem]:
        """The jobs timer ``t`` could take now (when it is running: once it has run out)."""
        timer = me.timers[t]
        base = game
        if timer.status is TimerStatus.USABLE:
            return []
        if timer.status is TimerStatus.ACTIVE:
            done = apply(game, A.TimerRanOut(me.name, t))
            if isinstance(done, Rejected) or done.state.phase is not Phase.RUNNING:
                return []
            base = done.state
        me = base.player(me.name)  # type: ignore[assignment]
        chosen = (intent or {}).get("job")
        group = f"Timer {t + 1}: next job"
        items: list[MenuItem] = []
        for job in self._candidate_jobs(base, me):
            if isinstance(apply(base, A.StartJob(me.name, t, job)), Rejected):
                continue
            raw = action_to_json(job)
            key = ":".join(str(v) for v in raw.values() if not isinstance(v, (list, dict)))
            items.append(
                MenuItem(
                    f"t{t + 1}:{key}",
                    job_text(base, job),
                    group,
                    intent={"node": node, "job": raw},
                    selected=raw == chosen,
                )
            )
        return items

    @staticmethod
    def _candidate_jobs(game: GameState, me: PlayerState) -> list[A.Job]:
        jobs: list[A.Job] = [A.RaiseTechLevel()]
        low, high = game.data.x_range
        for card in me.planning:
            sites = (-2, 2) if game.card_type(card).layout == "plant" else range(low, high + 1)
            good = [x for x in sites if site_problem(game, me, card, x) is None]
            jobs += [A.BuildCard(card, x) for x in good[:8]]
        for b in me.built:
            t = game.card_type(b.card)
            if b.covered or not t.timer:
                continue
            if t.kind == "mine" and t.colour == "any" and b.blocked_by is None:
                jobs += [A.UseCard(b.card, colour=c) for c in game.data.colours]
            elif t.kind == "converter" and b.blocked_by is None:
                colours = game.data.colours
                jobs += [A.UseCard(b.card, exchanges=((g, k),)) for g in colours for k in colours if g != k]
            else:
                jobs.append(A.UseCard(b.card))
        for ship in game.ships:
            if ship.controller != me.name or ship.field is None:
                continue
            ring = game.ring_size
            targets = range(ring) if not ship.cargo else {(ship.field - 1) % ring, (ship.field + 1) % ring}
            jobs += [A.MoveShip(ship.id, f) for f in sorted(targets) if f != ship.field]
        if game.experienced:
            jobs += [A.DiscardCard(card) for card in me.planning]
        return jobs

    @staticmethod
    def _offer(game: GameState, items: list[MenuItem], action: Any, label: str, group: str) -> None:
        if isinstance(apply(game, action), Rejected):
            return
        raw = _phone(action)
        key = ":".join(str(v) for v in raw.values() if not isinstance(v, (list, dict)))
        extra = ":".join(f"{k}={v}" for k, v in raw.items() if isinstance(v, dict))
        items.append(MenuItem(f"{key}{':' + extra if extra else ''}", label, group, action=raw))

    def _place_items(self, game: GameState, me: PlayerState, t: int, card: str) -> list[MenuItem]:
        items: list[MenuItem] = []
        group = f"Timer {t + 1}: place {card_text(game, card)}"
        low, high = game.data.x_range
        sites = (-2, 2) if game.card_type(card).layout == "plant" else range(low, high + 1)
        for x in sites:
            self._offer(
                game, items, A.PlaceBuiltCard(me.name, t, x), f"build {site_text(game, card, x)}", group
            )
        self._offer(game, items, A.AbandonJob(me.name, t), "give the build up", group)
        return items

    def _free_items(self, game: GameState, me: PlayerState) -> list[MenuItem]:
        items: list[MenuItem] = []
        name = me.name

        def offer(action: Any, label: str, group: str) -> None:
            self._offer(game, items, action, label, group)

        for card in me.stack:
            offer(A.PlayCard(name, card), f"plan {card_text(game, card)}", "Plan a card")
        if me.pending_draw is not None:
            for card in me.pending_draw[1]:
                offer(A.KeepDrawnCard(name, card), f"keep {card_text(game, card)}", "Keep one drawn card")
        else:
            for level in (2, 3):
                offer(A.DrawTechCards(name, level), f"draw 2 TechLevel {level} cards", "Plan a card")
        ships = [s for s in game.ships if s.controller == name and s.field is not None]
        for ship in ships:
            mine = A.InShip(ship.id)
            here = ship.field
            label = "ship" if ship.id == name else f"{ship.id} ship"
            owner = game.field_owner(here)  # type: ignore[arg-type]
            targets: list[tuple[Any, str]] = []
            if owner == name:
                targets.append((A.InDepot(name), "Depot"))
                targets += [
                    (A.OnProbe(name, b.card), "Transport Probe")
                    for b in me.built
                    if game.card_type(b.card).kind == "transport" and not b.covered
                ]
            neutral = game.neutral_at(here)  # type: ignore[arg-type]
            if neutral is not None and game.experienced:
                targets.append((A.AtNeutralPlanet(here), "neutral planet"))  # type: ignore[arg-type]
            targets += [
                (A.InShip(s.id), f"{s.controller or s.id}'s ship")
                for s in game.ships
                if s.field == here and s.id != ship.id
            ]
            for colour, _ in ship.cargo.items:
                one = Goods.of({colour: 1})
                for target, where in targets:
                    offer(
                        A.TransferGoods(name, mine, target, one),
                        f"{label} \u2192 {where}: 1 {colour}",
                        "Goods",
                    )
                offer(A.ReturnGoods(name, mine, one), f"{label}: return 1 {colour} to the pool", "Goods")
            if ship.cargo and targets:
                offer(
                    A.TransferGoods(name, mine, targets[0][0], ship.cargo),
                    f"{label} \u2192 {targets[0][1]}: all",
                    "Goods",
                )
            for source, where in targets:
                if isinstance(source, A.InShip):
                    continue
                held = _held(game, source)
                for colour, _ in held.items:
                    offer(
                        A.TransferGoods(name, source, mine, Goods.of({colour: 1})),
                        f"{where} \u2192 {label}: 1 {colour}",
                        "Goods",
                    )
            if owner is not None and owner != name:
                for b in game.player(owner).built:  # type: ignore[union-attr]
                    if game.cards[b.card].order is not None:
                        offer(
                            A.SatisfyOrder(name, ship.id, b.card),
                            f"deliver {order_text(game, b.card)} ({owner}'s {card_text(game, b.card)})",
                            "Orders",
                        )
            if neutral is not None and neutral.order is not None:
                offer(
                    A.SatisfyOrder(name, ship.id, neutral.order),
                    f"deliver {order_text(game, neutral.order)} (neutral order)",
                    "Orders",
                )
        others = [q for q in game.players if q.name != name]
        for q in others:
            for t, timer in enumerate(q.timers):
                if timer.status is TimerStatus.ACTIVE:
                    offer(
                        A.Sabotage(name, q.name, t),
                        f"sabotage {q.name}'s timer {t + 1} ({job_text(game, timer.job)})",
                        "Attack",
                    )
            for b in q.built:
                if game.card_type(b.card).timer and not b.covered:
                    offer(
                        A.LaunchRocket(name, q.name, b.card),
                        f"rocket on {q.name}'s {card_text(game, b.card)}",
                        "Attack",
                    )
        for card in me.planning:
            for q in others:
                offer(
                    A.GiveCard(name, q.name, card),
                    f"give {card_text(game, card)} to {q.name}",
                    "Give or trade cards (by agreement)",
                )
                for theirs in q.planning:
                    offer(
                        A.TradeCards(name, card, q.name, theirs),
                        f"trade {card_text(game, card)} for {q.name}'s {card_text(game, theirs)}",
                        "Give or trade cards (by agreement)",
                    )
        return items

    # --- pages ---------------------------------------------------------------------------------
    def _summary(self, state: DealerTable) -> str:
        game = state.game
        kind = "experienced rules" if game.experienced else "basic game"
        if not state.started:
            return f"Space Dealer ({kind}): waiting for the master clock"
        score = final_score(game)
        points = ", ".join(f"{n} {s.total}" for n, s in score.players.items())
        if game.phase is Phase.OVER:
            return f"Space Dealer: game over \u00b7 {' and '.join(score.winners)} win{'s' if len(score.winners) == 1 else ''} \u00b7 {points}"
        return f"Space Dealer ({kind}): {PHASE_TEXT[game.phase]} \u00b7 {points}"

    def _ring_panel(self, game: GameState) -> dict[str, Any]:
        """The orbital ring, which is also the victory-point track: markers and ships on each field."""
        rows = []
        for field in range(game.ring_size):
            owner = game.field_owner(field)
            ships = [s.id for s in game.ships if s.field == field]
            ships += [f"{s.id} (arriving)" for s in game.ships if s.destination == field]
            if owner is not None:
                done = [o for o in game.satisfied if o.owner == owner]
                markers = ", ".join(o.by for o in done) or "-"
                built = game.player(owner).built  # type: ignore[union-attr]
                open_orders = [
                    b.card
                    for b in built
                    if game.cards[b.card].order is not None and all(o.order != b.card for o in game.satisfied)
                ]
                orders = "; ".join(order_text(game, c) for c in open_orders) or "-"
                rows.append([field, f"{owner}'s planet", ", ".join(ships) or "-", markers, orders])
            else:
                planet = game.neutral_at(field)
                order = order_text(game, planet.order) if planet and planet.order else "-"
                goods = f" \u00b7 goods left: {goods_text(planet.goods)}" if planet and planet.goods else ""
                rows.append([field, "neutral planet", ", ".join(ships) or "-", "-", order + goods])
        return {
            "kind": "table",
            "title": "Orbital ring (victory-point track)",
            "columns": ["Field", "Planet", "Ships", "Markers", "Open orders"],
            "rows": rows,
        }

    def _ring_picture(self, game: GameState) -> dict[str, Any]:
        """The same ring as a picture for the dashboard (panel kind ``ring``): markers and ships per field."""
        fields = []
        for field in range(game.ring_size):
            owner = game.field_owner(field)
            markers = [o.by for o in game.satisfied if owner is not None and o.owner == owner]
            fields.append(
                {
                    "label": str(field),
                    "owner": owner,
                    "markers": markers,
                    "ships": [s.id for s in game.ships if s.field == field],
                    "arriving": [s.id for s in game.ships if s.destination == field],
                }
            )
        return {
            "kind": "ring",
            "title": "Victory-point track",
            "players": [p.name for p in game.players],
            "fields": fields,
        }

    def _score_panel(self, game: GameState) -> dict[str, Any]:
        score = final_score(game)
        rows = []
        for rank, n in enumerate(score.ranking, start=1):
            p = game.player(n)
            placed = p.markers_placed if p else 0
            rows.append([rank, n, score.players[n].total, placed, game.data.placeable_markers - placed])
        return {
            "kind": "table",
            "title": "Victory points",
            "columns": ["#", "Player", "Points", "Markers placed", "Markers left"],
            "rows": rows,
        }

    def _attack_lines(self, game: GameState) -> list[str]:
        lines = []
        for p in game.players:
            for t, timer in enumerate(p.timers):
                if timer.sabotaged_by:
                    lines.append(
                        f"{p.name}'s timer {t + 1} sabotaged by {timer.sabotaged_by}: runs out with no effect"
                    )
            for b in p.built:
                if b.blocked_by:
                    lines.append(f"{p.name}'s {card_text(game, b.card)} blocked by {b.blocked_by}'s rocket")
                if b.attack_markers:
                    lines.append(
                        f"{p.name}'s {card_text(game, b.card)} holds {b.attack_markers} attack marker(s)"
                    )
        return lines or ["no attacks"]

    def view(self, state: DealerTable) -> View:
        game = state.game
        rows = []
        for p in game.players:
            ship = game.ship(p.name)
            depot = next(
                (b for b in p.built if game.card_type(b.card).kind == "storage" and not b.covered), None
            )
            timers = "; ".join(f"{t + 1}: {timer_text(game, tm)}" for t, tm in enumerate(p.timers))
            rows.append(
                [
                    p.name,
                    p.tech_level,
                    timers,
                    ", ".join(card_text(game, c) for c in p.planning) or "-",
                    len(p.stack),
                    f"{field_text(game, ship.field if ship else None)}: {goods_text(ship.cargo if ship else Goods())}",
                    goods_text(depot.stored) if depot else "-",
                ]
            )
        built = [f"{p.name}: " + "; ".join(_built_text(game, p)) for p in game.players]
        if not state.started:
            chosen = {p for p, _, _ in state.starts}
            built = [
                f"{p.name}: "
                + ("start chosen" if p.name in chosen else "choosing where to start")
                + " (secret until the master clock starts)"
                for p in game.players
            ]
        common = [
            f"Pool: {goods_text(game.pool)}",
            f"TechLevel 2 stack: {len(game.stack2)} \u00b7 TechLevel 3 stack: {len(game.stack3)}"
            + (f" \u00b7 order cards: {len(game.order_stack)}" if game.experienced else ""),
            f"Attack markers in the pool: {game.attack_pool} \u00b7 spare timers: {game.timer_pool}",
        ]
        panels = (
            self._ring_picture(game),
            self._ring_panel(game),
            self._score_panel(game),
            {
                "kind": "table",
                "title": "Players",
                "columns": ["Player", "Tech", "Timers", "Planning", "Stack", "Ship", "Depot"],
                "rows": rows,
            },
            {"kind": "lines", "title": "Sabotage and rocket blocks", "lines": self._attack_lines(game)},
            {"kind": "lines", "title": "Planets", "lines": built},
            {"kind": "lines", "title": "Common pool", "lines": common},
            {"kind": "lines", "title": "Latest", "lines": list(state.last)},
        )
        return View(self._summary(state), panels, {"phase": game.phase.value, "started": state.started})

    def player_view(self, state: DealerTable, player: str) -> View:
        game = state.game
        me = game.player(player)
        if me is None:
            return View(f"{player} does not play in this game")
        limit = timer_limit(game, me)
        timers = []
        for t, tm in enumerate(me.timers):
            line = f"Timer {t + 1}: {timer_text(game, tm)}"
            if t >= limit:
                line += " (no Robot Factory: returns to the pool once free)"
            elif state.node_of(player, t + 1) is None:
                line += " \u00b7 flip a new sandtimer when the hub asks, to pair it"
            timers.append(line)
        planning = [card_text(game, c) for c in me.planning]
        planning.append(f"{len(me.planning)} of {planning_capacity(game, me)} spaces used")
        cards = [
            "Personal stack: " + (", ".join(card_text(game, c) for c in me.stack) or "empty"),
            f"Tech level {me.tech_level}",
        ]
        if me.pending_draw is not None:
            cards.append("Drawn, keep one: " + ", ".join(card_text(game, c) for c in me.pending_draw[1]))
        goods = []
        for ship in game.ships:
            if ship.controller == player:
                where = (
                    field_text(game, ship.field)
                    if ship.field is not None
                    else f"flying to {field_text(game, ship.destination)}"
                )
                goods.append(
                    f"{'Spaceship' if ship.id == player else 'Neutral spaceship'} at {where}: "
                    f"{goods_text(ship.cargo)} ({ship.cargo.total}/{game.data.cargo_limit})"
                )
        for b in me.built:
            if b.stored or game.card_type(b.card).kind in ("storage", "transport"):
                goods.append(f"{card_text(game, b.card)}: {goods_text(b.stored)}")
        score = final_score(game).players[player]
        summary = (
            f"{player}: {score.total} points, {me.markers_placed} markers placed \u00b7 "
            f"{self._summary(state)}"
        )
        panels = (
            {"kind": "lines", "title": "My timers", "lines": timers},
            {"kind": "lines", "title": "My planning area", "lines": planning},
            {"kind": "lines", "title": "My cards", "lines": cards},
            {"kind": "lines", "title": "My goods", "lines": goods or ["none"]},
            {"kind": "lines", "title": "My planet", "lines": _built_text(game, me)},
            self._ring_panel(game),
            self._score_panel(game),
        )
        return View(summary, panels)

    def scores(self, state: DealerTable) -> dict[str, Any] | None:
        """Once every timer has run out after the end: the final score, as ``companion score space-dealer`` prints it."""
        if state.game.phase is not Phase.OVER:
            return None
        return final_score(state.game).to_json()


def _held(game: GameState, holder: Any) -> Goods:
    if isinstance(holder, A.InDepot):
        p = game.player(holder.player)
        depot = (
            next((b for b in p.built if game.card_type(b.card).kind == "storage" and not b.covered), None)
            if p
            else None
        )
        return depot.stored if depot else Goods()
    if isinstance(holder, A.OnProbe):
        p = game.player(holder.player)
        b = p.built_card(holder.card) if p else None
        return b.stored if b else Goods()
    if isinstance(holder, A.AtNeutralPlanet):
        n = game.neutral_at(holder.field)
        return n.goods if n else Goods()
    return Goods()


def _built_text(game: GameState, p: PlayerState) -> list[str]:
    parts = []
    for side, stack in zip(("left", "right"), p.plants, strict=True):
        if stack:
            parts.append(f"{side}: {' > '.join(card_text(game, c) for c in stack)}")
    for b in sorted(p.built, key=lambda b: b.x):
        text = f"{card_text(game, b.card)} at {b.x}"
        flags = []
        if b.covered:
            flags.append("built over")
        if b.blocked_by:
            flags.append(f"BLOCKED by {b.blocked_by}'s rocket")
        if b.attack_markers:
            flags.append(f"{b.attack_markers} attack marker(s)")
        if b.stored:
            flags.append(goods_text(b.stored))
        if game.cards[b.card].order is not None:
            done = any(o.order == b.card for o in game.satisfied)
            flags.append(f"order {order_text(game, b.card)}" + (" done" if done else ""))
        parts.append(text + (f" ({'; '.join(flags)})" if flags else ""))
    return parts or ["-"]
