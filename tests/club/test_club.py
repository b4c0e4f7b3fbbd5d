"""A club: several tables play at once in one process, on one broker and one web port, and
nothing of one table reaches another's state or pages."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from companion.club import Club, ClubOptions, ClubPlan
from companion.errors import ConfigError
from companion.hub import HubConfig
from companion.table import messages as tm
from tests.conftest import wait_until

pytestmark = pytest.mark.broker


def get(url: str, *, headers: dict | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def send(url: str, method: str, body: dict | None = None, *, token: str = "") -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-Companion-Club"] = token
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture
def club(mosquitto, tmp_path):
    defaults = HubConfig(data_dir=tmp_path, fsync=False, time_scale=60.0, grace_s=0.0)
    plan = ClubPlan.parse(["red:sandtimers:2", "blue:space-dealer:3", "green:timeline:2"], defaults)
    options = ClubOptions(
        defaults=defaults,
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=0.5,
        pin="1234",
    )
    with Club(options).start(plan.tables) as running:
        yield running


def online(table) -> int:
    return sum(1 for link in table.session.table.seated_links() if link.online)


def test_tables_play_at_once_and_stay_apart(club):
    red, blue, green = (club.tables[name] for name in ("red", "blue", "green"))
    for table in (red, blue, green):
        wait_until(lambda t=table: online(t) == len(t.session.setup.seats), timeout_s=10)
    red.session.handle(tm.ClockCommand("start"))
    node = red.session.setup.seats[0].node
    assert red.fleet.flip(node)
    wait_until(lambda: red.session.state.timers[node].flips == 1, timeout_s=5)
    # the same node id exists at the other sandtimer tables: their timers did not move
    for other in (blue, green):
        assert all(t.flips == 0 for t in other.session.state.timers.values())
        assert other.session.state.clock.phase == "ready"
    assert [type(e).__name__ for e in blue.session.log.events()] == []
    assert len(red.session.log.events()) >= 2
    logs = {table.session.log.path for table in (red, blue, green)}
    assert len(logs) == 3


def test_the_lobby_lists_every_table_with_its_game_and_clock(club):
    status, body = get(club.url + "api/tables")
    assert status == 200
    tables = {t["table"]: t for t in json.loads(body)["tables"]}
    assert set(tables) == {"red", "blue", "green"}
    assert tables["blue"]["game"] == "space-dealer" and len(tables["blue"]["players"]) == 3
    assert tables["red"]["clock"]["phase"] == "ready" and tables["red"]["url"] == "/t/red/"
    status, page = get(club.url)
    assert status == 200 and b"lobby.js" in page


def test_each_table_has_its_own_pages_under_its_path(club):
    for name in ("red", "blue"):
        status, state = get(club.url + f"t/{name}/api/state")
        assert status == 200 and json.loads(state)["table"] == name
        status, page = get(club.url + f"t/{name}/")
        assert status == 200 and f"/t/{name}/static/" in page.decode()
    status, _ = get(club.url + "t/nowhere/api/state")
    assert status == 404


def test_tables_are_added_and_ended_while_others_play(club):
    red = club.tables["red"]
    red.session.handle(tm.ClockCommand("start"))
    status, refused = send(club.url + "api/tables", "POST", {"table": "violet", "game": "sandtimers"})
    assert status == 403 and "PIN" in refused["error"]
    status, added = send(
        club.url + "api/tables",
        "POST",
        {"table": "violet", "game": "time-splicers", "players": 3},
        token=club.token,
    )
    assert status == 201 and added["table"]["game"] == "time-splicers"
    status, twice = send(club.url + "api/tables", "POST", {"table": "violet"}, token=club.token)
    assert status == 400 and "already" in twice["error"]
    status, bad = send(club.url + "api/tables", "POST", {"table": "Bad Name!"}, token=club.token)
    assert status == 400 and "table name" in bad["error"]
    status, unknown = send(club.url + "api/tables", "POST", {"table": "x", "colour": 1}, token=club.token)
    assert status == 400 and "colour" in unknown["error"]
    assert get(club.url + "t/violet/api/state")[0] == 200
    status, _ = send(club.url + "api/tables/blue", "DELETE", token=club.token)
    assert status == 200 and "blue" not in club.tables
    assert get(club.url + "t/blue/api/state")[0] == 404
    assert red.session.state.clock.phase == "running", "ending one table leaves the others playing"
    assert send(club.url + "api/tables/blue", "DELETE", token=club.token)[0] == 404


def test_the_club_pin_makes_a_host(club):
    status, wrong = send(club.url + "api/club/host", "POST", {"pin": "0000"})
    assert status == 403 and "wrong" in wrong["error"]
    assert send(club.url + "api/club/host", "POST", {"pin": "1234"})[0] == 200


def test_a_plan_names_tables_games_and_players():
    defaults = HubConfig()
    plan = ClubPlan.parse(["a", "b:space-dealer", "c:timeline:3"], defaults)
    assert [(t.table, t.game, t.players) for t in plan.tables] == [
        ("a", "sandtimers", 4),
        ("b", "space-dealer", 4),
        ("c", "timeline", 3),
    ]
    with pytest.raises(ConfigError, match="player count"):
        ClubPlan.parse(["a:timeline:many"], defaults)
