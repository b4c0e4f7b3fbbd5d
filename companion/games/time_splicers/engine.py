"""Time Splicers rules engine: ``apply(state, action, by=player) -> Accepted | Rejected``.

The state (:class:`~.model.GameState`), the actions and the events are the frozen dataclasses of
:mod:`.model`; a broken rule is raised with :func:`~companion.rules.outcome.refuse` anywhere inside
and answered by :func:`apply` as a ``Rejected`` whose reason names the rulebook section. The
engine needs neither ``random`` nor a clock: the hub deck's shuffles are hashes of the seed
(:mod:`.hubdeck`), and at a table deck what the table turns up is an action
(:class:`~.model.RevealCard`). A card the hub has not seen is only counted; a player names it when
they place or play it, and it is checked against what the hands and the draw pile can still hold.

Section names cited below are the headings of the rulebook (time-splicers.txt).

Rules read closely (each was once read differently; see docs/games/time-splicers.md):

* Hand Maximum: the limit holds at every moment of the player's turn, so it is checked
  after every single card drawn. Entering the Time Portal with 7 cards goes over on the first
  of its two cards; the penalty is paid at once and the second card is drawn afterwards.
* c. Complete Timeline Collapse: the trigger is placing the fifth card of a Timeline that
  holds the Singularity, so the count must be exactly five after the placement. A
  Timeline grows one card per placement, so one holding the Singularity never gets past
  five cards by growing.
* Quantum Tunnel as the starting card: players on it may place a card of any colour next
  to it. A card whose colour already has a Timeline joins that Timeline where its number fits (as when
  leaving the Time Portal) instead of being refused.

Interpretations where the rulebook is silent or ambiguous (also listed in
docs/games/time-splicers.md):

* A Timeline is identified by its colour (How to Play defines it as a row of cards sharing
  one colour): there is at most one Timeline of each colour on the table, so a spliced card
  must be of a colour that has no Timeline yet.
* Leaving the Time Portal to a card does not draw again (the two cards drawn on entering
  pay for the whole two-turn move).
* When a collapse makes the same placement both a 3-card sequence and the fifth card of
  a Timeline holding the Singularity, the Complete Timeline Collapse wins (the whole
  Timeline, sequence included, is discarded; 2 crystals).
* The Singularity placed into a Timeline that already has five or more cards is its
  sixth (or later) card, not its fifth, so it does not collapse the Timeline completely.
  The rulebook sets no length limit on a Timeline without the Singularity.
* Fixed Point in Time: any placement that brings the number of cards of one Era on the
  table to three, or to four, earns a Time Jump token while the supply lasts.
* A sequence collapsed at the left end of a Timeline that still has cards sends its
  meeples to the earliest remaining card of that Timeline.
* When a new Timeline must be flipped from the deck, special cards turned up on the way
  are discarded until a numbered card appears.
* An eliminated player's meeple leaves the table and their Time Freeze cards are
  discarded; this does not collapse a Timeline (nobody "left" it on a turn).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.rules.deck import Pile
from companion.rules.outcome import Accepted, Rejected, checked, refuse
from companion.rules.text import Text, text

from .board import (
    Board,
    GameOver,
    Player,
    Row,
)
from .components import NUMBER, PORTAL_ID, QUANTUM_TUNNEL, TIME_FREEZE, TIME_JUMP
from .model import (
    Action,
    CardPlaced,
    CardToTurnUp,
    CorrectStartingCard,
    EnteredPortal,
    EnterPortal,
    FixedPointReached,
    ForfeitTurn,
    GameState,
    Move,
    PlaceCard,
    PlaceTimeFreeze,
    RedrawHand,
    RevealCard,
    SpecialCardPlayed,
    StartingCardTakenBack,
    TimeFreezePlaced,
    TimeJumpTokenSpent,
    TimelineFlipped,
    TurnedUpCardDiscarded,
    TurnForfeited,
    UseQuantumTunnel,
    UseTimeJump,
)
from .words import (
    R_ADJACENT,
    R_COMPLETE,
    R_END,
    R_HAND_MAX,
    R_MOVING,
    R_NEW,
    R_PARTIAL,
    R_PORTAL,
    R_QT,
    R_SAME,
    R_SETUP,
    R_SPECIAL,
    R_TF,
    R_TJ,
    R_TURN,
    UNSEEN,
    colour_text,
    timeline_text,
)


def _check_table_card(table: Board, card: str) -> Row:
    t = table.timeline_of(card)
    if card == PORTAL_ID:
        refuse(
            text("To step into the Time Portal, choose the Time Portal move, which draws 2 cards"), R_PORTAL
        )
    if t is None:
        refuse(text("{card} is not a card in a Timeline on the table", card=table.name(card)), R_MOVING)
    return t


# ---- main actions


def _move(table: Board, p: Player, a: Move) -> None:
    """Move to an adjacent card (same Timeline neighbour, or same Era elsewhere), draw 1."""
    dest_t = _check_table_card(table, a.to)
    pos = p.position
    if pos == a.to:
        refuse(text("You are already on {card}", card=table.name(a.to)), R_ADJACENT)
    if pos == PORTAL_ID:
        table.move_player(p, a.to, "portal-exit")
        table.end_turn(p)
        return
    if pos is not None and pos == table.start_card:
        kind = table.index[pos].kind
        if kind == QUANTUM_TUNNEL and a.to not in table.start_links:
            refuse(
                text(
                    "From the Quantum Tunnel starting card you can only move to a card placed next to it, "
                    "not {card}",
                    card=table.name(a.to),
                ),
                R_QT,
            )
        if kind == TIME_JUMP and table.start_colour is None:
            refuse(
                text(
                    "From the Time Jump starting card you can only move into the Timeline chosen by the first "
                    "player to leave it, and nobody has chosen one yet: place a card to choose it"
                ),
                R_TJ,
            )
        if kind == TIME_JUMP and dest_t.colour != table.start_colour:
            refuse(
                text(
                    "From the Time Jump starting card you can only move into the {timeline}, chosen by the first "
                    "player to leave it",
                    timeline=timeline_text(table.start_colour or ""),
                ),
                R_TJ,
            )
    else:
        here = table.timeline_of(pos)
        assert here is not None
        if here is dest_t:
            if abs(here.cards.index(a.to) - here.cards.index(pos or "")) != 1:
                refuse(
                    text(
                        "{card} is not next to {here}: move one card along your Timeline or to the same Era "
                        "in another Timeline",
                        card=table.name(a.to),
                        here=table.name(pos),
                    ),
                    R_ADJACENT,
                )
        elif table.num(a.to) != table.num(pos or ""):
            refuse(
                text(
                    "{card} is in another Timeline but not the same Era as {here}: only cards with the same "
                    "number in other Timelines are adjacent",
                    card=table.name(a.to),
                    here=table.name(pos),
                ),
                R_ADJACENT,
            )
    table.move_player(p, a.to, "adjacent")
    table.draw(p, 1)
    table.end_turn(p)


def _enter_portal(table: Board, p: Player, a: EnterPortal) -> None:
    """Step into the Time Portal and draw 2; the next turn leaves it."""
    if p.position == PORTAL_ID:
        refuse(
            text("You are already in the Time Portal: this turn you must move to a card or place a card"),
            R_PORTAL,
        )
    table.move_player(p, PORTAL_ID, "portal")
    table.events.append(EnteredPortal(p.name))
    table.draw(p, 2)
    table.end_turn(p)


def _place_from_afar(table: Board, p: Player, card: str, colour: str, era: int) -> tuple[Row, bool, bool]:
    """A placement from the Time Portal or a special starting card: into the Timeline of its colour where
    its number fits, or as a new Timeline. (target, new Timeline, shifted)"""
    pos = p.position
    existing = table.by_colour(colour)
    if pos is not None and pos == table.start_card:
        kind = table.index[pos].kind
        # Quantum Tunnel: a card of any colour may be placed next to it; a colour that
        # already has a Timeline joins it below, as when leaving the Time Portal.
        if kind == TIME_JUMP:
            if table.start_colour is None and existing is not None:
                refuse(
                    text(
                        "A {timeline} is already on the table: choose a colour for a new Timeline",
                        timeline=timeline_text(colour),
                    ),
                    R_TJ,
                )
            if table.start_colour is not None and colour != table.start_colour:
                refuse(
                    text(
                        "The first player to leave the Time Jump starting card chose the {timeline}: "
                        "place a {colour} card",
                        timeline=timeline_text(table.start_colour),
                        colour=colour_text(table.start_colour),
                    ),
                    R_TJ,
                )
            table.start_colour = colour
        table.start_links.append(card)
    if existing is None:
        target = Row(colour, [card], [])
        table.timelines.append(target)
        return target, True, False
    if any(table.num(c) == era for c in existing.cards):
        refuse(
            text(
                "The {timeline} already has an Era {era} card: its cards must stay in ascending order",
                timeline=timeline_text(colour),
                era=era,
            ),
            R_SAME,
        )
    later = [i for i, c in enumerate(existing.cards) if table.num(c) > era]
    at = later[0] if later else len(existing.cards)
    existing.cards.insert(at, card)
    return existing, False, 0 < at < len(existing.cards) - 1


def _place_beside(table: Board, p: Player, card: str, colour: str, era: int) -> tuple[Row, bool, bool]:
    """A placement next to (same colour) or parallel to (same Era, a new Timeline) the player's card."""
    pos = p.position
    here = table.timeline_of(pos)
    assert here is not None and pos is not None
    name = table.name(card)
    i = here.cards.index(pos)
    mine = table.num(pos)
    if colour == here.colour:
        if era == mine:
            refuse(
                text(
                    "{card} has the same Era as {here}: a card placed to the right must be higher and "
                    "one placed to the left lower",
                    card=name,
                    here=table.name(pos),
                ),
                R_SAME,
            )
        if era > mine:
            right = here.cards[i + 1] if i + 1 < len(here.cards) else None
            if right is not None and era >= table.num(right):
                refuse(
                    text(
                        "{card} cannot go to the right of {here}: it must be lower than the next card "
                        "{next} to keep the Timeline in ascending order",
                        card=name,
                        here=table.name(pos),
                        next=table.name(right),
                    ),
                    R_SAME,
                )
            here.cards.insert(i + 1, card)
            return here, False, right is not None
        left = here.cards[i - 1] if i > 0 else None
        if left is not None and era <= table.num(left):
            refuse(
                text(
                    "{card} cannot go to the left of {here}: it must be higher than the previous card "
                    "{previous} to keep the Timeline in ascending order",
                    card=name,
                    here=table.name(pos),
                    previous=table.name(left),
                ),
                R_SAME,
            )
        here.cards.insert(i, card)
        return here, False, left is not None
    if era != mine:
        refuse(
            text(
                "{card} is neither {colour} (to place beside {here}) nor Era {era} "
                "(to splice a new Timeline above or below {here})",
                card=name,
                colour=colour_text(here.colour),
                here=table.name(pos),
                era=mine,
            ),
            R_NEW,
        )
    if table.by_colour(colour) is not None:
        refuse(
            text(
                "A {timeline} is already on the table, and each colour has only one Timeline: "
                "splice a card of a colour that has no Timeline yet",
                timeline=timeline_text(colour),
            ),
            R_NEW,
        )
    target = Row(colour, [card], [])
    table.timelines.append(target)
    return target, True, False


