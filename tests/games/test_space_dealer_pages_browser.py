"""Space Dealer's dashboard picture and phone page in real headless Chromium, on a real table.

A few steps are played on the hub (mosquitto, simulated nodes): red plans a Depot and puts a timer on the
planet; then the dashboard must draw the game as the state says it is: one disc per orbital field with the
owner's colour, every spaceship, each player's power plants, built cards and sandtimers (red's running on
the planet), in English and in Spanish; the phone page puts the timers' next jobs first.

With COMPANION_SCREENSHOTS=1 the test also writes docs/screenshots/space-dealer-dashboard.png (1280x800)
and docs/screenshots/space-dealer-phone.png (390x844).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.games.space_dealer import model as M
from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from companion.table import messages as msg
from tests.conftest import wait_until

pytestmark = [pytest.mark.broker, pytest.mark.browser]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PICTURE = "#picture svg.game-picture[data-game='space-dealer']"


def screenshot(page, name: str) -> None:
    """docs/screenshots/<name>.png, only when asked for (CI never rewrites the repository)."""
    if os.environ.get("COMPANION_SCREENSHOTS") in ("1", "docs"):
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / f"{name}.png"), full_page=True)


@pytest.fixture
def table(mosquitto, table_id):
    options = RunOptions(
        hub=HubConfig(table=table_id, game="space-dealer", players=3, timers=2, clock_minutes=30),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    with Table(options) as table:
        yield table


def play_a_few_steps(table: Table) -> None:
    """The table tells the hub what the box dealt and the clock starts; red plans a Depot and puts timer 1 on the planet (raise the tech level), yellow
    uses the Mine, green's empty ship flies to field 3. The sand runs a minute: nothing ends during the test."""
    session = table.app.extensions["companion.session"]
    wait_until(
        lambda: all(info.online for info in session.table.links.values()),
        timeout_s=10,
        message="the nodes online",
    )
    for player, mines, depot in (
        ("red", "red", "depot-3"),
        ("yellow", "yellow", "depot-2"),
        ("green", "green", "depot-1"),
    ):
        for move in (M.TakeMines(mines), M.TakeDepot(depot)):  # what the box dealt, told from the phones
            assert session.handle(msg.PlayerAction(player, move)).refusal is None
    for field, order in ((1, "gizzi-2"), (3, "gizzi-5"), (5, "gizzi-9")):
        assert session.handle(msg.PlayerAction("red", M.RevealOrder(field, order))).refusal is None
    assert session.handle(msg.ClockCommand("start")).refusal is None
    assert session.handle(msg.PlayerAction("red", M.PlayCard("depot-3"))).decision.changed
    yellow_mine = session.state.game.player("yellow").built[0].card
    jobs = {
        "red-1": M.RaiseTechLevel(),
        "yellow-1": M.UseCard(yellow_mine),
        "green-2": M.MoveShip("green", 3),
    }
    for node, job in jobs.items():
        player = session.setup.seat_of(node).player
        assert session.handle(msg.ChooseIntent(player, node, job)).refusal is None
        table.fleet.nodes[node].flip()

    def running() -> bool:
        game = session.state.game
        return all(
            game.player(session.setup.seat_of(n).player)
            .timers[session.setup.seat_of(n).index - 1]
            .status.value
            == "active"
            for n in jobs
        )

    wait_until(running, timeout_s=5, message="the three timers to start their jobs")


def test_the_dashboard_draws_the_ring_and_the_planets_as_the_game_stands(browser, table):
    session = table.app.extensions["companion.session"]
    play_a_few_steps(table)
    game = session.state.game
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(table.url)
    page.wait_for_selector(f"{PICTURE} .sd-hourglass[data-on-timer='1'][data-status='active']")
    picture = page.locator(PICTURE)
    assert picture.locator(".sd-field").count() == game.ring_size == 6
    owners = picture.locator(".sd-field").evaluate_all("els => els.map(e => e.dataset.owner)")
    assert owners == [game.field_owner(f) or "" for f in range(game.ring_size)]
    docked = [s for s in game.ships if s.field is not None]
    assert picture.locator(".sd-ship[data-arriving='false']").count() == len(docked)
    assert (
        picture.locator(".sd-field[data-field='3'] .sd-ship[data-arriving='true'][data-ship='green']").count()
        == 1
    )
    yellow_mine = game.player("yellow").built[0].card
    assert (
        picture.locator(f".sd-card[data-card='{yellow_mine}'] .sd-hourglass[data-status='active']").count()
        == 1
    )
    assert picture.locator("[data-marker]").count() == len([o for o in game.satisfied if o.owner])
    assert picture.locator(".sd-order").count() == sum(1 for n in game.neutral if n.order) + sum(
        1 for p in game.players for b in p.built if game.cards[b.card].order is not None
    )
    assert picture.locator(".sd-player").count() == len(game.players)
    for p in game.players:
        area = picture.locator(f".sd-player[data-player='{p.name}']")
        assert area.locator(".sd-plant").count() == sum(1 for side in p.plants if side)
        assert area.locator(".sd-card").count() == len(p.built)
        assert area.locator(".sd-timers [data-timer]").count() == len(p.timers)
        assert area.locator("[data-planning]:not([data-planning=''])").count() == len(p.planning)
    red = picture.locator(".sd-player[data-player='red']")
    assert red.locator("[data-planning='depot-3']").count() == 1
    assert red.locator(".sd-timers [data-timer='1']").get_attribute("data-status") == "active"
    # red's planet on the ring and red's swatch are drawn in red's colour on this dashboard
    colour = page.evaluate("window.PLAYER_COLOURS.red").lower()
    assert picture.locator(".sd-field[data-field='0'] circle").first.get_attribute("fill").lower() == colour
    assert red.locator("[data-swatch='red']").get_attribute("fill").lower() == colour
    texts = picture.locator("text").all_text_contents()
    assert "Orbital ring (victory-point track)" in texts and "Planning area" in texts
    # the labels stay readable: 17-unit text is at least 12 px high at this width
    scale = page.evaluate(
        f'(() => {{ const s = document.querySelector("{PICTURE}"); return s.getBoundingClientRect().width / s.viewBox.baseVal.width; }})()'
    )
    assert 17 * scale >= 12
    screenshot(page, "space-dealer-dashboard")
    page.close()


def test_the_picture_in_spanish_on_a_phone_and_the_phone_page(browser, table):
    play_a_few_steps(table)
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(table.url + "?lang=es")
    page.wait_for_selector(PICTURE)
    texts = page.locator(f"{PICTURE} text").all_text_contents()
    assert "Anillo orbital (marcador de puntuación)" in texts
    assert "Reserva común" in texts and "Zona de planificación" in texts
    assert not any("Orbital ring" in t or "Planning area" in t for t in texts)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the dashboard scrolls sideways by {overflow} px on a phone"
    scale = page.evaluate(
        f'(() => {{ const s = document.querySelector("{PICTURE}"); return s.getBoundingClientRect().width / s.viewBox.baseVal.width; }})()'
    )
    assert 17 * scale >= 12, "one column on a phone: labels at least 12 px"
    page.close()

    phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.goto(table.url + "play/red")
    phone.wait_for_selector("#menu button[data-id]")
    ids = phone.locator("#menu button[data-id]").evaluate_all("els => els.map(e => e.dataset.id)")
    menu = table.app.extensions["companion.session"].player_snapshot("red")["menu"]
    assert ids[0] == menu[0]["id"] and menu[0]["intent"]["@"] == "UseCard"  # the usual job first
    screenshot(phone, "space-dealer-phone")
    phone.close()
