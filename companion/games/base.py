"""Kept so the engines' imports keep working: ``Accepted``, ``Rejected`` and ``Result`` live in
:mod:`companion.rules.outcome`."""

from companion.rules.outcome import Accepted, Rejected, Result

__all__ = ["Accepted", "Rejected", "Result"]