def _place(table: Board, p: Player, a: PlaceCard) -> None:
    """Place a numbered card next to or parallel to your card and move onto it."""
    card = table.take_card(p, a.card)
    info = table.index[card]
    if info.kind != NUMBER:
        refuse(
            text(
                "{card} is a special card: play it as a free action, not as a placement",
                card=table.name(card),
            ),
            R_SPECIAL,
        )
    colour, era = info.colour or "", info.number or 0
    if p.position == PORTAL_ID or (p.position is not None and p.position == table.start_card):
        target, new_timeline, shifted = _place_from_afar(table, p, card, colour, era)
    else:
        target, new_timeline, shifted = _place_beside(table, p, card, colour, era)
    table.events.append(CardPlaced(p.name, card, colour, new_timeline, shifted))
    count = sum(1 for t in table.timelines for c in t.cards if table.num(c) == era)
    if count in (3, 4):
        gained = table.token_supply > 0
        if gained:
            table.token_supply -= 1
            p.tokens += 1
        table.events.append(FixedPointReached(p.name, era, count, gained))
    table.move_player(p, card, "placed")
    if target in table.timelines:
        if not table.collapse_after_placing(p, target, card, a.sequence, a.relocate_to):
            return  # the turn ends once the table has turned up the new Timeline's card
    table.end_turn(p)


