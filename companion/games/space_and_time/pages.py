"""What the pages show of a game of Space and Time: the words, the board, the picture and the buttons.

Pure: everything here only reads the game's state (:class:`~.model.GameState`) and the table's
context (:class:`~companion.rules.context.Context`). Every word for players is a
:class:`~companion.rules.text.Text` (catalogs in ``i18n/``). :func:`snapshot` is the same game as
plain JSON, without words (for tools and tests).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from companion.rules.context import Context
from companion.rules.pages import MenuItem, View
from companion.rules.setup import TableSetup
from companion.rules.text import Text, text

from .engine import ROLE_TEXTS, ROUND_TEXTS, apply, coins_left, molecule_completing_moves, rank_text
from .model import (
    COLS,
    PLAYERS,
    RANK_NAMES,
    RANKS,
    ROUND_NAMES,
    ROWS,
    BoardCleared,
    BoardDealt,
    CoinEntered,
    CoinsSwapped,
    CoinTakenBack,
    ComputerMove,
    Deal,
    GameEnded,
    GameState,
    PlaceCoin,
    Player,
    Redeal,
    RoundEnded,
    ShowHints,
    TakeBackCoin,
    TrophyTaken,
    block_of,
    other,
)

COMPUTER = "computer"
"""How the computer opponent is named in the scores (the pages say it in the table's language)."""
COMPUTER_TEXT = text("computer")
"""The computer as the pages name it, like a player ("computer (B)")."""
RANK_SYMBOLS = ("0", "A", "2", "3", "4", "5")
"""How a coin is drawn on the board: 0 = null, A = ace, then 2 to 5."""
BOARD_TITLE = text("Board (0 = null, A = ace, 2-5)")
DEALING_TITLE = text("Board being entered (0 = null, A = ace, 2-5, · not known yet)")
UNKNOWN_SYMBOL = "·"
"""A cell whose coin the table has not entered yet."""
RANK_PLURALS: dict[int, Text] = {0: text("nulls"), 1: text("aces")}
"""The coins of a named rank together, as in "the trophy of the aces"; numbers use ``{rank}s``."""
RULE_ENDED_EARLY = text("hub rule: a game ended early is scored by the trophies taken so far")
"""Not a rulebook rule: what the hub does when the host ends the game before its end."""


def cell_text(cell: Iterable[int]) -> str:
    r, c = cell
    return f"({r}, {c})"  # coordinates, the same in every language


def plural(rank: int) -> Text:
    """The coins of a rank, as in "the trophy of the aces"."""
    return RANK_PLURALS.get(rank) or text("{rank}s", rank=rank)


LATEST = 4
"""How many of the latest happenings the pages list."""
_JOINED = re.compile(r"^\{p0\}(?:; \{p\d+\})*$")


def note_parts(note: Text | str) -> Iterator[Text | str]:
    """The happenings one step's note joins (each action's words on its own), oldest first."""
    if isinstance(note, Text) and not note.verbatim and _JOINED.match(note.msgid):
        for _name, part in note.args:
            if isinstance(part, (Text, str)):
                yield from note_parts(part)
        return
    yield note


def latest(ctx: Context) -> list[Text | str]:
    """The latest happenings, oldest first: each one a line, as many as :data:`LATEST`."""
    return [part for note in ctx.recent for part in note_parts(note)][-LATEST:]


def early_winners(game: GameState) -> list[Player]:
    """Who leads when the game is ended early: more trophies, or both when they hold as many."""
    a, b = game.trophy_count("A"), game.trophy_count("B")
    if a == b:
        return ["A", "B"]
    return ["A"] if a > b else ["B"]


@dataclass(frozen=True)
class Seating:
    """Who plays which letter at this table, as the pages name them."""

    names: dict[str, str]
    """Letter -> the name the scores give it (a hub player, or :data:`COMPUTER`)."""
    computer: Player | None = None
    """The letter the computer plays, or None when two people play."""

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

    @property
    def letters(self) -> dict[str, Player]:
        """Hub player -> their letter (the computer is no hub player)."""
        return {
            name: letter
            for letter, name in self.names.items()
            if letter in PLAYERS and letter != self.computer
        }


class Pages:
    """The words, views, picture, buttons and scores of one table's game."""

    def __init__(self, setup: TableSetup, seating: Seating, turn_timer: dict[str, int]) -> None:
        self.setup = setup
        self.seating = seating
        self.turn_timer = turn_timer
        """Player -> index of their turn timer (players without a sandtimer are not in it)."""

    def who(self, letter: str, game: GameState | None = None) -> Text:
        return self.seating.who(letter, game)

    # --- notes ----------------------------------------------------------------------------
    def describe(self, events: Iterable[Any], after: GameState | None = None) -> list[Text]:
        """The engine's events for players (``after``: the state they led to)."""
        events = tuple(events)
        out: list[Text] = []
        for event in events:
            if isinstance(event, (CoinEntered, BoardDealt, CoinTakenBack, BoardCleared)):
                out.extend(self.describe_entry(event))
            if isinstance(event, CoinsSwapped):
                (c1, c2), (r1, r2) = event.cells, event.ranks
                out.append(
                    text(
                        "{player} swapped the {rank} at {cell} with the {other} at {other_cell}",
                        player=text(
                            "{name} ({letter}, {role})",
                            name=self.seating.name_of(event.player),
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
                    if after is not None and after.is_dealing:
                        out.append(
                            text(
                                "Shuffle the coins, deal the Day board and enter it on a phone: then {player} plays Space and moves first",
                                player=self.who("B"),
                            )
                        )
                    else:
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

    def describe_entry(self, event: Any) -> list[Text]:
        """What the table entered of a board it dealt, for the notes."""
        if isinstance(event, CoinEntered):
            notes = [text("{rank} at {cell} entered", rank=rank_text(event.rank), cell=cell_text(event.cell))]
            for cell, rank in event.follows:
                notes.append(
                    text(
                        "{rank} at {cell}: the last coin of its block",
                        rank=rank_text(rank),
                        cell=cell_text(cell),
                    )
                )
            return notes
        if isinstance(event, BoardDealt):
            space = "A" if event.round == 1 else "B"
            return [
                text(
                    "The {round} board is entered: {player} plays Space and moves first",
                    round=ROUND_TEXTS[event.round],
                    player=self.who(space),
                )
            ]
        if isinstance(event, CoinTakenBack):
            return [
                text("{rank} at {cell} taken back", rank=rank_text(event.rank), cell=cell_text(event.cell))
            ]
        return [
            text(
                "The coins entered for the {round} board are forgotten: deal them again and enter the board",
                round=ROUND_TEXTS[event.round],
            )
        ]

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

    # --- what is going on -----------------------------------------------------------------
    def hint_cells(self, state: GameState, ctx: Context) -> list[list[int]]:
        """Cells of the swaps that would complete a molecule for the player to move (hints on)."""
        if not state.hints or state.is_over or ctx.ended_early:
            return []
        cells = {cell for move, _ranks in molecule_completing_moves(state) for cell in move}
        return [list(cell) for cell in sorted(cells)]

    def stage(self, state: GameState) -> Text:
        """ "Night round" or "Day round"."""
        return text("{round} round", round=ROUND_TEXTS[state.round])

    def summary(self, state: GameState, ctx: Context) -> Text:
        if state.winner is not None:
            a, b = state.trophy_count("A"), state.trophy_count("B")
            if a == b:
                return text(
                    "{player} wins, {trophies} trophies to {other} (at 5 each A wins)",
                    player=self.who(state.winner),
                    trophies=a,
                    other=b,
                )
            return text(
                "{player} wins, {trophies} trophies to {other}",
                player=self.who(state.winner),
                trophies=a,
                other=b,
            )
        if ctx.ended_early:
            return self.early_note(state)
        if state.is_dealing and state.deal is not None:
            return text(
                "{stage}: the table enters the board it dealt ({count} of 24 coins known), next the coin at {cell}",
                stage=self.stage(state),
                count=known_count(state.deal),
                cell=cell_text(state.deal.next_cell() or (0, 0)),
            )
        if state.to_move == self.seating.computer:
            return text(
                "{round} round: the computer ({letter}) is to move",
                round=ROUND_TEXTS[state.round],
                letter=state.to_move,
            )
        mover = self.who(state.to_move, state)
        name = self.seating.names[state.to_move]
        if ctx.turn_open:
            return text("{stage}: {player} is swapping", stage=self.stage(state), player=mover)
        if name in self.turn_timer:
            return text(
                "{stage}: {player} to move: flip timer {index} to start",
                stage=self.stage(state),
                player=mover,
                index=self.turn_timer[name],
            )
        return text("{stage}: {player} to move", stage=self.stage(state), player=mover)

    def board_panel(self, state: GameState, ctx: Context, *, title: Text = BOARD_TITLE) -> dict[str, Any]:
        if state.is_dealing and state.deal is not None:
            coins = state.deal.coins()
            following = state.deal.next_cell()
            return {
                "kind": "grid",
                "title": DEALING_TITLE,
                "rows": [[symbol(coins[r * COLS + c]) for c in range(COLS)] for r in range(ROWS)],
                "highlight": [list(following)] if following else [],
            }
        return {
            "kind": "grid",
            "title": title,
            "rows": [[RANK_SYMBOLS[rank] for rank in row] for row in state.board],
            "highlight": self.hint_cells(state, ctx),
        }

    def trophy_holder(self, state: GameState, ctx: Context, rnd: int, rank: int) -> Text | str:
        holder = state.trophies[rnd - 1][rank]
        if holder is not None:
            return self.seating.name_of(holder)
        if rnd < state.round or (rnd == state.round and state.is_over):
            return text("set aside")
        return text("free")

    def panels(self, state: GameState, ctx: Context) -> list[dict[str, Any]]:
        space = next(p for p in PLAYERS if state.role_of(p) == "Space")
        lines: list[Text | str] = [
            text("Round {number}: {round}", number=state.round, round=ROUND_TEXTS[state.round]),
            text("Space: {player}; Time: {other}", player=self.who(space), other=self.who(other(space))),
        ]
        if state.winner is not None:
            lines.append(text("Winner: {player}", player=self.who(state.winner)))
        elif ctx.ended_early:
            lines.append(self.early_note(state))
        elif state.is_dealing and state.deal is not None:
            lines.append(
                text(
                    "Entering the board: {count} of 24 coins known; the last coin of each 2 x 3 block follows from the other five",
                    count=known_count(state.deal),
                )
            )
        else:
            lines.append(text("To move: {player}", player=self.who(state.to_move, state)))
            if state.last_swap:
                first, second = sorted(state.last_swap)
                lines.append(
                    text(
                        "May not be swapped back: {cell} and {other}",
                        cell=cell_text(first),
                        other=cell_text(second),
                    )
                )
        if state.hints and not state.is_over and not ctx.ended_early:
            lines.extend(self.hint_lines(state))
        trophies = [[self.seating.name_of(p), p, state.trophy_count(p)] for p in PLAYERS]
        by_rank = []
        for rank in RANKS:
            label: Text | str = RANK_SYMBOLS[rank]
            if rank < 2:
                label = text("{symbol} ({rank})", symbol=RANK_SYMBOLS[rank], rank=rank_text(rank))
            by_rank.append(
                [label, self.trophy_holder(state, ctx, 1, rank), self.trophy_holder(state, ctx, 2, rank)]
            )
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
            {"kind": "lines", "title": text("Latest"), "lines": latest(ctx)},
        ]

    def hint_lines(self, state: GameState) -> list[Text]:
        """The molecule hints as lines: how many swaps complete a molecule, and the first eight."""
        found = molecule_completing_moves(state)
        if found:
            lines = [
                text(
                    "Molecule hints: {count} swap completes a molecule (highlighted)",
                    "Molecule hints: {count} swaps complete a molecule (highlighted)",
                    count=len(found),
                )
            ]
        else:
            lines = [
                text(
                    "Molecule hints: {count} swap completes a molecule",
                    "Molecule hints: {count} swaps complete a molecule",
                    count=0,
                )
            ]
        for (c1, c2), ranks in found[:8]:
            lines.append(
                text(
                    "{cell} with {other}: the {ranks}",
                    cell=cell_text(c1),
                    other=cell_text(c2),
                    ranks=tuple(plural(k) for k in ranks),
                )
            )
        return lines

    def picture(self, state: GameState, ctx: Context) -> dict[str, Any]:
        """What the dashboard draws (``picture.js``): the coin grid with row and column numbers, the
        latest swap (while it may not be swapped back) and the hints highlighted, both players with
        their role, trophies and whose turn it is, and each rank's trophies."""
        over = state.is_over or ctx.ended_early
        cells = []
        for r, row in enumerate(shown_board(state)):
            for c, rank in enumerate(row):
                if rank is None:
                    continue  # not entered yet: the picture leaves the cell empty
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
        last = sorted(list(cell) for cell in state.last_swap) if state.last_swap else []
        early = early_winners(state) if ctx.ended_early and not state.is_over else []
        players = [
            {
                "letter": p,
                "name": self.seating.name_of(p),
                "colour": self.setup.colour_of(self.seating.names[p])
                if p != self.seating.computer
                else "gray",
                "role": ROLE_TEXTS[state.role_of(p)],
                "trophies": state.trophy_count(p),
                "trophies_label": text("{count} trophy", "{count} trophies", count=state.trophy_count(p)),
                "to_move": p == state.to_move and not over and not state.is_dealing,
                "winner": p == state.winner or p in early,
            }
            for p in PLAYERS
        ]
        trophies = []
        for rank in RANKS:
            entry: dict[str, Any] = {"rank": rank, "symbol": RANK_SYMBOLS[rank]}
            for rnd, key in ((1, "night"), (2, "day")):
                holder = state.trophies[rnd - 1][rank]
                shown = self.trophy_holder(state, ctx, rnd, rank)
                entry[key] = shown
                entry[f"{key}_letter"] = holder or ""
                entry[f"{key}_state"] = "held" if holder else ("free" if shown == text("free") else "aside")
            trophies.append(entry)
        return {
            "caption": self.summary(state, ctx),
            "rows": ROWS,
            "columns": COLS,
            "cells": cells,
            "last_swap": last,
            "last_swap_by": state.last_swap_by if last else None,
            "last_swap_label": text("Last swap") if last else "",
            "hints": self.hint_cells(state, ctx),
            "round": state.round,
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

    def view(self, state: GameState, ctx: Context) -> View:
        return View(
            self.summary(state, ctx),
            (self.board_panel(state, ctx), *self.panels(state, ctx)),
            extra={"picture": self.picture(state, ctx)},
        )

    def player_view(self, state: GameState, ctx: Context, player: str, *, can_swap: bool) -> View:
        """The view of ``player``'s phone; ``can_swap``: they may tap two coins now (their turn runs)."""
        board = self.board_panel(state, ctx)
        if can_swap:
            board.update(
                title=text("Board (0 = null, A = ace, 2-5): tap two coins to swap them"),
                select=2,
                action_type="Swap",
            )
        panels = self.panels(state, ctx)
        letter = self.seating.letters.get(player)
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
        return View(self.summary(state, ctx), (board, *panels))

    # --- buttons --------------------------------------------------------------------------
    def menu(self, state: GameState, ctx: Context, player: str, *, can_swap: bool) -> list[MenuItem]:
        """The buttons of ``player``'s phone: the computer's move when it may be asked for, then the
        hint switch."""
        if state.is_over or ctx.ended_early or player not in self.seating.letters:
            return []
        items: list[MenuItem] = self.entry_items(state)
        if state.is_dealing:
            return items
        if state.to_move == self.seating.computer:
            items.append(
                MenuItem(
                    "computer-move",
                    text("Let the computer ({letter}) move", letter=self.seating.computer),
                    text("Your opponent"),
                    action=ComputerMove(),
                )
            )
        elif can_swap:
            items.append(
                MenuItem(
                    "computer-move",
                    text("Computer plays this turn"),
                    text("Your turn"),
                    action=ComputerMove(),
                )
            )
        if state.hints:
            items.append(
                MenuItem(
                    "hints-hide", text("Hide the molecule hints"), text("Hints"), action=ShowHints(False)
                )
            )
        else:
            items.append(
                MenuItem(
                    "hints-show",
                    text("Show swaps that complete a molecule"),
                    text("Hints"),
                    action=ShowHints(True),
                )
            )
        return items

    def entry_items(self, state: GameState) -> list[MenuItem]:
        """The buttons for a board the table dealt: the ranks the next cell can still show (in rank
        order: at a fair deal each is as likely as the others), then the corrections.

        The group keeps one heading for the whole board, so a phone that unfolded it once keeps it
        open: every coin is one tap."""
        deal = state.deal
        if deal is None:
            return []
        items: list[MenuItem] = []
        cell = deal.next_cell()
        if cell is not None:
            group = text("Enter the {round} board, row by row", round=ROUND_TEXTS[deal.round])
            for kind in coins_left(deal, block_of(cell)).kinds():
                rank = int(kind)
                entry = PlaceCoin(cell, rank)
                if apply(state, entry).ok:  # the four central coins may not all show one rank
                    items.append(
                        MenuItem(
                            f"coin-{rank}",
                            text("{rank} at {cell}", rank=rank_text(rank), cell=cell_text(cell)),
                            group,
                            action=entry,
                        )
                    )
        if deal.placed:
            group = text("Correct the board")
            last, rank = deal.placed[-1]
            items.append(
                MenuItem(
                    "coin-take-back",
                    text("Take back {rank} at {cell}", rank=rank_text(rank), cell=cell_text(last)),
                    group,
                    action=TakeBackCoin(),
                )
            )
            items.append(
                MenuItem(
                    "coin-deal-again",
                    text("Deal again: forget every coin of this board"),
                    group,
                    action=Redeal(),
                )
            )
        return items

    def scores(self, state: GameState, ctx: Context) -> dict[str, Any] | None:
        """Once the game is over: trophies per player (``total``) and the winner (at 5 each A).

        Ended early (hub rule): the trophies taken so far, more wins, equal trophies share it."""
        if state.winner is None and not ctx.ended_early:
            return None
        names = self.seating.names
        players = {}
        for letter in PLAYERS:
            night = sum(holder == letter for holder in state.trophies[0])
            day = sum(holder == letter for holder in state.trophies[1])
            players[names[letter]] = {
                "total": night + day,
                "letter": letter,
                "rows": {"Night": {"trophies": night}, "Day": {"trophies": day}},
            }
        if state.winner is not None:
            winners = [state.winner]
            tie_rule: Text = text("at 5 trophies each, A (Space in the Night round) wins")
        else:
            winners = early_winners(state)
            tie_rule = RULE_ENDED_EARLY
        ranking = sorted(PLAYERS, key=lambda p: (p not in winners, -state.trophy_count(p), p))
        out: dict[str, Any] = {
            "winners": [names[p] for p in winners],
            "shared": len(winners) > 1,
            "ranking": [names[p] for p in ranking],
            "players": players,
            "tie_rule": tie_rule,
        }
        if state.winner is None:
            out["ended_early"] = True
        return out


def known_count(deal: Deal) -> int:
    """How many coins of the board being entered are known."""
    return sum(coin is not None for coin in deal.coins())


def symbol(rank: int | None) -> str:
    """How a coin is drawn on the phone's board: its rank's symbol, or a dot while not known."""
    return UNKNOWN_SYMBOL if rank is None else RANK_SYMBOLS[rank]


def shown_board(state: GameState) -> tuple[tuple[int | None, ...], ...]:
    """The coins on the table as far as known: the board, or the coins entered of the board being dealt."""
    if state.is_dealing and state.deal is not None:
        coins = state.deal.coins()
        return tuple(tuple(coins[r * COLS : (r + 1) * COLS]) for r in range(ROWS))
    return state.board


def snapshot(state: GameState, *, show_molecules: bool = False) -> dict[str, Any]:
    """The table as plain JSON without words: board, round, roles, whose turn, trophies, winner.

    ``last_swap`` is the pair of cells the player to move may not swap back (rulebook,
    *No reversing*). With ``show_molecules`` the list ``molecule_moves`` gives each legal
    swap that completes a molecule of a still-free rank, with the ranks it would win.
    """
    view: dict[str, Any] = {
        "board": [list(row) for row in shown_board(state)],
        "round": state.round,
        "round_name": ROUND_NAMES[state.round],
        "roles": {p: state.role_of(p) for p in PLAYERS},
        "to_move": None if state.is_over else state.to_move,
        "last_swap": sorted([list(cell) for cell in state.last_swap]) if state.last_swap else None,
        "trophies": [
            [{"rank": rank, "name": RANK_NAMES[rank], "holder": holder} for rank, holder in enumerate(rnd)]
            for rnd in state.trophies
        ],
        "totals": {p: state.trophy_count(p) for p in PLAYERS},
        "winner": state.winner,
    }
    if show_molecules:
        view["molecule_moves"] = [
            {"cells": [list(move[0]), list(move[1])], "ranks": list(ranks)}
            for move, ranks in molecule_completing_moves(state)
        ]
    return view
