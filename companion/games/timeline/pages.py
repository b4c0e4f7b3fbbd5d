"""What Timeline shows: the dashboard's view and picture, a phone's view and menu, and the notes.

Every word is a :class:`~companion.rules.text.Text` (catalogs in ``i18n/``). With the hub deck a card
is named by :func:`~.cards.card_title` (its English title as the message id), never by its year
until it is turned over. At a table deck the hub knows no card's face: the timeline is its years,
and a phone enters what a card shows on a number pad (:meth:`Pages.table_menu`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from companion.rules.context import Context
from companion.rules.pages import MenuItem, View
from companion.rules.text import Text, text, verbatim

from .cards import card_title
from .engine import bounds, judge
from .hubdeck import HubPiles
from .model import (
    CardDrawn,
    CardMisplaced,
    CardPlaced,
    CardPut,
    DiscardReshuffled,
    GameShared,
    GameWon,
    Laid,
    NameYear,
    Place,
    PlayoffStarted,
    PutIn,
    RoundEnded,
    TimelineState,
    TurnOver,
    YearNamed,
    YearTyped,
)
from .words import cards_text, year_label

TITLE = text("Timeline")
"""The game's name in sentences ("Timer 2 is not used in Timeline ...")."""
ENDED_EARLY_NOTE = text(
    "The game was ended early: in Timeline only the one player who empties their hand alone in a round wins, so nobody wins"
)
"""Logged when the host ends the game early, and shown with the scores."""
ENDED_EARLY_SUMMARY = text("The game was ended early: nobody wins")

MAX_DIGITS = 4
"""A year on the number pad has at most four digits."""
PUT_GROUP = text("Where did you put your card?")
REVEAL_GROUP = text("Turn it over: your card is…")
PAD_GROUP = text("Type the year on the card")
NAME_GROUP = text("Years nobody entered yet")

_JOINED = re.compile(r"\{p\d+\}(?:; \{p\d+\})*")
"""The message id of :func:`~companion.rules.text.joined`: several happenings in one note."""

LATEST = 4
"""Lines of the latest happenings the pages show."""


# --- words ---------------------------------------------------------------------------------------


def laid_title(state: TimelineState, laid: Laid) -> Text:
    """The event on a timeline card: its title in the hub deck's card list; at a table deck the hub knows
    no title (only that nobody entered the year, if so)."""
    if isinstance(state.piles, HubPiles) and laid.card:
        return card_title(state.piles.cards[laid.card])
    return text("year not entered") if laid.year is None else Text("")


def _neighbour(state: TimelineState, index: int) -> Text | str:
    laid = state.timeline[index]
    if isinstance(state.piles, HubPiles):
        return text("{year} {event}", year=year_label(laid.year), event=laid_title(state, laid))
    if laid.year is None:
        return text("card {position} (year not entered)", position=index + 1)
    return year_label(laid.year)


def gap_label(state: TimelineState, gap: int) -> Text:
    """A gap named by its face-up neighbours: "between 711 Muslim conquest and 1808 Dos de Mayo" with the
    hub deck, "between 711 and 1808" at a table deck ("after card 2 (year not entered)")."""
    last = len(state.timeline)
    if gap == 0:
        return text("before {card}", card=_neighbour(state, 0))
    if gap == last:
        return text("after {card}", card=_neighbour(state, last - 1))
    return text("between {card} and {other}", card=_neighbour(state, gap - 1), other=_neighbour(state, gap))


def _cell(year: int | None) -> int | Text | str:
    """A year in a table cell: the number itself in the common era, else its words."""
    return year if year is not None and year > 0 else year_label(year)


def _placed_note(event: CardPlaced | CardMisplaced, state: TimelineState) -> Text:
    kept = isinstance(event, CardPlaced)
    if event.card and isinstance(state.piles, HubPiles):
        title = card_title(state.piles.cards[event.card])
        if kept:
            return text(
                "{player} placed {card} ({year}): correct",
                player=event.player,
                card=title,
                year=year_label(event.year),
            )
        return text(
            "{player} placed {card} ({year}): wrong, discarded",
            player=event.player,
            card=title,
            year=year_label(event.year),
        )
    if event.year is None:
        if kept:
            return text("{player}'s card is right, the table says: it stays", player=event.player)
        return text("{player}'s card is wrong, the table says: discarded", player=event.player)
    year = year_label(event.year)
    if event.by_table:
        if kept:
            return text("{player}'s card shows {year}: right, the table says", player=event.player, year=year)
        return text(
            "{player}'s card shows {year}: wrong, the table says, discarded", player=event.player, year=year
        )
    if kept:
        return text("{player}'s card shows {year}: correct", player=event.player, year=year)
    return text("{player}'s card shows {year}: wrong, discarded", player=event.player, year=year)


