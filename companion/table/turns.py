"""Turn timers: how a sandtimer node runs a turn in a turn-based game.

The player to move flips their turn timer (their lowest-numbered node) to start
the turn; with the table's turn limit on, the turn is forfeited when its sand
runs out. These checks are the same for every turn-based game, so the table
referees of those games share them.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.games.base import Rejected
from companion.table.state import Seat, TableSetup

RULE_TURN_TIMER = "Turn timer"


@dataclass(frozen=True)
class TurnTimers:
    """Which node of each player is the turn timer, for one table."""

    game_title: str
    by_player: dict[str, int]
    """Player -> index of their turn timer (their lowest-numbered node)."""
    turn_limit: bool

    @classmethod
    def of(cls, setup: TableSetup, game_title: str) -> TurnTimers:
        by_player: dict[str, int] = {}
        for seat in setup.seats:
            by_player[seat.player] = min(seat.index, by_player.get(seat.player, seat.index))
        return cls(game_title, by_player, setup.turn_limit)

    def index(self, player: str) -> int:
        return self.by_player.get(player, 1)

    def flip_refusal(
        self, seat: Seat, *, to_move: str, turn_open: bool, rule: str, what_next: str
    ) -> Rejected | None:
        """Why ``seat``'s flip cannot start a turn, or None when it starts the turn of the player to move."""
        wanted = self.index(seat.player)
        if seat.index != wanted:
            return Rejected(
                f"Timer {seat.index} is not used in {self.game_title}: flip timer {wanted} to start "
                "your turn",
                RULE_TURN_TIMER,
            )
        if seat.player != to_move:
            return Rejected(f"It is {to_move}'s turn, not {seat.player}'s", rule)
        if turn_open:
            return Rejected(
                f"Your turn is already running: flipping again restarts nothing; {what_next}", RULE_TURN_TIMER
            )
        return None

    def times_out(self, seat: Seat, *, to_move: str, turn_open: bool, is_over: bool) -> bool:
        """True when ``seat`` running out ends the turn of the player to move (turn limit on)."""
        return (
            self.turn_limit
            and not is_over
            and turn_open
            and seat.player == to_move
            and seat.index == self.index(seat.player)
        )

    def tap_refusal(self, player: str, *, turn_open: bool) -> Rejected | None:
        """A tap before the player flipped their turn timer."""
        if player in self.by_player and not turn_open:
            return Rejected(
                f"Flip your timer {self.by_player[player]} to start your turn first", RULE_TURN_TIMER
            )
        return None
