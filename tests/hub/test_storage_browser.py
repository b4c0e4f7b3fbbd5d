"""The storage banner in real Chromium: a table whose data folder is on a small file system (tmpfs) that
fills mid-game shows "storage full" on the open dashboard and phone at once, in each page's language,
and takes it away when space returns, without a reload."""

from __future__ import annotations

import pytest

from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from companion.table.messages import ClockCommand
from tests.conftest import wait_seated_online, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.browser]

BANNER = "#storage-banner:not([hidden]) #storage-message"


def test_open_pages_show_a_full_disk_and_its_end_live(browser, mosquitto, small_disk, table_id):
    options = RunOptions(
        hub=HubConfig(
            table=table_id, players=2, timers=1, data_dir=small_disk.path / "data", time_scale=10.0
        ),
        broker_url=str(mosquitto.address),
        http_port=None,
        heartbeat_s=0.5,
    )
    with Table(options) as table:
        assert table.app is not None and table.fleet is not None
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        session.handle(ClockCommand("start"))
        dashboard = browser.new_page(viewport={"width": 1280, "height": 800})
        dashboard.goto(table.url)
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        phone.goto(table.url + "play/red?lang=de")
        phone.wait_for_function("document.getElementById('clock').textContent !== '--:--'")
        assert (
            dashboard.locator("#storage-banner").is_hidden() and phone.locator("#storage-banner").is_hidden()
        )

        small_disk.fill()
        for _ in range(200):  # the log still takes what fits in its last page
            if not session.table.storage.ok:
                break
            logged = len(session.log)
            table.fleet.flip("red-1")
            wait_until(
                lambda logged=logged: not session.table.storage.ok or len(session.log) > logged,
                message="a flip decided",
            )
        assert not session.table.storage.ok
        dashboard.wait_for_selector(BANNER + ":text('storage full: the game is paused, nothing is lost')")
        assert "No space left on device" in dashboard.inner_text("#storage-banner")
        phone.wait_for_selector(
            BANNER + ":text('Speicher voll: das Spiel ist pausiert, nichts geht verloren')"
        )
        dashboard.wait_for_selector("#clock-phase:text('paused')")

        small_disk.free()
        dashboard.wait_for_selector("#storage-banner", state="hidden", timeout=10_000)
        phone.wait_for_selector("#storage-banner", state="hidden", timeout=10_000)
        dashboard.close()
        phone.close()
