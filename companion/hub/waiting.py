"""The hub's own screen while a networked table waits for a network address (boot before Wi-Fi).

A Pi that boots before its Wi-Fi joins has no address but loopback; ``companion run --lan`` then
waits for one instead of giving up (:meth:`companion.runtime.Table.start`), and meanwhile serves
this small page on loopback, on the dashboard's port, so the kiosk screen says what is going on.
The page reloads itself every few seconds and becomes the dashboard once the table has started.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, render_template

from companion.net.web_server import WebServer

REFRESH_S = 3


def create_waiting_app(*, language: str = "en") -> Flask:
    """The waiting screen: every page answers with it (``/api/...`` with a JSON 503)."""
    app = Flask("companion.hub")  # the hub's templates and static files
    from companion.i18n.web import init_i18n

    init_i18n(app, default_language=language)

    @app.get("/api/<path:rest>")
    def api(rest: str) -> Any:
        return jsonify({"ok": False, "waiting": "network"}), 503, {"Retry-After": str(REFRESH_S)}

    @app.get("/")
    @app.get("/<path:rest>")
    def waiting(rest: str = "") -> Any:
        return render_template("waiting.html", refresh_s=REFRESH_S)

    return app


class WaitingScreen:
    """The waiting page served on ``host:port`` by the product's web server; ``stop()`` frees the port."""

    def __init__(self, host: str, port: int, *, language: str = "en") -> None:
        self.server = WebServer(create_waiting_app(language=language), host, port, name="waiting-screen")

    @property
    def port(self) -> int:
        return self.server.port

    def start(self) -> WaitingScreen:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()
