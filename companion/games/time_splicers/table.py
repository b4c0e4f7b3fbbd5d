"""Time Splicers on the hub: the table referee, with each player's sandtimer as a turn timer.

How a table plays it (see "On the hub" in docs/games/time-splicers.md):

* The player whose turn it is flips their turn timer (their timer 1) to start the turn;
  the very first flip of the first player starts the game. A flip by anyone else is
  refused ("It is ana's turn, not ben's"), and so is a second flip while the turn is
  already running (it restarts nothing) or a flip of another timer of the player.
* During the turn the player's phone lists every legal action, worked out by the engine:
  the main actions first (place or splice a card, with the collapse choices when a
  placement needs one; move; the Time Portal), then the free actions (Time Freeze, Time
  Jump card or token, a new hand for a token, Quantum Tunnel). A main action ends the turn
  and the next player flips their timer.
* With ``setup.turn_limit`` on, the sand running out while the turn is open forfeits it
  with the engine's ``ForfeitTurn`` (record action ``time_out``): no main action, the
  meeple stays, the hand is refilled to the minimum. With it off the sand is a reminder.
* The master clock only bounds the session: its start changes nothing here. When it runs
  out, or when the host ends the game early, the game ends where it stands and is scored on
  the Time Crystals found so far (``{"type": "game_ended", "by": "clock" | "host"}``).

The logged actions are the record actions of ``companion referee time-splicers`` with
``type`` for ``action`` (``{"type": "move", "player", "to"}``, ``place`` with ``card`` and
the optional ``sequence`` and ``relocate_to``, ...), plus ``{"type": "turn_started", "player"}``
and ``game_ended``; each step is logged with the engine's events as its facts. The turn
timer, the log and the notes are :class:`~companion.rules.turns.TurnReferee`'s; the
component counts arrive as the game's data (``GAME.data``).

Every word for players is a :class:`~companion.rules.text.Text` (catalogs in ``i18n/``); the
dashboard draws the view's ``picture`` (``static/pictures/time-splicers.js``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import ConfigError, InvalidRecordError
from companion.rules.outcome import Decision, Rejected, Step
from companion.rules.pages import MenuItem, View
from companion.rules.setup import TableSetup
from companion.rules.text import Text, TextError, text
from companion.rules.turns import Applied, TurnReferee

from .deck import NUMBER, PORTAL_ID, QUANTUM_TUNNEL, TIME_FREEZE, TIME_JUMP, DeckConfig
from .engine import (
    R_END,
    R_HAND_MAX,
    R_TURN,
    WON_LAST_STANDING,
    Action,
    CardPlaced,
    CardsDrawn,
    CrystalsFound,
    DeckReshuffled,
    EnteredPortal,
    EnterPortal,
    FixedPointReached,
    ForfeitTurn,
    GameState,
    GameWon,
    HandLimitExceeded,
    Layout,
    MeepleMoved,
    Move,
    PlaceCard,
    PlaceTimeFreeze,
    PlayerEliminated,
    RedrawHand,
    StartCardLeft,
    TimeFreezePlaced,
    TimeFreezeReturned,
    TimeJumpTokenSpent,
    TimelineCollapsed,
    TimelineFlipped,
    TurnForfeited,
    UseQuantumTunnel,
    UseTimeJump,
    apply,
    card_index,
    new_game,
    sequence_name,
)
from .words import card_text, colour_text, timeline_text

PHONE_ACTIONS = ("move", "portal", "place", "quantum_tunnel", "time_jump", "redraw", "time_freeze")
"""Action types a phone may post (``time_out`` comes from the turn timer only)."""

ENDED_BY = ("host", "clock")
"""Who can end a game before a player finds their last crystal: the host ("End game") or the master clock."""


@dataclass(frozen=True)
class SplicersTable:
    """The game as the hub keeps it: the engine state and whether the current turn is running."""

    game: GameState
    turn_open: bool = False
    """The player to act flipped their turn timer and has not made their main action yet."""
    turns: int = 0
    """Turns started so far."""
    last: tuple[Text, ...] = ()
    """The latest happenings, oldest first, for the pages."""
    ended: str = ""
    """"host" or "clock" once the game was ended before the rules' own end (scored as it stood); "" else."""


