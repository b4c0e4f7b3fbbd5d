"""Space and Time on the hub: the table referee, with each player's sandtimer as a turn timer.

How a table plays it (see "On the hub" in docs/games/space-and-time.md):

* Two players: the hub's first player is ``A`` (Space in the Night round, moving first),
  the second is ``B``. One person can play against the computer instead: a setup with one
  player, or the variant ``vs-computer-a`` / ``vs-computer-b`` (the computer plays that
  letter, default B; ``vs-computer`` alone is ``vs-computer-b``), optionally with a difficulty
  ``vs-computer-b-3`` (levels of ``data/ai_levels.json``, default 2).
* The starting boards: at a table that plays with its box (``setup.deck == "table"``) the players
  deal the coins by hand and enter each board on a phone, coin by coin, when its round begins
  (:class:`~.model.PlaceCoin`, with :class:`~.model.TakeBackCoin` and :class:`~.model.Redeal` to
  correct it); the engine checks every coin against what the dealt suits can still hold. With the
  hub deck (``"hub"``) both boards come from ``deal_boards(setup.seed)`` (:mod:`.hubdeck`), as every
  hub dealt them before, so older logs replay on the same boards.
* The player to move flips their turn timer (their timer 1) to start the turn; a flip by
  the other player is refused ("It is ana's turn, not ben's"), and so are a second flip
  while the turn runs and a flip of another timer.
* During the turn the phone shows the board as a grid: the player taps two coins and the
  page posts a :class:`~.model.Swap`. The engine judges it; an illegal swap is refused with
  the engine's reason and the same player swaps again. The menu also offers "Computer plays
  this turn" (:class:`~.model.ComputerMove`) and the molecule hints (:class:`~.model.ShowHints`,
  shown to everyone, highlighted on the board, until someone hides them).
* Against the computer (:class:`VsComputerReferee`, the referee of the ``vs-computer``
  variants and of a one-player table), the computer's swap is made by the referee as soon as
  it is its turn, in the same step as the human's swap (or the flip, the master clock's start
  or the time-out that made it its turn), with ``choose_move(..., seed=setup.seed + swaps so
  far)``, and logged as an ordinary swap, so a replay never runs the search again.
* Hub rule (not the rulebook's): with ``setup.turn_limit`` on, the turn timer running out
  while the turn is open forfeits the turn: no swap, the other player moves, and there is no
  swap to protect from reversing. With ``turn_limit`` off the sand is only a reminder.
* The master clock only bounds the session; the game ends by its own rules.
* Hub rule: ended early by the host (:meth:`SpaceTimeReferee.game_ended_early`), the game is
  scored by the trophies taken so far: more trophies wins, equal trophies share the victory
  (the rulebook's "A wins at five each" belongs to a finished game).

The referee's state is the engine's :class:`~.model.GameState`; whose turn runs, how many
turns were started, how the game ended and the latest notes are the table's
(:class:`~companion.rules.context.Context`). Logged actions, each step with the engine's events
as its facts: :class:`~companion.rules.turns.StartTurn`, :class:`~.model.Swap` (whoever chose
it), :class:`~companion.rules.turns.TimeOut`, :class:`~.model.ShowHints` and
:class:`~.model.EndEarly`. The words, views and buttons are :mod:`.pages`'.
"""

from __future__ import annotations

import re
from typing import Any

from companion.errors import ConfigError, UnknownGameError
from companion.rules.context import Context
from companion.rules.game import GameInfo, RefereeFactory, Variant
from companion.rules.outcome import Decision, Rejected, Step, checked, refuse
from companion.rules.pages import MenuItem, View
from companion.rules.setup import Seat, TableSetup
from companion.rules.text import Text, TextError, text
from companion.rules.turns import Applied, TurnReferee, TurnSteps

from .ai import Level, choose_move
from .engine import (
    ROLE_TEXTS,
    RULE_END,
    RULE_SETUP,
    apply,
    board_kept,
    new_game,
    new_table_game,
    not_dealt_yet,
    pass_turn,
)
from .hubdeck import deal_boards
from .model import (
    ComputerMove,
    EndEarly,
    GameState,
    PlaceCoin,
    Player,
    Redeal,
    ShowHints,
    Swap,
    TakeBackCoin,
    other,
)
from .pages import COMPUTER, RULE_ENDED_EARLY, Pages, Seating

