"""Tabletop companion: a hub that referees board games played with electronic sandtimers."""

__version__ = "0.2.0"
"""The one place the version is written: pyproject.toml reads it (setuptools dynamic version),
``companion --version`` prints it, and CHANGELOG.md has a section for it."""

DISTRIBUTION = "sandtimer-companion"
"""The name to ``pip install`` (the import package is ``companion``)."""


def install_hint(extra: str) -> str:
    """The pip command that adds an optional part, e.g. ``pip install 'sandtimer-companion[serial]'``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"
