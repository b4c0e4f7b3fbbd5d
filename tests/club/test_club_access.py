"""The club lobby over HTTP: its PIN is rate-limited like a table's, and every change it takes
must come from the lobby's own page (another site, or another port of this host, is refused)."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

from companion.club import CLUB_COOKIE, Club, ClubOptions, ClubPlan
from companion.hub import HubConfig
from companion.hub.auth import PIN_TRIES, PIN_TRIES_ALL, PIN_WINDOW_S

pytestmark = pytest.mark.broker


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def club(mosquitto, tmp_path):
    defaults = HubConfig(data_dir=tmp_path, fsync=False, time_scale=60.0)
    plan = ClubPlan.parse(["red:sandtimers:2"], defaults)
    options = ClubOptions(
        defaults=defaults, broker_url=str(mosquitto.address), http_port=None, simulate=False, pin="246810"
    )
    with Club(options).start(plan.tables) as running:
        running.pin_guard.now = Clock()
        yield running


def call(
    club: Club,
    method: str,
    path: str,
    body: Any = None,
    *,
    source: str = "127.0.0.1",
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """One request from ``source`` (any 127.x address): (status, JSON body, headers)."""
    assert club.server is not None
    conn = http.client.HTTPConnection("127.0.0.1", club.server.port, timeout=10, source_address=(source, 0))
    try:
        data = json.dumps(body).encode() if body is not None else None
        sent = {"Content-Type": "application/json", **(headers or {})}
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else {}, dict(response.getheaders())
    finally:
        conn.close()


def pin(club: Club, value: str, **kw: Any) -> tuple[int, dict[str, Any], dict[str, str]]:
    return call(club, "POST", "/api/club/host", {"pin": value}, **kw)


def test_wrong_club_pins_are_limited_per_address_and_the_right_one_waits_too(club):
    for guess in range(PIN_TRIES):
        status, body, _ = pin(club, f"{guess:06d}", source="127.0.5.1")
        assert status == 403 and "PIN is wrong" in body["error"]
        club.pin_guard.now.now += 1  # type: ignore[attr-defined]  # a second between tries
    status, body, headers = pin(club, "000099", source="127.0.5.1")
    assert status == 429 and "Too many wrong PINs" in body["error"]
    # the oldest wrong try was PIN_TRIES seconds ago: it leaves the window that much sooner
    assert int(headers["Retry-After"]) == PIN_WINDOW_S - PIN_TRIES
    assert pin(club, club.pin, source="127.0.5.1")[0] == 429  # not even checked while shut out
    assert pin(club, club.pin, source="127.0.5.2")[0] == 200  # another address is not
    club.pin_guard.now.now += PIN_WINDOW_S + 1  # type: ignore[attr-defined]
    assert pin(club, club.pin, source="127.0.5.1")[0] == 200


def test_guessing_from_many_addresses_is_limited_in_all(club):
    for guess in range(PIN_TRIES_ALL):
        source = f"127.0.6.{1 + guess // (PIN_TRIES - 1)}"  # never 5 from one address
        assert pin(club, f"{guess:06d}", source=source)[0] == 403
    assert pin(club, "999999", source="127.0.6.200")[0] == 429
    assert pin(club, club.pin, source="127.0.6.201")[0] == 429
    # A club was guessed through in about 19 minutes before; now 30 guesses a minute in all:
    # the million PINs take at least 23 days.


def host_token(club: Club) -> str:
    status, _, headers = pin(club, club.pin)
    assert status == 200
    cookie = headers["Set-Cookie"]
    assert cookie.startswith(f"{CLUB_COOKIE}=") and "SameSite=Strict" in cookie
    return cookie.split(";", 1)[0].split("=", 1)[1]


NEW_TABLE = {"table": "t2", "game": "sandtimers", "players": 2}


@pytest.mark.parametrize(
    "sent",
    [
        {"Origin": "http://127.0.0.1:1"},  # another port of the same host: same site, another origin
        {"Origin": "http://localhost:9"},
        {"Origin": "http://evil.example"},
        {"Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "cross-site"},
    ],
)
def test_every_change_from_another_origin_is_refused_even_with_the_hosts_cookie(club, sent):
    token = host_token(club)
    cookie = {"Cookie": f"{CLUB_COOKIE}={token}"}
    for method, path, body in (
        ("POST", "/api/tables", NEW_TABLE),
        ("DELETE", "/api/tables/red", None),
        ("POST", "/api/club/host", {"pin": club.pin}),
    ):
        status, answer, _ = call(club, method, path, body, headers={**cookie, **sent})
        assert status == 403 and "another site" in answer["error"], (method, path, status, answer)
    assert sorted(club.tables) == ["red"]  # nothing was added or ended
    own = f"http://127.0.0.1:{club.server.port}"
    status, answer, _ = call(club, "POST", "/api/tables", NEW_TABLE, headers={**cookie, "Origin": own})
    assert status == 201, answer  # the lobby's own page may
    status, _, _ = call(
        club, "DELETE", "/api/tables/t2", headers={**cookie, "Origin": own, "Sec-Fetch-Site": "same-origin"}
    )
    assert status == 200 and sorted(club.tables) == ["red"]