class ActionError(InvalidRecordError, TextError):
    """A posted or logged action that is not a Time Splicers action (what is wrong, in words for players)."""


class TableSetupError(ConfigError, TextError):
    """A table the game cannot start at (a player count or a variant), in words for the host."""


# --- actions as JSON -----------------------------------------------------------------------


def to_engine(action: dict[str, Any]) -> Action:
    """A logged or posted action as an engine action; :class:`ActionError` says what is wrong."""
    kind, player = action.get("type"), action.get("player")
    if not isinstance(player, str):
        raise ActionError(text("An action names the player acting"))

    def card(key: str) -> str:
        value = action.get(key)
        if not isinstance(value, str):
            raise ActionError(
                text("A {action} action needs {field}, a card name", action=str(kind), field=key)
            )
        return value

    if kind == "move":
        return Move(player, card("to"))
    if kind == "portal":
        return EnterPortal(player)
    if kind == "place":
        sequence, relocate = action.get("sequence"), action.get("relocate_to")
        if sequence is not None and (isinstance(sequence, bool) or not isinstance(sequence, int)):
            raise ActionError(text("The sequence to collapse is given by its lowest number"))
        if relocate is not None and not isinstance(relocate, str):
            raise ActionError(text("The displaced meeples go to a Timeline named by its colour"))
        return PlaceCard(player, card("card"), sequence, relocate)
    if kind == "quantum_tunnel":
        return UseQuantumTunnel(player, card("to"))
    if kind == "time_jump":
        use = action.get("use", "card")
        if use not in ("card", "token"):
            raise ActionError(text("A Time Jump uses a card or a token"))
        return UseTimeJump(player, card("to"), use == "token")
    if kind == "redraw":
        return RedrawHand(player)
    if kind == "time_freeze":
        return PlaceTimeFreeze(player)
    if kind == "time_out":
        return ForfeitTurn(player)
    raise ActionError(text("{action} is not a Time Splicers action", action=repr(kind)))


def _clean(action: dict[str, Any], player: str) -> dict[str, Any]:
    """The posted action as logged: its type, the player and the fields of that type only."""
    keep = {
        "move": ("to",),
        "place": ("card", "sequence", "relocate_to"),
        "quantum_tunnel": ("to",),
        "time_jump": ("to", "use"),
    }.get(str(action.get("type")), ())
    out = {"type": action.get("type"), "player": player}
    out.update({k: action[k] for k in keep if action.get(k) is not None})
    return out


# --- words ---------------------------------------------------------------------------------

NOWHERE = text("nowhere")

GROUP_PLACE = text("Place a card")
GROUP_MOVE = text("Move (draw 1)")
GROUP_LEAVE_PORTAL = text("Leave the Time Portal")
GROUP_PORTAL = text("Time Portal")
GROUP_FREEZE = text("Free: Time Freeze")
GROUP_JUMP_CARD = text("Free: Time Jump card")
GROUP_JUMP_TOKEN = text("Free: Time Jump token")
GROUP_TUNNEL = text("Free: Quantum Tunnel")

STATUS = {
    "winner": text("winner"),
    "eliminated": text("eliminated"),
    "playing": text("playing"),
    "to start": text("to start"),
}
"""A player's state on the pages, by key (the picture's ``state``)."""


def card_name(config: DeckConfig, card: str | None) -> Text:
    """A card's name for players: "red 5", "Quantum Tunnel", "Time Portal"; "nowhere" for None."""
    if card is None:
        return NOWHERE
    return card_text(card_index(config), card)


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
    index = card_index(config)
    numbers = "-".join(str(index[c].number) for c in e.cards if c in index and index[c].kind == NUMBER)
    return text(
        "{player} made a 3-card sequence: {sequence} of the {timeline} collapsed",
        player=e.player,
        sequence=numbers,
        timeline=timeline,
    )


