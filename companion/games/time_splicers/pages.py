"""What Time Splicers shows at a hub table: notes, the phone's buttons, the dashboard and the scores.

Every word is a :class:`~companion.rules.text.Text` (catalogs in ``i18n/``); the dashboard draws the
view's ``picture`` with ``picture.js``. The buttons are worked out by trying each candidate move
through the engine, so a phone only ever offers what the rules accept. At a table deck a player
names the card they place, so the *Place a card* group lists every card that can still be in their
hand and fits where they stand; when the table turns up a card, every phone lists what the draw
pile can still hold, the likeliest first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from companion.rules.context import Context
from companion.rules.deck import Pile
from companion.rules.outcome import Rejected
from companion.rules.pages import MenuItem, View
from companion.rules.text import Text, text, verbatim

from .board import WON_LAST_STANDING, sequence_name
from .components import NUMBER, PORTAL_ID, QUANTUM_TUNNEL, DeckConfig
from .engine import apply, unseen_pile
from .model import (
    CardPlaced,
    CardsDrawn,
    CorrectStartingCard,
    CrystalsFound,
    DeckReshuffled,
    EnteredPortal,
    EnterPortal,
    FixedPointReached,
    GameState,
    GameStopped,
    GameWon,
    HandLimitExceeded,
    MeepleMoved,
    Move,
    PlaceCard,
    PlaceTimeFreeze,
    PlayerEliminated,
    RedrawHand,
    RevealCard,
    StartCardLeft,
    StartingCardDealt,
    StartingCardTakenBack,
    TimeFreezePlaced,
    TimeFreezeReturned,
    TimeJumpTokenSpent,
    TimelineCollapsed,
    TimelineFlipped,
    TurnedUpCardDiscarded,
    TurnForfeited,
    UseQuantumTunnel,
    UseTimeJump,
)
from .words import R_COMPLETE, R_PARTIAL, card_text, colour_text, timeline_text

NOWHERE = text("nowhere")

GROUP_PLACE = text("Place a card")
GROUP_MOVE = text("Move (draw 1)")
GROUP_LEAVE_PORTAL = text("Leave the Time Portal")
GROUP_PORTAL = text("Time Portal")
GROUP_FREEZE = text("Free: Time Freeze")
GROUP_JUMP_CARD = text("Free: Time Jump card")
GROUP_JUMP_TOKEN = text("Free: Time Jump token")
GROUP_TUNNEL = text("Free: Quantum Tunnel")
GROUP_START = text("Turned up as the starting card")
GROUP_FLIP = text("Turned up for the new Timeline")
GROUP_CORRECT = text("Not the starting card entered? It is:")

LONG_GROUP = 8
"""A group with more buttons than this gets a search box on the phone."""
LATEST = 6
"""How many of the latest happenings the dashboard lists."""

STATUS = {
    "winner": text("winner"),
    "eliminated": text("eliminated"),
    "playing": text("playing"),
    "to start": text("to start"),
}
"""A player's state on the pages, by key (the picture's ``state``)."""

STOPPED = {
    "host": text("The host ended the game: it is scored on the Time Crystals found so far"),
    "clock": text("The master clock ran out: the game is scored on the Time Crystals found so far"),
}
"""The note of an end before the rules' own end, by who ended the game."""


def stopped_by(state: GameState, ctx: Context) -> str:
    """Who ended the game before its rules did ("host" or "clock"), or "" while it goes on or once the
    rules ended it. The master clock running out ends it as it stands (``ctx.clock_over``) even before
    the referee's step that says so, as in a log of an older hub read back."""
    if state.is_over:
        return ""
    if ctx.ended_by == "host":
        return "host"
    if ctx.ended_by == "clock" or ctx.clock_over:
        return "clock"
    return ""


def card_name(config: DeckConfig, card: str | None) -> Text:
    """A card's name for players: "red 5", "Quantum Tunnel", "Time Portal"; "nowhere" for None."""
    if card is None:
        return NOWHERE
    known = config.index.get(card) or config.faces.get(card)
    return card_text(config.index, known.id if known is not None else card)


# --- notes ---------------------------------------------------------------------------------------


