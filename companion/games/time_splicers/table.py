"""Time Splicers on the hub: the table referee, with each player's sandtimer as a turn timer.

How a table plays it (see "On the hub" in docs/games/time-splicers.md):

* The player whose turn it is flips their turn timer (their timer 1) to start the turn;
  the very first flip of the first player starts the game. A flip by anyone else is
  refused ("It is ana's turn, not ben's"), and so is a second flip while the turn is
  already running (it restarts nothing) or a flip of another timer of the player.
* During the turn the player's phone lists every legal action, worked out by the engine:
  the free actions (Quantum Tunnel, Time Jump card or token, a new hand for a token, Time
  Freeze) and the main actions (move, Time Portal, place or splice a card, with the
  collapse choices when a placement needs one). A main action ends the turn and the next
  player flips their timer.
* With ``setup.turn_limit`` on, the sand running out while the turn is open forfeits it
  with the engine's ``ForfeitTurn`` (record action ``time_out``): no main action, the
  meeple stays, the hand is refilled to the minimum. With it off the sand is a reminder.
* The master clock only bounds the session: its start and end change nothing here.

The logged actions are the record actions of ``companion referee time-splicers`` with
``type`` for ``action`` (``{"type": "move", "player", "to"}``, ``place`` with ``card`` and
the optional ``sequence`` and ``relocate_to``, ...), plus ``{"type": "turn_started", "player"}``;
each step is logged with the engine's events as its facts. The turn timer, the log and the
notes are :class:`~companion.rules.turns.TurnReferee`'s; the component counts arrive as the
game's data (``GAME.data``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import ConfigError, InvalidRecordError
from companion.rules.outcome import Rejected, Step
from companion.rules.pages import MenuItem, View
from companion.rules.setup import TableSetup
from companion.rules.turns import Applied, TurnReferee

from .deck import NUMBER, PORTAL_ID, QUANTUM_TUNNEL, TIME_FREEZE, TIME_JUMP, DeckConfig
from .engine import (
    R_END,
    R_HAND_MAX,
    R_TURN,
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
    SpecialCardPlayed,
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
)

PHONE_ACTIONS = ("move", "portal", "place", "quantum_tunnel", "time_jump", "redraw", "time_freeze")
"""Action types a phone may post (``time_out`` comes from the turn timer only)."""


@dataclass(frozen=True)
class SplicersTable:
    """The game as the hub keeps it: the engine state and whether the current turn is running."""

    game: GameState
    turn_open: bool = False
    """The player to act flipped their turn timer and has not made their main action yet."""
    turns: int = 0
    """Turns started so far."""
    last: tuple[str, ...] = ()
    """The latest happenings, oldest first, for the pages."""


# --- actions as JSON -----------------------------------------------------------------------


def to_engine(action: dict[str, Any]) -> Action:
    """A logged or posted action as an engine action; InvalidRecordError names what is wrong."""
    kind, player = action.get("type"), action.get("player")
    if not isinstance(player, str):
        raise InvalidRecordError("an action names the player acting")

    def card(key: str) -> str:
        value = action.get(key)
        if not isinstance(value, str):
            raise InvalidRecordError(f"a {kind} action needs {key!r}, a card name")
        return value

    if kind == "move":
        return Move(player, card("to"))
    if kind == "portal":
        return EnterPortal(player)
    if kind == "place":
        sequence, relocate = action.get("sequence"), action.get("relocate_to")
        if sequence is not None and (isinstance(sequence, bool) or not isinstance(sequence, int)):
            raise InvalidRecordError("'sequence' must be the lowest number of the sequence to collapse")
        if relocate is not None and not isinstance(relocate, str):
            raise InvalidRecordError("'relocate_to' must be a Timeline colour")
        return PlaceCard(player, card("card"), sequence, relocate)
    if kind == "quantum_tunnel":
        return UseQuantumTunnel(player, card("to"))
    if kind == "time_jump":
        use = action.get("use", "card")
        if use not in ("card", "token"):
            raise InvalidRecordError('a time_jump action uses a "card" or a "token"')
        return UseTimeJump(player, card("to"), use == "token")
    if kind == "redraw":
        return RedrawHand(player)
    if kind == "time_freeze":
        return PlaceTimeFreeze(player)
    if kind == "time_out":
        return ForfeitTurn(player)
    raise InvalidRecordError(f"unknown Time Splicers action {kind!r}; use one of: {', '.join(PHONE_ACTIONS)}")


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


def card_name(config: DeckConfig, card: str | None) -> str:
    """ "red 5", "Quantum Tunnel", "Time Portal"."""
    if card is None:
        return "nowhere"
    if card == PORTAL_ID:
        return "the Time Portal"
    info = card_index(config).get(card)
    if info is None:
        return card
    if info.kind == NUMBER:
        return f"{info.colour} {info.number}"
    return {QUANTUM_TUNNEL: "Quantum Tunnel", TIME_JUMP: "Time Jump", TIME_FREEZE: "Time Freeze"}.get(
        info.kind, card
    )


def describe(events: Iterable[Any], config: DeckConfig) -> list[str]:
    """The engine's events in words (cards drawn from the deck stay hidden)."""

    def name(card: str | None) -> str:
        return card_name(config, card)

    out: list[str] = []
    for e in events:
        if isinstance(e, MeepleMoved) and e.how != "placed":
            out.append(
                f"{e.player} moved to {name(e.destination)}" + (f" ({e.how})" if e.how != "adjacent" else "")
            )
        elif isinstance(e, EnteredPortal):
            out.append(f"{e.player} stepped into the Time Portal")
        elif isinstance(e, CardsDrawn) and e.cards:
            out.append(f"{e.player} drew {len(e.cards)} card" + ("s" if len(e.cards) != 1 else ""))
        elif isinstance(e, DeckReshuffled):
            out.append(f"the discard pile was shuffled into a new deck of {e.cards}")
        elif isinstance(e, CardPlaced):
            how = " (new Timeline)" if e.new_timeline else " (Timeline shifted)" if e.shifted else ""
            out.append(f"{e.player} placed {name(e.card)}{how}")
        elif isinstance(e, FixedPointReached):
            out.append(
                f"fixed point in time: {e.count} cards of Era {e.era}"
                + (f", {e.player} takes a Time Jump token" if e.token_gained else "")
            )
        elif isinstance(e, TimeJumpTokenSpent):
            out.append(f"{e.player} spent a Time Jump token ({e.purpose})")
        elif isinstance(e, SpecialCardPlayed):
            out.append(f"{e.player} played {name(e.card)}")
        elif isinstance(e, HandLimitExceeded):
            out.append(f"{e.player} went over the hand limit with {e.size} cards and discarded the hand")
        elif isinstance(e, PlayerEliminated):
            out.append(f"{e.player} is eliminated")
        elif isinstance(e, TimeFreezePlaced):
            out.append(f"{e.player} froze the {e.colour} Timeline")
        elif isinstance(e, TimeFreezeReturned):
            out.append(
                f"{e.player} took back their Time Freeze on {e.colour}" + (": unfrozen" if e.unfrozen else "")
            )
        elif isinstance(e, TimelineCollapsed):
            out.append(f"the {e.colour} Timeline collapsed ({e.kind})")
        elif isinstance(e, TimelineFlipped):
            out.append(f"a new Timeline starts with {name(e.card)}")
        elif isinstance(e, StartCardLeft):
            out.append(f"the starting {name(e.card)} card is gone")
        elif isinstance(e, CrystalsFound):
            out.append(
                f"{e.player} found {e.count} Time Crystal"
                + ("s" if e.count != 1 else "")
                + f" ({e.total} in all)"
            )
        elif isinstance(e, TurnForfeited):
            out.append(f"{e.player}'s time ran out: the turn is forfeited")
        elif isinstance(e, GameWon):
            out.append(f"{e.player} wins: {e.reason}")
    return out


