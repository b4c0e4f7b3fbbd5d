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

Every decision applies each engine action exactly once (:class:`~companion.rules.referee.Steps`)
and hands the engine's own events to the table as ``Decision.facts``; the phone's buttons
only preview what an action would do (:mod:`.phone`). The two ways to play are two referee
classes, registered as the package's ``GAME`` variants: :class:`SpaceDealerReferee` plays
the rules for experienced players (rulebook 5, the default) and
:class:`BasicSpaceDealerReferee` the basic game.

Logged actions are engine actions in the JSON of :func:`record.action_to_json` (so the
log is a game record for ``companion referee space-dealer``), plus three bookkeeping
actions: ``{"type": "start_choice", "player", "side", "mine"}`` (a secret start choice,
rulebook 2), ``{"type": "table_started"}`` (the master clock started the game) and
``{"type": "timer_node", "player", "timer", "node"}`` (the node of a timer that joined
during the game, learnt from its first report).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from companion.errors import ConfigError, InvalidRecordError
from companion.games.space_dealer import actions as A
from companion.games.space_dealer import pages, phone
from companion.games.space_dealer.cards import CardData
from companion.games.space_dealer.engine import (
    R_BUILD,
    R_END,
    R_JOB,
    R_SETUP,
    SetupError,
    Start,
    apply,
    final_score,
    timer_limit,
)
from companion.games.space_dealer.engine import setup as deal
from companion.games.space_dealer.record import action_from_json, action_to_json, job_from_json
from companion.games.space_dealer.state import GameState, Phase, TimerStatus
from companion.games.space_dealer.words import card_text, describe, job_text
from companion.rules.outcome import Decision, Rejected, Step
from companion.rules.pages import MenuItem, View
from companion.rules.referee import Referee, Steps
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, TextError, joined, text

R_START = text("rulebook 2, Setup: the game starts with the 30-minute timer")
R_FACTORY = text("rulebook 5.1b, Robot Factory")
LAST_NOTES = 8
LAST_MARKER = text("a player placed their last victory-point marker")
"""Why the rules stop the master clock (rulebook 4)."""


class TableSetupError(TextError, ConfigError):
    """A table Space Dealer cannot be played at (player count, timers, variant); ``.text`` in words."""


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
    last: tuple[Text | str, ...] = ()
    """The latest happenings, oldest first, for the pages (a plain string: an older log's English note)."""

    def node_of(self, player: str, index: int) -> str | None:
        return next((n for p, i, n in self.nodes if (p, i) == (player, index)), None)


def _keep(last: tuple[Text | str, ...], notes: Iterable[Text]) -> tuple[Text | str, ...]:
    return (last + tuple(n for n in notes if n))[-LAST_NOTES:]


# --- the referee -------------------------------------------------------------------------------


