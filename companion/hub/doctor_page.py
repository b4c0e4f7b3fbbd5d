"""The doctor's checks on the dashboard: ``/doctor`` (a page) and ``/api/doctor`` (JSON), host only.

They run exactly the functions ``companion doctor`` runs (:mod:`companion.doctor`), on the table
as the running hub knows it (``app.extensions["companion.doctor"]``, set by the runtime once the
pages are served), so the page and the command always say the same.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, render_template

from companion.doctor import DoctorSetup, as_json, run_checks
from companion.hub.auth import host_only

bp = Blueprint("doctor", __name__)
EXTENSION = "companion.doctor"
PROBES = "companion.doctor_probes"
"""Where a test may put :class:`companion.doctor.Probes` standing in for hardware it lacks."""


def doctor_setup(app: Flask) -> DoctorSetup:
    """The table the checks look at: what the runtime registered, else the hub's own config."""
    known = app.extensions.get(EXTENSION)
    if isinstance(known, DoctorSetup):
        return known
    config = app.config["COMPANION"]
    return DoctorSetup(
        table=config.table,
        data_dir=Path(config.data_dir) if config.data_dir else Path(tempfile.gettempdir()),
        ha_discovery=config.ha_discovery,
        audio=dict(config.audio or {}),
    )


@bp.get("/api/doctor")
@host_only
def doctor_json() -> Any:
    return jsonify(as_json(run_checks(doctor_setup(current_app), current_app.extensions.get(PROBES))))


@bp.get("/doctor")
@host_only
def doctor_page() -> str:
    checks = run_checks(doctor_setup(current_app), current_app.extensions.get(PROBES))
    return render_template("doctor.html", checks=checks, ok=all(c.ok for c in checks))
