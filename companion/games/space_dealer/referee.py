"""Space Dealer at a hub table: the referee between the sandtimer nodes, the phones and the engine.

How a table plays it (see "On the hub" in docs/games/space-dealer.md):

* Every player has 2 sandtimer nodes (timer 1 and 2 at the table, 0 and 1 in the engine).
  Before a flip the player taps a job for that timer on their phone (an *intent*: one of the
  jobs of :mod:`.model`). Flipping the run-out node starts that job (``StartJob``); the node
  shows accepted, or rejected with the engine's reason. When the node's sand has run through,
  the engine's ``TimerRanOut`` applies the effect (nothing, when the timer was sabotaged).
* The master clock starting starts the game (no flips or free actions before it, only the
  secret start choice); the master clock running out is ``MasterClockExpired``. Placing one's
  last victory-point marker also ends the game; running timers still complete, then the score
  is final.
* Free actions are phone taps posting the game's moves; the table names the player, and the
  referee applies ``Act(player, move)``. A sabotage lights the target node red (``show``)
  until its sand has run out.
* Building a Robot Factory gives the player a third timer: the referee asks the hub for one
  more node (``Decision.add_seat``); the next unseated node flipped becomes timer 3.
* At a table that plays with its box (``setup.deck == "table"``) the phones tell the hub what the
  table dealt, drew and turned up (entries, see :mod:`.menus`), and the master clock waits for the
  deal. With the hub deck the referee makes those entries itself after each decision, from its own
  shuffle (:mod:`.hubdeck`), as the same actions.

Every decision applies each engine action exactly once (:class:`~companion.rules.referee.Steps`)
and hands the engine's own events to the table as ``Decision.facts``; the phone's buttons only
preview what an action would do (:mod:`.pages`). The two ways to play are two referee classes,
registered as the package's ``GAME`` variants: :class:`SpaceDealerReferee` plays the rules for
experienced players (rulebook 5, the default) and :class:`BasicSpaceDealerReferee` the basic game.
The referee's state is the engine's :class:`~.model.GameState`; what the table keeps of the game's
course (whether the clock has started, the latest notes) comes in the :class:`Context`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, ClassVar

from companion.errors import ConfigError, InvalidRecordError
from companion.games.space_dealer import events as E
from companion.games.space_dealer import hubdeck, menus, pages
from companion.games.space_dealer import model as M
from companion.games.space_dealer.board import R_BUILD, R_END, R_JOB, R_SETUP, final_score, timer_limit
from companion.games.space_dealer.cards import CardData
from companion.games.space_dealer.dealing import SetupError, missing_entries
from companion.games.space_dealer.dealing import setup as table_deal
from companion.games.space_dealer.engine import apply
from companion.games.space_dealer.model import GameState, Phase, TimerStatus
from companion.games.space_dealer.words import card_text, describe, job_text
from companion.rules.context import Context
from companion.rules.outcome import Decision, IllegalAction, Rejected, Step, checked, refuse
from companion.rules.pages import MenuItem, View
from companion.rules.referee import Referee, Steps
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, TextError, joined, text

R_START = text("rulebook 2, Setup: the game starts with the 30-minute timer")
R_FACTORY = text("rulebook 5.1b, Robot Factory")
R_TABLE = text("What the table drew")
LAST_MARKER = text("a player placed their last victory-point marker")
"""Why the rules stop the master clock (rulebook 4)."""
CLOCK_FACTS = (M.StartJob, M.TimerRanOut, M.MasterClockExpired, M.GameEndedEarly, M.TechCardsShown)
"""Engine actions no phone posts: jobs start with a flip, time facts come from the timers and the clock,
the hub deck's draws from the hub."""
TABLE_ENTRIES = (M.TakeMines, M.TakeDepot, M.RevealOrder, M.CorrectKeptCard)
"""What a table that plays with its box tells the hub (with the hub deck, the hub deals them)."""
FOLLOW_UPS = 64
"""Bound on the entries the hub deck makes after one decision (each re-drawn order is one)."""


class TableSetupError(TextError, ConfigError):
    """A table Space Dealer cannot be played at (player count, timers, variant); ``.text`` in words."""


