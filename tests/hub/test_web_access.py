"""Who may do what on the web (companion/hub/auth.py), through Flask's test client.

The host is the hub machine itself or a device that typed the table PIN; a player's phone holds
that player's token and acts only for that player; everyone else only watches. Changes need the
token in the X-Companion-Token header and are refused when another site sends them.
"""

from __future__ import annotations

import io
import json
import logging
import threading
import urllib.error
import urllib.request
from dataclasses import replace

import pytest
from werkzeug.serving import make_server

from companion.clock import FakeClock
from companion.errors import ConfigError
from companion.games import register, unregister
from companion.hub import create_app
from companion.hub.auth import (
    CROSS_SITE,
    HEADER,
    HOST_COOKIE,
    NOT_HOST,
    PIN_TRIES,
    PLAYER_COOKIE,
    STALE,
    WATCH_ONLY,
    WRONG_PIN,
    AccessControl,
    RedactTokens,
    no_code,
    no_player,
    other_player,
    redact,
    too_many_pins,
)
from companion.i18n import render
from companion.rules.text import Text
from companion.table import messages as tm
from tests.hub.counting_game import Symbol
from tests.hub.web_access import PHONE_ADDR, access, host_headers, phone, token_header


class FakeFleet:
    """Simulated nodes that only count flips (no broker)."""

    def __init__(self) -> None:
        self.flipped: list[str] = []

    def flip(self, node: str) -> bool:
        self.flipped.append(node)
        return True


@pytest.fixture
def fleet():
    return FakeFleet()


@pytest.fixture
def app(tmp_path, fleet):
    """A table of the stand-in game whose phones choose a symbol for their timer (tests/hub/counting_game)."""
    register("counting", "tests.hub.counting_game")
    try:
        yield create_app(
            {
                "table": "cafe",
                "game": "counting",
                "players": 2,
                "timers": 1,
                "sounds_dir": str(tmp_path / "sounds"),
                "audio": {"speech": False},
            },
            clock=FakeClock(),
            fleet=fleet,
        )
    finally:
        unregister("counting")


def session(app):
    return app.extensions["companion.session"]


def denied(res, message: Text) -> None:
    """A 403 with the English sentence for scripts and the text the pages translate."""
    assert res.status_code == 403, res.get_data(as_text=True)
    assert res.get_json() == {"ok": False, "error": str(message), "message": message.to_json()}


# --- the host -----------------------------------------------------------------------------------


def test_the_hub_machine_itself_is_the_host(app):
    client = app.test_client()  # REMOTE_ADDR 127.0.0.1, Host localhost
    assert client.get("/api/whoami").get_json()["role"] == "host"
    assert client.post("/api/clock/start").status_code == 200
    page = client.get("/").get_data(as_text=True)
    control = access(app)
    assert f'<meta name="companion-token" content="{control.admin_token}">' in page
    assert control.pin in page and 'id="host-pin"' in page, "the PIN is on the hub's own dashboard"
    assert 'data-role="host"' in page and 'id="spectator"' not in page
    ipv6 = app.test_client()
    ipv6.environ_base["REMOTE_ADDR"] = "::1"
    assert ipv6.get("/api/whoami", base_url="http://[::1]:8080").get_json()["role"] == "host"


def test_a_page_of_another_name_on_loopback_is_not_the_host(app):
    """DNS rebinding: a site that resolves its own name to 127.0.0.1 is still another site."""
    client = app.test_client()
    rebound = client.get("/api/whoami", base_url="http://evil.example:8080").get_json()
    assert rebound["role"] == "spectator"
    denied(client.post("/api/clock/start", base_url="http://evil.example:8080"), NOT_HOST)
    page = client.get("/", base_url="http://evil.example:8080").get_data(as_text=True)
    assert access(app).pin not in page and access(app).admin_token not in page


