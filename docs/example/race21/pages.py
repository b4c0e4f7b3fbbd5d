"""What the pages show of Race to 21: the buttons of the player to move, the view and its picture."""

from __future__ import annotations

from collections.abc import Iterable

from companion.rules.context import Context
from companion.rules.pages import MenuItem, View
from companion.rules.text import Text, text

from .model import MOST, TARGET, Add, Counted, RaceState, Won


def menu(state: RaceState) -> list[MenuItem]:
    """One button per amount the rules accept now (never one that would pass 21)."""
    group = text("Add to the count")
    return [
        MenuItem(f"add-{n}", text("Add {amount}", amount=n), group, action=Add(n))
        for n in range(1, MOST + 1)
        if state.count + n <= TARGET
    ]


def notes(events: Iterable[object]) -> list[Text]:
    out = []
    for event in events:
        if isinstance(event, Counted):
            out.append(
                text(
                    "{player} added {amount}: {count}",
                    player=event.player,
                    amount=event.amount,
                    count=event.count,
                )
            )
        elif isinstance(event, Won):
            out.append(text("{player} reached 21 and wins", player=event.player))
    return out


def view(state: RaceState, ctx: Context) -> View:
    if state.winner:
        summary = text("{player} reached 21 and wins", player=state.winner)
    elif ctx.ended_early:
        summary = text("The game was ended early")
    else:
        summary = text(
            "The count is {count}: {player}'s turn", count=state.count, player=state.players[state.to_move]
        )
    panel = {"kind": "lines", "title": text("Latest"), "lines": list(ctx.recent)}
    picture = {
        "count": state.count,
        "target": TARGET,
        "to_move": state.players[state.to_move],
        "winner": state.winner,
    }
    return View(summary, (panel,), extra={"picture": picture})
