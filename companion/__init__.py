"""Tabletop companion: a hub that referees board games played with electronic sandtimers."""

__version__ = "0.1.0"