def test_the_pin_is_never_shown_to_another_device_even_the_host(app):
    control = access(app)
    host_phone = phone(app, control.admin_token)
    assert host_phone.get("/api/whoami").get_json()["role"] == "host"
    page = host_phone.get("/").get_data(as_text=True)
    assert control.pin not in page and 'id="host-pin"' not in page
    assert 'data-role="host"' in page


def test_the_cli_can_read_the_pin_and_where_to_type_it(app):
    control = app.extensions["companion.auth"]
    assert isinstance(control, AccessControl)
    assert len(control.pin) == 6 and control.pin.isdigit()
    assert control.pin_line("http://192.168.1.20:8080/") == (
        f"Host PIN: {control.pin} (type it at http://192.168.1.20:8080/host to control the table from another device)"
    )
    other = create_app({"table": "other"}, clock=FakeClock()).extensions["companion.auth"]
    assert (other.pin, other.admin_token) != (control.pin, control.admin_token), "new at every hub start"


# --- spectators ---------------------------------------------------------------------------------


def test_a_device_without_a_token_only_watches(app, fleet):
    watcher = phone(app)
    assert watcher.get("/api/whoami").get_json() == {
        "ok": True,
        "role": "spectator",
        "player": None,
        "stale": False,
    }
    for path in ("/api/state", "/api/players/red", "/api/events", "/api/undo", "/api/audio", "/api/games"):
        assert watcher.get(path).status_code == 200, path
    logged = len(session(app).log)
    denied(watcher.post("/api/clock/start"), NOT_HOST)
    denied(watcher.post("/api/undo", json={"confirm": True}), NOT_HOST)
    denied(watcher.post("/api/setup", json={"players": ["ana", "ben"]}), NOT_HOST)
    denied(watcher.post("/api/setup/cancel"), NOT_HOST)
    denied(watcher.post("/api/nodes/red-1/restart"), NOT_HOST)
    denied(watcher.post("/api/nodes/red-1/identify"), NOT_HOST)
    denied(watcher.post("/api/audio", json={"disabled": ["chime"]}), NOT_HOST)
    denied(watcher.post("/api/sim/red-1/flip"), WATCH_ONLY)
    denied(watcher.post("/api/players/red/action", json={"action": {"type": "x"}}), WATCH_ONLY)
    denied(watcher.post("/api/players/red/intent", json={"node": "red-1", "intent": None}), WATCH_ONLY)
    denied(watcher.post("/api/players/red/token"), NOT_HOST)
    denied(watcher.delete("/api/players/red/token"), NOT_HOST)
    assert watcher.get("/api/access").status_code == 403
    assert watcher.get("/qr/red.svg").status_code == 403
    assert session(app).state.clock.phase == "ready" and len(session(app).log) == logged
    assert fleet.flipped == [] and dict(session(app).table.intents) == {}


def test_spectator_pages_say_so_and_carry_no_token(app):
    watcher = phone(app)
    dashboard = watcher.get("/").get_data(as_text=True)
    assert 'data-role="spectator"' in dashboard and 'id="spectator"' in dashboard
    assert "companion-token" not in dashboard and access(app).pin not in dashboard
    player = watcher.get("/play/red")
    assert player.status_code == 200
    text = player.get_data(as_text=True)
    assert 'data-role="spectator"' in text and "companion-token" not in text
    assert "scan your QR code on the host" in text
    german = watcher.get("/play/red?lang=de").get_data(as_text=True)
    assert "scanne deinen QR-Code" in german
    setup = watcher.get("/setup").get_data(as_text=True)
    assert "Only the host can set up a new game." in setup and 'id="start" type="submit" disabled' in setup


# --- players' phones ------------------------------------------------------------------------------


