"""Timeline: España on the hub: the table referee, with each player's sandtimer as a turn timer.

How a table plays it (see "On the hub" in docs/games/timeline.md):

* The player whose turn it is flips their turn timer (their timer 1) to start the turn;
  the very first flip of the starting player starts the game. A flip by anyone else is
  refused ("It is ana's turn, not ben's"), and so is a second flip while the turn is
  already running (it restarts nothing) or a flip of another timer of the player.
* During the turn the player's phone lists, for each card in hand (named by its title,
  never its year), the gaps of the timeline it can go into, named by their neighbours
  ("between 711 Muslim conquest... and 1808 Dos de Mayo..."). Tapping one places the card
  at once: the engine reveals the year, keeps or discards the card, deals the penalty
  card, and the turn passes to the next player, who flips their timer.
* With ``setup.turn_limit`` on, the sand running out while the turn is open times the turn
  out. The engine has no time-out action, so the referee does it: the player places no
  card and draws none (the same hand size a missed card leaves), and the turn passes
  clockwise; after the last player of a round the engine's end-of-round rule runs as after
  a placement. With ``turn_limit`` off the sand is only a reminder.
* The master clock only bounds the session: its start and end change nothing here.

Every accepted step is logged with the engine's events as its facts, and its JSON actions
(replayed only by an undo): ``{"type": "turn_started", "player"}``, ``{"type": "place",
"player", "card", "gap"}`` and ``{"type": "turn_timed_out", "player"}``. The turn timer, the
log and the notes are :class:`~companion.rules.turns.TurnReferee`'s; the deck and the
settings arrive as the game's data (``GAME.data``), and the hand size from the variant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import ConfigError, InvalidRecordError
from companion.rules.outcome import Rejected, Step
from companion.rules.pages import MenuItem, View
from companion.rules.setup import TableSetup
from companion.rules.turns import Applied, TurnReferee

from .cards import Card
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


@dataclass(frozen=True)
class TimelineTable:
    """The game as the hub keeps it: the engine state and whether the current turn is running."""

    game: TimelineState
    turn_open: bool = False
    """The player to move flipped their turn timer and has not played yet."""
    turns: int = 0
    """Turns started so far."""
    last: tuple[str, ...] = ()
    """The latest happenings, oldest first, for the pages."""


def hand_size_of(variant: str, *, default: int) -> int:
    """Cards dealt to each player: ``default`` (the settings' number), or the variant ``hand-N`` (or ``N``)."""
    text = variant.strip().lower()
    if text in ("", "standard", "default"):
        return default
    match = _VARIANT.match(text)
    if match is None or int(match.group(1)) < 1:
        raise ConfigError(f'unknown Timeline variant {variant!r}: use "hand-N" to deal N cards (default 4)')
    return int(match.group(1))


def _short(text: str, limit: int = 26) -> str:
    """``text`` cut after a whole word so that it fits ``limit`` characters with the ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,:;") + "…"


def year_label(year: int) -> str:
    """1492, or "218 BCE" for the negative years of the deck."""
    return f"{-year} BCE" if year < 0 else str(year)


def _title(card: Card) -> str:
    return card.title_en or card.title


def _with_year(card: Card) -> str:
    return f"{year_label(card.year)} {_short(_title(card))}"


def gap_label(game: TimelineState, gap: int) -> str:
    """A gap named by its face-up neighbours, e.g. "between 711 Muslim conquest and 1808 Dos de Mayo"."""
    cards = [game.cards[c] for c in game.timeline]
    if gap == 0:
        return f"before {_with_year(cards[0])}"
    if gap == len(cards):
        return f"after {_with_year(cards[-1])}"
    return f"between {_with_year(cards[gap - 1])} and {_with_year(cards[gap])}"


def _describe(events: Iterable[Any], game: TimelineState) -> list[str]:
    """The engine's events in words (years are revealed once a card is placed)."""
    out: list[str] = []
    for event in events:
        if isinstance(event, CardPlaced):
            out.append(
                f"{event.player} placed {_title(game.cards[event.card])} ({year_label(event.year)}): correct"
            )
        elif isinstance(event, CardMisplaced):
            out.append(
                f"{event.player} placed {_title(game.cards[event.card])} ({year_label(event.year)}): wrong, discarded"
            )
        elif isinstance(event, DiscardReshuffled):
            out.append(f"the discard pile was shuffled into a new deck of {event.cards}")
        elif isinstance(event, CardDrawn):
            out.append(f"{event.player} drew a card")
        elif isinstance(event, RoundEnded):
            out.append(f"round {event.round} is over")
        elif isinstance(event, PlayoffStarted):
            out.append(
                f"play-off between {', '.join(event.players)}"
                + (f"; {', '.join(event.eliminated)} eliminated" if event.eliminated else "")
            )
        elif isinstance(event, GameWon):
            out.append(f"{event.player} wins!")
        elif isinstance(event, GameShared):
            out.append(f"no card left to draw: {', '.join(event.players)} share the game")
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
    title = "Timeline"
    turn_rule = RULE_GAMEPLAY
    what_next = "place a card"

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
        size; a setup the game cannot start is a ConfigError."""
        referee = cls(setup, data, hand_size=hand_size_of(setup.variant, default=data.settings.hand_size))
        try:
            referee.start(setup)
        except InvalidRecordError as exc:
            raise ConfigError(f"Timeline cannot start at this table: {exc}") from None
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
        if kind == "turn_started":
            return self.open_turn(state, player)
        if kind == "place":
            outcome = apply(game, PlaceCard(player, str(action.get("card")), action.get("gap")))  # type: ignore[arg-type]
            if isinstance(outcome, Rejected):
                return outcome
            notes = _describe(outcome.events, outcome.state)
            return replace(state, game=outcome.state, turn_open=False), outcome.events, notes
        if kind == "turn_timed_out":
            if game.is_over or game.to_move != player:
                return Rejected(f"It is not {player}'s turn", RULE_GAMEPLAY)
            after, events = time_out(game, player)
            notes = [f"{player}'s time ran out: no card placed, the turn passes", *_describe(events, after)]
            return replace(state, game=after, turn_open=False), tuple(events), notes
        return Rejected(f"unknown Timeline table action {kind!r}", RULE_GAMEPLAY)

    # --- turns --------------------------------------------------------------------------
    def player_to_move(self, state: TimelineTable) -> str:
        return state.game.to_move or ""

    def is_over(self, state: TimelineTable) -> bool:
        return state.game.is_over

    def closed(self, state: TimelineTable, player: str) -> Rejected | None:
        """Why ``player`` cannot act at all now (game over, eliminated), or None."""
        game = state.game
        if game.winner is not None:
            return Rejected(f"The game is over: {game.winner} has won", RULE_VICTORY)
        if game.shared_by:
            return Rejected(f"The game is over: {', '.join(game.shared_by)} share it", RULE_VICTORY)
        if player in game.eliminated:
            return Rejected(f"{player} was eliminated when the play-off began", RULE_VICTORY)
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
                "The only action in Timeline is placing a card in a gap of the timeline", RULE_GAMEPLAY
            )
        if player != game.to_move:
            return Rejected(f"It is {game.to_move}'s turn, not {player}'s", RULE_GAMEPLAY)
        card, gap = action.get("card"), action.get("gap")
        if not isinstance(card, str) or isinstance(gap, bool) or not isinstance(gap, int):
            return Rejected("A placement names a card of your hand and a gap number", RULE_GAMEPLAY)
        return self.play(state, player, {"type": "place", "player": player, "card": card, "gap": gap})

    def menu(
        self, state: TimelineTable, player: str, *, intents: dict[str, dict[str, Any]]
    ) -> list[MenuItem]:
        game = state.game
        if not self.can_play(state, player):
            return []
        items = []
        for card_id in game.hand(player):
            group = f"Place {_title(game.cards[card_id])}"
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
    def _summary(self, state: TimelineTable) -> str:
        game = state.game
        if game.winner is not None:
            return f"{game.winner} wins!"
        if game.shared_by:
            return f"{', '.join(game.shared_by)} share the game"
        stage = f"Play-off round {game.round}" if game.playoff else f"Round {game.round}"
        if state.turn_open:
            return f"{stage}: {game.to_move} is placing a card"
        if game.to_move in self.turn_timer:
            return f"{stage}: {game.to_move}'s turn: flip timer {self.turn_timer[game.to_move]} to start"
        return f"{stage}: {game.to_move}'s turn"

    def _panels(self, state: TimelineTable) -> list[dict[str, Any]]:
        game = state.game
        rows = [
            [
                game.cards[c].year if game.cards[c].year > 0 else year_label(game.cards[c].year),
                _title(game.cards[c]),
            ]
            for c in game.timeline
        ]
        players = []
        for name in game.players:
            if name == game.winner or name in game.shared_by:
                status = "winner"
            elif name in game.eliminated:
                status = "eliminated"
            elif name == game.to_move:
                status = "playing" if state.turn_open else "to start"
            elif name in game.emptied:
                status = "emptied their hand"
            else:
                status = ""
            players.append([name, len(game.hand(name)), status])
        piles = [f"Deck: {_cards(len(game.deck))}", f"Discard pile: {_cards(len(game.discard))}"]
        return [
            {"kind": "table", "title": "Timeline", "columns": ["Year", "Event"], "rows": rows},
            {"kind": "table", "title": "Players", "columns": ["Player", "Cards", ""], "rows": players},
            {"kind": "lines", "title": "Piles", "lines": piles},
            {"kind": "lines", "title": "Latest", "lines": list(state.last)},
        ]

    def view(self, state: TimelineTable) -> View:
        return View(self._summary(state), tuple(self._panels(state)))

    def player_view(self, state: TimelineTable, player: str) -> View:
        game = state.game
        panels = self._panels(state)
        if player in game.players:
            hand = [_title(game.cards[c]) for c in game.hand(player)]
            panels.insert(0, {"kind": "lines", "title": f"Your hand ({len(hand)})", "lines": hand})
        return View(self._summary(state), tuple(panels))

    def scores(self, state: TimelineTable) -> dict[str, Any] | None:
        """Once the game is over: the winner (or those sharing it) and each player's cards left."""
        game = state.game
        if not game.is_over:
            return None
        winners = [game.winner] if game.winner is not None else list(game.shared_by)
        left = {p: len(game.hand(p)) for p in game.players}
        ranking = sorted(game.players, key=lambda p: (p not in winners, p in game.eliminated, left[p]))
        return {
            "winners": winners,
            "shared": not game.winner,
            "ranking": ranking,
            "players": {
                p: {"total": left[p], "cards_left": left[p], "eliminated": p in game.eliminated}
                for p in game.players
            },
            "rounds": game.round,
        }


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"
