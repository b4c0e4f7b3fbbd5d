"""What Timeline shows: the dashboard's view and picture, a phone's view and menu, and the notes.

Every word is a :class:`~companion.rules.text.Text` (catalogs in ``i18n/``); a card of the hub deck
is named by :func:`~.cards.card_title` (its English title as the message id), never by its year
until it is turned over.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from companion.rules.context import RECENT_NOTES, Context
from companion.rules.pages import MenuItem, View
from companion.rules.text import Text, text, verbatim

from .cards import card_title
from .model import (
    CardDrawn,
    CardMisplaced,
    CardPlaced,
    DiscardReshuffled,
    GameShared,
    GameWon,
    Laid,
    Place,
    PlayoffStarted,
    RoundEnded,
    TimelineState,
)

TITLE = text("Timeline")
"""The game's name in sentences ("Timer 2 is not used in Timeline ...")."""
ENDED_EARLY_NOTE = text(
    "The game was ended early: in Timeline only the one player who empties their hand alone in a round wins, so nobody wins"
)
"""Logged when the host ends the game early, and shown with the scores."""
ENDED_EARLY_SUMMARY = text("The game was ended early: nobody wins")

_JOINED = re.compile(r"\{p\d+\}(?:; \{p\d+\})*")
"""The message id of :func:`~companion.rules.text.joined`: several happenings in one note."""


# --- words ---------------------------------------------------------------------------------------


def year_label(year: int) -> Text | str:
    """1492, or "218 BCE" for the negative years of the deck."""
    return text("{year} BCE", year=-year) if year < 0 else str(year)


def cards_text(count: int) -> Text:
    """ "1 card", "3 cards"."""
    return text("{count} card", "{count} cards", count=count)


def laid_title(state: TimelineState, laid: Laid) -> Text:
    """The event on a timeline card (its title in the hub deck's card list)."""
    return card_title(state.piles.cards[laid.card])


def _with_year(state: TimelineState, laid: Laid) -> Text:
    return text("{year} {event}", year=year_label(laid.year), event=laid_title(state, laid))


def gap_label(state: TimelineState, gap: int) -> Text:
    """A gap named by its face-up neighbours, e.g. "between 711 Muslim conquest and 1808 Dos de Mayo"."""
    line = state.timeline
    if gap == 0:
        return text("before {card}", card=_with_year(state, line[0]))
    if gap == len(line):
        return text("after {card}", card=_with_year(state, line[-1]))
    return text(
        "between {card} and {other}",
        card=_with_year(state, line[gap - 1]),
        other=_with_year(state, line[gap]),
    )


def describe(events: Iterable[Any], state: TimelineState) -> list[Text]:
    """The engine's events for players (years are revealed once a card is turned over)."""
    out: list[Text] = []
    for event in events:
        if isinstance(event, CardPlaced):
            out.append(
                text(
                    "{player} placed {card} ({year}): correct",
                    player=event.player,
                    card=card_title(state.piles.cards[event.card]),
                    year=year_label(event.year),
                )
            )
        elif isinstance(event, CardMisplaced):
            out.append(
                text(
                    "{player} placed {card} ({year}): wrong, discarded",
                    player=event.player,
                    card=card_title(state.piles.cards[event.card]),
                    year=year_label(event.year),
                )
            )
        elif isinstance(event, DiscardReshuffled):
            out.append(
                text(
                    "the discard pile was shuffled into a new deck of {count} card",
                    "the discard pile was shuffled into a new deck of {count} cards",
                    count=event.cards,
                )
            )
        elif isinstance(event, CardDrawn):
            out.append(text("{player} drew a card", player=event.player))
        elif isinstance(event, RoundEnded):
            out.append(text("round {round} is over", round=event.round))
        elif isinstance(event, PlayoffStarted):
            out.append(text("play-off between {players}", players=event.players))
            if event.eliminated:
                out.append(
                    text(
                        "{players} is eliminated",
                        "{players} are eliminated",
                        players=event.eliminated,
                        count=len(event.eliminated),
                    )
                )
        elif isinstance(event, GameWon):
            out.append(text("{player} wins!", player=event.player))
        elif isinstance(event, GameShared):
            out.append(text("no card left to draw: {players} share the game", players=event.players))
    return out


def happenings(notes: Iterable[Text]) -> list[Text]:
    """Each happening of the latest steps on its own line: a step's note joins several with "; "
    (a text of :func:`~companion.rules.text.joined`, or an old log's English sentence)."""
    out: list[Text] = []
    for note in notes:
        if note.verbatim:
            out.extend(verbatim(part) for part in note.msgid.split("; ") if part)
        elif _JOINED.fullmatch(note.msgid):
            out.extend(
                happenings(arg if isinstance(arg, Text) else verbatim(str(arg)) for _, arg in note.args)
            )
        elif note:
            out.append(note)
    return out


def ending(state: TimelineState) -> Text | None:
    """Why the rules ended the game with the step that led to ``state`` (a winner, a shared game)."""
    if state.winner is not None:
        return text("{player} wins!", player=state.winner)
    if state.shared_by:
        return text("{players} share the game", players=state.shared_by)
    return None


# --- the pages -----------------------------------------------------------------------------------