def test_a_phone_joins_by_its_link_and_the_token_leaves_the_address(app):
    control = access(app)
    token = control.token_of("red")
    url = control.join_url("red", "http://192.168.1.20:8080/")
    assert url == f"http://192.168.1.20:8080/play/red?t={token}"
    red = phone(app)
    res = red.get(f"/play/red?t={token}&lang=es")
    assert res.status_code == 303
    assert res.headers["Location"] == "/play/red?lang=es", "the token is not kept in the address"
    cookie = res.headers["Set-Cookie"]
    assert cookie.startswith(f"{PLAYER_COOKIE}={token};")
    assert "Path=/play/red" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    page = red.get("/play/red")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and 'data-role="player"' in text
    assert f'<meta name="companion-token" content="{token}">' in text
    assert page.headers["Cache-Control"] == "no-store"
    assert control.admin_token not in text and control.token_of("yellow") not in text
    other = red.get("/play/yellow").get_data(as_text=True)
    assert 'data-role="spectator"' in other and token not in other, "the cookie belongs to red's page only"


def test_a_phone_acts_only_for_its_own_player(app, fleet):
    control = access(app)
    red = phone(app, control.token_of("red"))
    assert red.get("/api/whoami").get_json()["player"] == "red"
    assert (
        red.post(
            "/api/players/red/intent", json={"node": "red-1", "intent": {"@": "Symbol", "symbol": "x"}}
        ).status_code
        == 200
    )
    assert dict(session(app).table.intents) == {"red-1": Symbol("x")}
    refused = red.post("/api/players/red/action", json={"action": {"@": "Cheat"}})
    assert refused.status_code == 409, "past the access check, the rules answer"
    other = other_player("red")
    assert str(other) == "This phone can act only for red"
    denied(
        red.post(
            "/api/players/yellow/intent", json={"node": "yellow-1", "intent": {"@": "Symbol", "symbol": "x"}}
        ),
        other,
    )
    denied(red.post("/api/players/yellow/action", json={"action": {"type": "x"}}), other)
    assert red.post("/api/sim/red-1/flip").status_code == 200, "a player may flip their own simulated timer"
    denied(red.post("/api/sim/yellow-1/flip"), other)
    assert fleet.flipped == ["red-1"]
    denied(red.post("/api/clock/start"), NOT_HOST)
    denied(red.post("/api/undo", json={"confirm": True}), NOT_HOST)
    assert red.get("/api/access").status_code == 403
    assert "yellow-1" not in dict(session(app).table.intents)


def test_a_revoked_token_stops_working_at_once_and_a_new_one_works(app):
    control = access(app)
    old = control.token_of("red")
    red = phone(app, old)
    host = app.test_client()
    assert red.post("/api/players/red/intent", json={"node": "red-1", "intent": None}).status_code == 200
    res = host.delete("/api/players/red/token")
    assert res.get_json() == {"ok": True, "player": "red", "id": "red", "active": False, "url": None}
    denied(red.post("/api/players/red/intent", json={"node": "red-1", "intent": None}), STALE)
    assert red.get("/api/whoami").get_json() == {
        "ok": True,
        "role": "spectator",
        "player": None,
        "stale": True,
    }
    assert host.get("/qr/red.svg").status_code == 409
    assert host.get("/api/access").get_json()["players"][0] == {
        "player": "red",
        "id": "red",
        "active": False,
        "url": None,
    }

    issued = host.post("/api/players/red/token").get_json()
    new = control.token_of("red")
    assert issued["ok"] and issued["active"] and issued["url"].endswith(f"/play/red?t={new}") and new != old
    denied(red.post("/api/players/red/intent", json={"node": "red-1", "intent": None}), STALE)
    assert (
        phone(app, new).post("/api/players/red/intent", json={"node": "red-1", "intent": None}).status_code
        == 200
    )
    yellow = control.token_of("yellow")
    assert phone(app, yellow).get("/api/whoami").get_json()["player"] == "yellow", "the others keep theirs"
    assert host.post("/api/players/mallory/token").status_code == 404


