"""A hub whose data folder is on a full disk (a real tmpfs): every page and /api/state say so, the host's
buttons answer with the reason (never a 500), nothing is half written, and space coming back is enough."""

from __future__ import annotations

import logging

import pytest

from companion.clock import FakeClock
from companion.core import protocol as p
from companion.hub import HubConfig, create_app
from companion.table import messages as m
from companion.table.log import read_log
from companion.table.storage import FULL, PROBE_EVERY_S, StorageGuard
from tests.table.test_storage import Monotonic, flip, report

SPANISH = "almacenamiento lleno: la partida está en pausa, no se pierde nada"


@pytest.fixture
def hub(small_disk, tmp_path):
    config = HubConfig(
        table="disk",
        players=2,
        timers=1,
        data_dir=small_disk.path / "data",
        sounds_dir=tmp_path / "sounds",
        audio={"speech": False},
    )
    clock = FakeClock(start_s=100.0)
    app = create_app(config, clock=clock)
    session = app.extensions["companion.session"]
    session.storage = StorageGuard(monotonic=(monotonic := Monotonic()))
    hello = report("hello", t_ms=10_000, sand_ms=60000, node_kind="sim", firmware="x")
    for node in [seat.node for seat in session.setup.seats]:
        session.handle(m.NodeReport(node, hello))
    return app, session, clock, monotonic, small_disk


def fill_until_refused(session, clock, disk) -> int:
    """Fill the disk, then flip until a report meets it (a file may still grow within its last page)."""
    disk.fill()
    seq = 0
    while session.table.storage.ok:
        seq += 1
        assert seq < 500, "the log kept taking writes on a full disk"
        clock.advance(0.5)
        session.handle(m.NodeReport("red-1", flip(seq, int((clock.now_s() - 90) * 1000))))
    return seq


def test_every_page_and_the_api_say_so_and_the_host_gets_reasons_not_500(hub, caplog):
    app, session, clock, monotonic, disk = hub
    client = app.test_client()
    assert client.post("/api/clock/start").status_code == 200
    held = fill_until_refused(session, clock, disk)
    caplog.set_level(logging.WARNING)

    state = client.get("/api/state").get_json()
    assert state["storage"]["ok"] is False and state["storage"]["message"] == FULL.to_json()
    assert state["storage"]["detail"] == "No space left on device"
    assert state["clock"]["phase"] == "paused"
    for action in ("pause", "resume", "abort", "start"):
        answer = client.post(f"/api/clock/{action}")
        assert answer.status_code == 409, (action, answer.get_json())
    resumed = client.post("/api/clock/resume").get_json()
    assert resumed["error"] == str(FULL)
    assert client.post("/api/undo", json={"confirm": True}).status_code == 409
    tables = disk.path / "data" / "tables"
    before = sorted(tables.iterdir())
    new_game = client.post("/api/setup", json={"players": ["ana", "ben"], "timers": 1, "pairing": "keep"})
    assert new_game.status_code == 400 and "storage full" in new_game.get_json()["error"]
    assert sorted(tables.iterdir()) == before, "no new log, not even an empty one"
    for page in ("/", "/play/red", "/setup", "/history", "/end", "/host"):
        html = client.get(page).get_data(as_text=True)
        assert str(FULL) in html, page
    spanish = client.get("/", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert SPANISH in spanish
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "no error, no traceback"

    disk.free()
    monotonic.t += PROBE_EVERY_S
    session.handle(m.Tick())
    assert client.get("/api/state").get_json()["storage"]["ok"] is True
    assert 'id="storage-banner" class="storage-banner" role="alert" hidden' in client.get("/").get_data(
        as_text=True
    )
    again = session.handle(m.NodeReport("red-1", flip(held, int((clock.now_s() - 90) * 1000))))
    assert again.commands[0].verdict in ("accepted", "rejected")  # type: ignore[union-attr]
    assert client.post("/api/clock/resume").status_code == 200
    saved = read_log(session.log.path)
    assert saved.notes == [] and saved.events == session.log.events()
    kept = [e for e in saved.events if getattr(e, "seq", None) == held]
    assert len(kept) == 1, "the held report is logged once"


def test_refused_report_gets_a_retry_ack_the_node_keeps(hub):
    app, session, clock, monotonic, disk = hub
    seq = fill_until_refused(session, clock, disk)
    again = session.handle(m.NodeReport("red-1", flip(seq, int((clock.now_s() - 90) * 1000))))
    [ack] = again.commands
    payload = p.encode("cmd", ack.kind, **ack.fields)
    assert p.decode("cmd", payload).verdict == "retry"
