"""Setting up a game of Time Splicers (rulebook, Setup): tokens, markers, hands and the starting card.

With the hub deck the hub shuffles the cards from the seed and deals them (:mod:`.hubdeck`), so the
game starts with every card known. With the table deck the players shuffle and deal, the hub
counts four unseen cards in each hand and waits for the table to say which card was turned up
as the starting card. A :class:`Layout` starts a game from cards the table lists (a record of a
real game, or a game resumed on a new hub).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.errors import InvalidRecordError
from companion.rules.deck import DeckMode

from .components import NUMBER, PORTAL_ID, TIME_FREEZE, Card, DeckConfig
from .hubdeck import first_deal
from .model import CardToTurnUp, GameState, PlayerState, Timeline

SETUP = "Setup"
"""The rulebook section of the setup (named in the sentences of :class:`SetupError`)."""


class SetupError(InvalidRecordError):
    """A starting layout or player list cannot start a game of Time Splicers."""


@dataclass(frozen=True)
class Layout:
    """An explicit starting position: the cards a table lists (a record of a real game, a resumed game)."""

    start: str | None
    """The face-up starting card (None when ``timelines`` describe the table instead; at a table deck,
    None with no ``timelines`` waits for the table to turn it up)."""
    hands: dict[str, tuple[str, ...]]
    """Each player's cards. At a table deck a player left out holds a starting hand of unseen cards."""
    deck_top: tuple[str, ...] = ()
    """Top of the draw pile, top first; the cards not named anywhere follow in seeded order (hub deck)
    or unseen (table deck)."""
    discard: tuple[str, ...] = ()
    crystals: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    timelines: tuple[tuple[str, ...], ...] = ()
    """Timelines already on the table (to resume a game), each earliest card first."""
    positions: dict[str, str] = field(default_factory=dict)
    """Where each meeple stands; default the starting card, else the first card of the first Timeline."""
    first_player: str | None = None
    """Who acts first (default: the first player listed)."""
    reshuffle_tops: tuple[tuple[str, ...], ...] = ()
    """Top cards of each deck made by reshuffling the discard pile, as they were really drawn."""


def new_game(
    players: list[str] | tuple[str, ...],
    *,
    seed: str | int = "0",
    config: DeckConfig,
    layout: Layout | None = None,
    deck: DeckMode = "hub",
) -> GameState:
    """Set up a game (rulebook, Setup): 2 tokens and 2 markers each, four cards each, the starting card.

    ``config`` is the box's component counts (``GAME.data``, or a table's own file read by
    :func:`~companion.games.time_splicers.components.load_components`). With the hub deck (``deck``)
    and no layout the cards other than the Time Portal are shuffled from ``seed``, dealt one at a
    time, and the next card starts the Timeline (a Time Freeze card turned up there is discarded and
    the next one taken). With the table deck the hands are counts and the starting card waits to be
    turned up (:class:`~companion.games.time_splicers.model.RevealCard`). Raises :class:`SetupError`.
    """
    seed = str(seed)
    names = list(players)
    if len(set(names)) != len(names) or not all(isinstance(n, str) and n.strip() for n in names):
        raise SetupError("players must be distinct non-empty names")
    if not config.min_players <= len(names) <= config.max_players:
        raise SetupError(
            f"Time Splicers needs {config.min_players} to {config.max_players} players, not {len(names)}"
        )
    index = config.index
    playable = [c for c in index if c != PORTAL_ID]
    crystals = {n: 0 for n in names}
    tokens = {n: config.starting_time_jump_tokens for n in names}
    unseen = {n: 0 for n in names}
    start: str | None = None
    discard: list[str] = []
    deck_unseen = 0
    if layout is None and deck == "hub":
        pile = list(first_deal(playable, seed))
        hands: dict[str, list[str]] = {n: [] for n in names}
        for _ in range(config.starting_hand):
            for n in names:
                if pile:
                    hands[n].append(pile.pop(0))
        while pile:
            top = pile.pop(0)
            if index[top].kind == TIME_FREEZE:
                discard.append(top)
                continue
            start = top
            break
        if start is None:  # pragma: no cover - only with an absurd deck file
            raise SetupError("the deck ran out before a starting card was dealt")
    elif layout is None:
        hands = {n: [] for n in names}
        left = len(playable)
        for n in names:
            unseen[n] = min(config.starting_hand, left)
            left -= unseen[n]
        pile, deck_unseen = [], left
    else:
        hands, pile, start, discard = _layout_cards(layout, names, index, seed, config, deck)
        for n in names:
            if n not in layout.hands:  # a table deck: a hand nobody listed is dealt unseen
                unseen[n] = config.starting_hand
        deck_unseen = 0 if deck == "hub" else len(playable) - _listed(layout) - sum(unseen.values())
        if deck_unseen < 0:
            raise SetupError("the layout and the unseen hands hold more cards than the box")
        for table, key in ((crystals, "crystals"), (tokens, "tokens")):
            given = layout.crystals if key == "crystals" else layout.tokens
            for name, value in given.items():
                if name not in table:
                    raise SetupError(f"layout {key} names {name!r}, who is not a player")
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise SetupError(f"layout {key} for {name!r} must be a whole number of at least 0")
                table[name] = value
        if any(v >= config.crystals_to_win for v in crystals.values()):
            raise SetupError(f"a player cannot start with {config.crystals_to_win} or more crystals")
    if sum(crystals.values()) > config.time_crystals:
        raise SetupError("the layout hands out more crystals than the box holds")
    if sum(tokens.values()) > config.time_jump_tokens:
        raise SetupError("the players hold more Time Jump tokens than the box holds")
    if config.starting_time_freeze_markers * len(names) > config.time_freeze_markers:
        raise SetupError("there are not enough Time Freeze markers for that many players")
    start_card = None
    rows = [] if layout is None else [list(row) for row in layout.timelines]
    if start is not None and index[start].kind == NUMBER:
        rows.insert(0, [start])
    elif start is not None:
        start_card = start
    timelines = _check_rows(rows, index)
    waiting = start is None and not timelines
    default = start if start is not None else (None if waiting else timelines[0].cards[0])
    positions: dict[str, str | None] = {n: default for n in names}
    first = 0
    if layout is not None:
        on_table = {c for t in timelines for c in t.cards} | {PORTAL_ID} | ({start} if start else set())
        for name, where in layout.positions.items():
            if name not in positions:
                raise SetupError(f"layout positions name {name!r}, who is not a player")
            if where not in on_table:
                raise SetupError(f"{name}'s meeple stands on {where!r}, which is not on the table")
            positions[name] = where
        if layout.first_player is not None:
            if layout.first_player not in names:
                raise SetupError(f"layout first_player {layout.first_player!r} is not a player")
            first = names.index(layout.first_player)
        for number, tops in enumerate(layout.reshuffle_tops, start=1):
            for card in tops:
                if card not in index or card == PORTAL_ID:
                    raise SetupError(f"reshuffle {number} names {card!r}, which is not a card of this deck")
        if start_card is not None and start_card not in positions.values():
            raise SetupError(f"nobody stands on the starting card {start_card}, so it would already be gone")
    return GameState(
        config=config,
        players=tuple(
            PlayerState(
                name=n,
                hand=tuple(hands[n]),
                position=positions[n],
                time_jump_tokens=tokens[n],
                freeze_markers=config.starting_time_freeze_markers,
                crystals=crystals[n],
                unseen=unseen[n],
            )
            for n in names
        ),
        current=first,
        reshuffle_tops=() if layout is None else tuple(tuple(t) for t in layout.reshuffle_tops),
        timelines=timelines,
        deck=tuple(pile),
        discard=tuple(discard),
        token_supply=config.time_jump_tokens - sum(tokens.values()),
        crystal_supply=config.time_crystals - sum(crystals.values()),
        seed=seed,
        start_card=start_card,
        deck_mode=deck,
        deck_unseen=deck_unseen,
        turning_up=CardToTurnUp("start") if waiting else None,
    )