def describe(events: Iterable[Any], config: DeckConfig) -> list[Text]:
    """The engine's events in words (cards drawn from the deck stay hidden)."""

    def name(card: str | None) -> Text:
        return card_name(config, card)

    out: list[Text] = []
    for e in events:
        note: Text | None = None
        if isinstance(e, MeepleMoved):
            note = _moved(e, name)
        elif isinstance(e, EnteredPortal):
            note = text("{player} stepped into the Time Portal", player=e.player)
        elif isinstance(e, CardsDrawn) and e.cards:
            note = text(
                "{player} drew {count} card",
                "{player} drew {count} cards",
                player=e.player,
                count=len(e.cards),
            )
        elif isinstance(e, DeckReshuffled):
            note = text(
                "The discard pile was shuffled into a new deck of {count} card",
                "The discard pile was shuffled into a new deck of {count} cards",
                count=e.cards,
            )
        elif isinstance(e, CardPlaced):
            if e.new_timeline:
                note = text("{player} spliced {card}: a new Timeline", player=e.player, card=name(e.card))
            elif e.shifted:
                note = text(
                    "{player} placed {card}, shifting the Timeline", player=e.player, card=name(e.card)
                )
            else:
                note = text("{player} placed {card}", player=e.player, card=name(e.card))
        elif isinstance(e, FixedPointReached):
            if e.token_gained:
                note = text(
                    "Fixed point in time: {cards} cards of Era {era}, {player} takes a Time Jump token",
                    cards=e.count,
                    era=e.era,
                    player=e.player,
                )
            else:
                note = text("Fixed point in time: {cards} cards of Era {era}", cards=e.count, era=e.era)
        elif isinstance(e, TimeJumpTokenSpent):
            note = _token_spent(e)
        elif isinstance(e, HandLimitExceeded):
            note = text(
                "{player} went over the hand limit with {cards} cards and discarded the hand",
                player=e.player,
                cards=e.size,
            )
        elif isinstance(e, PlayerEliminated):
            note = text("{player} is eliminated", player=e.player)
        elif isinstance(e, TimeFreezePlaced):
            note = text("{player} froze the {timeline}", player=e.player, timeline=timeline_text(e.colour))
        elif isinstance(e, TimeFreezeReturned):
            if e.unfrozen:
                note = text(
                    "{player} took back their Time Freeze from the {timeline}: it is unfrozen",
                    player=e.player,
                    timeline=timeline_text(e.colour),
                )
            else:
                note = text(
                    "{player} took back their Time Freeze from the {timeline}",
                    player=e.player,
                    timeline=timeline_text(e.colour),
                )
        elif isinstance(e, TimelineCollapsed):
            note = _collapsed(e, config)
        elif isinstance(e, TimelineFlipped):
            note = text("A new Timeline starts with {card}", card=name(e.card))
        elif isinstance(e, StartCardLeft):
            note = text("The {card} starting card is gone", card=name(e.card))
        elif isinstance(e, CrystalsFound):
            note = text(
                "{player} found {count} Time Crystal ({total} in all)",
                "{player} found {count} Time Crystals ({total} in all)",
                player=e.player,
                count=e.count,
                total=e.total,
            )
        elif isinstance(e, TurnForfeited):
            note = text("{player}'s time ran out: the turn is forfeited", player=e.player)
        elif isinstance(e, GameWon):
            if e.reason == WON_LAST_STANDING:
                note = text("{player} wins: every other player was eliminated", player=e.player)
            else:
                note = text(
                    "{player} wins: found Time Crystal number {number}",
                    player=e.player,
                    number=config.crystals_to_win,
                )
        if note is not None:
            out.append(note)
    return out


# --- the referee ---------------------------------------------------------------------------


