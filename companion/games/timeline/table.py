"""Timeline: España on the hub: the table referee, with each player's sandtimer as a turn timer.

How a table plays it (see "On the hub" in docs/games/timeline.md):

* The player whose turn it is flips their turn timer (their timer 1) to start the turn;
  the very first flip of the starting player starts the game. A flip by anyone else is
  refused ("It is ana's turn, not ben's"), and so is a second flip while the turn is
  already running (it restarts nothing) or a flip of another timer of the player.
* During the turn the player's phone lists, for each card in hand (named by its title,
  never its year), the gaps of the timeline it can go into, named by their neighbours
  ("between 711 The Muslim conquest... and 1808 Dos de Mayo..."). Tapping one places the card
  at once: the engine reveals the year, keeps or discards the card, deals the penalty
  card, and the turn passes to the next player, who flips their timer.
* With ``setup.turn_limit`` on, the sand running out while the turn is open times the turn
  out. The engine has no time-out action, so the referee does it: the player places no
  card and draws none (the same hand size a missed card leaves), and the turn passes
  clockwise; after the last player of a round the engine's end-of-round rule runs as after
  a placement. With ``turn_limit`` off the sand is only a reminder.
* The master clock only bounds the session: its start and end change nothing here.
* Ended early by the host (:meth:`TimelineReferee.game_ended_early`): Timeline has no score
  before its end (only the one player who empties their hand alone wins), so the game ends
  there without a winner, and says so.

Every word for players is a :class:`~companion.rules.text.Text` (catalogs in ``i18n/``); cards
are named by :func:`~.cards.card_title`. Every accepted step is logged with the engine's events
as its facts, and its JSON actions (replayed only by an undo): ``{"type": "turn_started",
"player"}``, ``{"type": "place", "player", "card", "gap"}``, ``{"type": "turn_timed_out",
"player"}`` and ``{"type": "ended_early"}``. The turn timer, the log and the notes are
:class:`~companion.rules.turns.TurnReferee`'s; the deck and the settings arrive as the game's
data (``GAME.data``), and the hand size from the variant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import ConfigError, InvalidRecordError
from companion.rules.outcome import Decision, Rejected, Step
from companion.rules.pages import MenuItem, View
from companion.rules.setup import TableSetup
from companion.rules.text import Text, TextError, text
from companion.rules.turns import Applied, TurnReferee

from .cards import Card, card_title
from .engine import (
    RULE_GAMEPLAY,
    RULE_VICTORY,
    CardDrawn,
    CardMisplaced,
    CardPlaced,
    DiscardReshuffled,
    GameShared,
    GameWon,
    PlaceCard,
    PlayoffStarted,
    RoundEnded,
    TimelineState,
    _end_round,
    apply,
    game_from_deal,
    new_game,
)
from .settings import TimelineData

_VARIANT = re.compile(r"^(?:hand-?)?(\d{1,2})$")

TITLE = text("Timeline")
"""The game's name in sentences ("Timer 2 is not used in Timeline ...")."""
RULE_ENDED_EARLY = text("hub rule: a game ended early")
"""Not a rulebook rule: what the hub does when the host ends the game before its end."""
ENDED_EARLY_NOTE = text(
    "The game was ended early: in Timeline only the one player who empties their hand alone in a round wins, so nobody wins"
)
"""Logged when the host ends the game early, and shown with the scores."""
ENDED_EARLY_SUMMARY = text("The game was ended early: nobody wins")


class TimelineConfigError(ConfigError, TextError):
    """A table Timeline cannot be played at (a setup error the host reads, in their language)."""


