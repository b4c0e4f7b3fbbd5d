"""Who may do what, in real headless Chromium against a real table served on every interface.

The host's browser opens the hub at 127.0.0.1 (the hub machine itself); a phone opens it at
this machine's LAN address, so the hub sees a remote device, as on a café's Wi-Fi. (Without a
LAN address, a small WSGI wrapper gives the phone's requests another address instead.)
"""

from __future__ import annotations

import http.server
import logging
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from companion.hub import HubConfig
from companion.hub.auth import access_of
from companion.runtime import RunOptions, Table
from companion.table import messages as tm
from tests.conftest import wait_until
from tests.hub.test_pages_browser import screenshot
from tests.hub.web_access import PHONE_ADDR, lan_address

pytestmark = [pytest.mark.broker, pytest.mark.browser]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


class FromPhone:
    """WSGI wrapper: a request marked ``X-Test-Phone`` comes from :data:`PHONE_ADDR` (no LAN address here)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("HTTP_X_TEST_PHONE"):
            environ["REMOTE_ADDR"] = PHONE_ADDR
        return self.app(environ, start_response)


@dataclass
class Cafe:
    table: Table
    host_url: str
    """The hub as its own machine opens it: http://127.0.0.1:PORT"""
    phone_url: str
    """The hub as a phone reaches it (also the table's public_url)."""
    phone_context: dict[str, Any]

    @property
    def session(self) -> Any:
        return self.table.app.extensions["companion.session"]

    @property
    def access(self) -> Any:
        return access_of(self.table.app)

    def phone(self, browser: Any) -> Any:
        return browser.new_context(**PHONE, **self.phone_context)


@pytest.fixture
def cafe(mosquitto, table_id, caplog) -> Iterator[Cafe]:
    caplog.set_level(logging.INFO, logger="companion.access")  # the access log, checked for tokens below
    options = RunOptions(
        hub=HubConfig(table=table_id, players=2, timers=1, time_scale=10.0),
        broker_url=str(mosquitto.address),
        http_host="0.0.0.0",
        http_port=None,
        heartbeat_s=0.5,
    )
    with Table(options) as table:
        port = table.server.server_port
        host_url = f"http://127.0.0.1:{port}"
        lan = lan_address()
        if lan is not None:
            phone_url, context = f"http://{lan}:{port}", {}
        else:
            table.app.wsgi_app = FromPhone(table.app.wsgi_app)  # type: ignore[method-assign]
            phone_url, context = host_url, {"extra_http_headers": {"X-Test-Phone": "1"}}
        access_of(table.app).public_url = phone_url  # as the runtime does when it serves the network
        yield Cafe(table, host_url, phone_url, context)
    handled, _seen_tokens[:] = list(_seen_tokens), []
    for token in handled:
        assert token not in caplog.text, "a token reached the log"


_seen_tokens: list[str] = []
"""Every token a test handled; the fixture checks none of them reached the log."""


def remember(*tokens: str | None) -> None:
    _seen_tokens.extend(t for t in tokens if t)


def role(page: Any) -> str:
    return page.eval_on_selector("body", "b => b.dataset.role")


def send(page: Any, url: str, body: Any = None) -> dict[str, Any]:
    """POST from the page's own script (with whatever token the page holds)."""
    return page.evaluate(
        "async ([url, body]) => { const r = await hubSend(url, body); return { status: r.status, body: await r.json() }; }",
        [url, body],
    )