def _moved(e: MeepleMoved, name: Callable[[str | None], Text]) -> Text | None:
    """A meeple's move in words (a placement and the step into the portal are said by their own events)."""
    where = name(e.destination)
    if e.how == "adjacent":
        return text("{player} moved to {card}", player=e.player, card=where)
    if e.how == "portal-exit":
        return text("{player} left the Time Portal for {card}", player=e.player, card=where)
    if e.how == "quantum-tunnel":
        return text("{player} went through a Quantum Tunnel to {card}", player=e.player, card=where)
    if e.how == "time-jump":
        return text("{player} made a Time Jump to {card}", player=e.player, card=where)
    if e.how == "relocated":
        return text("{player} was moved to {card} by the collapse", player=e.player, card=where)
    return None


def _token_spent(e: TimeJumpTokenSpent) -> Text | None:
    if e.purpose == "time jump":
        return text("{player} spent a Time Jump token on a Time Jump", player=e.player)
    if e.purpose == "new hand":
        return text("{player} spent a Time Jump token on a new hand", player=e.player)
    if e.purpose == "hand limit penalty":
        return text("{player} paid a Time Jump token for going over the hand limit", player=e.player)
    return None


def _collapsed(e: TimelineCollapsed, config: DeckConfig) -> Text:
    timeline = timeline_text(e.colour)
    if e.kind == "empty":
        return text("{player} left the {timeline} empty: it collapsed", player=e.player, timeline=timeline)
    if e.kind == "complete":
        return text(
            "{player} placed the fifth card of the {timeline} with the Singularity: the whole Timeline collapsed",
            player=e.player,
            timeline=timeline,
        )
    index = config.index
    numbers = "-".join(str(index[c].number) for c in e.cards if c in index and index[c].kind == NUMBER)
    return text(
        "{player} made a 3-card sequence: {sequence} of the {timeline} collapsed",
        player=e.player,
        sequence=numbers,
        timeline=timeline,
    )


def _placed(e: CardPlaced, name: Callable[[str | None], Text]) -> Text:
    if e.new_timeline:
        return text("{player} spliced {card}: a new Timeline", player=e.player, card=name(e.card))
    if e.shifted:
        return text("{player} placed {card}, shifting the Timeline", player=e.player, card=name(e.card))
    return text("{player} placed {card}", player=e.player, card=name(e.card))


def _note(e: Any, config: DeckConfig, name: Callable[[str | None], Text]) -> Text | None:
    """One event in words, or None for an event that says nothing new."""
    match e:
        case MeepleMoved():
            return _moved(e, name)
        case EnteredPortal():
            return text("{player} stepped into the Time Portal", player=e.player)
        case CardsDrawn() if e.cards or e.unseen:
            count = len(e.cards) + e.unseen
            return text(
                "{player} drew {count} card", "{player} drew {count} cards", player=e.player, count=count
            )
        case DeckReshuffled():
            return text(
                "The discard pile was shuffled into a new deck of {count} card",
                "The discard pile was shuffled into a new deck of {count} cards",
                count=e.cards,
            )
        case CardPlaced():
            return _placed(e, name)
        case FixedPointReached() if e.token_gained:
            return text(
                "Fixed point in time: {cards} cards of Era {era}, {player} takes a Time Jump token",
                cards=e.count,
                era=e.era,
                player=e.player,
            )
        case FixedPointReached():
            return text("Fixed point in time: {cards} cards of Era {era}", cards=e.count, era=e.era)
        case TimeJumpTokenSpent():
            return _token_spent(e)
        case HandLimitExceeded():
            return text(
                "{player} went over the hand limit with {cards} cards and discarded the hand",
                player=e.player,
                cards=e.size,
            )
        case PlayerEliminated():
            return text("{player} is eliminated", player=e.player)
        case TimeFreezePlaced():
            return text("{player} froze the {timeline}", player=e.player, timeline=timeline_text(e.colour))
        case TimeFreezeReturned() if e.unfrozen:
            return text(
                "{player} took back their Time Freeze from the {timeline}: it is unfrozen",
                player=e.player,
                timeline=timeline_text(e.colour),
            )
        case TimeFreezeReturned():
            return text(
                "{player} took back their Time Freeze from the {timeline}",
                player=e.player,
                timeline=timeline_text(e.colour),
            )
        case TimelineCollapsed():
            return _collapsed(e, config)
        case TimelineFlipped():
            return text("A new Timeline starts with {card}", card=name(e.card))
        case StartingCardDealt():
            return text("The starting card is {card}", card=name(e.card))
        case StartingCardTakenBack():
            return text("{card} was entered by mistake and is back on the draw pile", card=name(e.card))
        case TurnedUpCardDiscarded():
            return text("{card} was turned up and discarded", card=name(e.card))
        case StartCardLeft():
            return text("The {card} starting card is gone", card=name(e.card))
        case CrystalsFound():
            return text(
                "{player} found {count} Time Crystal ({total} in all)",
                "{player} found {count} Time Crystals ({total} in all)",
                player=e.player,
                count=e.count,
                total=e.total,
            )
        case TurnForfeited():
            return text("{player}'s time ran out: the turn is forfeited", player=e.player)
        case GameWon() if e.reason == WON_LAST_STANDING:
            return text("{player} wins: every other player was eliminated", player=e.player)
        case GameWon():
            return text(
                "{player} wins: found Time Crystal number {number}",
                player=e.player,
                number=config.crystals_to_win,
            )
        case GameStopped():
            return STOPPED[e.by]
    return None


