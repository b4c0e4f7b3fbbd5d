"""Every text a player sees names things as the box does, in real Chromium against a real hub: no
page names an issue of the project or a tile by its id (``t17``), neither the dashboard, the phones,
the end screen nor the replay of a whole game of Time 'n' Space's full game (tiles taken and put
under at the moons) and a refused swap of Space and Time."""

from __future__ import annotations

import re

import pytest

from companion.games.space_and_time.model import Swap
from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from companion.table import events as ev
from companion.table import messages as msg
from tests.conftest import flip_for_turn, wait_seated_online
from tests.hub.played_games import finished_game
from tests.hub.test_pages_browser import start

pytestmark = [pytest.mark.broker, pytest.mark.browser]

INTERNAL = re.compile(r"\bt\d{1,2}\b|\bissue\b|\bIssue\b")


def shown(page) -> str:
    return page.evaluate("document.body.innerText")


def space_and_time_first_turn(table: Table) -> str:
    """A started Space and Time table with its first turn open (the player to move flipped their
    timer); who that is."""
    session = table.app.extensions["companion.session"]
    wait_seated_online(session)
    assert session.handle(msg.ClockCommand("start")).refusal is None
    mover: str = session.referee.names[session.state.game.to_move]
    flip_for_turn(table, mover, timeout_s=5)
    return mover


def test_no_page_names_a_tile_by_its_id(browser, mosquitto, tmp_path):
    log = tmp_path / "tables" / "words-20261201-210000.jsonl"
    log.parent.mkdir()
    table = finished_game("time-n-space", log, variant="full", players=("ana", "ben", "eva"), seed=0)
    facts = {
        type(f).__name__ for e in table.session.log.events() if isinstance(e, ev.GameStepped) for f in e.facts
    }
    assert {"TileTaken", "TilePutUnder"} <= facts, "the game took tiles at the moons"
    table.close()
    options = RunOptions(
        hub=HubConfig(table="words", data_dir=tmp_path, fsync=False),
        broker_url=str(mosquitto.address),
        http_port=None,
        simulate=False,
        resume=log,
    )
    with Table(options) as hub:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        for path in (f"history/{log.stem}", "", "end", "play/ana"):
            page.goto(hub.url + path)
            page.wait_for_timeout(400)  # the live pages draw from their first frame
            if path == "":
                page.click("#details > summary")
            found = INTERNAL.findall(shown(page))
            assert found == [], f"/{path} says {found}"
        page.goto(hub.url + f"history/{log.stem}")
        page.wait_for_selector("#timeline li")
        assert "tile at moon" in shown(page) or "tile under the pile" in shown(page)
        page.close()


def test_a_refused_swap_names_the_rule_without_an_issue(browser, mosquitto, table_id):
    with start(mosquitto, table_id, game="space-and-time", players=2, timers=1, deck="hub") as table:
        session = table.app.extensions["companion.session"]
        mover = space_and_time_first_turn(table)
        board = session.state.game.board
        same = [(r, c) for r in range(len(board)) for c in range(len(board[0])) if board[r][c] == board[0][0]]
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        page.goto(table.url + f"play/{mover}")
        page.wait_for_selector("#timers .timer")
        refused = session.handle(msg.PlayerAction(mover, Swap((same[0], same[1])))).refusal
        assert refused is not None
        page.wait_for_selector("#refusal:not([hidden])")
        said = page.inner_text("#refusal")
        assert "Rule: hub rule: a swap exchanges coins of different ranks" in said, said
        assert INTERNAL.findall(said) == [], said
        page.close()