def test_a_phone_joins_by_its_qr_code_and_acts_only_for_its_player(browser, cafe, caplog):
    session, control = cafe.session, cafe.access
    session.handle(tm.ClockCommand("start"))
    red_token = control.token_of("red")
    remember(red_token, control.admin_token)

    host = browser.new_page(viewport={"width": 1280, "height": 900})
    host.on("dialog", lambda dialog: dialog.accept())
    host.goto(cafe.host_url + "/")
    assert role(host) == "host"
    host.click("#phones summary")
    host.wait_for_selector("#phone-list li[data-player='red'] a.join")
    join = host.get_attribute("#phone-list li[data-player='red'] a.join", "href")
    assert join == f"{cafe.phone_url}/play/red?t={red_token}", (
        "the QR code opens public_url + the page + token"
    )
    with urllib.request.urlopen(cafe.host_url + "/qr/red.svg") as res:
        assert res.headers["X-Target"] == join
    host.wait_for_function(
        "[...document.querySelectorAll('#phone-list img.qr')].every(i => i.complete && i.naturalWidth > 0)"
    )
    screenshot(host, "dashboard-phones")

    phone = cafe.phone(browser)
    red = phone.new_page()
    red.goto(join)
    assert red.url == f"{cafe.phone_url}/play/red", "the token left the address bar"
    assert role(red) == "player"
    [cookie] = [c for c in phone.cookies() if c["name"] == "companion_player"]
    assert cookie["path"] == "/play/red" and cookie["httpOnly"] and cookie["value"] == red_token
    red.wait_for_selector(".timer[data-node='red-1'] button.flip")
    red.tap(".timer[data-node='red-1'] button.flip")
    node = cafe.table.fleet.nodes["red-1"]
    wait_until(lambda: node.core.last_verdict == "accepted", message="red's phone flips red's timer")

    other = send(red, "/api/players/yellow/intent", {"node": "yellow-1", "intent": None})
    assert other == {
        "status": 403,
        "body": {
            "ok": False,
            "error": "This phone can act only for red",
            "message": {"msg": "This phone can act only for {player}", "args": {"player": "red"}},
        },
    }
    assert send(red, "/api/clock/pause")["status"] == 403
    assert session.state.clock.phase == "running"

    red.goto(cafe.phone_url + "/play/yellow")
    red.wait_for_selector("#spectator")
    red.wait_for_selector(".timer[data-node='yellow-1']")
    assert role(red) == "spectator" and red.locator("button.flip").count() == 0
    assert "scan your QR code on the host" in red.inner_text("#spectator")
    screenshot(red, "player-spectator")

    red.goto(cafe.phone_url + "/play/red")
    red.wait_for_selector(".timer[data-node='red-1'] button.flip")
    host.click("#phone-list li[data-player='red'] button.revoke")
    host.click("#ask-choices button.danger")  # the dashboard asks first
    host.wait_for_selector("#phone-list li[data-player='red'] .revoked")
    assert control.token_of("red") is None, "the host revoked red's code"
    logged = len(session.log)
    red.tap(".timer[data-node='red-1'] button.flip")
    red.wait_for_selector("#refusal:has-text('no longer valid')")
    red.wait_for_selector(".timer[data-node='red-1']:not(:has(button.flip))")
    assert role(red) == "spectator", "the page only watches once its code is gone"
    # (red's sand may run out meanwhile: that is logged, the revoked phone's tap is not)
    since = [type(e).__name__ for e in session.log.events()[logged:]]
    assert set(since) <= {"TimerEmptied"}, since

    host.click("#phone-list li[data-player='red'] button.reissue")
    host.wait_for_selector("#phone-list li[data-player='red'] a.join")
    new_join = host.get_attribute("#phone-list li[data-player='red'] a.join", "href")
    new_token = control.token_of("red")
    remember(new_token)
    assert new_join.endswith(f"?t={new_token}") and new_token != red_token
    red.reload()
    assert role(red) == "spectator", "the old phone stays out"
    swapped = cafe.phone(browser).new_page()
    swapped.goto(new_join)
    swapped.wait_for_selector(".timer[data-node='red-1'] button.flip")
    assert role(swapped) == "player"
    assert send(swapped, "/api/players/red/intent", {"node": "red-1", "intent": None})["status"] == 200

    lines = [r.getMessage() for r in caplog.records if r.name == "companion.access"]
    assert any("/play/red?t=[hidden]" in line for line in lines), "the join request was logged, blanked"
    for secret in (red_token, new_token, control.admin_token):
        assert secret not in caplog.text
    phone.close()
    swapped.context.close()
    host.close()


