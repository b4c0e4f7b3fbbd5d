"""Space and Time on the hub: the table referee, with each player's sandtimer as a turn timer.

How a table plays it (see "On the hub" in docs/games/space-and-time.md):

* Two players: the hub's first player is ``A`` (Space in the Night round, moving first),
  the second is ``B``. One person can play against the computer instead: a setup with one
  player, or the variant ``vs-computer-a`` / ``vs-computer-b`` (the computer plays that
  letter, default B), optionally with a difficulty ``vs-computer-b-3`` (levels of
  ``ai_levels.json``, default 2). The starting boards come from ``deal_boards(setup.seed)``.
* The player to move flips their turn timer (their timer 1) to start the turn; a flip by
  the other player is refused ("It is ana's turn, not ben's"), and so are a second flip
  while the turn runs and a flip of another timer.
* During the turn the phone shows the board as a grid: the player taps two coins and the
  page posts ``{"type": "swap", "cells": [[r1, c1], [r2, c2]]}``. The engine judges it; an
  illegal swap is refused with the engine's reason and the same player swaps again.
  The menu also offers "Computer plays this turn" and the molecule hints (shown to everyone,
  highlighted on the board, until someone hides them).
* Against the computer (:class:`VsComputerReferee`, the referee of the ``vs-computer``
  variants and of a one-player table), the computer's swap is made by the referee as soon as
  it is its turn, in the same step as the human's swap (or the flip, the master clock's start
  or the time-out that made it its turn), with ``choose_move(..., seed=setup.seed + swaps so
  far)``, and logged as an ordinary swap, so a replay never runs the search again.
* Hub rule (not the rulebook's): with ``setup.turn_limit`` on, the turn timer running out
  while the turn is open forfeits the turn: no swap, the other player moves, and there is no
  swap to protect from reversing. With ``turn_limit`` off the sand is only a reminder.
* The master clock only bounds the session; the game ends by its own rules.

Logged actions (replayed only by an undo), each step with the engine's events as its facts:
``{"type": "turn_started", "player": "A"}``, ``{"type": "swap", "player": "A", "cells": [[r, c],
[r, c]]}``, ``{"type": "turn_timed_out", "player": "A"}`` and ``{"type": "hints", "show": true}``
(players by letter). The turn timer, the log and the notes are
:class:`~companion.rules.turns.TurnReferee`'s; the computer's levels arrive as the game's data
(``GAME.data``, ``ai_levels.json``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import ConfigError
from companion.rules.game import RefereeFactory
from companion.rules.outcome import Decision, Rejected, Step
from companion.rules.pages import MenuItem, View
from companion.rules.referee import Steps
from companion.rules.setup import Seat, TableSetup
from companion.rules.turns import Applied, TurnReferee

from .ai import Level, choose_move
from .deal import deal_boards
from .engine import (
    PLAYERS,
    RANKS,
    ROUND_NAMES,
    RULE_END,
    CoinsSwapped,
    GameEnded,
    GameState,
    Player,
    RoundEnded,
    TrophyTaken,
    apply,
    molecule_completing_moves,
    new_game,
    other,
    rank_name,
)

RULE_ROLES = "Space and Time rulebook, Roles and rounds"
RULE_HUB = "hub rule: Space and Time at a hub table"
RULE_TIME_OUT = "hub rule: a turn whose timer runs out is lost"
"""Not a rulebook rule: the hub's turn timer (issue 7)."""

COMPUTER = "computer"
"""How the computer opponent is named on the pages and in the scores."""
DEFAULT_DIFFICULTY = 2

RANK_SYMBOLS = ("0", "A", "2", "3", "4", "5")
"""How a coin is drawn on the board: 0 = null, A = ace, then 2 to 5."""
BOARD_TITLE = "Board (0 = null, A = ace, 2-5)"

_VARIANT = re.compile(r"^vs-computer(?:-([ab]))?(?:-(\d{1,2}))?$")
VARIANT_HELP = (
    'use "standard" for two players or "vs-computer-a" / "vs-computer-b" (the computer plays that '
    'letter), optionally with a difficulty, e.g. "vs-computer-b-3"'
)


def parse_variant(variant: str) -> tuple[Player | None, int]:
    """(letter the computer plays or None, difficulty) of a variant name.

    ``""``/``standard``: two people (difficulty 2 for "Computer plays this turn");
    ``vs-computer[-a|-b][-N]``: the computer plays that letter (default B) at level N (default 2).
    """
    text = variant.strip().lower()
    if text in ("", "standard", "default"):
        return None, DEFAULT_DIFFICULTY
    match = _VARIANT.match(text)
    if match is None:
        raise ConfigError(f"unknown Space and Time variant {variant!r}: {VARIANT_HELP}")
    letter: Player = "A" if match.group(1) == "a" else "B"
    difficulty = int(match.group(2)) if match.group(2) else DEFAULT_DIFFICULTY
    return letter, difficulty