class SplicersReferee(TurnReferee[SplicersTable]):
    """Time Splicers at a hub table (see the module docstring)."""

    game = "time-splicers"
    title = "Time Splicers"
    turn_rule = R_TURN
    last_notes = 6

    def __init__(self, setup: TableSetup, data: DeckConfig, *, layout: Layout | None = None) -> None:
        """``data``: the component counts (``GAME.data``); ``layout`` replaces the seeded deal (as in a
        game record)."""
        super().__init__(setup)
        self.config = data
        self.layout = layout

    @classmethod
    def for_table(cls, setup: TableSetup, data: DeckConfig) -> SplicersReferee:
        """The hub's referee for a Time Splicers table (``GAME.referee``); a setup the game cannot
        start is a ConfigError (:class:`TableSetupError`, in words for the host)."""
        if setup.variant.strip().lower() not in ("", "standard", "default"):
            raise TableSetupError(
                text(
                    "Time Splicers has no variant {variant}: leave the variant empty",
                    variant=repr(setup.variant),
                )
            )
        count = len(setup.players)
        if not data.min_players <= count <= data.max_players:
            raise TableSetupError(
                text(
                    "Time Splicers needs {low} to {high} players, not {players}",
                    low=data.min_players,
                    high=data.max_players,
                    players=count,
                )
            )
        referee = cls(setup, data)
        try:
            referee.start(setup)
        except InvalidRecordError as exc:
            raise ConfigError(f"Time Splicers cannot start at this table: {exc}") from None
        return referee

    # --- start and steps ----------------------------------------------------------------
    def start(self, setup: TableSetup) -> SplicersTable:
        return SplicersTable(
            new_game(list(setup.players), seed=setup.seed, config=self.config, layout=self.layout)
        )

    def step(self, state: SplicersTable, action: dict[str, Any]) -> Applied[SplicersTable] | Rejected:
        if action.get("type") == "turn_started":
            return self.open_turn(state, str(action.get("player")))
        if action.get("type") == "game_ended":
            return self._end(state, str(action.get("by")))
        try:
            engine_action = to_engine(action)
        except ActionError as exc:
            return Rejected(exc.text, R_TURN)
        outcome = apply(state.game, engine_action)
        if isinstance(outcome, Rejected):
            return outcome
        game = outcome.state
        notes = describe(outcome.events, game.config)
        still_open = state.turn_open and game.turn == state.game.turn and not game.is_over
        return replace(state, game=game, turn_open=still_open), outcome.events, notes

    # --- the end before the rules' own end ---------------------------------------------------
    def _end(self, state: SplicersTable, by: str) -> Applied[SplicersTable] | Rejected:
        """The game stops where it stands (``by`` the host or the master clock), scored on the crystals."""
        if by not in ENDED_BY:
            return Rejected(text("A game is ended by the host or by the master clock"), R_END)
        if self.is_over(state):
            return Rejected(text("The game is already over"), R_END)
        if by == "host":
            note = text("The host ended the game: it is scored on the Time Crystals found so far")
        else:
            note = text("The master clock ran out: the game is scored on the Time Crystals found so far")
        return replace(state, ended=by, turn_open=False), (), [note]

    def game_ended_early(self, state: SplicersTable) -> Step:
        """The host ended the game: it ends where it stands and is scored on the crystals found so far
        (the most crystals lead; nobody wins while nobody has found one). Nothing changes once the
        game is already over."""
        return self._stop(state, "host")

    def clock_expired(self, state: SplicersTable) -> Step:
        """The master clock ran out: no flip can start a turn any more, so the game ends as it stands,
        scored like an early end."""
        return self._stop(state, "clock")

    def _stop(self, state: SplicersTable, by: str) -> Step:
        if self.is_over(state):
            return Decision(state)
        return self.decide(state, {"type": "game_ended", "by": by}, follow_up=False)

    # --- turns --------------------------------------------------------------------------
    def player_to_move(self, state: SplicersTable) -> str:
        return state.game.current_player

    def is_over(self, state: SplicersTable) -> bool:
        return state.game.is_over or bool(state.ended)

    def closed(self, state: SplicersTable, player: str) -> Rejected | None:
        game = state.game
        if game.winner is not None:
            return Rejected(text("The game is over: {player} has won", player=game.winner), R_END)
        if game.is_over:
            return Rejected(text("The game is over: every player has been eliminated"), R_END)
        if state.ended == "host":
            return Rejected(text("The game is over: the host ended it"), R_END)
        if state.ended:
            return Rejected(text("The game is over: the master clock ran out"), R_END)
        try:
            if game.player(player).eliminated:
                return Rejected(text("{player} has been eliminated from the game", player=player), R_HAND_MAX)
        except KeyError:
            return Rejected(
                text("{player} is not playing Time Splicers at this table", player=player), R_TURN
            )
        return None

    def turn_start(self, state: SplicersTable) -> dict[str, Any]:
        return {"type": "turn_started", "player": state.game.current_player}

    def turn_time_out(self, state: SplicersTable) -> dict[str, Any]:
        return {"type": "time_out", "player": state.game.current_player}

    # --- phones -------------------------------------------------------------------------
    def player_action(self, state: SplicersTable, player: str, action: dict[str, Any]) -> Step:
        game = state.game
        closed = self.closed(state, player)
        if closed is not None:
            return closed
        if action.get("type") not in PHONE_ACTIONS:
            return Rejected(
                text("Unknown action {action}: choose one of the buttons", action=repr(action.get("type"))),
                R_TURN,
            )
        if player != game.current_player:
            return Rejected(
                text("It is {player}'s turn, not {other}'s", player=game.current_player, other=player), R_TURN
            )
        return self.play(state, player, _clean(action, player))

    def legal_actions(self, game: GameState, player: str) -> list[MenuItem]:
        """Every action ``player`` may take now, tried through the engine, as phone buttons.

        What the player does next comes first: the main actions that end the turn (place a card,
        move, the Time Portal), then the free actions, each kind in its own group.
        """
        if game.is_over or player != game.current_player:
            return []
        me = game.player(player)
        index = card_index(game.config)

        def name(card: str | None) -> Text:
            return card_name(game.config, card)

        on_table = [c for t in game.timelines for c in t.cards]
        colours = [t.colour for t in game.timelines]
        items: list[MenuItem] = []

        def offer(item_id: str, label: Text, group: Text, action: dict[str, Any]) -> Any:
            outcome = apply(game, to_engine(dict(action, player=player)))
            if isinstance(outcome, Rejected):
                return None
            items.append(MenuItem(item_id, label, group, action=action))
            return outcome

        # main actions: each ends the turn
        for card in dict.fromkeys(c for c in me.hand if index[c].kind == NUMBER):
            self._offer_placements(offer, card, index[card].number, name, colours)
        moving = GROUP_LEAVE_PORTAL if me.position == PORTAL_ID else GROUP_MOVE
        for card in on_table:
            offer(f"move:{card}", name(card), moving, {"type": "move", "to": card})
        offer("portal", text("step into the Time Portal (draw 2)"), GROUP_PORTAL, {"type": "portal"})
        # free actions: the turn goes on
        kinds = {index[c].kind for c in me.hand}
        here = next((t for t in game.timelines if me.position in t.cards), None)
        if TIME_FREEZE in kinds and here is not None:
            offer(
                "time_freeze",
                text("freeze the {timeline}", timeline=timeline_text(here.colour)),
                GROUP_FREEZE,
                {"type": "time_freeze"},
            )
        for use, available, group in (
            ("card", TIME_JUMP in kinds, GROUP_JUMP_CARD),
            ("token", me.time_jump_tokens > 0, GROUP_JUMP_TOKEN),
        ):
            if available and here is not None:
                for card in here.cards:
                    offer(
                        f"time_jump:{use}:{card}",
                        name(card),
                        group,
                        {"type": "time_jump", "to": card, "use": use},
                    )
        if me.time_jump_tokens > 0:
            offer("redraw", text("discard your hand, draw 4"), GROUP_JUMP_TOKEN, {"type": "redraw"})
        if QUANTUM_TUNNEL in kinds:
            for card in on_table:
                offer(
                    f"quantum_tunnel:{card}", name(card), GROUP_TUNNEL, {"type": "quantum_tunnel", "to": card}
                )
        return items

    @staticmethod
    def _offer_placements(offer: Any, card: str, number: int | None, name: Any, colours: list[str]) -> None:
        """A placement, with the fewest collapse choices that make it legal (each choice a button)."""
        sequences = [number - k for k in (2, 1, 0)] if number is not None else []
        tries: list[list[tuple[int | None, str | None]]] = [
            [(None, None)],
            [(s, None) for s in sequences] + [(None, c) for c in colours],
            [(s, c) for s in sequences for c in colours],
        ]
        for level in tries:
            found = False
            for sequence, relocate in level:
                action: dict[str, Any] = {"type": "place", "card": card}
                label: Text = name(card)
                if sequence is not None:
                    action["sequence"] = sequence
                if relocate is not None:
                    action["relocate_to"] = relocate
                if sequence is not None and relocate is not None:
                    label = text(
                        "{card}, collapse {sequence}, meeples to the {timeline}",
                        card=name(card),
                        sequence=sequence_name(sequence),
                        timeline=timeline_text(relocate),
                    )
                elif sequence is not None:
                    label = text(
                        "{card}, collapse {sequence}", card=name(card), sequence=sequence_name(sequence)
                    )
                elif relocate is not None:
                    label = text(
                        "{card}, meeples to the {timeline}", card=name(card), timeline=timeline_text(relocate)
                    )
                item_id = f"place:{card}:{sequence or ''}:{relocate or ''}"
                outcome = offer(item_id, label, GROUP_PLACE, action)
                found = found or outcome is not None
            if found:
                return

    def menu(
        self, state: SplicersTable, player: str, *, intents: dict[str, dict[str, Any]]
    ) -> list[MenuItem]:
        if not self.can_play(state, player):
            return []
        return self.legal_actions(state.game, player)

    # --- pages --------------------------------------------------------------------------
    def _leaders(self, state: SplicersTable) -> tuple[list[str], int]:
        """Players still in the game with the most crystals, and that number (no leader at 0)."""
        active = [p for p in state.game.players if not p.eliminated]
        best = max((p.crystals for p in active), default=0)
        return ([p.name for p in active if p.crystals == best] if best > 0 else []), best

    def _summary(self, state: SplicersTable) -> Text:
        game = state.game
        if game.winner is not None:
            crystals = game.player(game.winner).crystals
            return text(
                "{player} wins with {count} Time Crystal!",
                "{player} wins with {count} Time Crystals!",
                player=game.winner,
                count=crystals,
            )
        if game.is_over:
            return text("Every player has been eliminated")
        if state.ended:
            leaders, best = self._leaders(state)
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
        who = game.current_player
        if state.turn_open:
            return text("Turn {turn}: {player} is playing", turn=game.turn, player=who)
        if who in self.turn_timer:
            return text(
                "Turn {turn}: {player}'s turn: flip timer {index} to start",
                turn=game.turn,
                player=who,
                index=self.turn_timer[who],
            )
        return text("Turn {turn}: {player}'s turn", turn=game.turn, player=who)

    def _status(self, state: SplicersTable, player: str) -> str:
        """A player's state for the pages: a key of :data:`STATUS`, or "" for none."""
        game = state.game
        p = game.player(player)
        if player == game.winner or (state.ended and player in self._leaders(state)[0]):
            return "winner"
        if p.eliminated:
            return "eliminated"
        if self.is_over(state) or player != game.current_player:
            return ""
        return "playing" if state.turn_open else "to start"

    def _ordered_timelines(self, game: GameState) -> list[Any]:
        colours = game.config.colours
        return sorted(
            game.timelines, key=lambda t: colours.index(t.colour) if t.colour in colours else len(colours)
        )

    def _panels(self, state: SplicersTable, *, compact: bool = False) -> list[dict[str, Any]]:
        """The dashboard's panels; ``compact`` (phones, 390 px wide) keeps only the Eras on the table, names
        the rows by colour and leaves out the tokens, the Time Freeze markers and the state column."""
        game = state.game
        cfg = game.config
        index = card_index(cfg)
        eras = list(range(cfg.lowest_number, cfg.highest_number + 1))
        if compact:
            eras = sorted({index[c].number or 0 for t in game.timelines for c in t.cards})
        frozen = not compact or any(t.freezes for t in game.timelines)
        header: list[Text | str] = ["", *(str(e) for e in eras)]
        rows: list[list[Text | str]] = [header + ([text("frozen by")] if frozen else [])]
        highlight: list[list[int]] = []
        for r, timeline in enumerate(self._ordered_timelines(game), start=1):
            name = colour_text(timeline.colour) if compact else timeline_text(timeline.colour)
            row: list[Text | str] = [name] + [""] * len(eras)
            if frozen:
                row.append(", ".join(p for _, p in timeline.freezes))
            for card in timeline.cards:
                column = 1 + eras.index(index[card].number or cfg.lowest_number)
                meeples = [p.name for p in game.players if p.position == card and not p.eliminated]
                row[column] = str(index[card].number) + "".join(f" {m}" for m in meeples)
                if game.current_player in meeples and not self.is_over(state):
                    highlight.append([r, column])
            rows.append(row)
        players: list[list[Any]] = []
        for p in game.players:
            status = self._status(state, p.name)
            players.append(
                [
                    p.name,
                    card_name(cfg, p.position) if p.position else "-",
                    p.crystals,
                    p.time_jump_tokens,
                    p.freeze_markers,
                    len(p.hand),
                    STATUS[status] if status else "",
                ]
            )
        table: list[Text] = [
            text("Deck: {count} card", "Deck: {count} cards", count=len(game.deck)),
            text("Discard pile: {count} card", "Discard pile: {count} cards", count=len(game.discard)),
            text("Supply: {count} Time Crystal", "Supply: {count} Time Crystals", count=game.crystal_supply),
            text(
                "Supply: {count} Time Jump token", "Supply: {count} Time Jump tokens", count=game.token_supply
            ),
            text("{count} crystal wins", "{count} crystals win", count=cfg.crystals_to_win),
        ]
        if game.start_card is not None:
            on = tuple(p.name for p in game.players if p.position == game.start_card)
            table.insert(
                0, text("Starting card: {card} ({players})", card=card_name(cfg, game.start_card), players=on)
            )
        in_portal = tuple(p.name for p in game.players if p.position == PORTAL_ID)
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
            {"kind": "lines", "title": text("Latest"), "lines": list(state.last)},
        ]

    def picture(self, state: SplicersTable) -> dict[str, Any]:
        """What the dashboard draws (``static/pictures/time-splicers.js``): each coloured Timeline as a
        row of cards in Era order, the Time Portal and a special starting card with the meeples on
        them, the piles, and each player's hand, crystals, tokens and state, whose turn it is."""
        game = state.game
        cfg = game.config
        index = card_index(cfg)
        over = self.is_over(state)

        def on(card: str) -> list[str]:
            return [p.name for p in game.players if p.position == card and not p.eliminated]

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
            for t in self._ordered_timelines(game)
        ]
        start = None
        if game.start_card is not None:
            start = {
                "id": game.start_card,
                "label": text("Starting card: {card}", card=card_name(cfg, game.start_card)),
                "meeples": on(game.start_card),
            }
        players = []
        for p in game.players:
            status = self._status(state, p.name)
            players.append(
                {
                    "name": p.name,
                    "colour": self.setup.colour_of(p.name),
                    "hand": len(p.hand),
                    "hand_label": text("{count} card", "{count} cards", count=len(p.hand)),
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
                    "to_move": p.name == game.current_player and not over,
                }
            )
        return {
            "eras": [cfg.lowest_number, cfg.highest_number],
            "singularity": cfg.singularity_number,
            "crystals_to_win": cfg.crystals_to_win,
            "rows": rows,
            "portal": {"label": text("Time Portal"), "meeples": on(PORTAL_ID)},
            "start": start,
            "deck": len(game.deck),
            "deck_label": text("Deck: {count} card", "Deck: {count} cards", count=len(game.deck)),
            "discard": len(game.discard),
            "discard_label": text(
                "Discard pile: {count} card", "Discard pile: {count} cards", count=len(game.discard)
            ),
            "players": players,
            "turn": None
            if over
            else {"player": game.current_player, "open": state.turn_open, "number": game.turn},
            "summary": self._summary(state),
            "empty_label": text("No Timeline on the table"),
        }

    def view(self, state: SplicersTable) -> View:
        return View(self._summary(state), tuple(self._panels(state)), extra={"picture": self.picture(state)})

    def player_view(self, state: SplicersTable, player: str) -> View:
        panels = self._panels(state, compact=True)
        try:
            me = state.game.player(player)
        except KeyError:
            return View(self._summary(state), tuple(panels))
        hand = [card_name(state.game.config, c) for c in sorted(me.hand)]
        panels.insert(
            0, {"kind": "lines", "title": text("Your hand ({cards})", cards=len(hand)), "lines": hand}
        )
        return View(self._summary(state), tuple(panels))

    def scores(self, state: SplicersTable) -> dict[str, Any] | None:
        """Once the game is over: crystals per player and the winner.

        A game ended before the rules' own end (by the host or the master clock) is scored as it
        stands: the players still in the game with the most crystals share the win, and nobody wins
        while nobody has found a crystal; ``ended`` says who ended it.
        """
        game = state.game
        if not self.is_over(state):
            return None
        if game.is_over:
            winners = [game.winner] if game.winner else []
        else:
            winners = self._leaders(state)[0]
        ranking = sorted(game.players, key=lambda p: (p.name not in winners, p.eliminated, -p.crystals))
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
                for p in game.players
            },
            "turns": game.turn - 1,
        }
        if state.ended and not game.is_over:
            out["ended"] = state.ended
        return out