def test_a_device_without_a_token_watches_until_it_types_the_pin(browser, cafe):
    control = cafe.access
    remember(control.admin_token)
    own = browser.new_page()
    own.goto(cafe.host_url + "/")
    assert own.inner_text("#host-pin b") == control.pin, "the PIN is on the hub's own screen"

    context = cafe.phone(browser)
    page = context.new_page()
    page.goto(cafe.phone_url + "/")
    page.wait_for_selector("#spectator")
    page.wait_for_selector(".timer[data-node='red-1'] .node-state:text('online')")
    assert role(page) == "spectator" and page.locator("#host-pin").count() == 0
    assert control.pin not in page.content()
    assert not page.is_visible("button[data-clock='start']") and not page.is_visible("#phones")
    assert not page.is_visible(".timer[data-node='red-1'] button.restart")
    refused = send(page, "/api/clock/start")
    assert refused["status"] == 403 and refused["body"]["error"].startswith("Only the host can do this")
    assert cafe.session.state.clock.phase == "ready"
    screenshot(page, "dashboard-spectator")

    page.click("#spectator a")
    page.wait_for_selector("#pin")
    page.fill("#pin", "000000" if control.pin != "000000" else "111111")
    page.click("#become-host")
    page.wait_for_selector("#pin-error:has-text('That PIN is wrong')")
    page.fill("#pin", control.pin)
    page.click("#become-host")
    page.wait_for_url(cafe.phone_url + "/")
    assert role(page) == "host" and page.locator("#host-pin").count() == 0
    [cookie] = [c for c in context.cookies() if c["name"] == "companion_host"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    page.click("button[data-clock='start']")
    page.wait_for_selector("#clock-phase:text('running')")
    assert cafe.session.state.clock.phase == "running"
    context.close()
    own.close()


def test_wrong_pins_are_rate_limited_in_the_browser(browser, cafe):
    control = cafe.access
    wrong = "000000" if control.pin != "000000" else "111111"
    context = cafe.phone(browser)
    page = context.new_page()
    page.goto(cafe.phone_url + "/host?lang=de")
    for _ in range(5):
        page.fill("#pin", wrong)
        page.click("#become-host")
        page.wait_for_selector("#pin-error")
    page.fill("#pin", control.pin)
    with page.expect_response(lambda r: r.url.endswith("/host") and r.request.method == "POST") as answer:
        page.click("#become-host")
    assert answer.value.status == 429
    assert "Zu viele falsche PINs" in page.inner_text("#pin-error")
    assert not [c for c in context.cookies() if c["name"] == "companion_host"]
    context.close()


EVIL_PAGE = """<!doctype html><html><body>
<form id="csrf" method="post" action="{hub}/api/clock/start"></form>
<script>
window.results = [];
(async () => {{
  for (const path of ["/api/clock/start", "/api/undo", "/api/setup/cancel"]) {{
    try {{
      await fetch("{hub}" + path, {{ method: "POST", mode: "no-cors", body: '{{"confirm": true}}',
                                     headers: {{ "Content-Type": "text/plain" }} }});
      window.results.push(path);
    }} catch (err) {{ window.results.push("error " + err); }}
  }}
  window.done = true;
}})();
</script></body></html>"""


@pytest.fixture
def evil_site(cafe) -> Iterator[str]:
    """Another site on this machine: http://localhost:PORT is a different site from http://127.0.0.1."""
    page = EVIL_PAGE.format(hub=cafe.host_url).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_port}/"
    server.shutdown()
    server.server_close()


def test_a_post_from_another_site_is_refused_on_the_hub_machine(browser, cafe, evil_site, caplog):
    """The host's own browser visits another site; that site's requests to the hub are refused."""
    session = cafe.session
    caplog.set_level(logging.WARNING, logger="companion.hub.auth")
    page = browser.new_page()
    page.goto(evil_site)
    page.wait_for_function("window.done === true")
    wait_until(
        lambda: sum("from another site" in r.getMessage() for r in caplog.records) >= 3,
        message="the hub refused the three requests",
    )
    with page.expect_response(lambda r: r.url.endswith("/api/clock/start")) as answer:
        page.eval_on_selector("#csrf", "f => f.submit()")  # a plain form, no script needed
    assert answer.value.status == 403
    assert "another site" in page.inner_text("body")
    assert session.state.clock.phase == "ready", "nothing from the other site changed the table"

    page.goto(cafe.host_url + "/")  # the hub's own page, same browser: it works
    page.click("button[data-clock='start']")
    page.wait_for_selector("#clock-phase:text('running')")
    page.close()
