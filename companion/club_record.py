"""What a club writes down about its tables in play, so a club started again after a crash goes on with them.

``<data_dir>/club.json`` holds the names of the tables in play (with the settings a table's log does
not hold: its language) and whether the club is running. It is written whenever a table is added
or ended, and when the club stops: a club that was killed (``kill -9``, a power cut) left it saying
``running``, and the next start resumes every table it lists from the table's newest log
(``companion.table.log.latest_log``). A clean stop (Ctrl+C, SIGTERM) writes ``running: false``
and keeps the list, so ``companion club --resume`` can still bring the tables back. Written
atomically and best effort: a club whose disk is full plays on (it says so once).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.core.protocol import is_valid_id

log = logging.getLogger(__name__)

FILE = "club.json"
KEPT = ("language",)
"""Table settings the record keeps (the rest is in the table's log, or the club's defaults)."""


@dataclass(frozen=True)
class InPlay:
    """The club's tables in play when it last wrote them down."""

    running: bool = False
    """True: the club had not stopped cleanly (it was killed, or the power went)."""
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Table name -> its kept settings."""


class ClubRecord:
    """``<data_dir>/club.json``: read at the start, written on every change of the tables in play."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / FILE
        self._warned = False

    def read(self) -> InPlay:
        """What the file says; nothing (no tables) when it is missing or unreadable (said once)."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return InPlay()
        except (OSError, ValueError) as exc:
            log.warning("cannot read the club's record %s (%s): no table is resumed", self.path, exc)
            return InPlay()
        tables = raw.get("tables") if isinstance(raw, dict) else None
        if not isinstance(tables, dict):
            return InPlay()
        kept = {
            name: {k: v for k, v in settings.items() if k in KEPT and isinstance(v, str)}
            for name, settings in tables.items()
            if is_valid_id(name) and isinstance(settings, dict)
        }
        return InPlay(raw.get("running") is True, kept)

    def write(self, *, running: bool, tables: dict[str, dict[str, Any]]) -> None:
        """Write the tables in play (atomically); a failure is said once and otherwise ignored."""
        body = {"running": running, "tables": {name: tables[name] for name in sorted(tables)}}
        temp = self.path.with_name(f".{FILE}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
            os.replace(temp, self.path)
            self._warned = False
        except OSError as exc:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            if not self._warned:
                self._warned = True
                log.warning(
                    "cannot write the club's record %s (%s): after a crash its tables would start anew",
                    self.path,
                    exc.strerror or exc,
                )
