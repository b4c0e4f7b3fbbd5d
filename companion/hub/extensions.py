"""Typed access to the parts create_app attaches to ``app.extensions``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask

    from companion.mqtt.bridge import HubBridge
    from companion.node.sim import SimFleet
    from companion.table.session import TableSession


def session_of(app: Flask) -> TableSession:
    return app.extensions["companion.session"]


def bridge_of(app: Flask) -> HubBridge | None:
    return app.extensions.get("companion.bridge")


def fleet_of(app: Flask) -> SimFleet | None:
    return app.extensions.get("companion.fleet")