def cell_text(cell: Iterable[int]) -> str:
    r, c = cell
    return f"({r}, {c})"


def plural(rank: int) -> str:
    """The coins of a rank, as in "the trophy of the aces"."""
    return f"{rank_name(rank)}s"


@dataclass(frozen=True)
class SpaceTimeTable:
    """The game as the hub keeps it."""

    game: GameState
    turn_open: bool = False
    """The player to move flipped their turn timer and has not swapped yet."""
    hints: bool = False
    """Someone asked to see the swaps that complete a molecule."""
    swaps: int = 0
    """Swaps made so far (the computer's seed is ``setup.seed + swaps``)."""
    turns: int = 0
    """Turns started by a flip or a first tap."""
    last: tuple[str, ...] = ()
    """The latest happenings, oldest first, for the pages."""


def _logged_cells(cells: Any) -> Any:
    """Posted cells as logged (``[[r, c], [r, c]]``); anything else as posted, for the engine to refuse."""
    if (
        isinstance(cells, (list, tuple))
        and len(cells) == 2
        and all(isinstance(c, (list, tuple)) for c in cells)
    ):
        return [list(cell) for cell in cells]
    return cells


class SpaceTimeReferee(TurnReferee[SpaceTimeTable]):
    """Space and Time at a hub table, two people playing (see the module docstring)."""

    game = "space-and-time"
    title = "Space and Time"
    turn_rule = RULE_ROLES
    what_next = "tap two coins to swap them"

    computer: Player | None = None
    """The letter the computer plays (:class:`VsComputerReferee`); None when two people play."""

    def __init__(
        self, setup: TableSetup, data: dict[int, Level], *, difficulty: int = DEFAULT_DIFFICULTY
    ) -> None:
        """``data``: the computer's levels (``GAME.data``); ``difficulty``: the level of "Computer
        plays this turn" (and of the computer opponent)."""
        super().__init__(setup)
        if difficulty not in data:
            raise ConfigError(
                f"the computer has no difficulty {difficulty}; choose one of "
                f"{', '.join(map(str, sorted(data)))}"
            )
        self.levels = data
        self.difficulty = difficulty
        self.names: dict[str, str] = self.seat_names(setup.players)
        self.letters: dict[str, Player] = {
            name: letter
            for letter, name in self.names.items()
            if letter in PLAYERS and letter != self.computer
        }

    def seat_names(self, players: tuple[str, ...]) -> dict[str, str]:
        """Letter -> the name the pages show for it."""
        if len(players) != 2:
            raise ConfigError(
                f"Space and Time is played by exactly 2 players (or 1 against the computer); "
                f"this table has {len(players)}"
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

    # --- names ---------------------------------------------------------------------------
    def who(self, letter: str, game: GameState | None = None) -> str:
        """ "ana (A)", or "ana (A, Space)" with the role in ``game``'s round."""
        if game is None:
            return f"{self.names[letter]} ({letter})"
        return f"{self.names[letter]} ({letter}, {game.role_of(letter)})"  # type: ignore[arg-type]

    # --- start and steps ----------------------------------------------------------------
    def start(self, setup: TableSetup) -> SpaceTimeTable:
        board1, board2 = deal_boards(setup.seed)
        return SpaceTimeTable(new_game(board1, board2))

    def step(self, state: SpaceTimeTable, action: dict[str, Any]) -> Applied[SpaceTimeTable] | Rejected:
        kind, letter = action.get("type"), action.get("player")
        game = state.game
        if kind == "hints":
            show = bool(action.get("show"))
            return (
                replace(state, hints=show),
                (),
                ["molecule hints shown" if show else "molecule hints hidden"],
            )
        if letter not in PLAYERS:
            return Rejected(f"unknown player {letter!r}: players are A and B", RULE_HUB)
        if game.is_over:
            return Rejected(f"The game is over: {self.who(game.winner)} has won", RULE_END)  # type: ignore[arg-type]
        if game.to_move != letter:
            return Rejected(
                f"It is {self.names[game.to_move]}'s turn, not {self.names[letter]}'s", RULE_ROLES
            )
        if kind == "turn_started":
            return self.open_turn(state, self.who(letter, game))
        if kind == "swap":
            outcome = apply(game, action.get("cells"))
            if isinstance(outcome, Rejected):
                return outcome
            notes = self.describe(outcome.events, game)
            return (
                replace(state, game=outcome.state, turn_open=False, swaps=state.swaps + 1),
                outcome.events,
                notes,
            )
        if kind == "turn_timed_out":
            after = replace(game, to_move=other(letter), last_swap=None)
            note = (
                f"{self.who(letter, game)} ran out of time: no swap this turn, "
                f"{self.who(other(letter), game)} to move"
            )
            return replace(state, game=after, turn_open=False), (), [note]
        return Rejected(f"unknown Space and Time table action {kind!r}", RULE_HUB)

    def describe(self, events: Iterable[Any], before: GameState) -> list[str]:
        """The engine's events in words."""
        out: list[str] = []
        for event in events:
            if isinstance(event, CoinsSwapped):
                (c1, c2), (r1, r2) = event.cells, event.ranks
                out.append(
                    f"{self.names[event.player]} ({event.player}, {event.role}) swapped the "
                    f"{rank_name(r1)} at {cell_text(c1)} with the {rank_name(r2)} at {cell_text(c2)}"
                )
            elif isinstance(event, TrophyTaken):
                out.append(
                    f"{self.who(event.player)} took the {ROUND_NAMES[event.round]} trophy of the "
                    f"{plural(event.rank)}"
                )
            elif isinstance(event, RoundEnded):
                aside = ", ".join(plural(rank) for rank in event.set_aside)
                out.append(
                    f"the {ROUND_NAMES[event.round]} round is over"
                    + (f" (the trophy of the {aside} is set aside)" if aside else "")
                )
                if event.round == 1 and not any(isinstance(e, GameEnded) for e in events):
                    out.append(f"Day round on a new board: {self.who('B')} plays Space and moves first")
            elif isinstance(event, GameEnded):
                a, b = event.trophies
                tie = " (at 5 each A wins)" if a == b else ""
                out.append(f"game over: {self.who(event.winner)} wins, {a} trophies to {b}{tie}")
        return out

    def computer_swap(self, state: SpaceTimeTable) -> dict[str, Any]:
        """The computer's swap for the player to move, as a logged action (seeded by the move number)."""
        game = state.game
        move = choose_move(
            game, difficulty=self.difficulty, seed=self.setup.seed + state.swaps, levels=self.levels
        )
        return {"type": "swap", "player": game.to_move, "cells": [list(move[0]), list(move[1])]}

    # --- turns --------------------------------------------------------------------------
    def player_to_move(self, state: SpaceTimeTable) -> str:
        return self.names[state.game.to_move]

    def is_over(self, state: SpaceTimeTable) -> bool:
        return state.game.is_over

    def closed(self, state: SpaceTimeTable, player: str) -> Rejected | None:
        """The game is over (for everyone)."""
        game = state.game
        if game.winner is not None:
            return Rejected(f"The game is over: {self.who(game.winner)} has won", RULE_END)
        return None

    def turn_start(self, state: SpaceTimeTable) -> dict[str, Any]:
        return {"type": "turn_started", "player": state.game.to_move}

    def turn_time_out(self, state: SpaceTimeTable) -> dict[str, Any]:
        return {"type": "turn_timed_out", "player": state.game.to_move}

    # --- phones -------------------------------------------------------------------------
    def can_swap(self, state: SpaceTimeTable, player: str) -> bool:
        """``player`` may tap two coins now: their turn, started (or they have no turn timer)."""
        game = state.game
        return (
            not game.is_over
            and self.letters.get(player) == game.to_move
            and (state.turn_open or player not in self.turn_timer)
        )

    def player_action(self, state: SpaceTimeTable, player: str, action: dict[str, Any]) -> Step:
        game = state.game
        letter = self.letters.get(player)
        if letter is None:
            return Rejected(f"{player} is not playing Space and Time at this table", RULE_HUB)
        kind = action.get("type")
        if kind == "hints":
            show = action.get("show")
            if not isinstance(show, bool):
                return Rejected("The molecule hints are shown or hidden: say which", RULE_HUB)
            if show == state.hints:
                return Decision(state)
            return self.decide(state, {"type": "hints", "show": show}, follow_up=False)
        if kind not in ("swap", "computer_move"):
            return Rejected("In Space and Time you swap two coins: tap them on the board", RULE_HUB)
        if game.is_over:
            return self.closed(state, player) or Rejected("The game is over", RULE_END)
        if letter != game.to_move:
            return self.not_your_turn(state, player, kind)
        refused = self.turns.tap_refusal(player, turn_open=state.turn_open)
        if refused is not None:  # before the computer searches a swap for the player
            return refused
        if kind == "swap":
            swap = {"type": "swap", "player": letter, "cells": _logged_cells(action.get("cells"))}
        else:
            swap = self.computer_swap(state)
        return self.play(state, player, swap)

    def not_your_turn(self, state: SpaceTimeTable, player: str, kind: str) -> Step:
        """A swap (or "Computer plays this turn") tapped by ``player`` while the other letter is to move."""
        return Rejected(f"It is {self.names[state.game.to_move]}'s turn, not {player}'s", RULE_ROLES)

    def turn_items(self, state: SpaceTimeTable, player: str) -> list[MenuItem]:
        """The menu's buttons for the turn of ``player`` (before the hint toggle)."""
        if self.can_swap(state, player):
            return [
                MenuItem(
                    "computer-move", "Computer plays this turn", "Your turn", action={"type": "computer_move"}
                )
            ]
        return []

    def menu(
        self, state: SpaceTimeTable, player: str, *, intents: dict[str, dict[str, Any]]
    ) -> list[MenuItem]:
        game = state.game
        if game.is_over or player not in self.letters:
            return []
        items = self.turn_items(state, player)
        if state.hints:
            items.append(
                MenuItem(
                    "hints-hide", "Hide the molecule hints", "Hints", action={"type": "hints", "show": False}
                )
            )
        else:
            items.append(
                MenuItem(
                    "hints-show",
                    "Show swaps that complete a molecule",
                    "Hints",
                    action={"type": "hints", "show": True},
                )
            )
        return items

    def timer_label(self, state: SpaceTimeTable, seat: Seat) -> str:
        """The player's letter and role this round under their turn timer ("A: Space")."""
        letter = self.letters.get(seat.player)
        if letter is None or seat.index != self.turns.index(seat.player):
            return ""
        return f"{letter}: {state.game.role_of(letter)}"

    # --- pages --------------------------------------------------------------------------
    def hint_cells(self, state: SpaceTimeTable) -> list[list[int]]:
        """Cells of the swaps that would complete a molecule for the player to move (hints on)."""
        if not state.hints or state.game.is_over:
            return []
        cells = {cell for move, _ranks in molecule_completing_moves(state.game) for cell in move}
        return [list(cell) for cell in sorted(cells)]

    def summary(self, state: SpaceTimeTable) -> str:
        game = state.game
        if game.winner is not None:
            a, b = game.trophy_count("A"), game.trophy_count("B")
            return f"{self.who(game.winner)} wins, {a} trophies to {b}" + (
                " (at 5 each A wins)" if a == b else ""
            )
        stage = f"{ROUND_NAMES[game.round]} round"
        mover = self.who(game.to_move, game)
        name = self.names[game.to_move]
        if state.turn_open:
            return f"{stage}: {mover} is swapping"
        if name in self.turn_timer:
            return f"{stage}: {mover} to move: flip timer {self.turn_timer[name]} to start"
        return f"{stage}: {mover} to move"

    def _board(self, state: SpaceTimeTable, *, title: str = BOARD_TITLE) -> dict[str, Any]:
        return {
            "kind": "grid",
            "title": title,
            "rows": [[RANK_SYMBOLS[rank] for rank in row] for row in state.game.board],
            "highlight": self.hint_cells(state),
        }

    def _panels(self, state: SpaceTimeTable) -> list[dict[str, Any]]:
        game = state.game
        space = next(p for p in PLAYERS if game.role_of(p) == "Space")
        lines = [
            f"Round {game.round}: {ROUND_NAMES[game.round]}",
            f"Space: {self.who(space)}; Time: {self.who(other(space))}",
        ]
        if game.winner is not None:
            lines.append(f"Winner: {self.who(game.winner)}")
        else:
            lines.append(f"To move: {self.who(game.to_move, game)}")
            if game.last_swap:
                first, second = sorted(game.last_swap)
                lines.append(f"May not be swapped back: {cell_text(first)} and {cell_text(second)}")
        if state.hints and not game.is_over:
            found = molecule_completing_moves(game)
            lines.append(
                f"Molecule hints: {len(found)} swap{'' if len(found) == 1 else 's'} complete a molecule"
                + (" (highlighted)" if found else "")
            )
            for (c1, c2), ranks in found[:8]:
                lines.append(
                    f"{cell_text(c1)} with {cell_text(c2)}: the {', '.join(plural(k) for k in ranks)}"
                )
        trophies = [[self.names[p], p, game.trophy_count(p)] for p in PLAYERS]
        by_rank = []
        for rank in RANKS:
            row: list[Any] = [f"{RANK_SYMBOLS[rank]} ({rank_name(rank)})" if rank < 2 else RANK_SYMBOLS[rank]]
            for rnd in (1, 2):
                holder = game.trophies[rnd - 1][rank]
                if holder is not None:
                    row.append(self.names[holder])
                elif rnd < game.round or (rnd == game.round and game.is_over):
                    row.append("set aside")
                else:
                    row.append("free")
            by_rank.append(row)
        return [
            {"kind": "lines", "title": "Round and roles", "lines": lines},
            {
                "kind": "table",
                "title": "Trophies",
                "columns": ["Player", "Letter", "Trophies"],
                "rows": trophies,
            },
            {
                "kind": "table",
                "title": "Trophies by rank",
                "columns": ["Rank", "Night", "Day"],
                "rows": by_rank,
            },
            {"kind": "lines", "title": "Latest", "lines": list(state.last)},
        ]

    def view(self, state: SpaceTimeTable) -> View:
        return View(self.summary(state), (self._board(state), *self._panels(state)))

    def player_view(self, state: SpaceTimeTable, player: str) -> View:
        board = self._board(state)
        if self.can_swap(state, player):
            board.update(title=f"{BOARD_TITLE}: tap two coins to swap them", select=2, action_type="swap")
        panels = self._panels(state)
        letter = self.letters.get(player)
        if letter is not None:
            night, day = ("Space", "Time") if letter == "A" else ("Time", "Space")
            opponent = self.who(other(letter))
            panels[0]["lines"].insert(
                0, f"You are {letter}: {night} at Night, {day} by Day; against {opponent}"
            )
        return View(self.summary(state), (board, *panels))

    def scores(self, state: SpaceTimeTable) -> dict[str, Any] | None:
        """Once the game is over: trophies per player (``total``) and the winner (at 5 each A)."""
        game = state.game
        if game.winner is None:
            return None
        players = {}
        for letter in PLAYERS:
            night = sum(holder == letter for holder in game.trophies[0])
            day = sum(holder == letter for holder in game.trophies[1])
            players[self.names[letter]] = {
                "total": night + day,
                "letter": letter,
                "rows": {"Night": {"trophies": night}, "Day": {"trophies": day}},
            }
        winner = self.names[game.winner]
        return {
            "winners": [winner],
            "shared": False,
            "ranking": [winner, self.names[other(game.winner)]],
            "players": players,
            "tie_rule": "at 5 trophies each, A (Space in the Night round) wins",
        }


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
            raise ConfigError(
                "Space and Time against the computer is played by one person: set up 1 player "
                f"(this table has {len(players)})"
            )
        assert self.computer is not None
        return {other(self.computer): players[0], self.computer: COMPUTER}

    def follow_up(self, steps: Steps) -> None:
        """The computer swaps while it is its turn (again only after the Night round ended on its swap)."""
        for _ in range(4):
            game = steps.state.game
            if game.is_over or game.to_move != self.computer:
                return
            refused = self.take(steps, self.computer_swap(steps.state))
            assert refused is None, refused  # choose_move returns a legal swap

    def not_your_turn(self, state: SpaceTimeTable, player: str, kind: str) -> Step:
        if state.game.to_move != self.computer:
            return super().not_your_turn(state, player, kind)
        if kind == "computer_move":
            return self.decide(state)
        return Rejected(
            f'It is the computer\'s turn ({self.computer}): flip your timer or tap "Let the computer move"',
            RULE_ROLES,
        )

    def turn_items(self, state: SpaceTimeTable, player: str) -> list[MenuItem]:
        if state.game.to_move != self.computer:
            return super().turn_items(state, player)
        return [
            MenuItem(
                "computer-move",
                f"Let the computer ({self.computer}) move",
                "Your opponent",
                action={"type": "computer_move"},
            )
        ]

    def summary(self, state: SpaceTimeTable) -> str:
        game = state.game
        if game.winner is None and game.to_move == self.computer:
            return f"{ROUND_NAMES[game.round]} round: the computer ({game.to_move}) is to move"
        return super().summary(state)

    @classmethod
    def playing(cls, computer: Player, difficulty: int = DEFAULT_DIFFICULTY) -> RefereeFactory:
        """The referee factory of a variant in which the computer plays ``computer`` at ``difficulty``."""

        def make(setup: TableSetup, data: dict[int, Level]) -> VsComputerReferee:
            return cls(setup, data, computer=computer, difficulty=difficulty)

        return make