# ---- free actions


def _quantum_tunnel(table: Board, p: Player, a: UseQuantumTunnel) -> None:
    """Play a Quantum Tunnel card to move to any card on the table."""
    if not table.has_kind(p, QUANTUM_TUNNEL):
        _no_card(table, p, QUANTUM_TUNNEL, text("You have no Quantum Tunnel card in your hand"), R_QT)
    _check_table_card(table, a.to)
    if p.position == a.to:
        refuse(text("You are already on {card}", card=table.name(a.to)), R_QT)
    card = table.take_kind(p, QUANTUM_TUNNEL)
    table.discard.append(card)
    table.events.append(SpecialCardPlayed(p.name, card))
    table.move_player(p, a.to, "quantum-tunnel")


def _time_jump(table: Board, p: Player, a: UseTimeJump) -> None:
    """A Time Jump card or token moves you to any other card of your own Timeline."""
    here = table.timeline_of(p.position)
    if here is None:
        refuse(text("A Time Jump moves within your Timeline, and you are not on a Timeline card"), R_TJ)
    if a.to not in here.cards:
        refuse(
            text(
                "{card} is not in your {timeline}", card=table.name(a.to), timeline=timeline_text(here.colour)
            ),
            R_TJ,
        )
    if a.to == p.position:
        refuse(text("You are already on {card}", card=table.name(a.to)), R_TJ)
    if a.token:
        if p.tokens < 1:
            refuse(text("You have no Time Jump token"), R_TJ)
        p.tokens -= 1
        table.token_supply += 1
        table.events.append(TimeJumpTokenSpent(p.name, "time jump"))
    else:
        if not table.has_kind(p, TIME_JUMP):
            _no_card(table, p, TIME_JUMP, text("You have no Time Jump card in your hand"), R_TJ)
        card = table.take_kind(p, TIME_JUMP)
        table.discard.append(card)
        table.events.append(SpecialCardPlayed(p.name, card))
    table.move_player(p, a.to, "time-jump")