def test_a_stale_join_link_or_cookie_gets_a_clear_page_in_the_tables_language(app):
    control = access(app)
    old = control.token_of("red")
    red = phone(app)
    red.get(f"/play/red?t={old}")
    control.reissue("red")
    page = red.get("/play/red?lang=de")
    text = page.get_data(as_text=True)
    assert page.status_code == 403 and 'lang="de"' in text
    assert "Dieser Code gilt nicht mehr" in text and "Traceback" not in text
    assert f"{PLAYER_COOKIE}=;" in page.headers["Set-Cookie"], "the dead cookie is dropped"
    assert red.get("/play/red").status_code == 200, "then the page just watches"
    wrong = phone(app).get("/play/red?t=not-a-token&lang=es")
    assert wrong.status_code == 403 and "Este código ya no es válido" in wrong.get_data(as_text=True)
    assert "Set-Cookie" not in wrong.headers or PLAYER_COOKIE not in wrong.headers["Set-Cookie"]
    assert phone(app).get(f"/play/yellow?t={control.token_of('red')}").status_code == 403, (
        "red's code is not yellow's"
    )


def test_a_new_game_makes_new_tokens(app):
    control = access(app)
    before = control.player_tokens()
    red = phone(app, before["red"])
    setup = session(app).setup
    assert (
        session(app)
        .handle(
            tm.NewGame(
                replace(
                    setup,
                    players=("ana", "red"),
                    seats=tuple(replace(s, player="ana") if s.player == "yellow" else s for s in setup.seats),
                )
            )
        )
        .refusal
        is None
    )
    after = control.player_tokens()
    assert set(after) == {"ana", "red"} and after["red"] != before["red"]
    denied(red.post("/api/players/red/intent", json={"node": "red-1", "intent": None}), STALE)
    assert phone(app, after["ana"]).get("/api/whoami").get_json()["player"] == "ana"


# --- the PIN ----------------------------------------------------------------------------------------


def test_the_pin_gives_a_device_the_admin_token_in_a_strict_cookie(app):
    control = access(app)
    device = phone(app)
    page = device.get("/host").get_data(as_text=True)
    assert 'name="pin"' in page and control.pin not in page
    res = device.post("/host", data={"pin": control.pin, "next": "/setup"})
    assert res.status_code == 303 and res.headers["Location"] == "/setup"
    cookie = res.headers["Set-Cookie"]
    assert cookie.startswith(f"{HOST_COOKIE}={control.admin_token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert device.get("/api/whoami").get_json()["role"] == "host", "the cookie identifies the device's pages"
    dashboard = device.get("/").get_data(as_text=True)
    assert f'<meta name="companion-token" content="{control.admin_token}">' in dashboard
    denied(device.post("/api/clock/start"), NOT_HOST)  # a cookie alone never changes anything
    assert device.post("/api/clock/start", headers=host_headers(app)).status_code == 200
    assert device.get("/api/access").status_code == 200
    assert (
        phone(app).post("/host", data={"pin": control.pin, "next": "//evil.example/"}).headers["Location"]
        == "/"
    )


def test_the_pin_also_works_from_a_script(app):
    control = access(app)
    res = phone(app).post("/api/host", json={"pin": control.pin})
    assert res.get_json() == {"ok": True, "token": control.admin_token, "header": HEADER}
    assert phone(app).post("/api/host", json={"pin": 123456}).status_code == 400
    wrong = "000000" if control.pin != "000000" else "111111"
    denied(phone(app).post("/api/host", json={"pin": wrong}), WRONG_PIN)


def test_wrong_pins_are_rate_limited_per_client(app):
    control = access(app)
    now = [1000.0]
    control.now = lambda: now[0]
    wrong = "000000" if control.pin != "000000" else "111111"
    guesser = phone(app, addr="192.0.2.66")
    for _ in range(PIN_TRIES):
        res = guesser.post("/host", data={"pin": wrong})
        assert res.status_code == 403 and "That PIN is wrong" in res.get_data(as_text=True)
        now[0] += 1
    limited = guesser.post("/host", data={"pin": control.pin})
    assert limited.status_code == 429, "even the right PIN waits out the limit"
    assert limited.headers["Retry-After"] == "55"  # the first wrong PIN was 5 s ago
    assert "Too many wrong PINs: wait 55 s and try again" in limited.get_data(as_text=True)
    assert HOST_COOKIE not in limited.headers.get("Set-Cookie", "")
    blocked = guesser.post("/api/host", json={"pin": control.pin})
    assert blocked.status_code == 429 and blocked.get_json()["error"].startswith("Too many wrong PINs")
    spanish = guesser.post("/host?lang=es", data={"pin": wrong}).get_data(as_text=True)
    assert "Demasiados PIN incorrectos" in spanish
    assert phone(app, addr="192.0.2.67").post("/host", data={"pin": control.pin}).status_code == 303
    now[0] += 60
    assert guesser.post("/host", data={"pin": control.pin}).status_code == 303, "a minute later it works"


def test_many_addresses_together_cannot_guess_fast(app):
    control = access(app)
    control.now = lambda: 5.0
    wrong = "000000" if control.pin != "000000" else "111111"
    for n in range(30):
        assert phone(app, addr=f"198.51.100.{n}").post("/api/host", json={"pin": wrong}).status_code == 403
    assert phone(app, addr="198.51.100.200").post("/api/host", json={"pin": control.pin}).status_code == 429


# --- cross-site requests ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site", "Origin": "http://localhost:9999"},
        {"Origin": "http://evil.example", "Content-Type": "application/json"},
    ],
    ids=["origin", "null-origin", "sec-fetch-site", "other-port", "json"],
)
def test_a_post_from_another_site_is_refused_even_on_the_hub_machine(app, headers):
    client = app.test_client()
    denied(client.post("/api/clock/start", headers=headers), CROSS_SITE)
    denied(
        client.post(
            "/api/players/red/intent",
            headers={**headers, **host_headers(app)},
            json={"node": "red-1", "intent": None},
        ),
        CROSS_SITE,
    )
    denied(client.delete("/api/players/red/token", headers=headers), CROSS_SITE)
    res = client.post("/host", headers=headers, data={"pin": access(app).pin})
    assert res.status_code == 403 and "Set-Cookie" not in res.headers
    assert "Refused a request that came from another site" in res.get_data(as_text=True)
    assert session(app).state.clock.phase == "ready" and dict(session(app).table.intents) == {}
    assert access(app).token_of("red") is not None


