"""The board during one action of Time Splicers: a mutable working copy of the state.

:func:`~companion.games.time_splicers.engine.apply` copies the state into a :class:`Board`, lets the
action change it (cards moving between the draw pile, hands, Timelines and the discard pile;
meeples moving and the collapses that follow; crystals and tokens changing hands) and freezes the
result into the next state, or throws the copy away when a rule refuses the action. Cards the hub
has not seen (a table deck) are counted here and named only when the table names them, checked
against what the hands and the draw pile can still hold (a :class:`~companion.rules.deck.Pile`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.rules.deck import Pile
from companion.rules.outcome import refuse
from companion.rules.text import Text, text

from .components import NUMBER, PORTAL_ID, QUANTUM_TUNNEL, TIME_FREEZE, Card
from .hubdeck import reshuffle
from .model import (
    CardsDrawn,
    CardToTurnUp,
    CrystalsFound,
    DeckReshuffled,
    GameState,
    GameWon,
    HandDiscarded,
    HandLimitExceeded,
    MeepleMoved,
    PlayerEliminated,
    PlayerState,
    StartCardLeft,
    StartingCardDealt,
    TimeFreezeReturned,
    TimeJumpTokenSpent,
    Timeline,
    TimelineCollapsed,
    TimelineFlipped,
    TurnedUpCardDiscarded,
    TurnEnded,
)
from .words import (
    R_COMPLETE,
    R_HAND_MAX,
    R_PARTIAL,
    R_PLACE,
    R_SETUP,
    UNSEEN,
    card_text,
    colour_text,
    timeline_text,
)

WON_BY_CRYSTALS = "found Time Crystal number {number}"
"""``GameWon.reason`` when a player found the last crystal they needed (``{number}`` filled in)."""
WON_LAST_STANDING = "every other player was eliminated"
"""``GameWon.reason`` when every other player was eliminated."""

COMPLETE_COLLAPSE_CARDS = 5
"""Placing this card of a Timeline holding the Singularity collapses it (c. Complete Timeline Collapse)."""


class GameOver(Exception):
    """The action ended the game: what is left of it is not done."""


@dataclass
class Player:
    name: str
    hand: list[str]
    position: str | None
    tokens: int
    markers: int
    crystals: int
    eliminated: bool
    unseen: int

    @property
    def size(self) -> int:
        return len(self.hand) + self.unseen


@dataclass
class Row:
    colour: str
    cards: list[str]
    freezes: list[tuple[str, str]]


UNSEEN_TOP = "?"
"""What the top of the draw pile is when the hub has not seen it: the table has to say."""


class Board:
    """Mutable working copy of a state for one action; thrown away on a refusal."""

    def __init__(self, s: GameState) -> None:
        self.s = s
        self.cfg = s.config
        self.index = s.config.index
        self.players = [
            Player(
                p.name,
                list(p.hand),
                p.position,
                p.time_jump_tokens,
                p.freeze_markers,
                p.crystals,
                p.eliminated,
                p.unseen,
            )
            for p in s.players
        ]
        self.timelines = [Row(t.colour, list(t.cards), list(t.freezes)) for t in s.timelines]
        self.deck = list(s.deck)
        self.discard = list(s.discard)
        self.removed = list(s.removed)
        self.deck_unseen = s.deck_unseen
        self.discard_unseen = s.discard_unseen
        self.turning_up = s.turning_up
        self.start_card = s.start_card
        self.start_colour = s.start_colour
        self.start_links = list(s.start_links)
        self.token_supply = s.token_supply
        self.crystal_supply = s.crystal_supply
        self.shuffles = s.shuffles
        self.current = s.current
        self.turn = s.turn
        self.winner = s.winner
        self.events: list[Any] = []

    def freeze(self) -> GameState:
        return replace(
            self.s,
            players=tuple(
                PlayerState(
                    p.name, tuple(p.hand), p.position, p.tokens, p.markers, p.crystals, p.eliminated, p.unseen
                )
                for p in self.players
            ),
            timelines=tuple(Timeline(t.colour, tuple(t.cards), tuple(t.freezes)) for t in self.timelines),
            deck=tuple(self.deck),
            discard=tuple(self.discard),
            removed=tuple(self.removed),
            deck_unseen=self.deck_unseen,
            discard_unseen=self.discard_unseen,
            turning_up=self.turning_up,
            start_card=self.start_card,
            start_colour=self.start_colour,
            start_links=tuple(c for c in self.start_links if self.timeline_of(c) is not None),
            token_supply=self.token_supply,
            crystal_supply=self.crystal_supply,
            shuffles=self.shuffles,
            current=self.current,
            turn=self.turn,
            winner=self.winner,
        )

    # ---- lookups
    def num(self, card: str) -> int:
        return self.index[card].number or 0

    def name(self, card: str | None) -> Text:
        """A card's name for players ("red 5")."""
        return card_text(self.index, card or "")

    def timeline_of(self, card: str | None) -> Row | None:
        for t in self.timelines:
            if card in t.cards:
                return t
        return None

    def by_colour(self, colour: str) -> Row | None:
        for t in self.timelines:
            if t.colour == colour:
                return t
        return None

    def active(self) -> list[Player]:
        return [p for p in self.players if not p.eliminated]

    def on_cards(self, cards: list[str]) -> list[Player]:
        return [p for p in self.active() if p.position in cards]

    def player(self, name: str) -> Player:
        return next(p for p in self.players if p.name == name)

    # ---- cards the hub has not seen
    def unseen_ids(self) -> list[str]:
        """Every card whose place the hub does not know (in a hand, the draw pile or thrown away unseen)."""
        known = {PORTAL_ID, *self.deck, *self.discard, *self.removed}
        known.update(c for t in self.timelines for c in t.cards)
        known.update(c for t in self.timelines for c, _ in t.freezes)
        known.update(c for p in self.players for c in p.hand)
        if self.start_card is not None:
            known.add(self.start_card)
        return [c for c in self.index if c not in known]

    def unseen_pile(self) -> Pile:
        """What the hands and the draw pile can still hold, by face."""
        return Pile.of(self.index[c].face for c in self.unseen_ids())

    def claim_unseen(self, card: str, rule: Text) -> str:
        """The id of ``card`` (an id or a face) among the unseen cards; refused when none can be there."""
        info = self.card_info(card, rule)
        ids = self.unseen_ids()
        if card in ids:
            return card
        for c in ids:
            if self.index[c].face == info.face:
                return c
        self.unseen_pile().take(info.face, pile=UNSEEN, name=self.name(info.id))
        raise AssertionError("unreachable: the pile refused")  # pragma: no cover

    def card_info(self, card: str, rule: Text) -> Card:
        info = self.index.get(card) or self.cfg.faces.get(card)
        if info is None or info.id == PORTAL_ID:
            refuse(text("There is no card called {card} in this deck", card=card), rule)
        return info

    def has_kind(self, p: Player, kind: str) -> bool:
        """``p`` holds a card of ``kind``: a known one, or an unseen one that can still be one."""
        if any(self.index[c].kind == kind for c in p.hand):
            return True
        return p.unseen > 0 and any(self.index[c].kind == kind for c in self.unseen_ids())

    def take_kind(self, p: Player, kind: str) -> str:
        """A card of ``kind`` from ``p``'s hand (the first known one, else an unseen one, by id)."""
        for c in sorted(p.hand):
            if self.index[c].kind == kind:
                p.hand.remove(c)
                return c
        card = next(c for c in self.unseen_ids() if self.index[c].kind == kind)
        p.unseen -= 1
        return card

    def take_card(self, p: Player, card: str) -> str:
        """The card ``p`` places (an id, or a face at a table deck), out of their hand."""
        info = self.card_info(card, R_PLACE)
        if card in p.hand:
            p.hand.remove(card)
            return card
        known = [c for c in sorted(p.hand) if self.index[c].face == card]
        if known:
            p.hand.remove(known[0])
            return known[0]
        if p.unseen > 0:
            cid = self.claim_unseen(card, R_PLACE)
            p.unseen -= 1
            return cid
        refuse(text("{card} is not in your hand", card=self.name(info.id)), R_PLACE)

    # ---- cards moving between piles
    def reshuffle(self) -> None:
        if not self.discard and not self.discard_unseen:
            return
        self.shuffles += 1
        top: tuple[str, ...] = ()
        if self.shuffles <= len(self.s.reshuffle_tops):
            top = self.s.reshuffle_tops[self.shuffles - 1]
            unseen = self.unseen_ids()
            for card in dict.fromkeys(top):
                if card in self.discard:
                    continue
                if self.discard_unseen and card in unseen:
                    self.discard_unseen -= 1  # a card thrown away unseen, now known
                    continue
                refuse(
                    text(
                        "The recorded order of reshuffle {number} names {card}, which is not in the discard "
                        "pile being shuffled",
                        number=self.shuffles,
                        card=self.name(card),
                    ),
                    R_HAND_MAX,
                )
            if len(set(top)) != len(top):
                refuse(
                    text("The recorded order of reshuffle {number} names a card twice", number=self.shuffles),
                    R_HAND_MAX,
                )
        size = len(self.discard) + self.discard_unseen + sum(c not in self.discard for c in top)
        if self.s.deck_mode == "hub":
            self.deck = list(reshuffle(self.discard, self.s.seed, self.shuffles, top))
        else:  # the table shuffles: the pile is unseen below a recorded top
            self.deck = list(top)
            self.deck_unseen = size - len(top)
        self.discard, self.discard_unseen = [], 0
        self.events.append(DeckReshuffled(size))

    def pop_deck(self) -> str | None:
        """The top card of the draw pile (reshuffled when empty): its id, :data:`UNSEEN_TOP` for a card the hub
        has not seen, None when there is no card at all."""
        if not self.deck and not self.deck_unseen:
            self.reshuffle()
        if self.deck:
            return self.deck.pop(0)
        if self.deck_unseen:
            return UNSEEN_TOP
        return None

    def draw(self, p: Player, n: int) -> None:
        """Draw ``n`` cards one at a time, checking the Hand Maximum after each card.

        Hand Maximum: the limit holds at any time during the turn, so a draw that takes the
        hand over it is punished at once, before the next card of the same action is
        drawn. Cards drawn before a penalty are reported in their own ``CardsDrawn``.
        """
        drawn: list[str] = []
        unseen = 0
        reported = False
        for _ in range(n):
            card = self.pop_deck()
            if card is None:
                break
            if card == UNSEEN_TOP:
                self.deck_unseen -= 1
                p.unseen += 1
                unseen += 1
            else:
                p.hand.append(card)
                drawn.append(card)
            if p.size > self.cfg.hand_maximum:
                self.events.append(CardsDrawn(p.name, tuple(drawn), unseen))
                drawn, unseen, reported = [], 0, True
                self.check_hand_limit(p)
                if p.eliminated:
                    return
        if drawn or unseen or not reported:
            self.events.append(CardsDrawn(p.name, tuple(drawn), unseen))

    def discard_hand(self, p: Player) -> None:
        hand, unseen = tuple(p.hand), p.unseen
        p.hand.clear()
        p.unseen = 0
        self.discard.extend(hand)
        self.discard_unseen += unseen
        self.events.append(HandDiscarded(p.name, hand, unseen))

    def award(self, p: Player, n: int) -> None:
        got = min(n, self.crystal_supply)
        self.crystal_supply -= got
        p.crystals += got
        self.events.append(CrystalsFound(p.name, got, p.crystals))
        if p.crystals >= self.cfg.crystals_to_win:
            self.winner = p.name
            self.events.append(GameWon(p.name, WON_BY_CRYSTALS.format(number=self.cfg.crystals_to_win)))
            raise GameOver

    def remove_timeline(self, t: Row) -> list[str]:
        """Discard a whole Timeline, its Time Freeze cards too; markers go home."""
        gone = list(t.cards) + [c for c, _ in t.freezes]
        for _, owner in t.freezes:
            for p in self.players:
                if p.name == owner:
                    p.markers += 1
        self.discard.extend(gone)
        self.timelines.remove(t)
        return gone

    # ---- meeples
    def move_player(self, p: Player, dest: str, how: str, *, from_timeline: Row | None = None) -> None:
        """Move a meeple, then apply leaving (empty collapse, start card) and arriving (Time Freeze).

        ``from_timeline`` names the Timeline a relocated meeple comes from when its card is
        already discarded; otherwise it is found from the meeple's card.
        """
        origin = p.position
        old_t = from_timeline if from_timeline is not None else self.timeline_of(origin)
        p.position = dest
        self.events.append(MeepleMoved(p.name, origin, dest, how))
        new_t = self.timeline_of(dest)
        if origin is not None and origin == self.start_card and dest != origin:
            self.leave_start()
        if old_t is not None and old_t is not new_t and old_t in self.timelines:
            self.leave_timeline(p, old_t)
        if new_t is not None and new_t is not old_t:
            self.arrive(p, new_t)

    def leave_start(self) -> None:
        """Quantum Tunnel / Time Jump dealt at setup: cleared once the last player has left it."""
        card = self.start_card
        if card is None or any(p.position == card for p in self.active()):
            return
        is_tunnel = self.index[card].kind == QUANTUM_TUNNEL
        (self.removed if is_tunnel else self.discard).append(card)
        self.start_card = None
        self.start_colour = None
        self.start_links = []
        self.events.append(StartCardLeft(card, is_tunnel))

    def leave_timeline(self, p: Player, t: Row) -> None:
        """Empty Timeline Collapse: left with nobody on it and no Time Freeze card."""
        if self.on_cards(t.cards) or t.freezes:
            return
        size = len(t.cards)
        gone = self.remove_timeline(t)
        self.events.append(TimelineCollapsed(p.name, "empty", t.colour, tuple(gone)))
        if size >= 3:
            self.award(p, 1)

    def arrive(self, p: Player, t: Row) -> None:
        """Time Freeze: returning to a Timeline you froze takes your card and marker back."""
        mine = [f for f in t.freezes if f[1] == p.name]
        if not mine:
            return
        for f in mine:
            t.freezes.remove(f)
            self.discard.append(f[0])
            p.markers += 1
        self.events.append(TimeFreezeReturned(p.name, tuple(c for c, _ in mine), t.colour, not t.freezes))

    def check_hand_limit(self, p: Player) -> None:
        """Hand Maximum: over the limit costs the hand and a token, or the game without one.

        Called by :meth:`draw` after each card, the only way a hand grows.
        """
        if p.size <= self.cfg.hand_maximum:
            return
        pays = p.tokens > 0
        self.events.append(HandLimitExceeded(p.name, p.size, pays))
        self.discard_hand(p)
        if pays:
            p.tokens -= 1
            self.token_supply += 1
            self.events.append(TimeJumpTokenSpent(p.name, "hand limit penalty"))
            self.draw(p, self.cfg.hand_minimum)
        else:
            self.eliminate(p)

    def eliminate(self, p: Player) -> None:
        p.eliminated = True
        was = p.position
        p.position = None
        for t in self.timelines:
            for f in [f for f in t.freezes if f[1] == p.name]:
                t.freezes.remove(f)
                self.discard.append(f[0])
                p.markers += 1
        self.events.append(PlayerEliminated(p.name))
        if was is not None and was == self.start_card:
            self.leave_start()
        left = self.active()
        if len(left) == 1 and self.cfg.last_player_standing_wins:
            self.winner = left[0].name
            self.events.append(GameWon(left[0].name, WON_LAST_STANDING))
            raise GameOver
        if not left:
            raise GameOver

    def end_turn(self, p: Player) -> None:
        """Hand Minimum, then the next player still in the game."""
        if not p.eliminated and p.size < self.cfg.hand_minimum:
            self.draw(p, self.cfg.hand_minimum - p.size)
        n = len(self.players)
        nxt = self.current
        for step in range(1, n + 1):
            i = (self.current + step) % n
            if not self.players[i].eliminated:
                nxt = i
                break
        self.current = nxt
        self.turn += 1
        self.events.append(TurnEnded(p.name, self.players[nxt].name))

    # ---- cards turned up from the deck
    def start_with(self, card: str) -> None:
        """Setup: ``card`` is the starting card and every meeple stands on it."""
        if self.index[card].kind == NUMBER:
            self.timelines.insert(0, Row(self.index[card].colour or "", [card], []))
        else:
            self.start_card = card
        self.events.append(StartingCardDealt(card))
        for p in self.active():
            p.position = card

    def turn_up_start(self) -> None:
        """Setup: turn up cards (a Time Freeze is discarded) until the starting card lies; wait for the
        table when the top card is one the hub has not seen."""
        while True:
            card = self.pop_deck()
            if card is None:
                refuse(text("The deck ran out before a starting card was dealt"), R_SETUP)
            if card == UNSEEN_TOP:
                self.turning_up = CardToTurnUp("start")
                return
            if self.index[card].kind == TIME_FREEZE:
                self.discard.append(card)
                self.events.append(TurnedUpCardDiscarded(card))
                continue
            self.turning_up = None
            self.start_with(card)
            return

    def flip_timeline(self) -> str | None:
        """No Timeline is left: the top card of the deck starts one (special cards turned up on the way
        are discarded). The card id, the Time Portal when no card is left at all, None to wait for the
        table to turn up a card the hub has not seen."""
        while True:
            card = self.pop_deck()
            if card is None:
                return PORTAL_ID  # no numbered card anywhere: wait in the portal
            if card == UNSEEN_TOP:
                return None
            if self.index[card].kind == NUMBER:
                self.timelines.append(Row(self.index[card].colour or "", [card], []))
                self.events.append(TimelineFlipped(card))
                return card
            self.discard.append(card)
            self.events.append(TurnedUpCardDiscarded(card))

    # ---- collapses after a placement
    def choose_timeline(self, choice: str | None, rule: Text) -> str | None:
        """Earliest card of the Timeline of the player's choice, or a card flipped from the deck (None
        while the table has to turn it up)."""
        colours = [t.colour for t in self.timelines]
        if colours:
            if choice is None and len(colours) == 1:
                choice = colours[0]
            if choice not in colours:
                refuse(
                    text(
                        "Choose the Timeline the displaced meeples move to; the only Timeline on the table "
                        "is {colours}",
                        "Choose the Timeline the displaced meeples move to; the Timelines on the table are "
                        "{colours}",
                        count=len(colours),
                        colours=tuple(colour_text(c) for c in colours),
                    ),
                    rule,
                )
            t = self.by_colour(choice)
            assert t is not None
            return t.cards[0]
        if choice is not None:
            refuse(
                text(
                    "No Timeline is left to move the displaced meeples to, not even the {timeline}: a new one "
                    "is flipped from the deck, so choose none",
                    timeline=timeline_text(choice),
                ),
                rule,
            )
        return self.flip_timeline()

    def relocate(
        self, p: Player, movers: list[Player], dest: str | None, from_t: Row | None, crystals: int
    ) -> bool:
        """Move the displaced meeples to ``dest`` and award the collapse's crystals; with no ``dest`` yet
        (the table turns up the new Timeline's card) wait for it. True when done."""
        if dest is None:
            self.turning_up = CardToTurnUp("timeline", p.name, tuple(m.name for m in movers), crystals)
            return False
        for m in movers:
            self.move_player(m, dest, "relocated", from_timeline=from_t)
        self.award(p, crystals)
        return True

    def collapse_after_placing(
        self, p: Player, t: Row, card: str, sequence: int | None, relocate_to: str | None
    ) -> bool:
        """The collapses a placement makes; False while the table must turn up a card for a new Timeline."""
        numbers = [self.num(c) for c in t.cards]
        era = self.num(card)
        if is_complete_collapse(len(t.cards), numbers, self.cfg.singularity_number):
            if sequence is not None:
                refuse(
                    text(
                        "This placement collapses the whole Timeline (it is the fifth card of a Timeline "
                        "holding the Singularity): no sequence is chosen"
                    ),
                    R_COMPLETE,
                )
            movers = self.on_cards(t.cards)
            gone = self.remove_timeline(t)
            self.events.append(TimelineCollapsed(p.name, "complete", t.colour, tuple(gone)))
            return self.relocate(p, movers, self.choose_timeline(relocate_to, R_COMPLETE), t, 2)
        runs = [s for s in (era - 2, era - 1, era) if all(s + k in numbers for k in range(3))]
        if not runs:
            if sequence is not None:
                refuse(
                    text("Placing {card} makes no 3-card sequence to collapse", card=self.name(card)),
                    R_PARTIAL,
                )
            return True
        if sequence is None and len(runs) == 1:
            sequence = runs[0]
        if sequence not in runs:
            refuse(
                text(
                    "This placement makes several 3-card sequences ({sequences}): choose the one that collapses",
                    sequences=tuple(sequence_name(s) for s in runs),
                ),
                R_PARTIAL,
            )
        seq = [c for c in t.cards if sequence <= self.num(c) <= sequence + 2]
        first = t.cards.index(seq[0])
        left = t.cards[first - 1] if first > 0 else None
        movers = self.on_cards(seq)
        if len(seq) < len(t.cards):
            for c in seq:
                t.cards.remove(c)
            self.discard.extend(seq)
            self.events.append(TimelineCollapsed(p.name, "partial", t.colour, tuple(seq)))
            dest: str | None = left if left is not None else t.cards[0]
        else:
            gone = self.remove_timeline(t)
            self.events.append(TimelineCollapsed(p.name, "partial", t.colour, tuple(gone)))
            dest = self.choose_timeline(relocate_to, R_PARTIAL)
        return self.relocate(p, movers, dest, t, 1)


def sequence_name(lowest: int) -> str:
    """A 3-card sequence by its numbers: "4-5-6" (the same in every language)."""
    return "-".join(str(lowest + k) for k in range(3))


def is_complete_collapse(size: int, numbers: list[int], singularity: int) -> bool:
    """True when a placement that left a Timeline with ``size`` cards collapses it completely.

    c. Complete Timeline Collapse: placing the fifth card of a Timeline that holds the
    Singularity, the placed card included. Exactly the fifth: the Singularity placed into
    a Timeline that already has five or more cards is not its fifth card.
    """
    return size == COMPLETE_COLLAPSE_CARDS and singularity in numbers