@dataclass(frozen=True)
class TimelineTable:
    """The game as the hub keeps it: the engine state and whether the current turn is running."""

    game: TimelineState
    turn_open: bool = False
    """The player to move flipped their turn timer and has not played yet."""
    turns: int = 0
    """Turns started so far."""
    last: tuple[Text | str, ...] = ()
    """The latest happenings, oldest first, for the pages (plain strings: an older log's notes)."""
    last_card: str = ""
    """The card placed last (in the timeline, or discarded when it did not fit), for the picture."""
    ended_early: bool = False
    """The host ended the game before its end: nobody plays on, nobody wins."""

    @property
    def is_over(self) -> bool:
        return self.game.is_over or self.ended_early


def hand_size_of(variant: str, *, default: int) -> int:
    """Cards dealt to each player: ``default`` (the settings' number), or the variant ``hand-N`` (or ``N``)."""
    name = variant.strip().lower()
    if name in ("", "standard", "default"):
        return default
    match = _VARIANT.match(name)
    if match is None or int(match.group(1)) < 1:
        raise TimelineConfigError(
            text(
                'Timeline has no variant "{variant}": use "hand-N" to deal N cards (default {default})',
                variant=variant,
                default=default,
            )
        )
    return int(match.group(1))


def year_label(year: int) -> Text | str:
    """1492, or "218 BCE" for the negative years of the deck."""
    return text("{year} BCE", year=-year) if year < 0 else str(year)


def _with_year(card: Card) -> Text:
    return text("{year} {event}", year=year_label(card.year), event=card_title(card))


def gap_label(game: TimelineState, gap: int) -> Text:
    """A gap named by its face-up neighbours, e.g. "between 711 Muslim conquest and 1808 Dos de Mayo"."""
    cards = [game.cards[c] for c in game.timeline]
    if gap == 0:
        return text("before {card}", card=_with_year(cards[0]))
    if gap == len(cards):
        return text("after {card}", card=_with_year(cards[-1]))
    return text("between {card} and {other}", card=_with_year(cards[gap - 1]), other=_with_year(cards[gap]))


def cards_text(count: int) -> Text:
    """ "1 card", "3 cards"."""
    return text("{count} card", "{count} cards", count=count)


