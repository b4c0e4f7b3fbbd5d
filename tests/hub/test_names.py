"""Players called what they are called: pages at /play/<id>, names shown as typed, the old address redirected."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from markupsafe import escape

from companion.clock import FakeClock
from companion.hub import create_app
from companion.hub.auth import PLAYER_COOKIE
from companion.rules.setup import Seat, make_setup, player_id
from companion.table import messages as tm
from tests.hub.web_access import access, phone

NAMES = ("José María", "O'Neil", "Дмитрий")


@pytest.fixture
def app(tmp_path):
    app = create_app({"table": "names", "players": 3, "timers": 1}, clock=FakeClock())
    session = app.extensions["companion.session"]
    seats = tuple(Seat(name, 1, f"{player_id(name)}-1") for name in NAMES)
    session.handle(tm.NewGame(make_setup(table="names", players=NAMES, seats=seats)))
    return app


def test_each_player_has_a_page_at_their_id_showing_the_name_as_typed(app):
    client = app.test_client()
    for name in NAMES:
        res = client.get(f"/play/{player_id(name)}")
        page = res.get_data(as_text=True)
        assert res.status_code == 200, name
        assert f'<h1 id="player-name">{escape(name)}</h1>' in page
        assert f'data-player="{escape(name)}"' in page and f'data-player-id="{player_id(name)}"' in page


@pytest.mark.parametrize("typed", ["José María", "JOSÉ MARÍA", "jose\u0301 mari\u0301a"])
def test_the_name_in_the_address_is_sent_on_to_the_id_with_the_query(app, typed):
    res = app.test_client().get(f"/play/{quote(typed)}?lang=es")
    assert res.status_code == 302
    assert res.headers["Location"] == f"/play/{player_id('José María')}?lang=es"


def test_a_join_link_opens_the_id_and_the_cookie_stays_on_that_page(app):
    control = access(app)
    name = "José María"
    pid = player_id(name)
    token = control.token_of(name)
    link = control.join_url(name, "http://192.168.1.20:8080/")
    assert link == f"http://192.168.1.20:8080/play/{pid}?t={token}"
    device = phone(app)
    joined = device.get(f"/play/{pid}?t={token}&lang=de")
    assert joined.status_code == 303 and joined.headers["Location"] == f"/play/{pid}?lang=de"
    cookie = joined.headers["Set-Cookie"]
    assert cookie.startswith(f"{PLAYER_COOKIE}={token};") and f"Path=/play/{pid};" in cookie
    page = device.get(f"/play/{pid}").get_data(as_text=True)
    assert 'data-role="player"' in page
    old = device.get(f"/play/{quote(name)}?t={token}")
    assert old.status_code == 302 and old.headers["Location"] == f"/play/{pid}?t={token}", (
        "a link with the name still joins"
    )


def test_the_api_knows_a_player_by_name_or_id(app):
    control = access(app)
    name = "O'Neil"
    device = phone(app, control.token_of(name))
    for who in (player_id(name), quote(name), quote(name.upper())):
        snap = device.get(f"/api/players/{who}").get_json()
        assert snap["player"] == name
        res = device.post(f"/api/players/{who}/intent", json={"node": f"{player_id(name)}-1", "intent": None})
        assert res.status_code == 200, who
    other = device.post(f"/api/players/{player_id('Дмитрий')}/intent", json={"node": "x", "intent": None})
    assert other.status_code == 403 and other.get_json()["error"] == "This phone can act only for O'Neil"
    issued = app.test_client().post(f"/api/players/{player_id(name)}/token").get_json()
    assert issued["player"] == name and issued["id"] == player_id(name)
    assert issued["url"].split("?")[0].endswith(f"/play/{player_id(name)}")


def test_an_unknown_player_lists_the_players_by_their_pages(app):
    res = app.test_client().get("/play/nobody?lang=es")
    page = res.get_data(as_text=True)
    assert res.status_code == 404 and "No hay ningún jugador «nobody» en esta mesa." in page
    for name in NAMES:
        assert f'href="/play/{player_id(name)}">{escape(name)}</a>' in page