TITLE = text("Space and Time")
"""The game's name in sentences."""
RULE_ROLES = text("Space and Time rulebook, Roles and rounds")
RULE_HUB = text("hub rule: Space and Time at a hub table")
RULE_TIME_OUT = text("hub rule: a turn whose timer runs out is lost")
"""Not a rulebook rule: the hub's turn timer (issue 7)."""

DEFAULT_DIFFICULTY = 2

_VARIANT = re.compile(r"^vs-computer(?:-([ab]))?(?:-(\d{1,2}))?$")
VARIANT_HELP = text(
    'use "standard" for two players or "vs-computer-a" / "vs-computer-b" (the computer plays that letter), optionally with a difficulty, e.g. "vs-computer-b-3"'
)


class SpaceTimeConfigError(ConfigError, TextError):
    """A table Space and Time cannot be played at (a setup error the host reads, in their language)."""


class UnknownVariantError(UnknownGameError, TextError):
    """A variant name Space and Time does not know (its message a text, in the host's language)."""

    def __init__(self, message: Text) -> None:
        TextError.__init__(self, message)  # LookupError's __init__ comes first in the MRO and keeps no text


def parse_variant(variant: str) -> tuple[Player | None, int]:
    """(letter the computer plays or None, difficulty) of a variant name.

    ``""``/``standard``: two people (difficulty 2 for "Computer plays this turn");
    ``vs-computer[-a|-b][-N]``: the computer plays that letter (default B) at level N (default 2).
    """
    name = variant.strip().lower()
    if name in ("", "standard", "default"):
        return None, DEFAULT_DIFFICULTY
    match = _VARIANT.match(name)
    if match is None:
        raise SpaceTimeConfigError(
            text('Space and Time has no variant "{variant}": {help}', variant=variant, help=VARIANT_HELP)
        )
    letter: Player = "A" if match.group(1) == "a" else "B"
    difficulty = int(match.group(2)) if match.group(2) else DEFAULT_DIFFICULTY
    return letter, difficulty


def canonical_variant(variant: str) -> str:
    """The one name of a variant: ``standard``, ``vs-computer-a``/``-b`` (difficulty 2), else with
    the difficulty (``vs-computer-b-3``); ``vs-computer`` is ``vs-computer-b``."""
    letter, difficulty = parse_variant(variant)
    if letter is None:
        return "standard"
    name = f"vs-computer-{letter.lower()}"
    return name if difficulty == DEFAULT_DIFFICULTY else f"{name}-{difficulty}"