def _redraw(table: Board, p: Player, a: RedrawHand) -> None:
    """A Time Jump token can instead discard your hand and draw four new cards."""
    if p.tokens < 1:
        refuse(text("You have no Time Jump token to exchange your hand"), R_TJ)
    p.tokens -= 1
    table.token_supply += 1
    table.events.append(TimeJumpTokenSpent(p.name, "new hand"))
    table.discard_hand(p)
    table.draw(p, table.cfg.hand_minimum)


def _time_freeze(table: Board, p: Player, a: PlaceTimeFreeze) -> None:
    """Put a Time Freeze card and one of your markers at the end of your Timeline."""
    here = table.timeline_of(p.position)
    if here is None:
        refuse(text("A Time Freeze card goes at the end of your Timeline, and you are not on one"), R_TF)
    if not table.has_kind(p, TIME_FREEZE):
        _no_card(table, p, TIME_FREEZE, text("You have no Time Freeze card in your hand"), R_TF)
    if p.markers < 1:
        refuse(text("You have no Time Freeze marker left to show the card is yours"), R_TF)
    card = table.take_kind(p, TIME_FREEZE)
    p.markers -= 1
    here.freezes.append((card, p.name))
    table.events.append(TimeFreezePlaced(p.name, card, here.colour))


def _no_card(table: Board, p: Player, kind: str, reason: Text, rule: Text) -> None:
    """Refuse a special card ``p`` cannot hold: none in a known hand, or none left among the unseen cards."""
    if p.unseen > 0:
        face = kind.replace("_", "-")
        table.unseen_pile().take(face, pile=UNSEEN, name=table.name(table.cfg.faces[face].id))
    refuse(reason, rule)


def _forfeit(table: Board, p: Player, a: ForfeitTurn) -> None:
    """The turn timer ran out: no main action this turn, then the usual end of turn."""
    table.events.append(TurnForfeited(p.name))
    table.end_turn(p)


def _reveal(table: Board, a: RevealCard) -> None:
    """The table turned up the card the game waits for: the starting card, or the new Timeline's card."""
    waiting = table.turning_up
    if waiting is None:
        refuse(text("No card is waiting to be turned up: the game goes on"), R_TURN)
    rule = R_SETUP if waiting.why == "start" else R_COMPLETE if waiting.crystals == 2 else R_PARTIAL
    card = table.claim_unseen(a.card, rule)
    table.deck_unseen -= 1  # it was the top card of the draw pile
    if waiting.why == "start":
        if table.index[card].kind == TIME_FREEZE:
            table.discard.append(card)
            table.events.append(TurnedUpCardDiscarded(card))
            table.turn_up_start()
            return
        table.turning_up = None
        table.start_with(card)
        return
    if table.index[card].kind == NUMBER:
        table.timelines.append(Row(table.index[card].colour or "", [card], []))
        table.events.append(TimelineFlipped(card))
        dest: str | None = card
    else:
        table.discard.append(card)
        table.events.append(TurnedUpCardDiscarded(card))
        dest = table.flip_timeline()
    if dest is None:
        return  # the next card is unseen too
    table.turning_up = None
    p = table.player(waiting.player)
    movers = [m for m in table.active() if m.name in waiting.movers]
    table.relocate(p, movers, dest, None, waiting.crystals)
    table.end_turn(p)