class SpaceDealerReferee(Referee[GameState]):
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
        self.hub_deck = setup.deck == "hub"
        """The hub shuffles and deals (else the table plays with its box and tells the hub what it drew)."""
        self.prepared = game
        """The game laid out by hand, if any (its start cannot be chosen again)."""
        self.opening = game if game is not None else self._deal_table(setup)
        """The game as dealt for this table: a player count or names the game cannot take fail now."""

    # --- what differs in the basic game -------------------------------------------------
    def neutral_places(self, game: GameState, field: int) -> list[tuple[M.Holder, Text]]:
        """Where a ship at ``field`` can leave goods besides the ships there: the neutral planet (rulebook 5.3)."""
        return (
            [(M.AtNeutralPlanet(field), text("neutral planet"))] if game.neutral_at(field) is not None else []
        )

    # --- start and replay ----------------------------------------------------------------
    def _deal_table(self, setup: TableSetup) -> GameState:
        try:
            if setup.deck == "hub":
                return hubdeck.deal(
                    list(setup.players), seed=setup.seed, data=self.data, experienced=self.experienced
                )
            return table_deal(list(setup.players), data=self.data, experienced=self.experienced)
        except SetupError as exc:
            raise TableSetupError(
                text("Space Dealer cannot start at this table: {problem}", problem=exc.text)
            ) from None

    def start(self, setup: TableSetup) -> GameState:
        same = (setup.players, setup.seed) == (self.setup.players, self.setup.seed)
        game = self.opening if same or self.prepared is not None else self._deal_table(setup)
        return replace(game, nodes=tuple(M.TimerNode(s.player, s.index, s.node) for s in setup.seats))

    def replay(self, state: GameState, ctx: Context, action: Any) -> Decision:
        steps = Steps(state)
        try:
            self._take(steps, ctx, action)
        except IllegalAction as exc:
            raise InvalidRecordError(f"a logged Space Dealer action cannot be replayed: {exc}") from None
        return self._decision(state, steps)

    # --- one action, applied once -------------------------------------------------------
    def _take(self, steps: Steps, ctx: Context, action: Any) -> None:
        """Apply one action (an engine action, or the table's node bookkeeping) to ``steps``.

        The only place the state changes: the engine's ``apply`` runs once, and its events are
        recorded as the step's facts. A refusal is raised (:func:`refuse`)."""
        state: GameState = steps.state
        if isinstance(action, M.HubDeckTurn):  # an old log's draw or reveal: the hub deck turns it up now
            self._follow_up(steps, ctx, action.player)
            return
        if isinstance(action, M.TimerNodeKnown):
            if state.node_of(action.player, action.number) is None:
                learnt = M.TimerNode(action.player, action.number, action.node)
                state = replace(state, nodes=(*state.nodes, learnt))
            steps.add(state, action)
            return
        if isinstance(action, M.Act) and isinstance(action.move, M.ChooseStart):
            if ctx.started:
                refuse(text("The Generator and the first Mine are chosen before the game starts"), R_SETUP)
            if self.prepared is not None:
                refuse(text("This table was laid out by hand: its start cannot be chosen again"), R_SETUP)
        outcome = apply(state, action)
        if isinstance(outcome, Rejected):
            refuse(outcome.reason, outcome.rule)
        notes = describe(outcome.state, outcome.events)
        asked = self._seat_to_ask(state, outcome.events)
        after = hubdeck.follow(outcome.state, outcome.events)
        if asked is not None:
            notes.append(
                text(
                    "{player}: flip a new sandtimer to pair it as timer {number}",
                    player=asked[0],
                    number=asked[1],
                )
            )
            after = replace(after, seats_asked=(*after.seats_asked, asked))
        steps.add(after, action, outcome.events, joined(notes))

    @staticmethod
    def _seat_to_ask(state: GameState, events: Iterable[Any]) -> tuple[str, int] | None:
        """The first timer a Robot Factory added that has no node yet and was not asked for (rulebook 5.1b)."""
        for e in events:
            if not isinstance(e, E.TimerAdded):
                continue
            for number in range(3, e.timers + 1):
                if state.node_of(e.player, number) is None and (e.player, number) not in state.seats_asked:
                    return (e.player, number)
        return None

    def _follow_up(self, steps: Steps, ctx: Context, player: str) -> None:
        """The hub deck turns up what the rules wait for (a draw's cards, the next neutral order), each
        as the entry a table would make."""
        for _ in range(FOLLOW_UPS):
            supplied = hubdeck.inputs(steps.state, player)
            if not supplied:
                return
            self._take(steps, ctx, supplied[0])

    def _decide(
        self, state: GameState, ctx: Context, actions: Iterable[Any], *, player: str = "", **extra: Any
    ) -> Decision:
        """Apply actions in order (then the hub deck's entries): all of them, or refused at the first
        that breaks a rule."""
        steps = Steps(state)
        for action in actions:
            self._take(steps, ctx, action)
        if self.hub_deck:
            self._follow_up(steps, ctx, player)
        return self._decision(state, steps, **extra)

    @staticmethod
    def _decision(before: GameState, steps: Steps, **extra: Any) -> Decision:
        """The recorded steps as one decision, with the seat a Robot Factory asks for and the end by the rules."""
        after: GameState = steps.state
        asked = after.seats_asked[len(before.seats_asked) :]
        # the game ends after 30 minutes, or at once when a player places their last victory-point
        # marker (the master clock stops too); running timers still complete (rulebook 4)
        ended = next((f for f in steps.facts if isinstance(f, E.GameEnded) and f.by != "host"), None)
        why = None
        if ended is not None:
            minutes = after.data.game_minutes
            why = (
                LAST_MARKER
                if ended.by == "marker"
                else text("the {minutes} minutes are over", minutes=minutes)
            )
        return steps.decision(add_seat=asked[-1] if asked else None, ends_game=why, **extra)

    @staticmethod
    def _learn(state: GameState, seat: Seat) -> list[M.TimerNodeKnown]:
        """A bookkeeping action recording a node the referee did not know yet (a seat added in the game)."""
        if state.node_of(seat.player, seat.index) == seat.node:
            return []
        return [M.TimerNodeKnown(seat.player, seat.index, seat.node)]

    # --- time facts --------------------------------------------------------------------------
    def clock_started(self, state: GameState, ctx: Context) -> Step:
        """The master clock starts the game; at a table deck, once the table has told the hub what it
        dealt (rulebook 2)."""
        missing = [] if self.hub_deck else missing_entries(state)
        if missing:
            return Rejected(
                text(
                    "Before the clock starts, tell the hub what the table dealt: {missing}",
                    missing=tuple(missing),
                ),
                R_START,
            )
        return Decision(state)

    @checked
    def clock_expired(self, state: GameState, ctx: Context) -> Step:
        if state.phase is not Phase.RUNNING:
            return Decision(state)
        return self._decide(state, ctx, [M.MasterClockExpired()])

    @checked
    def game_ended_early(self, state: GameState, ctx: Context) -> Step:
        """The host ended the game: it is over at once, running timers stop without effect, and it is
        scored as it stands (the orders satisfied so far, rulebook 4)."""
        if state.phase is Phase.OVER:
            return Decision(state)
        return self._decide(state, ctx, [M.GameEndedEarly()])

    def timer_emptied(self, state: GameState, ctx: Context, seat: Seat) -> Step:
        actions: list[Any] = [*self._learn(state, seat)]
        p = state.player(seat.player)
        t = seat.index - 1
        if p is not None and t < len(p.timers) and p.timers[t].status is TimerStatus.ACTIVE:
            actions.append(M.TimerRanOut(seat.player, t))
        step = checked(self._decide)(state, ctx, actions)
        return step if isinstance(step, Decision) else Decision(state)

    # --- a node was flipped -------------------------------------------------------------------
    @checked
    def timer_flipped(
        self, state: GameState, ctx: Context, seat: Seat, *, intent: Any, ran_out: bool
    ) -> Step:
        if not ctx.started:
            refuse(
                text("The game has not started: the sandtimers wait, run out, until the master clock starts"),
                R_START,
            )
        name, n, t = seat.player, seat.index, seat.index - 1
        p = state.player(name)
        if p is None:
            refuse(text("{player} does not play in this game", player=name), R_SETUP)
        if state.phase is not Phase.RUNNING:
            refuse(text("The game has ended; no new jobs can be assigned, running timers complete"), R_END)
        if t >= len(p.timers) or t >= timer_limit(state, p):
            refuse(
                text(
                    "Timer {number} works only while you have a Robot Factory built: it gives you one more timer",
                    number=n,
                ),
                R_FACTORY,
            )
        steps = Steps(state)
        for learnt in self._learn(state, seat):
            self._take(steps, ctx, learnt)
        timer = p.timers[t]
        if timer.status is TimerStatus.ACTIVE:
            if not ran_out:
                refuse(
                    text(
                        "Timer {number} is still running its job: let the sand run through, then give it a new job",
                        number=n,
                    ),
                    R_JOB,
                )
            # the node says its sand ran out: its report was missed, so the job completes now
            self._take(steps, ctx, M.TimerRanOut(name, t))
            now = steps.state.player(name)
            assert now is not None
            timer = now.timers[t]
        elif not ran_out:
            refuse(
                text(
                    "Let the sand of timer {number} run through before you flip it again: only an inactive, "
                    "run-out timer takes a job",
                    number=n,
                ),
                R_JOB,
            )
        if timer.status is TimerStatus.USABLE:
            card = timer.job.card if isinstance(timer.job, M.BuildCard) else ""
            refuse(
                text(
                    "Timer {number} still holds the finished build of {card}: choose its build "
                    "site (or give the build up) on your phone first",
                    number=n,
                    card=card_text(state, card),
                ),
                R_BUILD,
            )
        if intent is None:
            refuse(text("Choose a job for timer {number} on your phone before you flip it", number=n), R_JOB)
        if not isinstance(intent, M.JOBS):
            refuse(text("Choose one of the jobs your phone offers for timer {number}", number=n), R_JOB)
        self._take(steps, ctx, M.StartJob(name, t, intent))
        return self._decision(state, steps)

    # --- phones ----------------------------------------------------------------------------------
    def check_intent(self, state: GameState, ctx: Context, seat: Seat, intent: Any) -> Rejected | None:
        """A phone's job for a timer's next flip must be a job the rules know (its legality is checked at the flip)."""
        if not isinstance(intent, M.JOBS):
            return Rejected(
                text("Choose one of the jobs your phone offers for timer {number}", number=seat.index), R_JOB
            )
        return None

    @checked
    def player_action(self, state: GameState, ctx: Context, player: str, action: Any) -> Step:
        before = (M.ChooseStart, M.TakeMines, M.TakeDepot, M.RevealOrder)
        if not ctx.started and not isinstance(action, before):
            refuse(text("The game has not started: start the master clock first"), R_START)
        if self.hub_deck and isinstance(action, TABLE_ENTRIES):
            refuse(text("The hub deck deals and turns up the cards at this table"), R_TABLE)
        if ctx.started and isinstance(action, (M.TakeMines, M.TakeDepot)):
            refuse(text("What each player was dealt is told before the game starts"), R_SETUP)
        if isinstance(action, CLOCK_FACTS):
            refuse(
                text(
                    "Jobs start by flipping a sandtimer, and time comes from the timers and the master clock"
                ),
                R_JOB,
            )
        if not isinstance(action, M.MOVES):
            refuse(
                text("Unknown action {action}: choose one of the buttons", action=type(action).__name__),
                R_JOB,
            )
        show: tuple[tuple[str, str], ...] = ()
        if isinstance(action, M.Sabotage) and isinstance(action.target_timer, int):
            node = state.node_of(action.target_player, action.target_timer + 1)
            show = ((node, "sabotaged"),) if node is not None else ()
        return self._decide(state, ctx, [M.Act(player, action)], player=player, show=show)

    def menu(self, state: GameState, ctx: Context, player: str, *, intents: dict[str, Any]) -> list[MenuItem]:
        return menus.menu(self, state, ctx, player, intents)

    # --- pages ---------------------------------------------------------------------------------
    def view(self, state: GameState, ctx: Context) -> View:
        return pages.view(state, ctx, self.title)

    def player_view(self, state: GameState, ctx: Context, player: str) -> View:
        return pages.player_view(state, ctx, player, self.title)

    def scores(self, state: GameState, ctx: Context) -> dict[str, Any] | None:
        """Once every timer has run out after the end: the final score, as ``companion score space-dealer`` prints it."""
        if state.phase is not Phase.OVER:
            return None
        return final_score(state).to_json()

    def timer_label(self, state: GameState, ctx: Context, seat: Seat) -> Text | str:
        """The job a sandtimer runs, for the dashboard."""
        player = state.player(seat.player)
        if player is None:
            return ""
        timer = next((t for t in player.timers if t.index == seat.index - 1), None)
        if timer is None or timer.job is None:
            return ""
        label = job_text(state, timer.job)
        return text("{job} (sabotaged)", job=label) if timer.sabotaged_by else label


class BasicSpaceDealerReferee(SpaceDealerReferee):
    """The basic game: without the rules for experienced players (rulebook 5).

    The engine deals no experienced cards, neutral orders or attack markers and refuses their
    actions; the phones offer no neutral planet to leave goods at.
    """

    experienced = False
    title = text("basic game")
    variants = ("basic",)

    def neutral_places(self, game: GameState, field: int) -> list[tuple[M.Holder, Text]]:
        return []


def default_referee(setup: TableSetup, data: CardData) -> SpaceDealerReferee:
    """The referee of a setup no variant of ``GAME`` names: "" plays the rules for experienced players."""
    if setup.variant:
        raise TableSetupError(
            text("Space Dealer has no variant {variant}; choose experienced or basic", variant=setup.variant)
        )
    return SpaceDealerReferee(setup, data)
