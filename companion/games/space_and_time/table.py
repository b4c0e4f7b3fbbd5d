"""Space and Time on the hub: the table referee, with each player's sandtimer as a turn timer.

How a table plays it (see "On the hub" in docs/games/space-and-time.md):

* Two players: the hub's first player is ``A`` (Space in the Night round, moving first),
  the second is ``B``. One person can play against the computer instead: a setup with one
  player, or the variant ``vs-computer-a`` / ``vs-computer-b`` (the computer plays that
  letter, default B; ``vs-computer`` alone is ``vs-computer-b``), optionally with a difficulty
  ``vs-computer-b-3`` (levels of ``ai_levels.json``, default 2). The starting boards come from
  ``deal_boards(setup.seed)``.
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
* Hub rule: ended early by the host (:meth:`SpaceTimeReferee.game_ended_early`), the game is
  scored by the trophies taken so far: more trophies wins, equal trophies share the victory
  (the rulebook's "A wins at five each" belongs to a finished game).

Every word for players is a :class:`~companion.rules.text.Text` (catalogs in ``i18n/``).
Logged actions (replayed only by an undo), each step with the engine's events as its facts:
``{"type": "turn_started", "player": "A"}``, ``{"type": "swap", "player": "A", "cells": [[r, c],
[r, c]]}``, ``{"type": "turn_timed_out", "player": "A"}``, ``{"type": "hints", "show": true}``
and ``{"type": "ended_early"}`` (players by letter). The turn timer, the log and the notes are
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
from companion.rules.text import Text, TextError, text
from companion.rules.turns import Applied, TurnReferee

from .ai import Level, choose_move
from .deal import deal_boards
from .engine import (
    COLS,
    PLAYERS,
    RANKS,
    ROLE_TEXTS,
    ROUND_TEXTS,
    ROWS,
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
    rank_text,
)

TITLE = text("Space and Time")
"""The game's name in sentences."""
RULE_ROLES = text("Space and Time rulebook, Roles and rounds")
RULE_HUB = text("hub rule: Space and Time at a hub table")
RULE_TIME_OUT = text("hub rule: a turn whose timer runs out is lost")
"""Not a rulebook rule: the hub's turn timer (issue 7)."""
RULE_ENDED_EARLY = text("hub rule: a game ended early is scored by the trophies taken so far")
"""Not a rulebook rule: what the hub does when the host ends the game before its end."""

COMPUTER = "computer"
"""How the computer opponent is named in the scores (the pages say it in the table's language)."""
COMPUTER_TEXT = text("computer")
"""The computer as the pages name it, like a player ("computer (B)")."""
DEFAULT_DIFFICULTY = 2

RANK_SYMBOLS = ("0", "A", "2", "3", "4", "5")
"""How a coin is drawn on the board: 0 = null, A = ace, then 2 to 5."""
BOARD_TITLE = text("Board (0 = null, A = ace, 2-5)")
RANK_PLURALS: dict[int, Text] = {0: text("nulls"), 1: text("aces")}
"""The coins of a named rank together, as in "the trophy of the aces"; numbers use ``{rank}s``."""

_VARIANT = re.compile(r"^vs-computer(?:-([ab]))?(?:-(\d{1,2}))?$")
VARIANT_HELP = text(
    'use "standard" for two players or "vs-computer-a" / "vs-computer-b" (the computer plays that letter), optionally with a difficulty, e.g. "vs-computer-b-3"'
)


class SpaceTimeConfigError(ConfigError, TextError):
    """A table Space and Time cannot be played at (a setup error the host reads, in their language)."""


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


def cell_text(cell: Iterable[int]) -> str:
    r, c = cell
    return f"({r}, {c})"  # coordinates, the same in every language


def plural(rank: int) -> Text:
    """The coins of a rank, as in "the trophy of the aces"."""
    return RANK_PLURALS.get(rank) or text("{rank}s", rank=rank)


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
    last: tuple[Text | str, ...] = ()
    """The latest happenings, oldest first, for the pages (plain strings: an older log's notes)."""
    last_swap_by: Player | None = None
    """Who made the latest swap (its cells are highlighted on the picture while it may not be reversed)."""
    ended_early: bool = False
    """The host ended the game before its end: it is scored by the trophies taken so far."""

    @property
    def is_over(self) -> bool:
        return self.game.is_over or self.ended_early