class SpaceDealerReferee(Referee[DealerTable]):
    """Space Dealer with the rules for experienced players (rulebook 5), refereed at a hub table.

    The basic game is :class:`BasicSpaceDealerReferee`; the differences are the class
    attributes and the hook methods below, nothing else branches on the variant.
    """

    game = "space-dealer"
    experienced: ClassVar[bool] = True
    """Deal with the experienced cards, neutral orders and attack markers (handed to the engine's setup)."""
    title: ClassVar[Text] = text("experienced rules")
    """How the pages name the way this table plays."""
    variants: ClassVar[tuple[str, ...]] = ("", "experienced")
    """The setup variants this class plays ("" is the game's default)."""

    def __init__(self, setup: TableSetup, data: CardData, *, game: GameState | None = None) -> None:
        """``data`` is the game's card data (``GAME.data``); ``game`` replaces the seeded deal (tests,
        or a table laid out by hand)."""
        if setup.variant not in self.variants:
            raise TableSetupError(
                text(
                    "Space Dealer with the {rules} has no variant {variant}",
                    rules=self.title,
                    variant=setup.variant,
                )
            )
        for seat in setup.seats:
            if not 1 <= seat.index <= 3:
                raise TableSetupError(
                    text(
                        "Node {node} is timer {number} of {player}, but a Space Dealer player has 2 timers, "
                        "and a third one with a Robot Factory",
                        node=seat.node,
                        number=seat.index,
                        player=seat.player,
                    )
                )
        if game is not None and game.experienced != self.experienced:
            raise TableSetupError(
                text("The game laid out by hand is not dealt for the {rules}", rules=self.title)
            )
        super().__init__(setup)
        self.data = data
        self.prepared = game
        """The game laid out by hand, if any (its start cannot be chosen again)."""
        self.seated = {(s.player, s.index) for s in setup.seats}
        self.opening = game if game is not None else self._deal_table(setup)
        """The game as dealt for this table: a player count or names the game cannot take fail now."""

    # --- what differs in the basic game -------------------------------------------------
    def neutral_places(self, game: GameState, field: int) -> list[tuple[A.Holder, Text]]:
        """Where a ship at ``field`` can leave goods besides the ships there: the neutral planet (rulebook 5.3)."""
        return (
            [(A.AtNeutralPlanet(field), text("neutral planet"))] if game.neutral_at(field) is not None else []
        )

    # --- start and replay ----------------------------------------------------------------
    def _deal(self, setup: TableSetup, starts: dict[str, Start] | None = None) -> GameState:
        """The engine's deal for the setup's players and seed (:class:`SetupError` if it cannot take them)."""
        return deal(
            list(setup.players), seed=setup.seed, data=self.data, experienced=self.experienced, starts=starts
        )

    def _deal_table(self, setup: TableSetup) -> GameState:
        try:
            return self._deal(setup)
        except SetupError as exc:
            raise TableSetupError(
                text("Space Dealer cannot start at this table: {problem}", problem=exc.text)
            ) from None

    def start(self, setup: TableSetup) -> DealerTable:
        same = (setup.players, setup.seed) == (self.setup.players, self.setup.seed)
        game = self.opening if same or self.prepared is not None else self._deal_table(setup)
        nodes = tuple((s.player, s.index, s.node) for s in setup.seats)
        return DealerTable(game, nodes=nodes)

    def replay(self, state: DealerTable, action: dict[str, Any]) -> DealerTable:
        steps = Steps(state)
        refused = self._take(steps, action)
        if refused is not None:
            raise InvalidRecordError(f"a logged Space Dealer action cannot be replayed: {refused}")
        after: DealerTable = steps.state
        return after

    # --- one action, applied once -------------------------------------------------------
    def _take(self, steps: Steps, action: A.Action | dict[str, Any]) -> Rejected | None:
        """Apply one action (an engine action, or JSON: engine or bookkeeping) to ``steps``.

        The only place the state changes: the engine's ``apply`` runs once, and its
        events are recorded as the step's facts.
        """
        state: DealerTable = steps.state
        raw = action if isinstance(action, dict) else action_to_json(action)
        kind = raw.get("type")
        if kind == "start_choice":
            chosen = self._start_choice(state, raw)
            if isinstance(chosen, Rejected):
                return chosen
            note = text("{player} chose where to start", player=str(raw["player"]))
            steps.add(replace(chosen, last=_keep(state.last, [note])), raw, note=note)
            return None
        if kind == "table_started":
            note = text("the master clock started: the game is on")
            steps.add(replace(state, started=True, last=_keep(state.last, [note])), raw, note=note)
            return None
        if kind == "timer_node":
            entry = (str(raw["player"]), int(raw["timer"]), str(raw["node"]))
            if state.node_of(entry[0], entry[1]) is None:
                state = replace(state, nodes=state.nodes + (entry,))
            steps.add(state, raw)
            return None
        if isinstance(action, dict):
            try:
                action = action_from_json(raw)
            except InvalidRecordError as exc:
                return Rejected(
                    text("The phone sent an action the rules do not know: {problem}", problem=str(exc)), R_JOB
                )
        outcome = apply(state.game, action)
        if isinstance(outcome, Rejected):
            return outcome
        game = outcome.state
        notes = describe(game, outcome.events)
        asked = self._seat_to_ask(state, outcome.events)
        if asked is not None:
            notes.append(
                text(
                    "{player}: flip a new sandtimer to pair it as timer {number}",
                    player=asked[0],
                    number=asked[1],
                )
            )
        after = replace(
            state,
            game=game,
            seats_asked=state.seats_asked + ((asked,) if asked else ()),
            last=_keep(state.last, notes),
        )
        steps.add(after, raw, outcome.events, joined(notes))
        return None

    def _seat_to_ask(self, state: DealerTable, events: Iterable[A.Event]) -> tuple[str, int] | None:
        """The first timer a Robot Factory added that has no node yet and was not asked for (rulebook 5.1b)."""
        for e in events:
            if e.kind != "TimerAdded" or e.player is None:
                continue
            for index in range(3, e.details["timers"] + 1):
                key = (e.player, index)
                if key not in self.seated and key not in state.seats_asked:
                    return key
        return None

    def _start_choice(self, state: DealerTable, action: dict[str, Any]) -> DealerTable | Rejected:
        """A player's secret start (rulebook 2): the table is set up again with every choice made so far."""
        if state.started:
            return Rejected(
                text("The Generator and the first Mine are chosen before the game starts"), R_SETUP
            )
        if self.prepared is not None:
            return Rejected(
                text("This table was laid out by hand: its start cannot be chosen again"), R_SETUP
            )
        player, side, mine = action.get("player"), action.get("side", "left"), action.get("mine", "")
        if not (isinstance(player, str) and isinstance(side, str) and isinstance(mine, str)):
            return Rejected(
                text("A start choice names the Generator's side and the colour of the first Mine"), R_SETUP
            )
        starts = tuple(c for c in state.starts if c[0] != player) + ((player, side, mine),)
        try:
            game = self._deal(self.setup, {p: Start(side=sd, mine=m) for p, sd, m in starts})
        except SetupError as exc:
            return Rejected(exc.text, R_SETUP)
        return replace(state, game=game, starts=starts)

    def _decide(self, state: DealerTable, actions: Iterable[A.Action | dict[str, Any]], **extra: Any) -> Step:
        """Apply actions in order: all of them, or the first rejection."""
        steps = Steps(state)
        for action in actions:
            refused = self._take(steps, action)
            if refused is not None:
                return refused
        return self._decision(state, steps, **extra)

    @staticmethod
    def _decision(before: DealerTable, steps: Steps, **extra: Any) -> Decision:
        """The recorded steps as one decision, with the seat a Robot Factory asks for and the end of the clock."""
        after: DealerTable = steps.state
        asked = after.seats_asked[len(before.seats_asked) :]
        # the last victory-point marker ends the game at once: the master clock stops too (rulebook 4)
        ended = before.game.phase is Phase.RUNNING and after.game.phase is not Phase.RUNNING
        return steps.decision(
            add_seat=asked[-1] if asked else None, end_clock=LAST_MARKER if ended else None, **extra
        )

    @staticmethod
    def _learn(state: DealerTable, seat: Seat) -> list[dict[str, Any]]:
        """A bookkeeping action recording a node the referee did not know yet (a seat added in the game)."""
        if state.node_of(seat.player, seat.index) == seat.node:
            return []
        return [{"type": "timer_node", "player": seat.player, "timer": seat.index, "node": seat.node}]

    # --- time facts --------------------------------------------------------------------------
    def clock_started(self, state: DealerTable) -> Step:
        if state.started:
            return Decision(state)
        return self._decide(state, [{"type": "table_started"}])

    def clock_expired(self, state: DealerTable) -> Step:
        if state.game.phase is not Phase.RUNNING:
            return Decision(state)
        return self._decide(state, [A.MasterClockExpired()])

    def game_ended_early(self, state: DealerTable) -> Step:
        """The host ended the game: it is over at once, running timers stop without effect, and it is
        scored as it stands (the orders satisfied so far, rulebook 4)."""
        if state.game.phase is Phase.OVER:
            return Decision(state)
        return self._decide(state, [A.GameEndedEarly()])

    def timer_emptied(self, state: DealerTable, seat: Seat) -> Step:
        actions: list[A.Action | dict[str, Any]] = [*self._learn(state, seat)]
        p = state.game.player(seat.player)
        t = seat.index - 1
        if p is not None and t < len(p.timers) and p.timers[t].status is TimerStatus.ACTIVE:
            actions.append(A.TimerRanOut(seat.player, t))
        step = self._decide(state, actions)
        return step if isinstance(step, Decision) else Decision(state)

    # --- a node was flipped -------------------------------------------------------------------
    def timer_flipped(
        self, state: DealerTable, seat: Seat, *, intent: dict[str, Any] | None, ran_out: bool
    ) -> Step:
        if not state.started:
            return Rejected(
                text("The game has not started: the sandtimers wait, run out, until the master clock starts"),
                R_START,
            )
        game = state.game
        name, n, t = seat.player, seat.index, seat.index - 1
        p = game.player(name)
        if p is None:
            return Rejected(text("{player} does not play in this game", player=name), R_SETUP)
        if game.phase is not Phase.RUNNING:
            return Rejected(
                text("The game has ended; no new jobs can be assigned, running timers complete"), R_END
            )
        if t >= len(p.timers) or t >= timer_limit(game, p):
            return Rejected(
                text(
                    "Timer {number} works only while you have a Robot Factory built: it gives you one more timer",
                    number=n,
                ),
                R_FACTORY,
            )
        steps = Steps(state)
        for learnt in self._learn(state, seat):
            self._take(steps, learnt)
        timer = p.timers[t]
        if timer.status is TimerStatus.ACTIVE:
            if not ran_out:
                return Rejected(
                    text(
                        "Timer {number} is still running its job: let the sand run through, then give it a new job",
                        number=n,
                    ),
                    R_JOB,
                )
            # the node says its sand ran out: its report was missed, so the job completes now
            refused = self._take(steps, A.TimerRanOut(name, t))
            if refused is not None:
                return refused
            timer = steps.state.game.player(name).timers[t]
        elif not ran_out:
            return Rejected(
                text(
                    "Let the sand of timer {number} run through before you flip it again: only an inactive, "
                    "run-out timer takes a job",
                    number=n,
                ),
                R_JOB,
            )
        if timer.status is TimerStatus.USABLE:
            card = timer.job.card if isinstance(timer.job, A.BuildCard) else ""
            return Rejected(
                text(
                    "Timer {number} still holds the finished build of {card}: choose its build "
                    "site (or give the build up) on your phone first",
                    number=n,
                    card=card_text(game, card),
                ),
                R_BUILD,
            )
        raw = (intent or {}).get("job")
        if raw is None:
            return Rejected(
                text("Choose a job for timer {number} on your phone before you flip it", number=n), R_JOB
            )
        try:
            job = job_from_json(raw)
        except InvalidRecordError as exc:
            return Rejected(
                text("The phone sent a job the rules do not know: {problem}", problem=str(exc)), R_JOB
            )
        refused = self._take(steps, A.StartJob(name, t, job))
        if refused is not None:
            return refused
        return self._decision(state, steps)

    # --- phones ----------------------------------------------------------------------------------
    def check_intent(self, state: DealerTable, seat: Seat, intent: dict[str, Any]) -> Rejected | None:
        """A phone's job for a timer's next flip must be a job the rules know (its legality is checked at the flip)."""
        raw = intent.get("job") if isinstance(intent, dict) else None
        if raw is None:
            return Rejected(
                text("Choose one of the jobs your phone offers for timer {number}", number=seat.index), R_JOB
            )
        try:
            job_from_json(raw)
        except InvalidRecordError as exc:
            return Rejected(
                text("The phone sent a job the rules do not know: {problem}", problem=str(exc)), R_JOB
            )
        return None

    def player_action(self, state: DealerTable, player: str, action: dict[str, Any]) -> Step:
        if not isinstance(action, dict):
            return Rejected(text('An action is an object with a "type"'), R_JOB)
        if action.get("type") == "start_choice":
            return self._decide(state, [dict(action, player=player)])
        if not state.started:
            return Rejected(text("The game has not started: start the master clock first"), R_START)
        raw = phone.from_phone(player, action)
        if isinstance(raw, Rejected):
            return raw
        show: tuple[tuple[str, str], ...] = ()
        if raw["type"] == "Sabotage":
            node = state.node_of(raw["target_player"], raw["target_timer"] + 1)
            show = ((node, "sabotaged"),) if node is not None else ()
        return self._decide(state, [raw], show=show)

    def menu(self, state: DealerTable, player: str, *, intents: dict[str, dict[str, Any]]) -> list[MenuItem]:
        return phone.menu(self, state, player, intents)

    # --- pages ---------------------------------------------------------------------------------
    def view(self, state: DealerTable) -> View:
        return pages.view(state, self.title)

    def player_view(self, state: DealerTable, player: str) -> View:
        return pages.player_view(state, player, self.title)

    def scores(self, state: DealerTable) -> dict[str, Any] | None:
        """Once every timer has run out after the end: the final score, as ``companion score space-dealer`` prints it."""
        if state.game.phase is not Phase.OVER:
            return None
        return final_score(state.game).to_json()

    def timer_label(self, state: DealerTable, seat: Seat) -> Text | str:
        """The job a sandtimer runs, for the dashboard."""
        player = state.game.player(seat.player)
        if player is None:
            return ""
        timer = next((t for t in player.timers if t.index == seat.index - 1), None)
        if timer is None or timer.job is None:
            return ""
        label = job_text(state.game, timer.job)
        return text("{job} (sabotaged)", job=label) if timer.sabotaged_by else label


class BasicSpaceDealerReferee(SpaceDealerReferee):
    """The basic game: without the rules for experienced players (rulebook 5).

    The engine deals no experienced cards, neutral orders or attack markers and refuses their
    actions; the phones offer no neutral planet to leave goods at.
    """

    experienced = False
    title = text("basic game")
    variants = ("basic",)

    def neutral_places(self, game: GameState, field: int) -> list[tuple[A.Holder, Text]]:
        return []


def default_referee(setup: TableSetup, data: CardData) -> SpaceDealerReferee:
    """The referee of a setup no variant of ``GAME`` names: "" plays the rules for experienced players."""
    if setup.variant:
        raise TableSetupError(
            text("Space Dealer has no variant {variant}; choose experienced or basic", variant=setup.variant)
        )
    return SpaceDealerReferee(setup, data)