def test_requests_from_the_hubs_own_pages_pass(app):
    client = app.test_client()
    same = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    assert client.post("/api/clock/start", headers=same).status_code == 200
    control = access(app)
    control.public_url = "http://192.168.1.20:8080/"
    assert control.public_url == "http://192.168.1.20:8080"
    red = phone(app, control.token_of("red"))
    behind = {"Origin": "http://192.168.1.20:8080"}
    assert (
        red.post(
            "/api/players/red/intent", headers=behind, json={"node": "red-1", "intent": None}
        ).status_code
        == 200
    )


def test_refusals_are_translated_on_the_pages():
    for message in (
        NOT_HOST,
        WATCH_ONLY,
        STALE,
        CROSS_SITE,
        WRONG_PIN,
        other_player("red"),
        too_many_pins(12),
        no_code("red"),
        no_player("Zoë"),
    ):
        for lang in ("es", "de"):
            assert render(message, lang) != str(message), (lang, message)
    assert render(other_player("ana"), "de") == "Dieses Handy kann nur für ana spielen"


# --- QR codes and public_url -------------------------------------------------------------------------


def test_qr_codes_use_the_public_url_and_carry_the_token(tmp_path):
    app = create_app(
        {"table": "cafe", "players": 2, "public_url": "http://192.168.1.20:8080/"}, clock=FakeClock()
    )
    token = access(app).token_of("red")
    res = app.test_client().get("/qr/red.svg")
    assert res.status_code == 200 and res.headers["Cache-Control"] == "no-store"
    assert res.headers["X-Target"] == f"http://192.168.1.20:8080/play/red?t={token}"
    links = app.test_client().get("/api/access").get_json()
    assert links["host_url"] == "http://192.168.1.20:8080/host"
    assert [p["url"] for p in links["players"]] == [
        f"http://192.168.1.20:8080/play/{p}?t={access(app).token_of(p)}" for p in ("red", "yellow")
    ]
    plain = create_app({"table": "cafe", "players": 2}, clock=FakeClock())
    target = plain.test_client().get("/qr/red.svg", base_url="http://10.0.0.7:8080").headers["X-Target"]
    assert target == f"http://10.0.0.7:8080/play/red?t={access(plain).token_of('red')}", "None: as loaded"
    with pytest.raises(ConfigError, match="public_url"):
        create_app({"table": "cafe", "public_url": "192.168.1.20:8080"}, clock=FakeClock())