def _logged_cells(cells: Any) -> Any:
    """Posted cells as logged (``[[r, c], [r, c]]``); anything else as posted, for the engine to refuse."""
    if (
        isinstance(cells, (list, tuple))
        and len(cells) == 2
        and all(isinstance(c, (list, tuple)) for c in cells)
    ):
        return [list(cell) for cell in cells]
    return cells


def early_winners(game: GameState) -> list[Player]:
    """Who leads when the game is ended early: more trophies, or both when they hold as many."""
    a, b = game.trophy_count("A"), game.trophy_count("B")
    if a == b:
        return ["A", "B"]
    return ["A"] if a > b else ["B"]


class SpaceTimeReferee(TurnReferee[SpaceTimeTable]):
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
        self.names: dict[str, str] = self.seat_names(setup.players)
        self.letters: dict[str, Player] = {
            name: letter
            for letter, name in self.names.items()
            if letter in PLAYERS and letter != self.computer
        }

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

    # --- names ---------------------------------------------------------------------------
    def name_of(self, letter: str) -> Text | str:
        """The player of ``letter`` as the pages name them: their name, or "the computer"."""
        if letter == self.computer:
            return COMPUTER_TEXT
        return self.names[letter]

    def who(self, letter: str, game: GameState | None = None) -> Text:
        """ "ana (A)", or "ana (A, Space)" with the role in ``game``'s round."""
        if game is None:
            return text("{name} ({letter})", name=self.name_of(letter), letter=letter)
        role = ROLE_TEXTS[game.role_of(letter)]  # type: ignore[arg-type]
        return text("{name} ({letter}, {role})", name=self.name_of(letter), letter=letter, role=role)

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
                [text("molecule hints shown") if show else text("molecule hints hidden")],
            )
        if kind == "ended_early":
            if state.is_over:
                return self.closed(state, "") or Rejected(text("The game is over"), RULE_END)
            return replace(state, ended_early=True, turn_open=False), (), [self.early_note(game)]
        closed = self.closed(state, "")
        if closed is not None:
            return closed
        if letter not in PLAYERS:
            return Rejected(
                text("unknown player {player}: players are A and B", player=repr(letter)), RULE_HUB
            )
        if game.to_move != letter:
            return Rejected(
                text(
                    "It is {player}'s turn, not {other}'s",
                    player=self.name_of(game.to_move),
                    other=self.name_of(letter),
                ),
                RULE_ROLES,
            )
        if kind == "turn_started":
            return self.open_turn(state, self.who(letter, game))
        if kind == "swap":
            outcome = apply(game, action.get("cells"))
            if isinstance(outcome, Rejected):
                return outcome
            notes = self.describe(outcome.events, game)
            swapped = replace(
                state, game=outcome.state, turn_open=False, swaps=state.swaps + 1, last_swap_by=letter
            )
            return swapped, outcome.events, notes
        if kind == "turn_timed_out":
            later = replace(game, to_move=other(letter), last_swap=None)
            note = text(
                "{player} ran out of time: no swap this turn, {other} to move",
                player=self.who(letter, game),
                other=self.who(other(letter), game),
            )
            return replace(state, game=later, turn_open=False), (), [note]
        return Rejected(text("unknown Space and Time table action {action}", action=repr(kind)), RULE_HUB)

    def describe(self, events: Iterable[Any], before: GameState) -> list[Text]:
        """The engine's events for players."""
        out: list[Text] = []
        for event in events:
            if isinstance(event, CoinsSwapped):
                (c1, c2), (r1, r2) = event.cells, event.ranks
                out.append(
                    text(
                        "{player} swapped the {rank} at {cell} with the {other} at {other_cell}",
                        player=text(
                            "{name} ({letter}, {role})",
                            name=self.name_of(event.player),
                            letter=event.player,
                            role=ROLE_TEXTS[event.role],
                        ),
                        rank=rank_text(r1),
                        cell=cell_text(c1),
                        other=rank_text(r2),
                        other_cell=cell_text(c2),
                    )
                )
            elif isinstance(event, TrophyTaken):
                out.append(
                    text(
                        "{player} took the {round} trophy of the {ranks}",
                        player=self.who(event.player),
                        round=ROUND_TEXTS[event.round],
                        ranks=plural(event.rank),
                    )
                )
            elif isinstance(event, RoundEnded):
                if event.set_aside:
                    out.append(
                        text(
                            "the {round} round is over (the trophy of the {ranks} is set aside)",
                            round=ROUND_TEXTS[event.round],
                            ranks=tuple(plural(rank) for rank in event.set_aside),
                        )
                    )
                else:
                    out.append(text("the {round} round is over", round=ROUND_TEXTS[event.round]))
                if event.round == 1 and not any(isinstance(e, GameEnded) for e in events):
                    out.append(
                        text(
                            "Day round on a new board: {player} plays Space and moves first",
                            player=self.who("B"),
                        )
                    )
            elif isinstance(event, GameEnded):
                a, b = event.trophies
                if a == b:
                    out.append(
                        text(
                            "game over: {player} wins, {trophies} trophies to {other} (at 5 each A wins)",
                            player=self.who(event.winner),
                            trophies=a,
                            other=b,
                        )
                    )
                else:
                    out.append(
                        text(
                            "game over: {player} wins, {trophies} trophies to {other}",
                            player=self.who(event.winner),
                            trophies=a,
                            other=b,
                        )
                    )
        return out

    def early_note(self, game: GameState) -> Text:
        """What the end of a game ended early says: who leads on trophies, or that they are level."""
        a, b = game.trophy_count("A"), game.trophy_count("B")
        winners = early_winners(game)
        if len(winners) == 2:
            return text(
                "The game was ended early: {player} and {other} share the victory with {count} trophy each",
                "The game was ended early: {player} and {other} share the victory with {count} trophies each",
                player=self.who("A"),
                other=self.who("B"),
                count=a,
            )
        return text(
            "The game was ended early: {player} wins on trophies, {trophies} to {other}",
            player=self.who(winners[0]),
            trophies=max(a, b),
            other=min(a, b),
        )

    def game_ended_early(self, state: SpaceTimeTable) -> Step:
        """The host ended the game (hub rule): it is scored by the trophies taken so far, and nobody
        swaps any more."""
        if state.is_over:
            return Decision(state)
        return self.decide(state, {"type": "ended_early"}, follow_up=False)

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
        return state.is_over

    def closed(self, state: SpaceTimeTable, player: str) -> Rejected | None:
        """The game is over, or was ended early (for everyone)."""
        game = state.game
        if game.winner is not None:
            return Rejected(
                text("The game is over: {player} has won", player=self.who(game.winner)), RULE_END
            )
        if state.ended_early:
            return Rejected(text("The game was ended early"), RULE_ENDED_EARLY)
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
            not state.is_over
            and self.letters.get(player) == game.to_move
            and (state.turn_open or player not in self.turn_timer)
        )

    def player_action(self, state: SpaceTimeTable, player: str, action: dict[str, Any]) -> Step:
        game = state.game
        letter = self.letters.get(player)
        if letter is None:
            return Rejected(
                text("{player} is not playing Space and Time at this table", player=player), RULE_HUB
            )
        kind = action.get("type")
        if kind == "hints":
            show = action.get("show")
            if not isinstance(show, bool):
                return Rejected(text("The molecule hints are shown or hidden: say which"), RULE_HUB)
            if show == state.hints:
                return Decision(state)
            return self.decide(state, {"type": "hints", "show": show}, follow_up=False)
        if kind not in ("swap", "computer_move"):
            return Rejected(text("In Space and Time you swap two coins: tap them on the board"), RULE_HUB)
        if state.is_over:
            return self.closed(state, player) or Rejected(text("The game is over"), RULE_END)
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
        return Rejected(
            text(
                "It is {player}'s turn, not {other}'s", player=self.name_of(state.game.to_move), other=player
            ),
            RULE_ROLES,
        )

    def turn_items(self, state: SpaceTimeTable, player: str) -> list[MenuItem]:
        """The menu's buttons for the turn of ``player`` (before the hint toggle)."""
        if self.can_swap(state, player):
            return [
                MenuItem(
                    "computer-move",
                    text("Computer plays this turn"),
                    text("Your turn"),
                    action={"type": "computer_move"},
                )
            ]
        return []

    def menu(
        self, state: SpaceTimeTable, player: str, *, intents: dict[str, dict[str, Any]]
    ) -> list[MenuItem]:
        if state.is_over or player not in self.letters:
            return []
        items = self.turn_items(state, player)
        if state.hints:
            items.append(
                MenuItem(
                    "hints-hide",
                    text("Hide the molecule hints"),
                    text("Hints"),
                    action={"type": "hints", "show": False},
                )
            )
        else:
            items.append(
                MenuItem(
                    "hints-show",
                    text("Show swaps that complete a molecule"),
                    text("Hints"),
                    action={"type": "hints", "show": True},
                )
            )
        return items

    def timer_label(self, state: SpaceTimeTable, seat: Seat) -> Text | str:
        """The player's letter and role this round under their turn timer ("A: Space")."""
        letter = self.letters.get(seat.player)
        if letter is None or seat.index != self.turns.index(seat.player):
            return ""
        return text("{letter}: {role}", letter=letter, role=ROLE_TEXTS[state.game.role_of(letter)])

    # --- pages --------------------------------------------------------------------------
    def hint_cells(self, state: SpaceTimeTable) -> list[list[int]]:
        """Cells of the swaps that would complete a molecule for the player to move (hints on)."""
        if not state.hints or state.is_over:
            return []
        cells = {cell for move, _ranks in molecule_completing_moves(state.game) for cell in move}
        return [list(cell) for cell in sorted(cells)]

    def stage(self, state: SpaceTimeTable) -> Text:
        """ "Night round" or "Day round"."""
        return text("{round} round", round=ROUND_TEXTS[state.game.round])

    def summary(self, state: SpaceTimeTable) -> Text:
        game = state.game
        if game.winner is not None:
            a, b = game.trophy_count("A"), game.trophy_count("B")
            if a == b:
                return text(
                    "{player} wins, {trophies} trophies to {other} (at 5 each A wins)",
                    player=self.who(game.winner),
                    trophies=a,
                    other=b,
                )
            return text(
                "{player} wins, {trophies} trophies to {other}",
                player=self.who(game.winner),
                trophies=a,
                other=b,
            )
        if state.ended_early:
            return self.early_note(game)
        mover = self.who(game.to_move, game)
        name = self.names[game.to_move]
        if state.turn_open:
            return text("{stage}: {player} is swapping", stage=self.stage(state), player=mover)
        if name in self.turn_timer:
            return text(
                "{stage}: {player} to move: flip timer {index} to start",
                stage=self.stage(state),
                player=mover,
                index=self.turn_timer[name],
            )
        return text("{stage}: {player} to move", stage=self.stage(state), player=mover)

    def _board(self, state: SpaceTimeTable, *, title: Text = BOARD_TITLE) -> dict[str, Any]:
        return {
            "kind": "grid",
            "title": title,
            "rows": [[RANK_SYMBOLS[rank] for rank in row] for row in state.game.board],
            "highlight": self.hint_cells(state),
        }

    def _trophy_holder(self, state: SpaceTimeTable, rnd: int, rank: int) -> Text | str:
        game = state.game
        holder = game.trophies[rnd - 1][rank]
        if holder is not None:
            return self.name_of(holder)
        if rnd < game.round or (rnd == game.round and game.is_over):
            return text("set aside")
        return text("free")

    def _panels(self, state: SpaceTimeTable) -> list[dict[str, Any]]:
        game = state.game
        space = next(p for p in PLAYERS if game.role_of(p) == "Space")
        lines: list[Text | str] = [
            text("Round {number}: {round}", number=game.round, round=ROUND_TEXTS[game.round]),
            text("Space: {player}; Time: {other}", player=self.who(space), other=self.who(other(space))),
        ]
        if game.winner is not None:
            lines.append(text("Winner: {player}", player=self.who(game.winner)))
        elif state.ended_early:
            lines.append(self.early_note(game))
        else:
            lines.append(text("To move: {player}", player=self.who(game.to_move, game)))
            if game.last_swap:
                first, second = sorted(game.last_swap)
                lines.append(
                    text(
                        "May not be swapped back: {cell} and {other}",
                        cell=cell_text(first),
                        other=cell_text(second),
                    )
                )
        if state.hints and not state.is_over:
            found = molecule_completing_moves(game)
            if found:
                lines.append(
                    text(
                        "Molecule hints: {count} swap completes a molecule (highlighted)",
                        "Molecule hints: {count} swaps complete a molecule (highlighted)",
                        count=len(found),
                    )
                )
            else:
                lines.append(
                    text(
                        "Molecule hints: {count} swap completes a molecule",
                        "Molecule hints: {count} swaps complete a molecule",
                        count=0,
                    )
                )
            for (c1, c2), ranks in found[:8]:
                lines.append(
                    text(
                        "{cell} with {other}: the {ranks}",
                        cell=cell_text(c1),
                        other=cell_text(c2),
                        ranks=tuple(plural(k) for k in ranks),
                    )
                )
        trophies = [[self.name_of(p), p, game.trophy_count(p)] for p in PLAYERS]
        by_rank = []
        for rank in RANKS:
            label: Text | str = RANK_SYMBOLS[rank]
            if rank < 2:
                label = text("{symbol} ({rank})", symbol=RANK_SYMBOLS[rank], rank=rank_text(rank))
            by_rank.append([label, self._trophy_holder(state, 1, rank), self._trophy_holder(state, 2, rank)])
        return [
            {"kind": "lines", "title": text("Round and roles"), "lines": lines},
            {
                "kind": "table",
                "title": text("Trophies"),
                "columns": [text("Player"), text("Letter"), text("Trophies")],
                "rows": trophies,
            },
            {
                "kind": "table",
                "title": text("Trophies by rank"),
                "columns": [text("Rank"), ROUND_TEXTS[1], ROUND_TEXTS[2]],
                "rows": by_rank,
            },
            {"kind": "lines", "title": text("Latest"), "lines": list(state.last)},
        ]

    def picture(self, state: SpaceTimeTable) -> dict[str, Any]:
        """What the dashboard draws (``static/pictures/space-and-time.js``): the coin grid with row and
        column numbers, the latest swap (while it may not be swapped back) and the hints highlighted,
        both players with their role, trophies and whose turn it is, and each rank's trophies."""
        game = state.game
        cells = []
        for r, row in enumerate(game.board):
            for c, rank in enumerate(row):
                cells.append(
                    {
                        "row": r,
                        "column": c,
                        "rank": rank,
                        "symbol": RANK_SYMBOLS[rank],
                        "title": text(
                            "Row {row}, column {column}: {rank}", row=r, column=c, rank=rank_text(rank)
                        ),
                    }
                )
        last = sorted(list(cell) for cell in game.last_swap) if game.last_swap else []
        early = early_winners(game) if state.ended_early and not game.is_over else []
        players = [
            {
                "letter": p,
                "name": self.name_of(p),
                "colour": self.setup.colour_of(self.names[p]) if p != self.computer else "gray",
                "role": ROLE_TEXTS[game.role_of(p)],
                "trophies": game.trophy_count(p),
                "trophies_label": text("{count} trophy", "{count} trophies", count=game.trophy_count(p)),
                "to_move": p == game.to_move and not state.is_over,
                "winner": p == game.winner or p in early,
            }
            for p in PLAYERS
        ]
        trophies = []
        for rank in RANKS:
            entry: dict[str, Any] = {"rank": rank, "symbol": RANK_SYMBOLS[rank]}
            for rnd, key in ((1, "night"), (2, "day")):
                holder = game.trophies[rnd - 1][rank]
                shown = self._trophy_holder(state, rnd, rank)
                entry[key] = shown
                entry[f"{key}_letter"] = holder or ""
                entry[f"{key}_state"] = "held" if holder else ("free" if shown == text("free") else "aside")
            trophies.append(entry)
        return {
            "caption": self.summary(state),
            "rows": ROWS,
            "columns": COLS,
            "cells": cells,
            "last_swap": last,
            "last_swap_by": state.last_swap_by if last else None,
            "last_swap_label": text("Last swap") if last else "",
            "hints": self.hint_cells(state),
            "round": game.round,
            "stage": self.stage(state),
            "players": players,
            "trophies": trophies,
            "labels": {
                "night": ROUND_TEXTS[1],
                "day": ROUND_TEXTS[2],
                "to_move": text("to move"),
                "winner": text("winner"),
            },
        }

    def view(self, state: SpaceTimeTable) -> View:
        return View(
            self.summary(state),
            (self._board(state), *self._panels(state)),
            extra={"picture": self.picture(state)},
        )

    def player_view(self, state: SpaceTimeTable, player: str) -> View:
        board = self._board(state)
        if self.can_swap(state, player):
            board.update(
                title=text("Board (0 = null, A = ace, 2-5): tap two coins to swap them"),
                select=2,
                action_type="swap",
            )
        panels = self._panels(state)
        letter = self.letters.get(player)
        if letter is not None:
            night, day = ("Space", "Time") if letter == "A" else ("Time", "Space")
            panels[0]["lines"].insert(
                0,
                text(
                    "You are {letter}: {night} at Night, {day} by Day; against {opponent}",
                    letter=letter,
                    night=ROLE_TEXTS[night],
                    day=ROLE_TEXTS[day],
                    opponent=self.who(other(letter)),
                ),
            )
        return View(self.summary(state), (board, *panels))

    def scores(self, state: SpaceTimeTable) -> dict[str, Any] | None:
        """Once the game is over: trophies per player (``total``) and the winner (at 5 each A).

        Ended early (hub rule): the trophies taken so far, more wins, equal trophies share it."""
        game = state.game
        if game.winner is None and not state.ended_early:
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
        if game.winner is not None:
            winners = [game.winner]
            tie_rule: Text = text("at 5 trophies each, A (Space in the Night round) wins")
        else:
            winners = early_winners(game)
            tie_rule = RULE_ENDED_EARLY
        ranking = sorted(PLAYERS, key=lambda p: (p not in winners, -game.trophy_count(p), p))
        out: dict[str, Any] = {
            "winners": [self.names[p] for p in winners],
            "shared": len(winners) > 1,
            "ranking": [self.names[p] for p in ranking],
            "players": players,
            "tie_rule": tie_rule,
        }
        if game.winner is None:
            out["ended_early"] = True
        return out


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

    def follow_up(self, steps: Steps) -> None:
        """The computer swaps while it is its turn (again only after the Night round ended on its swap)."""
        for _ in range(4):
            if steps.state.is_over or steps.state.game.to_move != self.computer:
                return
            refused = self.take(steps, self.computer_swap(steps.state))
            assert refused is None, refused  # choose_move returns a legal swap

    def not_your_turn(self, state: SpaceTimeTable, player: str, kind: str) -> Step:
        if state.game.to_move != self.computer:
            return super().not_your_turn(state, player, kind)
        if kind == "computer_move":
            return self.decide(state)
        return Rejected(
            text(
                'It is the computer\'s turn ({letter}): flip your timer or tap "Let the computer move"',
                letter=self.computer,
            ),
            RULE_ROLES,
        )

    def turn_items(self, state: SpaceTimeTable, player: str) -> list[MenuItem]:
        if state.game.to_move != self.computer:
            return super().turn_items(state, player)
        return [
            MenuItem(
                "computer-move",
                text("Let the computer ({letter}) move", letter=self.computer),
                text("Your opponent"),
                action={"type": "computer_move"},
            )
        ]

    def summary(self, state: SpaceTimeTable) -> Text:
        game = state.game
        if not state.is_over and game.to_move == self.computer:
            return text(
                "{round} round: the computer ({letter}) is to move",
                round=ROUND_TEXTS[game.round],
                letter=game.to_move,
            )
        return super().summary(state)

    @classmethod
    def playing(cls, computer: Player, difficulty: int = DEFAULT_DIFFICULTY) -> RefereeFactory:
        """The referee factory of a variant in which the computer plays ``computer`` at ``difficulty``."""

        def make(setup: TableSetup, data: dict[int, Level]) -> VsComputerReferee:
            return cls(setup, data, computer=computer, difficulty=difficulty)

        return make
