"""The one place game data files are read: shipped with a game package, or a user's own file.

A data file is JSON (``.json``), TOML (``.toml``) or CSV (``.csv``, read as text for
the game's own parser). Whatever goes wrong (a missing file, bytes that are not
UTF-8, broken syntax, nesting too deep) raises :class:`DataFileError` with one
sentence that names the file; the game's own parser then checks the content.
Engines never call this: each game package reads its data once (``GameInfo.data``)
and hands it to its engine and referee.
"""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from companion.errors import InvalidRecordError


class DataFileError(InvalidRecordError):
    """A game data file cannot be read or is not valid JSON, TOML or CSV text."""


def read_shipped(package: str, name: str) -> Any:
    """The parsed content of the data file ``name`` shipped in ``package``."""
    return parse_text(shipped_text(package, name), suffix=Path(name).suffix, label=f"the shipped {name}")


def read_file(path: str | Path, *, label: str = "data file") -> Any:
    """The parsed content of a user's data file (format by its suffix)."""
    where = Path(path)
    return parse_text(read_text(where, label=label), suffix=where.suffix, label=f"{label} {where}")


def read_text(path: str | Path, *, label: str = "data file") -> str:
    """The text of a user's data file, for a game whose errors name the line of a field."""
    where = Path(path)
    try:
        return where.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataFileError(f"cannot read {label} {where}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise DataFileError(f"{label} {where} is not UTF-8 text") from None


def shipped_text(package: str, name: str) -> str:
    """The text of the data file ``name`` shipped in ``package``."""
    try:
        return resources.files(package).joinpath(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataFileError(f"the shipped data file {name} of {package} cannot be read: {exc}") from None


def parse_text(text: str, *, suffix: str, label: str) -> Any:
    """JSON and TOML parsed; CSV returned as text for the game's parser."""
    suffix = suffix.lower()
    if suffix == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataFileError(
                f"{label} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
            ) from None
        except RecursionError:
            raise DataFileError(f"{label} is nested too deeply") from None
    if suffix == ".toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise DataFileError(f"{label} is not valid TOML: {exc}") from None
    if suffix == ".csv":
        return text
    raise DataFileError(f"{label}: data files are .json, .toml or .csv, not {suffix or 'without a suffix'}")
