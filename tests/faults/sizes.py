"""How big a fault run is: CI-sized inside ``make test``, full-sized with ``COMPANION_FAULT_SIZE=full``.

Every figure can also be set on its own through its environment variable (``make faults``
and ``make soak`` set the full size; docs/testing.md lists the variables). The figures a
test measured are printed (run with ``-s``) and written to ``test-artifacts/faults/``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

SIZE = os.environ.get("COMPANION_FAULT_SIZE", "ci").strip().lower() or "ci"
"""``ci`` (the default, part of ``make test``) or ``full``."""
if SIZE not in ("ci", "full"):
    raise ValueError(f"COMPANION_FAULT_SIZE must be ci or full, not {SIZE!r}")

SEED = int(os.environ.get("COMPANION_FAULT_SEED", "20261201"))
"""Seeds every random choice of the fault tests (kill moments, flips, tear positions)."""

ARTIFACTS = Path(os.environ.get("COMPANION_ARTIFACTS", "test-artifacts")) / "faults"


def sized(name: str, *, ci: float, full: float) -> float:
    """The figure ``COMPANION_<name>`` if set, else the CI or full default of this run."""
    raw = os.environ.get(f"COMPANION_{name}")
    if raw is not None and raw.strip():
        return float(raw)
    return ci if SIZE == "ci" else full


def sized_int(name: str, *, ci: int, full: int) -> int:
    return int(sized(name, ci=ci, full=full))


def report(test: str, figures: dict[str, Any]) -> None:
    """Print the figures a test measured and keep them in ``test-artifacts/faults/<test>.json``."""
    body = {"test": test, "size": SIZE, "seed": SEED, "finished": time.strftime("%Y-%m-%d %H:%M:%S")}
    body.update(figures)
    line = ", ".join(f"{k}={_short(v)}" for k, v in figures.items())
    print(f"\nFAULTS {test} [{SIZE}, seed {SEED}]: {line}")
    try:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / f"{test}-{SIZE}.json").write_text(json.dumps(body, indent=2) + "\n")
    except OSError as exc:  # a read-only checkout still runs the tests
        print(f"(could not write {ARTIFACTS}: {exc})")


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