class SpaceTimeReferee(TurnReferee[GameState]):
    """Space and Time at a hub table, two people playing (see the module docstring)."""

    game = "space-and-time"
    title = TITLE
    turn_rule = RULE_ROLES
    what_next = text("tap two coins to swap them")

    computer: Player | None = None
    """The letter the computer plays (:class:`VsComputerReferee`); None when two people play."""

    def __init__(
        self, setup: TableSetup, data: dict[int, Level], *, difficulty: int = DEFAULT_DIFFICULTY
    ) -> None:
        """``data``: the computer's levels (``GAME.data``); ``difficulty``: the level of "Computer
        plays this turn" (and of the computer opponent)."""
        super().__init__(setup)
        if difficulty not in data:
            raise SpaceTimeConfigError(
                text(
                    "The computer has no difficulty {level}; its difficulties are {levels}",
                    level=difficulty,
                    levels=tuple(str(level) for level in sorted(data)),
                )
            )
        self.levels = data
        self.difficulty = difficulty
        self.seating = Seating(self.seat_names(setup.players), self.computer)
        self.names: dict[str, str] = self.seating.names
        """Letter -> the name the scores give it."""
        self.letters: dict[str, Player] = self.seating.letters
        """Hub player -> their letter."""
        self.pages = Pages(setup, self.seating, self.turn_timer)

    def seat_names(self, players: tuple[str, ...]) -> dict[str, str]:
        """Letter -> the name the scores give it."""
        if len(players) != 2:
            raise SpaceTimeConfigError(
                text(
                    "Space and Time is played by exactly 2 players (or 1 against the computer); this table has {players}",
                    players=len(players),
                )
            )
        return {"A": players[0], "B": players[1]}

    @classmethod
    def for_table(cls, setup: TableSetup, data: dict[int, Level]) -> SpaceTimeReferee:
        """The hub's referee for a table (``GAME.referee``): by its variant, and against the computer
        (playing B) when one person plays; a setup the game cannot play is a ConfigError."""
        computer, difficulty = parse_variant(setup.variant)
        if computer is None and len(setup.players) == 1:
            computer = "B"
        if computer is None:
            return cls(setup, data, difficulty=difficulty)
        return VsComputerReferee(setup, data, computer=computer, difficulty=difficulty)

    # --- start and steps ----------------------------------------------------------------
    def start(self, setup: TableSetup) -> GameState:
        """A table deck enters the Night board first; the hub deck deals both boards from the seed."""
        if setup.deck == "table":
            return new_table_game()
        board1, board2 = deal_boards(setup.seed)
        return new_game(board1, board2)

    def step(self, state: GameState, ctx: Context, action: Any) -> Applied[GameState]:
        if isinstance(action, ShowHints):
            shown = _accepted(apply(state, action))
            note = text("molecule hints shown") if action.show else text("molecule hints hidden")
            return Applied(shown.state, notes=[note])
        if isinstance(action, EndEarly):
            self.refuse_closed(state, ctx)
            return Applied(state, notes=[self.pages.early_note(state)], ends_turn=ctx.turn_open)
        if isinstance(action, (PlaceCoin, TakeBackCoin, Redeal)):
            self.refuse_closed(state, ctx)
            entry = _accepted(apply(state, action))
            return Applied(entry.state, entry.events, self.pages.describe(entry.events, entry.state))
        if isinstance(action, Swap):
            self.refuse_closed(state, ctx)
            outcome = _accepted(apply(state, action))
            return Applied(
                outcome.state,
                outcome.events,
                self.pages.describe(outcome.events, outcome.state),
                ends_turn=ctx.turn_open,  # the computer swaps outside any turn: it has no turn timer
                ends_game=self.game_over(outcome.state),
            )
        refuse(text("unknown Space and Time table action {action}", action=type(action).__name__), RULE_HUB)

    def game_over(self, state: GameState) -> Text | None:
        """Why the rules ended the game with this step, for the master clock: a winner is known."""
        if state.winner is None:
            return None
        return text("a winner is known")

    def refuse_closed(self, state: GameState, ctx: Context) -> None:
        closed = self.closed(state, ctx, "")
        if closed is not None:
            refuse(closed.reason, closed.rule)

    def turn_started(self, state: GameState, ctx: Context, player: str) -> Applied[GameState]:
        """The player to move starts their turn (``player``: their hub name, or their letter in logs of
        formats 1 and 2)."""
        self.refuse_closed(state, ctx)
        self.refuse_other(state, player)
        if state.is_dealing:
            refuse(not_dealt_yet(state), RULE_SETUP)
        return Applied(
            board_kept(state),
            notes=[text("{player} started their turn", player=self.pages.who(state.to_move, state))],
        )

    def time_out(self, state: GameState, ctx: Context, player: str) -> Applied[GameState]:
        """Hub rule: the turn timer of the player to move ran out: they lose the turn."""
        self.refuse_closed(state, ctx)
        self.refuse_other(state, player)
        letter = state.to_move
        note = text(
            "{player} ran out of time: no swap this turn, {other} to move",
            player=self.pages.who(letter, state),
            other=self.pages.who(other(letter), state),
        )
        return Applied(pass_turn(state), notes=[note], ends_turn=True)

    def refuse_other(self, state: GameState, player: str) -> None:
        """Refuse a turn's action named for someone else than the player to move."""
        if player not in (state.to_move, self.names[state.to_move]):
            refuse(
                text(
                    "It is {player}'s turn, not {other}'s",
                    player=self.seating.name_of(state.to_move),
                    other=player,
                ),
                RULE_ROLES,
            )

    @checked
    def game_ended_early(self, state: GameState, ctx: Context) -> Step:
        """The host ended the game (hub rule): it is scored by the trophies taken so far, and nobody
        swaps any more."""
        if self.is_over(state, ctx):
            return Decision(state)
        return self.decide(state, ctx, EndEarly(), follow_up=False)

    def computer_swap(self, state: GameState) -> Swap:
        """The computer's swap for the player to move (seeded by the number of swaps so far)."""
        move = choose_move(
            state, difficulty=self.difficulty, seed=self.setup.seed + state.swaps, levels=self.levels
        )
        return Swap(move)

    # --- turns --------------------------------------------------------------------------
    def player_to_move(self, state: GameState) -> str:
        return self.names[state.to_move]

    def is_over(self, state: GameState, ctx: Context) -> bool:
        return state.is_over or ctx.ended_early

    def closed(self, state: GameState, ctx: Context, player: str) -> Rejected | None:
        """The game is over, or was ended early (for everyone)."""
        if state.winner is not None:
            return Rejected(
                text("The game is over: {player} has won", player=self.pages.who(state.winner)), RULE_END
            )
        if ctx.ended_early:
            return Rejected(text("The game was ended early"), RULE_ENDED_EARLY)
        return None

    # --- phones -------------------------------------------------------------------------
    def can_swap(self, state: GameState, ctx: Context, player: str) -> bool:
        """``player`` may tap two coins now: their turn, started (or they have no turn timer)."""
        return (
            not self.is_over(state, ctx)
            and not state.is_dealing
            and self.letters.get(player) == state.to_move
            and (ctx.turn_open or player not in self.turn_timer)
        )

    @checked
    def player_action(self, state: GameState, ctx: Context, player: str, action: Any) -> Step:
        letter = self.letters.get(player)
        if letter is None:
            refuse(text("{player} is not playing Space and Time at this table", player=player), RULE_HUB)
        if isinstance(action, ShowHints):
            if action.show == state.hints:
                return Decision(state)
            return self.decide(state, ctx, action, follow_up=False)
        if isinstance(action, (PlaceCoin, TakeBackCoin, Redeal)):  # anyone at the table, any time
            if self.is_over(state, ctx):
                return self.closed(state, ctx, player) or Rejected(text("The game is over"), RULE_END)
            return self.decide(state, ctx, action, follow_up=False)  # the computer waits for a flip
        if not isinstance(action, (Swap, ComputerMove)):
            refuse(text("In Space and Time you swap two coins: tap them on the board"), RULE_HUB)
        if self.is_over(state, ctx):
            return self.closed(state, ctx, player) or Rejected(text("The game is over"), RULE_END)
        if state.is_dealing:  # before the computer is asked to search a board it cannot see
            refuse(not_dealt_yet(state), RULE_SETUP)
        if letter != state.to_move:
            return self.not_your_turn(state, ctx, player, action)
        refused = self.turns.tap_refusal(player, turn_open=ctx.turn_open)
        if refused is not None:  # before the computer searches a swap for the player
            return refused
        swap = action if isinstance(action, Swap) else self.computer_swap(state)
        return self.play(state, ctx, player, swap)

    def not_your_turn(self, state: GameState, ctx: Context, player: str, action: Any) -> Step:
        """A swap (or "Computer plays this turn") tapped by ``player`` while the other letter is to move."""
        return Rejected(
            text(
                "It is {player}'s turn, not {other}'s",
                player=self.seating.name_of(state.to_move),
                other=player,
            ),
            RULE_ROLES,
        )

    def menu(self, state: GameState, ctx: Context, player: str, *, intents: dict[str, Any]) -> list[MenuItem]:
        return self.pages.menu(state, ctx, player, can_swap=self.can_swap(state, ctx, player))

    def timer_label(self, state: GameState, ctx: Context, seat: Seat) -> Text | str:
        """The player's letter and role this round under their turn timer ("A: Space")."""
        letter = self.letters.get(seat.player)
        if letter is None or seat.index != self.turns.index(seat.player):
            return ""
        return text("{letter}: {role}", letter=letter, role=ROLE_TEXTS[state.role_of(letter)])

    # --- pages --------------------------------------------------------------------------
    def view(self, state: GameState, ctx: Context) -> View:
        return self.pages.view(state, ctx)

    def player_view(self, state: GameState, ctx: Context, player: str) -> View:
        return self.pages.player_view(state, ctx, player, can_swap=self.can_swap(state, ctx, player))

    def scores(self, state: GameState, ctx: Context) -> dict[str, Any] | None:
        return self.pages.scores(state, ctx)