# --- the referee ---------------------------------------------------------------------------


class SplicersReferee(TurnReferee[SplicersTable]):
    """Time Splicers at a hub table (see the module docstring)."""

    game = "time-splicers"
    title = "Time Splicers"
    turn_rule = R_TURN
    what_next = "make your move"
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
        start is a ConfigError."""
        if setup.variant.strip().lower() not in ("", "standard", "default"):
            raise ConfigError(f"Time Splicers has no variant {setup.variant!r}; leave the variant empty")
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
        try:
            engine_action = to_engine(action)
        except InvalidRecordError as exc:
            return Rejected(str(exc), R_TURN)
        outcome = apply(state.game, engine_action)
        if isinstance(outcome, Rejected):
            return outcome
        game = outcome.state
        notes = describe(outcome.events, game.config)
        still_open = state.turn_open and game.turn == state.game.turn and not game.is_over
        return replace(state, game=game, turn_open=still_open), outcome.events, notes

    # --- turns --------------------------------------------------------------------------
    def player_to_move(self, state: SplicersTable) -> str:
        return state.game.current_player

    def is_over(self, state: SplicersTable) -> bool:
        return state.game.is_over

    def closed(self, state: SplicersTable, player: str) -> Rejected | None:
        game = state.game
        if game.winner is not None:
            return Rejected(f"The game is over: {game.winner} has won", R_END)
        if game.is_over:
            return Rejected("The game is over: every player has been eliminated", R_END)
        try:
            if game.player(player).eliminated:
                return Rejected(f"{player} has been eliminated from the game", R_HAND_MAX)
        except KeyError:
            return Rejected(f"{player} is not playing Time Splicers at this table", R_TURN)
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
            return Rejected(f"Unknown action {action.get('type')!r}: choose one of the buttons", R_TURN)
        if player != game.current_player:
            return Rejected(f"It is {game.current_player}'s turn, not {player}'s", R_TURN)
        return self.play(state, player, _clean(action, player))

    def legal_actions(self, game: GameState, player: str) -> list[MenuItem]:
        """Every action ``player`` may take now, tried through the engine, as phone buttons."""
        if game.is_over or player != game.current_player:
            return []
        me = game.player(player)
        index = card_index(game.config)

        def name(card: str | None) -> str:
            return card_name(game.config, card)

        on_table = [c for t in game.timelines for c in t.cards]
        colours = [t.colour for t in game.timelines]
        items: list[MenuItem] = []

        def offer(item_id: str, label: str, group: str, action: dict[str, Any]) -> Any:
            outcome = apply(game, to_engine(dict(action, player=player)))
            if isinstance(outcome, Rejected):
                return None
            items.append(MenuItem(item_id, label, group, action=action))
            return outcome

        kinds = {index[c].kind for c in me.hand}
        if QUANTUM_TUNNEL in kinds:
            for card in on_table:
                offer(
                    f"quantum_tunnel:{card}",
                    f"to {name(card)}",
                    "Free: Quantum Tunnel",
                    {"type": "quantum_tunnel", "to": card},
                )
        here = next((t for t in game.timelines if me.position in t.cards), None)
        for use, available in (("card", TIME_JUMP in kinds), ("token", me.time_jump_tokens > 0)):
            if available and here is not None:
                for card in here.cards:
                    offer(
                        f"time_jump:{use}:{card}",
                        f"to {name(card)}",
                        f"Free: Time Jump {use}",
                        {"type": "time_jump", "to": card, "use": use},
                    )
        if me.time_jump_tokens > 0:
            offer("redraw", "discard your hand, draw 4", "Free: Time Jump token", {"type": "redraw"})
        if TIME_FREEZE in kinds and here is not None:
            offer(
                "time_freeze",
                f"freeze the {here.colour} Timeline",
                "Free: Time Freeze",
                {"type": "time_freeze"},
            )
        moving = "Leave the Time Portal" if me.position == PORTAL_ID else "Move (draw 1)"
        for card in on_table:
            offer(f"move:{card}", f"to {name(card)}", moving, {"type": "move", "to": card})
        offer("portal", "step into the Time Portal (draw 2)", "Time Portal", {"type": "portal"})
        for card in dict.fromkeys(c for c in me.hand if index[c].kind == NUMBER):
            self._offer_placements(offer, card, index[card].number, name, colours)
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
                label = name(card)
                if sequence is not None:
                    action["sequence"] = sequence
                    label += f", collapse {sequence}-{sequence + 1}-{sequence + 2}"
                if relocate is not None:
                    action["relocate_to"] = relocate
                    label += f", meeples to {relocate}"
                item_id = f"place:{card}:{sequence or ''}:{relocate or ''}"
                outcome = offer(item_id, label, "Place a card", action)
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
    def _summary(self, state: SplicersTable) -> str:
        game = state.game
        if game.winner is not None:
            return f"{game.winner} wins with {game.player(game.winner).crystals} Time Crystals!"
        if game.is_over:
            return "Every player has been eliminated"
        who = game.current_player
        if state.turn_open:
            return f"Turn {game.turn}: {who} is playing"
        if who in self.turn_timer:
            return f"Turn {game.turn}: {who}'s turn: flip timer {self.turn_timer[who]} to start"
        return f"Turn {game.turn}: {who}'s turn"

    def _panels(self, state: SplicersTable, *, compact: bool = False) -> list[dict[str, Any]]:
        """The dashboard's panels; ``compact`` (phones) keeps only the Eras on the table."""
        game = state.game
        cfg = game.config
        index = card_index(cfg)
        eras = list(range(cfg.lowest_number, cfg.highest_number + 1))
        if compact:
            eras = sorted({index[c].number or 0 for t in game.timelines for c in t.cards})
        frozen = not compact or any(t.freezes for t in game.timelines)
        rows: list[list[str]] = [["", *(str(e) for e in eras)] + (["frozen by"] if frozen else [])]
        highlight: list[list[int]] = []
        for r, timeline in enumerate(
            sorted(
                game.timelines,
                key=lambda t: cfg.colours.index(t.colour) if t.colour in cfg.colours else len(cfg.colours),
            ),
            start=1,
        ):
            row = [timeline.colour] + [""] * len(eras)
            if frozen:
                row.append(", ".join(p for _, p in timeline.freezes))
            for card in timeline.cards:
                column = 1 + eras.index(index[card].number or cfg.lowest_number)
                meeples = [p.name for p in game.players if p.position == card and not p.eliminated]
                row[column] = str(index[card].number) + "".join(f" {m}" for m in meeples)
                if game.current_player in meeples and not game.is_over:
                    highlight.append([r, column])
            rows.append(row)
        players = []
        for p in game.players:
            status = (
                "winner"
                if p.name == game.winner
                else "eliminated"
                if p.eliminated
                else ("playing" if state.turn_open else "to start")
                if p.name == game.current_player and not game.is_over
                else ""
            )
            players.append(
                [
                    p.name,
                    card_name(cfg, p.position) if p.position else "-",
                    p.crystals,
                    p.time_jump_tokens,
                    p.freeze_markers,
                    len(p.hand),
                    status,
                ]
            )
        table = [
            f"Deck: {len(game.deck)} cards, discard pile: {len(game.discard)} cards",
            f"Supply: {game.crystal_supply} Time Crystals, {game.token_supply} Time Jump tokens",
            f"{cfg.crystals_to_win} crystals win",
        ]
        if game.start_card is not None:
            on = [p.name for p in game.players if p.position == game.start_card]
            table.insert(0, f"Starting card: {card_name(cfg, game.start_card)} ({', '.join(on)})")
        in_portal = [p.name for p in game.players if p.position == PORTAL_ID]
        if in_portal:
            table.insert(0, f"In the Time Portal: {', '.join(in_portal)}")
        columns = ["Player", "On", "Crystals", "Tokens", "Freezes", "Cards", ""]
        if compact:  # the summary line says whose turn it is
            columns, players = columns[:-1], [row[:-1] for row in players]
        return [
            {"kind": "grid", "title": "Timelines", "rows": rows, "highlight": highlight},
            {"kind": "table", "title": "Players", "columns": columns, "rows": players},
            {"kind": "lines", "title": "Table", "lines": table},
            {"kind": "lines", "title": "Latest", "lines": list(state.last)},
        ]

    def view(self, state: SplicersTable) -> View:
        return View(self._summary(state), tuple(self._panels(state)))

    def player_view(self, state: SplicersTable, player: str) -> View:
        panels = self._panels(state, compact=True)
        try:
            me = state.game.player(player)
        except KeyError:
            return View(self._summary(state), tuple(panels))
        hand = [card_name(state.game.config, c) for c in sorted(me.hand)]
        panels.insert(0, {"kind": "lines", "title": f"Your hand ({len(hand)})", "lines": hand})
        return View(self._summary(state), tuple(panels))

    def scores(self, state: SplicersTable) -> dict[str, Any] | None:
        """Once the game is over: crystals per player and the winner."""
        game = state.game
        if not game.is_over:
            return None
        ranking = sorted(
            (p for p in game.players), key=lambda p: (p.name != game.winner, p.eliminated, -p.crystals)
        )
        return {
            "winners": [game.winner] if game.winner else [],
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