def describe(events: Iterable[Any], config: DeckConfig) -> list[Text]:
    """The engine's events in words (the cards drawn stay hidden: only how many)."""

    def name(card: str | None) -> Text:
        return card_name(config, card)

    return [note for e in events if (note := _note(e, config, name)) is not None]


# --- the phone's buttons ---------------------------------------------------------------------------


def ordered_faces(config: DeckConfig, pile: Pile, *, numbered: bool | None = None) -> list[str]:
    """The faces ``pile`` can hold, the likeliest first (most copies left), then by colour and number
    (special cards last); ``numbered`` keeps only numbered cards (True) or only the others (False)."""
    colours = config.colours

    def key(face: str) -> tuple[int, int, int, str]:
        card = config.faces[face]
        colour = colours.index(card.colour) if card.colour in colours else len(colours)
        return (-pile.count(face), colour, card.number or 0, face)

    faces = [f for f in pile.kinds() if f in config.faces]
    if numbered is not None:
        faces = [f for f in faces if (config.faces[f].kind == NUMBER) is numbered]
    return sorted(faces, key=key)


def reveal_menu(state: GameState) -> list[MenuItem]:
    """The card the table turned up: every face the draw pile can still hold, the likeliest first."""
    waiting = state.turning_up
    if waiting is None or state.is_over:
        return []
    group = GROUP_START if waiting.why == "start" else GROUP_FLIP
    faces = ordered_faces(state.config, unseen_pile(state))
    long = len(faces) > LONG_GROUP
    return [
        MenuItem(f"reveal:{face}", card_name(state.config, face), group, action=RevealCard(face), search=long)
        for face in faces
    ]


def correction_menu(state: GameState) -> list[MenuItem]:
    """Until the first turn starts, the starting card entered can be corrected on any phone."""
    if state.deck_mode != "table" or state.turning_up is not None or state.is_over:
        return []
    faces = ordered_faces(state.config, unseen_pile(state))
    return [
        MenuItem(
            f"correct:{face}",
            card_name(state.config, face),
            GROUP_CORRECT,
            action=CorrectStartingCard(face),
            search=len(faces) > LONG_GROUP,
        )
        for face in faces
    ]


def _placement_label(card: Text, sequence: int | None, relocate: str | None) -> Text:
    if sequence is not None and relocate is not None:
        return text(
            "{card}, collapse {sequence}, meeples to the {timeline}",
            card=card,
            sequence=sequence_name(sequence),
            timeline=timeline_text(relocate),
        )
    if sequence is not None:
        return text("{card}, collapse {sequence}", card=card, sequence=sequence_name(sequence))
    if relocate is not None:
        return text("{card}, meeples to the {timeline}", card=card, timeline=timeline_text(relocate))
    return card