def _accepted(result: Any) -> Any:
    """The engine's answer, its refusal raised again inside the referee (one way for refusals)."""
    if isinstance(result, Rejected):
        refuse(result.reason, result.rule)
    return result


class VsComputerReferee(SpaceTimeReferee):
    """One person against the computer, which plays ``computer`` and swaps as soon as it is its turn."""

    def __init__(
        self,
        setup: TableSetup,
        data: dict[int, Level],
        *,
        computer: Player = "B",
        difficulty: int = DEFAULT_DIFFICULTY,
    ) -> None:
        self.computer = computer
        super().__init__(setup, data, difficulty=difficulty)

    def seat_names(self, players: tuple[str, ...]) -> dict[str, str]:
        if len(players) != 1:
            raise SpaceTimeConfigError(
                text(
                    "Space and Time against the computer is played by one person: set up 1 player (this table has {players})",
                    players=len(players),
                )
            )
        assert self.computer is not None
        return {other(self.computer): players[0], self.computer: COMPUTER}

    def follow_up(self, steps: TurnSteps[GameState]) -> None:
        """The computer swaps while it is its turn (again only after the Night round ended on its swap)."""
        for _ in range(4):
            state = steps.state
            if self.is_over(state, steps.ctx) or state.is_dealing or state.to_move != self.computer:
                return
            self.take(steps, self.computer_swap(steps.state))  # choose_move returns a legal swap

    def not_your_turn(self, state: GameState, ctx: Context, player: str, action: Any) -> Step:
        if state.to_move != self.computer:
            return super().not_your_turn(state, ctx, player, action)
        if isinstance(action, ComputerMove):
            return self.decide(state, ctx)
        return Rejected(
            text(
                'It is the computer\'s turn ({letter}): flip your timer or tap "Let the computer move"',
                letter=self.computer,
            ),
            RULE_ROLES,
        )

    @classmethod
    def playing(cls, computer: Player, difficulty: int = DEFAULT_DIFFICULTY) -> RefereeFactory:
        """The referee factory of a variant in which the computer plays ``computer`` at ``difficulty``."""

        def make(setup: TableSetup, data: dict[int, Level]) -> VsComputerReferee:
            return cls(setup, data, computer=computer, difficulty=difficulty)

        return make