def _correct_start(table: Board, a: CorrectStartingCard) -> None:
    """Take back the starting card the table entered and turn up the one it names instead (before any
    meeple has left it: the referee allows it only until the first turn starts)."""
    if table.s.deck_mode == "hub":
        refuse(text("The hub dealt the starting card: there is nothing to correct"), R_SETUP)
    rows = [t.cards for t in table.timelines]
    start: str | None = None
    if table.start_card is not None and not rows:
        start = table.start_card
    elif table.start_card is None and len(rows) == 1 and len(rows[0]) == 1:
        start = rows[0][0]
    if table.turning_up is not None or start is None or any(p.position != start for p in table.active()):
        refuse(text("The starting card can only be corrected before the first turn"), R_SETUP)
    if table.start_card is not None:
        table.start_card = None
    else:
        table.timelines.clear()
    for p in table.active():
        p.position = None
    table.deck_unseen += 1  # back on top of the draw pile, unseen
    table.events.append(StartingCardTakenBack(start))
    table.turning_up = CardToTurnUp("start")
    _reveal(table, RevealCard(a.card))


_HANDLERS: dict[type, Callable[[Board, Player, Any], None]] = {
    ForfeitTurn: _forfeit,
    Move: _move,
    EnterPortal: _enter_portal,
    PlaceCard: _place,
    UseQuantumTunnel: _quantum_tunnel,
    UseTimeJump: _time_jump,
    RedrawHand: _redraw,
    PlaceTimeFreeze: _time_freeze,
}


@checked
def apply(state: GameState, action: Action, *, by: str | None = None) -> Accepted[GameState]:
    """Decide one action of the player whose turn it is: the new state and its events, or a rejection
    naming the rule.

    ``by`` names who tried it, when known (a record, a phone): anyone else is refused (How to Play:
    only the current player acts). Special cards are free actions before the main move, and the main
    move (Moving a, b or c) ends the turn after the Hand Minimum refill. A :class:`RevealCard` may be
    entered by anyone at the table; while the game waits for one, nothing else is decided.
    """
    handler = _HANDLERS.get(type(action))
    if handler is None and not isinstance(action, (RevealCard, CorrectStartingCard)):
        refuse(text("{action} is not a Time Splicers action", action=type(action).__name__), R_TURN)
    if state.winner is not None:
        refuse(text("The game is over: {player} has won", player=state.winner), R_END)
    if state.is_over:
        refuse(text("The game is over: every player has been eliminated"), R_END)
    table = Board(state)
    if by is not None and not any(p.name == by for p in table.players):
        refuse(text("There is no player called {name} at this table", name=by), R_TURN)
    try:
        if isinstance(action, RevealCard):
            _reveal(table, action)
        elif isinstance(action, CorrectStartingCard):
            _correct_start(table, action)
        else:
            p = table.players[state.current]
            if by is not None:
                actor = table.player(by)
                if actor.eliminated:
                    refuse(text("{player} has been eliminated from the game", player=by), R_HAND_MAX)
                if by != state.current_player:
                    refuse(
                        text("It is {player}'s turn, not {other}'s", player=state.current_player, other=by),
                        R_TURN,
                    )
            _check_waiting(state)
            assert handler is not None
            handler(table, p, action)
    except GameOver:
        pass
    return Accepted(table.freeze(), tuple(table.events))


def _check_waiting(state: GameState) -> None:
    """Nothing but the card turned up is decided while the game waits for it."""
    waiting = state.turning_up
    if waiting is None:
        return
    if waiting.why == "start":
        refuse(text("Turn up the starting card and enter it first"), R_SETUP)
    refuse(
        text("Turn up the top card of the deck for the new Timeline and enter it first"),
        R_COMPLETE if waiting.crystals == 2 else R_PARTIAL,
    )


def is_legal(state: GameState, action: Action, *, by: str | None = None) -> bool:
    """True when :func:`apply` would accept ``action``."""
    return not isinstance(apply(state, action, by=by), Rejected)


def unseen_cards(state: GameState) -> tuple[str, ...]:
    """Every card whose place the hub does not know: in a hand, the draw pile or thrown away unseen."""
    return tuple(Board(state).unseen_ids())


def unseen_pile(state: GameState) -> Pile:
    """What the hands and the draw pile can still hold, by face (the likeliest card a table turns up
    first: :meth:`~companion.rules.deck.Pile.likeliest`)."""
    return Board(state).unseen_pile()


def all_card_ids(state: GameState) -> list[str]:
    """Every card wherever it is: deck, discard, removed, hands, Timelines, Time Freezes, portal, and
    the cards the hub has not seen (each once, wherever they are)."""
    out = [PORTAL_ID, *state.deck, *state.discard, *state.removed]
    for p in state.players:
        out.extend(p.hand)
    for t in state.timelines:
        out.extend(t.cards)
        out.extend(c for c, _ in t.freezes)
    if state.start_card is not None:
        out.append(state.start_card)
    return out + list(unseen_cards(state))