def _placements(state: GameState, card: str, colours: list[str]) -> list[tuple[str, Text, PlaceCard]]:
    """A placement of ``card`` with the fewest collapse choices that make it legal (each choice a button).

    Only a collapse's own refusal can be cured by a choice, so any other refusal ends the search."""
    info = state.config.index.get(card) or state.config.faces[card]
    number = info.number or 0
    sequences = [number - k for k in (2, 1, 0)]
    levels: list[list[tuple[int | None, str | None]]] = [
        [(None, None)],
        [(s, None) for s in sequences] + [(None, c) for c in colours],
        [(s, c) for s in sequences for c in colours],
    ]
    name = card_name(state.config, card)
    for depth, level in enumerate(levels):
        found = []
        for sequence, relocate in level:
            action = PlaceCard(card, sequence, relocate)
            outcome = apply(state, action)
            if isinstance(outcome, Rejected):
                if depth == 0 and outcome.rule not in (R_PARTIAL, R_COMPLETE):
                    return []
                continue
            item_id = f"place:{card}:{sequence or ''}:{relocate or ''}"
            found.append((item_id, _placement_label(name, sequence, relocate), action))
        if found:
            return found
    return []


def _placeable(state: GameState, player: str) -> list[str]:
    """The cards ``player`` may name to place: their known numbered cards (in hand order), then, when
    the hub has not seen their whole hand, every numbered face the unseen cards can still hold."""
    me = state.player(player)
    index = state.config.index
    known = list(dict.fromkeys(c for c in me.hand if index[c].kind == NUMBER))
    if me.unseen == 0:
        return known
    faces = {index[c].face for c in known}
    pile = unseen_pile(state)
    return known + [f for f in ordered_faces(state.config, pile, numbered=True) if f not in faces]


def legal_actions(state: GameState, player: str) -> list[MenuItem]:
    """Every action ``player`` may take now, tried through the engine, as phone buttons.

    What the player does next comes first: the main actions that end the turn (place a card,
    move, the Time Portal), then the free actions, each kind in its own group.
    """
    if state.is_over or player != state.current_player or state.turning_up is not None:
        return []
    me = state.player(player)

    def name(card: str | None) -> Text:
        return card_name(state.config, card)

    on_table = [c for t in state.timelines for c in t.cards]
    colours = [t.colour for t in state.timelines]
    items: list[MenuItem] = []

    def offer(item_id: str, label: Text, group: Text, action: Any) -> None:
        if not isinstance(apply(state, action), Rejected):
            items.append(MenuItem(item_id, label, group, action=action))

    # main actions: each ends the turn
    placements = [p for card in _placeable(state, player) for p in _placements(state, card, colours)]
    long = len(placements) > LONG_GROUP
    items += [MenuItem(i, label, GROUP_PLACE, action=a, search=long) for i, label, a in placements]
    moving = GROUP_LEAVE_PORTAL if me.position == PORTAL_ID else GROUP_MOVE
    for card in on_table:
        offer(f"move:{card}", name(card), moving, Move(card))
    offer("portal", text("step into the Time Portal (draw 2)"), GROUP_PORTAL, EnterPortal())
    # free actions: the turn goes on
    here = next((t for t in state.timelines if me.position in t.cards), None)
    if here is not None:
        offer(
            "time_freeze",
            text("freeze the {timeline}", timeline=timeline_text(here.colour)),
            GROUP_FREEZE,
            PlaceTimeFreeze(),
        )
        for use, group in (("card", GROUP_JUMP_CARD), ("token", GROUP_JUMP_TOKEN)):
            for card in here.cards:
                offer(f"time_jump:{use}:{card}", name(card), group, UseTimeJump(card, use == "token"))
    if me.time_jump_tokens > 0:
        offer("redraw", text("discard your hand, draw 4"), GROUP_JUMP_TOKEN, RedrawHand())
    kinds = {state.config.index[c].kind for c in me.hand}
    if QUANTUM_TUNNEL in kinds or me.unseen:
        for card in on_table:
            offer(f"quantum_tunnel:{card}", name(card), GROUP_TUNNEL, UseQuantumTunnel(card))
    return items


# --- the dashboard and the phone's page --------------------------------------------------------------