class SpaceAndTimeGame(GameInfo):
    """Space and Time's :class:`GameInfo`: a variant is also found by the spellings the docs give.

    ``vs-computer`` is ``vs-computer-b``; ``vs-computer-a-N`` and ``vs-computer-b-N`` play the
    computer at difficulty N (any level of ``data/ai_levels.json``), whether or not the setup page
    lists that level.
    """

    def variant(self, name: str) -> Variant:
        try:
            return super().variant(name)
        except UnknownGameError:
            try:
                canonical = canonical_variant(name)
            except ConfigError:
                raise UnknownVariantError(
                    text(
                        'Space and Time has no variant "{variant}": the variants are {choices}, and vs-computer-a-N / vs-computer-b-N play the computer at difficulty N',
                        variant=name,
                        choices=tuple(v.name for v in self.variants),
                    )
                ) from None
        for variant in self.variants:
            if variant.name == canonical:
                return variant
        computer, difficulty = parse_variant(canonical)
        if computer is None or difficulty not in self.data:
            raise UnknownVariantError(
                text(
                    'Space and Time has no variant "{variant}": the computer\'s difficulties are {levels}',
                    variant=name,
                    levels=tuple(str(level) for level in sorted(self.data)),
                )
            )
        return Variant(
            canonical,
            canonical,
            self.variants[0].clock_minutes,
            VsComputerReferee.playing(computer, difficulty),
        )