class Pages:
    """The pages of one table: who has a turn timer (the summary says which to flip) and the colours."""

    def __init__(self, turn_timer: Mapping[str, int], colours: Mapping[str, str]) -> None:
        self.turn_timer = turn_timer
        self.colours = colours

    def stage(self, state: TimelineState) -> Text:
        if state.playoff:
            return text("Play-off round {round}", round=state.round)
        return text("Round {round}", round=state.round)

    def summary(self, state: TimelineState, ctx: Context) -> Text:
        if state.winner is not None:
            return text("{player} wins!", player=state.winner)
        if state.shared_by:
            return text("{players} share the game", players=state.shared_by)
        if ctx.ended_early:
            return ENDED_EARLY_SUMMARY
        mover = state.to_move or ""
        if ctx.turn_open:
            return text("{stage}: {player} is placing a card", stage=self.stage(state), player=mover)
        if mover in self.turn_timer:
            return text(
                "{stage}: {player}'s turn: flip timer {index} to start",
                stage=self.stage(state),
                player=mover,
                index=self.turn_timer[mover],
            )
        return text("{stage}: {player}'s turn", stage=self.stage(state), player=mover)

    def status(self, state: TimelineState, ctx: Context, name: str) -> Text | str:
        if name == state.winner or name in state.shared_by:
            return text("winner")
        if name in state.eliminated:
            return text("eliminated")
        if name == state.to_move and not ctx.ended_early:
            return text("playing") if ctx.turn_open else text("to start")
        if name in state.emptied:
            return text("emptied their hand")
        return ""

    def latest(self, ctx: Context) -> list[Text]:
        """The latest happenings, oldest first."""
        return happenings(ctx.recent)[-RECENT_NOTES:]

    def panels(self, state: TimelineState, ctx: Context) -> list[dict[str, Any]]:
        rows = [
            [laid.year if laid.year > 0 else year_label(laid.year), laid_title(state, laid)]
            for laid in state.timeline
        ]
        players = [[name, state.held(name), self.status(state, ctx, name)] for name in state.players]
        piles = [
            text("Deck: {count} card", "Deck: {count} cards", count=state.piles.deck_size),
            text("Discard pile: {count} card", "Discard pile: {count} cards", count=state.piles.discard_size),
        ]
        return [
            {"kind": "table", "title": TITLE, "columns": [text("Year"), text("Event")], "rows": rows},
            {
                "kind": "table",
                "title": text("Players"),
                "columns": [text("Player"), text("Cards"), ""],
                "rows": players,
            },
            {"kind": "lines", "title": text("Piles"), "lines": piles},
            {"kind": "lines", "title": text("Latest"), "lines": self.latest(ctx)},
        ]

    def picture(self, state: TimelineState, ctx: Context) -> dict[str, Any]:
        """What the dashboard draws (``picture.js``): the time line of face-up cards, left to right with
        their years, the card turned over last, the piles and each player's hand."""
        last = state.last
        cards = [
            {
                "id": laid.card,
                "year": laid.year,
                "year_label": year_label(laid.year),
                "title": laid_title(state, laid),
                "last": last is not None and last.kept and index == last.gap,
            }
            for index, laid in enumerate(state.timeline)
        ]
        shown_last = None
        if last is not None:
            shown_last = {
                "id": last.card,
                "year_label": year_label(last.year),
                "title": card_title(state.piles.cards[last.card]),
                "correct": last.kept,
            }
        over = state.is_over or ctx.ended_early
        players = [
            {
                "name": name,
                "colour": self.colours.get(name, ""),
                "cards": state.held(name),
                "hand": cards_text(state.held(name)),
                "to_move": name == state.to_move and not over,
                "status": self.status(state, ctx, name),
                "out": name in state.eliminated,
                "winner": name == state.winner or name in state.shared_by,
            }
            for name in state.players
        ]
        deck, discard = state.piles.deck_size, state.piles.discard_size
        return {
            "caption": self.summary(state, ctx),
            "stage": self.stage(state),
            "cards": cards,
            "last": shown_last,
            "players": players,
            "deck": deck,
            "deck_label": text("Deck: {count} card", "Deck: {count} cards", count=deck),
            "discard": discard,
            "discard_label": text("Discard pile: {count} card", "Discard pile: {count} cards", count=discard),
            "labels": {
                "correct": text("correct"),
                "wrong": text("wrong, discarded"),
                "last": text("Last card"),
            },
        }

    def view(self, state: TimelineState, ctx: Context) -> View:
        return View(
            self.summary(state, ctx),
            tuple(self.panels(state, ctx)),
            extra={"picture": self.picture(state, ctx)},
        )

    def player_view(self, state: TimelineState, ctx: Context, player: str) -> View:
        panels = self.panels(state, ctx)
        if player in state.players:
            hand = [card_title(state.piles.cards[c]) for c in state.hand(player)]
            panels.insert(
                0, {"kind": "lines", "title": text("Your hand ({cards})", cards=len(hand)), "lines": hand}
            )
        return View(self.summary(state, ctx), tuple(panels))

    def menu(self, state: TimelineState, player: str) -> list[MenuItem]:
        """For each card of ``player``'s hand (by title, never the year), one button per gap of the
        timeline, left to right (the referee asks only while the player may play)."""
        items = []
        for card_id in state.hand(player):
            group = text("Place {card}", card=card_title(state.piles.cards[card_id]))
            for gap in range(len(state.timeline) + 1):
                items.append(
                    MenuItem(
                        f"place:{card_id}:{gap}", gap_label(state, gap), group, action=Place(card_id, gap)
                    )
                )
        return items