# --- tokens never leak ----------------------------------------------------------------------------------


def test_no_token_in_state_events_or_player_views(app):
    control = access(app)
    secrets = [control.admin_token, *filter(None, control.player_tokens().values())]
    paths = (
        "/api/state",
        "/api/events",
        "/api/players/red",
        "/api/stats",
        "/api/nodes",
        "/api/whoami",
        "/api/undo",
    )
    for client in (app.test_client(), phone(app), phone(app, control.token_of("red"))):
        for path in paths:
            text = client.get(path).get_data(as_text=True)
            assert not any(s in text for s in secrets), path
    feed = app.extensions["companion.stream_feed"]
    frames = [feed._build(None).data, feed._build("red").data]  # the bytes every stream sends
    assert not any(s.encode() in frame for s in secrets for frame in frames)


def test_redact_blanks_tokens_in_log_lines():
    assert redact('"GET /play/red?t=abc_-123 HTTP/1.1" 303 -') == '"GET /play/red?t=[hidden] HTTP/1.1" 303 -'
    assert redact("/play/red?lang=es&t=x&y=1") == "/play/red?lang=es&t=[hidden]&y=1"
    assert redact("/history?at=3") == "/history?at=3"
    record = logging.LogRecord(
        "werkzeug",
        logging.INFO,
        "",
        0,
        '%s - "%s" %s',
        ("1.2.3.4", "GET /play/a?t=SECRET HTTP/1.1", "303"),
        None,
    )
    assert RedactTokens().filter(record) and "SECRET" not in record.getMessage()


def test_the_access_log_of_a_real_server_has_no_token(app, caplog):
    """werkzeug logs every request line with its query string: the join link's token is blanked."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logging.getLogger("werkzeug").addHandler(handler)
    control = access(app)
    token = control.token_of("red")
    try:
        with caplog.at_level(logging.INFO, logger="werkzeug"):
            base = f"http://127.0.0.1:{server.server_port}"
            opener = urllib.request.build_opener(NoRedirect)
            with pytest.raises(urllib.error.HTTPError) as redirect:
                opener.open(f"{base}/play/red?t={token}")
            assert redirect.value.code == 303
            request = urllib.request.Request(
                f"{base}/api/host",
                data=json.dumps({"pin": control.pin}).encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request) as res:
                assert json.loads(res.read())["ok"]
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(f"{base}/play/red?t={token}x&pin={control.pin}")
    finally:
        logging.getLogger("werkzeug").removeHandler(handler)
        server.shutdown()
        server.server_close()
    lines = [r.getMessage() for r in caplog.records if r.name == "werkzeug"]
    assert any("/play/red?t=[hidden]" in line and " 303 " in line for line in lines), lines
    output = caplog.text + stream.getvalue()
    for secret in (token, control.admin_token):
        assert secret not in output
    assert control.pin not in "\n".join(lines) + stream.getvalue()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_pages_cannot_be_framed_by_another_site(app):
    res = phone(app).get("/")
    assert res.headers["X-Frame-Options"] == "DENY" and res.headers["Referrer-Policy"] == "same-origin"


def test_phone_helper_sends_the_header(app):
    assert phone(app, "abc").get("/api/whoami").get_json()["stale"] is True
    assert token_header("x") == {HEADER: "x"} and PHONE_ADDR.startswith("192.0.2.")