class Pages:
    """The views of one table: who has a turn timer (to say "flip timer 1") and each player's colour."""

    def __init__(self, turn_timer: Mapping[str, int], colour_of: Callable[[str], str]) -> None:
        self.turn_timer = turn_timer
        self.colour_of = colour_of

    @staticmethod
    def is_over(state: GameState, ctx: Context) -> bool:
        return state.is_over or ctx.is_over or bool(stopped_by(state, ctx))

    @staticmethod
    def leaders(state: GameState) -> tuple[list[str], int]:
        """Players still in the game with the most crystals, and that number (no leader at 0)."""
        active = [p for p in state.players if not p.eliminated]
        best = max((p.crystals for p in active), default=0)
        return ([p.name for p in active if p.crystals == best] if best > 0 else []), best

    def summary(self, state: GameState, ctx: Context) -> Text:
        if state.winner is not None:
            crystals = state.player(state.winner).crystals
            return text(
                "{player} wins with {count} Time Crystal!",
                "{player} wins with {count} Time Crystals!",
                player=state.winner,
                count=crystals,
            )
        if state.is_over:
            return text("Every player has been eliminated")
        if stopped_by(state, ctx):
            leaders, best = self.leaders(state)
            if not leaders:
                return text("The game was ended before anyone found a Time Crystal: nobody wins")
            if len(leaders) == 1:
                return text(
                    "The game was ended early: {player} wins with {count} Time Crystal",
                    "The game was ended early: {player} wins with {count} Time Crystals",
                    player=leaders[0],
                    count=best,
                )
            return text(
                "The game was ended early: {players} share the win with {count} Time Crystal each",
                "The game was ended early: {players} share the win with {count} Time Crystals each",
                players=tuple(leaders),
                count=best,
            )
        who = state.current_player
        if state.turning_up is not None and state.turning_up.why == "start":
            return text("Turn up the starting card from the deck and enter it on a phone")
        if state.turning_up is not None:
            return text(
                "Turn {turn}: turn up the top card of the deck for the new Timeline and enter it on a phone",
                turn=state.turn,
            )
        if ctx.turn_open:
            return text("Turn {turn}: {player} is playing", turn=state.turn, player=who)
        if who in self.turn_timer:
            return text(
                "Turn {turn}: {player}'s turn: flip timer {index} to start",
                turn=state.turn,
                player=who,
                index=self.turn_timer[who],
            )
        return text("Turn {turn}: {player}'s turn", turn=state.turn, player=who)

    def status(self, state: GameState, ctx: Context, player: str) -> str:
        """A player's state for the pages: a key of :data:`STATUS`, or "" for none."""
        p = state.player(player)
        if player == state.winner or (stopped_by(state, ctx) and player in self.leaders(state)[0]):
            return "winner"
        if p.eliminated:
            return "eliminated"
        if self.is_over(state, ctx) or player != state.current_player:
            return ""
        return "playing" if ctx.turn_open else "to start"

    @staticmethod
    def ordered_timelines(state: GameState) -> list[Any]:
        colours = state.config.colours
        return sorted(
            state.timelines, key=lambda t: colours.index(t.colour) if t.colour in colours else len(colours)
        )

    @staticmethod
    def latest(ctx: Context) -> list[Text]:
        """The latest happenings, one a line, oldest first: the table's recent notes, each step's parts."""
        lines: list[Text] = []
        for note in ctx.recent:
            lines.extend(_parts(note))
        return lines[-LATEST:]

    def panels(self, state: GameState, ctx: Context, *, compact: bool = False) -> list[dict[str, Any]]:
        """The dashboard's panels; ``compact`` (phones, 390 px wide) keeps only the Eras on the table, names
        the rows by colour and leaves out the tokens, the Time Freeze markers and the state column."""
        cfg = state.config
        index = cfg.index
        eras = list(range(cfg.lowest_number, cfg.highest_number + 1))
        if compact:
            eras = sorted({index[c].number or 0 for t in state.timelines for c in t.cards})
        frozen = not compact or any(t.freezes for t in state.timelines)
        header: list[Text | str] = ["", *(str(e) for e in eras)]
        rows: list[list[Text | str]] = [header + ([text("frozen by")] if frozen else [])]
        highlight: list[list[int]] = []
        over = self.is_over(state, ctx)
        for r, timeline in enumerate(self.ordered_timelines(state), start=1):
            name = colour_text(timeline.colour) if compact else timeline_text(timeline.colour)
            row: list[Text | str] = [name] + [""] * len(eras)
            if frozen:
                row.append(", ".join(p for _, p in timeline.freezes))
            for card in timeline.cards:
                column = 1 + eras.index(index[card].number or cfg.lowest_number)
                meeples = [p.name for p in state.players if p.position == card and not p.eliminated]
                row[column] = str(index[card].number) + "".join(f" {m}" for m in meeples)
                if state.current_player in meeples and not over:
                    highlight.append([r, column])
            rows.append(row)
        players: list[list[Any]] = []
        for p in state.players:
            status = self.status(state, ctx, p.name)
            players.append(
                [
                    p.name,
                    card_name(cfg, p.position) if p.position else "-",
                    p.crystals,
                    p.time_jump_tokens,
                    p.freeze_markers,
                    p.hand_size,
                    STATUS[status] if status else "",
                ]
            )
        table: list[Text] = [
            text("Deck: {count} card", "Deck: {count} cards", count=state.deck_size),
            text("Discard pile: {count} card", "Discard pile: {count} cards", count=state.discard_size),
            text("Supply: {count} Time Crystal", "Supply: {count} Time Crystals", count=state.crystal_supply),
            text(
                "Supply: {count} Time Jump token",
                "Supply: {count} Time Jump tokens",
                count=state.token_supply,
            ),
            text("{count} crystal wins", "{count} crystals win", count=cfg.crystals_to_win),
        ]
        if state.start_card is not None:
            on = tuple(p.name for p in state.players if p.position == state.start_card)
            table.insert(
                0,
                text("Starting card: {card} ({players})", card=card_name(cfg, state.start_card), players=on),
            )
        in_portal = tuple(p.name for p in state.players if p.position == PORTAL_ID)
        if in_portal:
            table.insert(0, text("In the Time Portal: {players}", players=in_portal))
        columns: list[Text | str] = [
            text("Player"),
            text("On"),
            text("Crystals"),
            text("Tokens"),
            text("Freezes"),
            text("Cards"),
            "",
        ]
        if compact:  # the summary says whose turn it is; tokens and markers lie on the table
            keep = [0, 1, 2, 5]
            columns, players = [columns[i] for i in keep], [[row[i] for i in keep] for row in players]
        return [
            {"kind": "grid", "title": text("Timelines"), "rows": rows, "highlight": highlight},
            {"kind": "table", "title": text("Players"), "columns": columns, "rows": players},
            {"kind": "lines", "title": text("Table"), "lines": table},
            {"kind": "lines", "title": text("Latest"), "lines": self.latest(ctx)},
        ]

    def picture(self, state: GameState, ctx: Context) -> dict[str, Any]:
        """What the dashboard draws (``picture.js``): each coloured Timeline as a row of cards in Era order,
        the Time Portal and a special starting card with the meeples on them, the piles, and each
        player's hand, crystals, tokens and state, whose turn it is."""
        cfg = state.config
        index = cfg.index
        over = self.is_over(state, ctx)

        def on(card: str) -> list[str]:
            return [p.name for p in state.players if p.position == card and not p.eliminated]

        rows = [
            {
                "colour": t.colour,
                "label": timeline_text(t.colour),
                "cards": [
                    {
                        "id": c,
                        "number": index[c].number,
                        "name": card_text(index, c),
                        "singularity": index[c].number == cfg.singularity_number,
                        "meeples": on(c),
                    }
                    for c in t.cards
                ],
                "frozen_by": [p for _, p in t.freezes],
                "frozen_label": (
                    text("frozen by {players}", players=tuple(dict.fromkeys(p for _, p in t.freezes)))
                    if t.freezes
                    else None
                ),
            }
            for t in self.ordered_timelines(state)
        ]
        start = None
        if state.start_card is not None:
            start = {
                "id": state.start_card,
                "label": text("Starting card: {card}", card=card_name(cfg, state.start_card)),
                "meeples": on(state.start_card),
            }
        players = []
        for p in state.players:
            status = self.status(state, ctx, p.name)
            players.append(
                {
                    "name": p.name,
                    "colour": self.colour_of(p.name),
                    "hand": p.hand_size,
                    "hand_label": text("{count} card", "{count} cards", count=p.hand_size),
                    "crystals": p.crystals,
                    "crystals_label": text(
                        "{found} of {goal} Time Crystals", found=p.crystals, goal=cfg.crystals_to_win
                    ),
                    "tokens": p.time_jump_tokens,
                    "tokens_label": text(
                        "{count} Time Jump token", "{count} Time Jump tokens", count=p.time_jump_tokens
                    ),
                    "on": card_name(cfg, p.position) if p.position else None,
                    "state": status,
                    "state_label": STATUS[status] if status else None,
                    "to_move": p.name == state.current_player and not over,
                }
            )
        return {
            "eras": [cfg.lowest_number, cfg.highest_number],
            "singularity": cfg.singularity_number,
            "crystals_to_win": cfg.crystals_to_win,
            "rows": rows,
            "portal": {"label": text("Time Portal"), "meeples": on(PORTAL_ID)},
            "start": start,
            "deck": state.deck_size,
            "deck_label": text("Deck: {count} card", "Deck: {count} cards", count=state.deck_size),
            "discard": state.discard_size,
            "discard_label": text(
                "Discard pile: {count} card", "Discard pile: {count} cards", count=state.discard_size
            ),
            "players": players,
            "turn": None
            if over
            else {"player": state.current_player, "open": ctx.turn_open, "number": state.turn},
            "summary": self.summary(state, ctx),
            "empty_label": text("No Timeline on the table"),
        }

    def view(self, state: GameState, ctx: Context) -> View:
        return View(
            self.summary(state, ctx),
            tuple(self.panels(state, ctx)),
            extra={"picture": self.picture(state, ctx)},
        )

    def player_view(self, state: GameState, ctx: Context, player: str) -> View:
        panels = self.panels(state, ctx, compact=True)
        try:
            me = state.player(player)
        except KeyError:
            return View(self.summary(state, ctx), tuple(panels))
        hand: list[Text] = [card_name(state.config, c) for c in sorted(me.hand)]
        if me.unseen:
            hand.append(
                text(
                    "{count} card the hub has not seen", "{count} cards the hub has not seen", count=me.unseen
                )
            )
        panels.insert(
            0, {"kind": "lines", "title": text("Your hand ({cards})", cards=me.hand_size), "lines": hand}
        )
        return View(self.summary(state, ctx), tuple(panels))

    def scores(self, state: GameState, ctx: Context) -> dict[str, Any] | None:
        """Once the game is over: crystals per player and the winner.

        A game ended before the rules' own end (by the host or the master clock) is scored as it
        stands: the players still in the game with the most crystals share the win, and nobody wins
        while nobody has found a crystal; ``ended`` says who ended it.
        """
        if not self.is_over(state, ctx):
            return None
        if state.is_over:
            winners = [state.winner] if state.winner else []
        else:
            winners = self.leaders(state)[0]
        ranking = sorted(state.players, key=lambda p: (p.name not in winners, p.eliminated, -p.crystals))
        out: dict[str, Any] = {
            "winners": winners,
            "ranking": [p.name for p in ranking],
            "players": {
                p.name: {
                    "total": p.crystals,
                    "crystals": p.crystals,
                    "tokens": p.time_jump_tokens,
                    "eliminated": p.eliminated,
                }
                for p in state.players
            },
            "turns": state.turn - 1,
        }
        if stopped_by(state, ctx):
            out["ended"] = stopped_by(state, ctx)
        return out


def _parts(note: Text) -> list[Text]:
    """The notes a step's note joins ("{p0}; {p1}"), each on its own; a single note as it is."""
    names = [name for name, _ in note.args]
    if not names or note.msgid != "; ".join(f"{{p{i}}}" for i in range(len(names))):
        return [note]
    if names != [f"p{i}" for i in range(len(names))]:
        return [note]
    parts: list[Text] = []
    for _, value in note.args:
        if isinstance(value, Text):
            parts.extend(_parts(value))
        elif isinstance(value, str):
            parts.append(verbatim(value))  # a sentence kept as it was written (an old log's)
    return parts
