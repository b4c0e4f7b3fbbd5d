"""Where the companion keeps its data, and its TOML config file: shared by the commands."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from companion.errors import ConfigError


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/companion``, or ``~/.local/share/companion``."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "companion"


def load_config_file(path: str | None) -> dict[str, Any]:
    """Read a TOML settings file (``[hub]`` table plus run options at the top); {} for none."""
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from exc
    return data