def _listed(layout: Layout) -> int:
    """How many cards a layout names (every one is claimed once)."""
    return (
        (layout.start is not None)
        + sum(len(row) for row in layout.timelines)
        + sum(len(hand) for hand in layout.hands.values())
        + len(layout.deck_top)
        + len(layout.discard)
    )


def _check_rows(rows: list[list[str]], index: dict[str, Card]) -> tuple[Timeline, ...]:
    """Timelines of a layout: numbered cards of one colour, ascending, one row per colour."""
    out: list[Timeline] = []
    for row in rows:
        if not row:
            raise SetupError("a layout Timeline cannot be empty")
        cards = [index[c] for c in row]
        if any(c.kind != NUMBER for c in cards):
            raise SetupError(
                f"the layout Timeline {row} holds a special card; only numbered cards form Timelines"
            )
        colour = cards[0].colour or ""
        if any(c.colour != colour for c in cards):
            raise SetupError(f"the layout Timeline {row} mixes colours (How to Play)")
        if any((a.number or 0) >= (b.number or 0) for a, b in zip(cards, cards[1:], strict=False)):
            raise SetupError(f"the layout Timeline {row} is not in ascending order (How to Play)")
        if any(t.colour == colour for t in out):
            raise SetupError(f"the layout has two {colour} Timelines; each colour has only one (How to Play)")
        out.append(Timeline(colour, tuple(row)))
    return tuple(out)


def _layout_cards(
    layout: Layout, names: list[str], index: dict[str, Card], seed: str, config: DeckConfig, deck: DeckMode
) -> tuple[dict[str, list[str]], list[str], str | None, list[str]]:
    seen: dict[str, str] = {}

    def claim(card: Any, where: str) -> str:
        if not isinstance(card, str) or card not in index:
            raise SetupError(f"layout {where} names {card!r}, which is not a card of this deck")
        if card == PORTAL_ID:
            raise SetupError(f"layout {where} holds the Time Portal, which stays to one side ({SETUP})")
        if card in seen:
            raise SetupError(f"card {card} is both in the layout {seen[card]} and in the {where}")
        seen[card] = where
        return card

    if layout.start is None and not layout.timelines and deck == "hub":
        raise SetupError("the layout needs a starting card or at least one Timeline")
    start = None if layout.start is None else claim(layout.start, "start")
    if start is not None and index[start].kind == TIME_FREEZE:
        raise SetupError(
            f"a Time Freeze card cannot be the starting card; it is discarded and another dealt ({SETUP})"
        )
    for row in layout.timelines:
        for card in row:
            claim(card, "Timelines")
    hands: dict[str, list[str]] = {}
    for name in layout.hands:
        if name not in names:
            raise SetupError(f"layout hands name {name!r}, who is not a player")
    for name in names:
        if name not in layout.hands:
            if deck == "hub":
                raise SetupError(f"layout hands has no hand for {name!r}")
            hands[name] = []
            continue
        hand = list(layout.hands[name])
        if len(hand) > config.hand_maximum:
            raise SetupError(f"{name}'s starting hand has more than {config.hand_maximum} cards")
        hands[name] = [claim(c, f"hand of {name}") for c in hand]
    top = [claim(c, "deck") for c in layout.deck_top]
    discard = [claim(c, "discard") for c in layout.discard]
    if deck == "table":
        return hands, top, start, discard
    rest = [c for c in index if c != PORTAL_ID and c not in seen]
    return hands, top + list(first_deal(rest, seed)), start, discard