def _describe(events: Iterable[Any], game: TimelineState) -> list[Text]:
    """The engine's events for players (years are revealed once a card is placed)."""
    out: list[Text] = []
    for event in events:
        if isinstance(event, CardPlaced):
            out.append(
                text(
                    "{player} placed {card} ({year}): correct",
                    player=event.player,
                    card=card_title(game.cards[event.card]),
                    year=year_label(event.year),
                )
            )
        elif isinstance(event, CardMisplaced):
            out.append(
                text(
                    "{player} placed {card} ({year}): wrong, discarded",
                    player=event.player,
                    card=card_title(game.cards[event.card]),
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


def time_out(game: TimelineState, player: str) -> tuple[TimelineState, list[Any]]:
    """The turn timer ran out: ``player`` places nothing, draws nothing, and the turn passes.

    After the last player of the round the engine's end-of-round rule runs
    ("End of the Game - Victory"), exactly as after a placement.
    """
    events: list[Any] = []
    remaining = game.remaining
    position = remaining.index(player)
    if position + 1 < len(remaining):
        return replace(game, to_move=remaining[position + 1]), events
    return _end_round(game, events), events


class TimelineReferee(TurnReferee[TimelineTable]):
    """Timeline: España at a hub table (see the module docstring)."""

    game = "timeline"
    title = TITLE
    turn_rule = RULE_GAMEPLAY
    what_next = text("place a card")

    def __init__(
        self,
        setup: TableSetup,
        data: TimelineData,
        *,
        hand_size: int | None = None,
        deal: Mapping[str, Any] | None = None,
    ) -> None:
        """``data``: the deck and settings (``GAME.data``); ``hand_size`` the cards dealt to each player
        (default: the settings'); ``deal`` (``hands``, ``reference``, ``draw_pile``) replaces the
        seeded deal, as in a game record."""
        super().__init__(setup)
        self.cards = data.deck
        self.settings = data.settings
        self.hand_size = hand_size if hand_size is not None else data.settings.hand_size
        self.deal = dict(deal) if deal is not None else None

    @classmethod
    def for_table(cls, setup: TableSetup, data: TimelineData) -> TimelineReferee:
        """The hub's referee for a Timeline table (``GAME.referee``): the variant gives the hand
        size; a setup the game cannot start is a ConfigError whose message is a text."""
        referee = cls(setup, data, hand_size=hand_size_of(setup.variant, default=data.settings.hand_size))
        players, settings = len(setup.players), data.settings
        if not settings.min_players <= players <= settings.max_players:
            raise TimelineConfigError(
                text(
                    "Timeline is for {low} to {high} players, not {players}",
                    low=settings.min_players,
                    high=settings.max_players,
                    players=players,
                )
            )
        needed = players * referee.hand_size + 1
        if len(data.deck) < needed:
            raise TimelineConfigError(
                text(
                    "The deck has {cards} cards: too few to deal {hand} cards to each of {players} players and turn up the reference card",
                    cards=len(data.deck),
                    hand=referee.hand_size,
                    players=players,
                )
            )
        try:
            referee.start(setup)
        except InvalidRecordError as exc:
            raise TimelineConfigError(
                text("Timeline cannot start at this table: {reason}", reason=str(exc))
            ) from None
        return referee

    # --- start and steps ----------------------------------------------------------------
    def start(self, setup: TableSetup) -> TimelineTable:
        limits = {"min_players": self.settings.min_players, "max_players": self.settings.max_players}
        if self.deal is not None:
            game = game_from_deal(
                self.cards,
                setup.players,
                hands=self.deal["hands"],
                reference=self.deal["reference"],
                draw_pile=self.deal.get("draw_pile", ()),
                seed=setup.seed,
                **limits,
            )
        else:
            game = new_game(self.cards, setup.players, seed=setup.seed, hand_size=self.hand_size, **limits)
        return TimelineTable(game)

    def step(self, state: TimelineTable, action: dict[str, Any]) -> Applied[TimelineTable] | Rejected:
        kind, player = action.get("type"), action.get("player", "")
        game = state.game
        if kind == "ended_early":
            if state.is_over:
                return self.closed(state, player) or Rejected(text("The game is over"), RULE_VICTORY)
            return replace(state, ended_early=True, turn_open=False), (), [ENDED_EARLY_NOTE]
        if state.ended_early:
            return Rejected(text("The game was ended early"), RULE_ENDED_EARLY)
        if kind == "turn_started":
            return self.open_turn(state, player)
        if kind == "place":
            outcome = apply(game, PlaceCard(player, str(action.get("card")), action.get("gap")))  # type: ignore[arg-type]
            if isinstance(outcome, Rejected):
                return outcome
            notes = _describe(outcome.events, outcome.state)
            placed = replace(state, game=outcome.state, turn_open=False, last_card=str(action.get("card")))
            return placed, outcome.events, notes
        if kind == "turn_timed_out":
            if game.is_over or game.to_move != player:
                return Rejected(text("It is not {player}'s turn", player=str(player)), RULE_GAMEPLAY)
            later, events = time_out(game, player)
            notes = [
                text("{player}'s time ran out: no card placed, the turn passes", player=player),
                *_describe(events, later),
            ]
            return replace(state, game=later, turn_open=False), tuple(events), notes
        return Rejected(text("unknown Timeline table action {action}", action=repr(kind)), RULE_GAMEPLAY)

    def game_ended_early(self, state: TimelineTable) -> Step:
        """The host ended the game: Timeline is won only by the player who alone empties their hand in a
        round, so a game stopped before that has no winner; it ends here, and nobody plays on."""
        if state.is_over:
            return Decision(state)
        return self.decide(state, {"type": "ended_early"}, follow_up=False)

    # --- turns --------------------------------------------------------------------------
    def player_to_move(self, state: TimelineTable) -> str:
        return state.game.to_move or ""

    def is_over(self, state: TimelineTable) -> bool:
        return state.is_over

    def closed(self, state: TimelineTable, player: str) -> Rejected | None:
        """Why ``player`` cannot act at all now (game over, ended early, eliminated), or None."""
        game = state.game
        if game.winner is not None:
            return Rejected(
                text("The game is over: {player} has already won", player=game.winner), RULE_VICTORY
            )
        if game.shared_by:
            return Rejected(
                text("The game is over: {players} share it", players=game.shared_by), RULE_VICTORY
            )
        if state.ended_early:
            return Rejected(text("The game was ended early"), RULE_ENDED_EARLY)
        if player in game.eliminated:
            return Rejected(
                text("{player} was eliminated when the play-off began", player=player), RULE_VICTORY
            )
        return None

    def turn_start(self, state: TimelineTable) -> dict[str, Any]:
        return {"type": "turn_started", "player": state.game.to_move}

    def turn_time_out(self, state: TimelineTable) -> dict[str, Any]:
        return {"type": "turn_timed_out", "player": state.game.to_move}

    # --- phones -------------------------------------------------------------------------
    def player_action(self, state: TimelineTable, player: str, action: dict[str, Any]) -> Step:
        game = state.game
        closed = self.closed(state, player)
        if closed is not None:
            return closed
        if action.get("type") != "place":
            return Rejected(
                text("The only action in Timeline is placing a card in a gap of the timeline"), RULE_GAMEPLAY
            )
        if player != game.to_move:
            return Rejected(
                text("It is {player}'s turn, not {other}'s", player=game.to_move or "", other=player),
                RULE_GAMEPLAY,
            )
        card, gap = action.get("card"), action.get("gap")
        if not isinstance(card, str) or isinstance(gap, bool) or not isinstance(gap, int):
            return Rejected(text("A placement names a card of your hand and a gap number"), RULE_GAMEPLAY)
        return self.play(state, player, {"type": "place", "player": player, "card": card, "gap": gap})

    def menu(
        self, state: TimelineTable, player: str, *, intents: dict[str, dict[str, Any]]
    ) -> list[MenuItem]:
        """While ``player``'s turn runs: for each card of their hand (by title, never the year), one
        button per gap of the timeline, left to right."""
        game = state.game
        if not self.can_play(state, player):
            return []
        items = []
        for card_id in game.hand(player):
            group = text("Place {card}", card=card_title(game.cards[card_id]))
            for gap in range(len(game.timeline) + 1):
                items.append(
                    MenuItem(
                        f"place:{card_id}:{gap}",
                        gap_label(game, gap),
                        group,
                        action={"type": "place", "card": card_id, "gap": gap},
                    )
                )
        return items

    # --- pages --------------------------------------------------------------------------
    def _stage(self, state: TimelineTable) -> Text:
        game = state.game
        if game.playoff:
            return text("Play-off round {round}", round=game.round)
        return text("Round {round}", round=game.round)

    def _summary(self, state: TimelineTable) -> Text:
        game = state.game
        if game.winner is not None:
            return text("{player} wins!", player=game.winner)
        if game.shared_by:
            return text("{players} share the game", players=game.shared_by)
        if state.ended_early:
            return ENDED_EARLY_SUMMARY
        mover = game.to_move or ""
        if state.turn_open:
            return text("{stage}: {player} is placing a card", stage=self._stage(state), player=mover)
        if mover in self.turn_timer:
            return text(
                "{stage}: {player}'s turn: flip timer {index} to start",
                stage=self._stage(state),
                player=mover,
                index=self.turn_timer[mover],
            )
        return text("{stage}: {player}'s turn", stage=self._stage(state), player=mover)

    def _status(self, state: TimelineTable, name: str) -> Text | str:
        game = state.game
        if name == game.winner or name in game.shared_by:
            return text("winner")
        if name in game.eliminated:
            return text("eliminated")
        if name == game.to_move and not state.is_over:
            return text("playing") if state.turn_open else text("to start")
        if name in game.emptied:
            return text("emptied their hand")
        return ""

    def _panels(self, state: TimelineTable) -> list[dict[str, Any]]:
        game = state.game
        rows = [
            [
                game.cards[c].year if game.cards[c].year > 0 else year_label(game.cards[c].year),
                card_title(game.cards[c]),
            ]
            for c in game.timeline
        ]
        players = [[name, len(game.hand(name)), self._status(state, name)] for name in game.players]
        piles = [
            text("Deck: {count} card", "Deck: {count} cards", count=len(game.deck)),
            text("Discard pile: {count} card", "Discard pile: {count} cards", count=len(game.discard)),
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
            {"kind": "lines", "title": text("Latest"), "lines": list(state.last)},
        ]

    def picture(self, state: TimelineTable) -> dict[str, Any]:
        """What the dashboard draws (``static/pictures/timeline.js``): the time line of face-up cards,
        left to right with their years, the card placed last, the piles and each player's hand."""
        game = state.game
        cards = []
        for card_id in game.timeline:
            card = game.cards[card_id]
            cards.append(
                {
                    "id": card_id,
                    "year": card.year,
                    "year_label": year_label(card.year),
                    "title": card_title(card),
                    "last": card_id == state.last_card,
                }
            )
        last = None
        if state.last_card and state.last_card in game.cards:
            card = game.cards[state.last_card]
            last = {
                "id": card.id,
                "year_label": year_label(card.year),
                "title": card_title(card),
                "correct": state.last_card in game.timeline,
            }
        players = [
            {
                "name": name,
                "colour": self.setup.colour_of(name),
                "cards": len(game.hand(name)),
                "hand": cards_text(len(game.hand(name))),
                "to_move": name == game.to_move and not state.is_over,
                "status": self._status(state, name),
                "out": name in game.eliminated,
                "winner": name == game.winner or name in game.shared_by,
            }
            for name in game.players
        ]
        return {
            "caption": self._summary(state),
            "stage": self._stage(state),
            "cards": cards,
            "last": last,
            "players": players,
            "deck": len(game.deck),
            "deck_label": text("Deck: {count} card", "Deck: {count} cards", count=len(game.deck)),
            "discard": len(game.discard),
            "discard_label": text(
                "Discard pile: {count} card", "Discard pile: {count} cards", count=len(game.discard)
            ),
            "labels": {
                "correct": text("correct"),
                "wrong": text("wrong, discarded"),
                "last": text("Last card"),
            },
        }

    def view(self, state: TimelineTable) -> View:
        return View(self._summary(state), tuple(self._panels(state)), extra={"picture": self.picture(state)})

    def player_view(self, state: TimelineTable, player: str) -> View:
        game = state.game
        panels = self._panels(state)
        if player in game.players:
            hand = [card_title(game.cards[c]) for c in game.hand(player)]
            panels.insert(
                0, {"kind": "lines", "title": text("Your hand ({cards})", cards=len(hand)), "lines": hand}
            )
        return View(self._summary(state), tuple(panels))

    def scores(self, state: TimelineTable) -> dict[str, Any] | None:
        """Once the game is over: the winner (or those sharing it) and each player's cards left.

        Ended early, nobody wins (``winners`` is empty) and the cards left are shown as they stand."""
        game = state.game
        if not state.is_over:
            return None
        winners = [game.winner] if game.winner is not None else list(game.shared_by)
        left = {p: len(game.hand(p)) for p in game.players}
        ranking = sorted(game.players, key=lambda p: (p not in winners, p in game.eliminated, left[p]))
        out: dict[str, Any] = {
            "winners": winners,
            "shared": not game.winner,
            "ranking": ranking,
            "players": {
                p: {"total": left[p], "cards_left": left[p], "eliminated": p in game.eliminated}
                for p in game.players
            },
            "rounds": game.round,
        }
        if state.ended_early and not game.is_over:
            out.update(shared=False, ended_early=True)
        return out