def describe(events: Iterable[Any], state: TimelineState) -> list[Text]:
    """The engine's events for players (years are revealed once a card is turned over)."""
    out: list[Text] = []
    for event in events:
        if isinstance(event, (CardPlaced, CardMisplaced)):
            out.append(_placed_note(event, state))
        elif isinstance(event, CardPut):
            out.append(
                text("{player} put a card {gap}", player=event.player, gap=gap_label(state, event.gap))
            )
        elif isinstance(event, YearNamed):
            out.append(
                text("card {position} shows {year}", position=event.position + 1, year=year_label(event.year))
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
    """The pages of one table: who has a turn timer (the summary says which to flip, a phone's number pad
    keeps its digits with it) and the players' colours."""

    def __init__(
        self, turn_timer: Mapping[str, int], colours: Mapping[str, str], timer_nodes: Mapping[str, str]
    ) -> None:
        self.turn_timer = turn_timer
        self.colours = colours
        self.timer_nodes = timer_nodes
        """Player -> the node of their turn timer."""

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
        if state.placing is not None:
            return text(
                "{stage}: {player} put a card {gap}: turn it over",
                stage=self.stage(state),
                player=mover,
                gap=gap_label(state, state.placing.gap),
            )
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
        return happenings(ctx.recent)[-LATEST:]

    def _timeline_rows(self, state: TimelineState) -> list[list[Any]]:
        if state.is_hub_deck:
            return [[_cell(laid.year), laid_title(state, laid)] for laid in state.timeline]
        rows: list[list[Any]] = [[_cell(laid.year)] for laid in state.timeline]
        if state.placing is not None:
            put = text("{player}'s card, not turned over yet", player=state.placing.player)
            rows.insert(state.placing.gap, [put])
        return rows

    def panels(self, state: TimelineState, ctx: Context) -> list[dict[str, Any]]:
        columns: list[Any] = [text("Year"), text("Event")] if state.is_hub_deck else [text("Year")]
        players = [[name, state.held(name), self.status(state, ctx, name)] for name in state.players]
        piles = [
            text("Deck: {count} card", "Deck: {count} cards", count=state.piles.deck_size),
            text("Discard pile: {count} card", "Discard pile: {count} cards", count=state.piles.discard_size),
        ]
        return [
            {"kind": "table", "title": TITLE, "columns": columns, "rows": self._timeline_rows(state)},
            {
                "kind": "table",
                "title": text("Players"),
                "columns": [text("Player"), text("Cards"), ""],
                "rows": players,
            },
            {"kind": "lines", "title": text("Piles"), "lines": piles},
            {"kind": "lines", "title": text("Latest"), "lines": self.latest(ctx)},
        ]

    def _picture_cards(self, state: TimelineState) -> list[dict[str, Any]]:
        last = state.last
        cards: list[dict[str, Any]] = [
            {
                "id": laid.card,
                "year": laid.year,
                "year_label": year_label(laid.year) if laid.year is not None else "?",
                "title": laid_title(state, laid),
                "last": last is not None and last.kept and index == last.gap,
            }
            for index, laid in enumerate(state.timeline)
        ]
        if state.placing is not None:
            put = {
                "id": "",
                "year": None,
                "year_label": "?",
                "title": text("{player}'s card, not turned over yet", player=state.placing.player),
                "last": False,
                "placing": True,
            }
            cards.insert(state.placing.gap, put)
        return cards

    def picture(self, state: TimelineState, ctx: Context) -> dict[str, Any]:
        """What the dashboard draws (``picture.js``): the time line of face-up cards, left to right with
        their years (and a card put in a gap, not turned over yet), the card turned over last, the piles
        and each player's hand."""
        last = state.last
        shown_last = None
        if last is not None:
            piles = state.piles
            title = (
                card_title(piles.cards[last.card])
                if isinstance(piles, HubPiles) and last.card
                else text("{player}'s card", player=last.player)
            )
            shown_last = {
                "id": last.card,
                "year_label": year_label(last.year) if last.year is not None else "?",
                "title": title,
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
            "cards": self._picture_cards(state),
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
            if isinstance(state.piles, HubPiles):
                hand = [card_title(state.piles.cards[c]) for c in state.hand(player)]
                title = text("Your hand ({cards})", cards=len(hand))
                panels.insert(0, {"kind": "lines", "title": title, "lines": hand})
            else:
                title = text("Your hand ({cards})", cards=state.held(player))
                line = text("face down in front of you: the hub counts them, it never sees them")
                panels.insert(0, {"kind": "lines", "title": title, "lines": [line]})
        return View(self.summary(state, ctx), tuple(panels))

    # --- phones ----------------------------------------------------------------------------------
    def hub_menu(self, state: TimelineState, player: str) -> list[MenuItem]:
        """Hub deck: for each card of ``player``'s hand (by title, never the year), one button per gap of
        the timeline, left to right (the referee asks only while the player may play)."""
        piles = state.piles
        if not isinstance(piles, HubPiles):
            return []
        items = []
        for card_id in state.hand(player):
            group = text("Place {card}", card=card_title(piles.cards[card_id]))
            for gap in range(len(state.timeline) + 1):
                items.append(
                    MenuItem(
                        f"place:{card_id}:{gap}", gap_label(state, gap), group, action=Place(card_id, gap)
                    )
                )
        return items

    def draft(self, ctx: Context, player: str, intents: Mapping[str, Any]) -> YearTyped:
        """What ``player`` has typed on their number pad in this turn (nothing yet: an empty draft)."""
        typed = intents.get(self.timer_nodes.get(player, ""))
        if isinstance(typed, YearTyped) and typed.turn == ctx.turns:
            return typed
        return YearTyped(turn=ctx.turns)

    def table_menu(
        self, state: TimelineState, ctx: Context, player: str, *, playing: bool, intents: Mapping[str, Any]
    ) -> list[MenuItem]:
        """Table deck. ``playing`` (their turn runs): first where the card went (one button per gap, left
        to right), then what it shows when turned over: "right", "wrong" or the year typed on the number
        pad ("it shows 1805"). Anyone, any time: the year of a timeline card nobody entered yet."""
        draft = self.draft(ctx, player, intents)
        node = self.timer_nodes.get(player, "")
        typed = draft.year
        items: list[MenuItem] = []
        pad = False
        if playing and state.placing is None:
            items += self._gap_items(state, selected=None)
        elif playing and state.placing is not None:
            items += self._reveal_items(state, state.placing.gap, typed)
            pad = True
        unknown = [i for i, laid in enumerate(state.timeline) if laid.year is None]
        if unknown and node:
            pad = True
        if pad and node:
            items += self._pad(draft, node)
        if typed is not None:
            items += self._name_items(state, unknown, typed)
        if playing and state.placing is not None:
            items += self._gap_items(state, selected=state.placing.gap)
        return items

    def _gap_items(self, state: TimelineState, *, selected: int | None) -> list[MenuItem]:
        return [
            MenuItem(
                f"put:{gap}", gap_label(state, gap), PUT_GROUP, action=PutIn(gap), selected=gap == selected
            )
            for gap in range(len(state.timeline) + 1)
        ]

    def _reveal_items(self, state: TimelineState, gap: int, typed: int | None) -> list[MenuItem]:
        items = []
        if typed is not None:
            shown = year_label(typed)
            if judge(state.years(), gap, typed) is None:  # a neighbour's year is missing: the table judges
                items += [
                    MenuItem(
                        "reveal:year-right",
                        text("It shows {year}: right", year=shown),
                        REVEAL_GROUP,
                        action=TurnOver(typed, True),
                    ),
                    MenuItem(
                        "reveal:year-wrong",
                        text("It shows {year}: wrong", year=shown),
                        REVEAL_GROUP,
                        action=TurnOver(typed, False),
                    ),
                ]
            else:
                items.append(
                    MenuItem(
                        "reveal:year",
                        text("It shows {year}", year=shown),
                        REVEAL_GROUP,
                        action=TurnOver(typed),
                    )
                )
        items += [
            MenuItem("reveal:right", text("Right (it stays)"), REVEAL_GROUP, action=TurnOver(right=True)),
            MenuItem(
                "reveal:wrong",
                text("Wrong (discard it, draw a card)"),
                REVEAL_GROUP,
                action=TurnOver(right=False),
            ),
        ]
        return items

    def _pad(self, draft: YearTyped, node: str) -> list[MenuItem]:
        """The number pad: each key remembers the draft with one more digit (or one less) for the turn timer."""
        keys: list[MenuItem] = []
        if len(draft.digits) < MAX_DIGITS:
            for digit in "1234567890":
                if digit == "0" and not draft.digits:
                    continue  # no leading zero
                typed = YearTyped(draft.digits + digit, draft.bce, draft.turn)
                keys.append(MenuItem(f"digit:{digit}", digit, PAD_GROUP, intent=typed, node=node))
        if draft.digits:
            erased = YearTyped(draft.digits[:-1], draft.bce, draft.turn)
            keys.append(MenuItem("erase", "⌫", PAD_GROUP, intent=erased, node=node))
        era = YearTyped(draft.digits, not draft.bce, draft.turn)
        keys.append(MenuItem("bce", text("BCE"), PAD_GROUP, intent=era, node=node, selected=draft.bce))
        return keys

    def _name_items(self, state: TimelineState, unknown: list[int], typed: int) -> list[MenuItem]:
        years = state.years()
        items = []
        for position in unknown:
            low, high = bounds(years, position)
            if (low is None or low <= typed) and (high is None or typed <= high):
                label = text("Card {position} shows {year}", position=position + 1, year=year_label(typed))
                items.append(
                    MenuItem(f"name:{position}", label, NAME_GROUP, action=NameYear(position, typed))
                )
        return items
