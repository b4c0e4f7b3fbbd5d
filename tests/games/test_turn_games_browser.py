"""The turn-based games played from the phone pages in headless Chromium, with turn timers running.

For Timeline, Space and Time and Time Splicers on a real table (mosquitto, hub, simulated
nodes): the player to move flips their turn timer on their page, taps a legal action, and the
turn passes to the other player; a flip out of turn shows the red refusal on the page.
"""

from __future__ import annotations

import pytest

from companion.games.space_and_time.engine import legal_moves
from companion.hub import HubConfig
from companion.rules.text import from_json
from companion.runtime import RunOptions, Table
from companion.table import messages as tm
from companion.table.session import Counted
from tests.conftest import wait_until

pytestmark = [pytest.mark.broker, pytest.mark.browser]

SAND_S = 600.0
"""Turn timers of 10 minutes: the sand runs during the test but never runs out."""


def start(mosquitto, table_id, **hub) -> Table:
    """A table not yet started: use it as ``with start(...) as table``."""
    options = RunOptions(
        hub=HubConfig(table=table_id, deck="hub", **hub),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=5.0,
    )
    return Table(options)


def to_move(session) -> str:
    """The hub player whose turn it is, whatever the game (every turn-based referee says it)."""
    return session.referee.player_to_move(session.state.game)


def turn_open(session) -> bool:
    return session.state.context.turn_open


def tap_menu_action(page, session, player) -> None:
    """Tap the first button that makes the turn's move (Time Splicers lists free actions first)."""
    menu = session.player_snapshot(player)["menu"]
    item = next(i for i in menu if i["action"] and not str(from_json(i["group"])).startswith("Free"))
    page.tap(f"#menu button[data-id='{item['id']}']")


def tap_swap(page, session, player) -> None:
    """Tap the two coins of a legal swap on the board grid.

    The click goes to the cell itself rather than to screen coordinates: the page redraws the
    board on every state update, and a coordinate tap computed before a redraw can land on a
    menu button. A redraw between the two taps must not forget the first one.
    """
    (r1, c1), (r2, c2) = legal_moves(session.state.game)[0]
    swaps = session.state.game.swaps
    first = page.locator(f"table.grid tr:nth-child({r1 + 1}) td.pickable:nth-child({c1 + 1})")
    first.dispatch_event("click")
    session.tell(Counted("heartbeat"))  # a live update arrives between the two taps and redraws the page
    page.wait_for_timeout(200)
    assert page.locator("table.grid td.picked").count() == 1, "the first tap survived the redraw"
    page.locator(f"table.grid tr:nth-child({r2 + 1}) td.pickable:nth-child({c2 + 1})").dispatch_event("click")
    wait_until(lambda: session.state.game.swaps > swaps, timeout_s=5.0, message=f"{player}'s swap")


def play_turn(page, session, player, game) -> None:
    assert to_move(session) == player
    page.tap(f".timer[data-node='{player}-1'] button.flip")
    wait_until(lambda: turn_open(session), message=f"{player}'s turn to start")
    if game == "space-and-time":
        page.wait_for_selector("table.grid td.pickable")
        tap_swap(page, session, player)
    else:
        page.wait_for_selector("#menu button[data-id]")
        tap_menu_action(page, session, player)
    wait_until(lambda: to_move(session) != player, message=f"the turn to pass from {player}")


@pytest.mark.parametrize("game", ["timeline", "space-and-time", "time-splicers"])
def test_a_few_turns_from_the_phone_pages(browser, mosquitto, table_id, game):
    with start(mosquitto, table_id, game=game, players=2, timers=1, sand_s=SAND_S, clock_minutes=60) as table:
        session = table.app.extensions["companion.session"]
        red, yellow = (
            browser.new_page(viewport={"width": 390, "height": 1600}, is_mobile=True, has_touch=True)
            for _ in range(2)
        )
        for page, player in ((red, "red"), (yellow, "yellow")):
            page.goto(table.url + f"play/{player}")
            page.wait_for_selector(f".timer[data-node='{player}-1'] button.flip")
        session.handle(tm.ClockCommand("start"))

        play_turn(red, session, "red", game)
        assert to_move(session) == "yellow" and not turn_open(session)

        red.tap(".timer[data-node='red-1'] button.flip")  # out of turn
        red.wait_for_selector("#refusal:not([hidden])")
        assert "It is yellow's turn, not red's" in red.inner_text("#refusal")
        wait_until(
            lambda: table.fleet.nodes["red-1"].core.last_verdict == "rejected", message="red-1 turns red"
        )
        assert to_move(session) == "yellow" and not turn_open(session)

        play_turn(yellow, session, "yellow", game)
        assert to_move(session) == "red"
        running = [t for p in session.snapshot()["players"] for t in p["timers"] if t["phase"] == "running"]
        assert running, "the turn timers run"
        play_turn(red, session, "red", game)
        assert to_move(session) == "yellow"
        if game == "space-and-time":
            assert session.state.game.swaps == 3
        red.close()
        yellow.close()
