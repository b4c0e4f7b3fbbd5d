"""Sandtimer node for a Raspberry Pi (CPython + gpiozero + paho): the ``companion-node`` command.

Installed with the hub's distribution (``pip install 'sandtimer-companion[pi]'``); ``python -m
companion_node_pi`` runs the same program. :class:`PiNode` needs gpiozero (the ``pi`` extra) and is
imported on first use, so checking a config (``--check-config``) and ``--help`` work without it.
"""

from typing import Any

from .config import PiNodeConfig, TiltSettings, load_config, parse_config

__all__ = ["FIRMWARE", "PiNode", "PiNodeConfig", "TiltSettings", "load_config", "parse_config"]


def __getattr__(name: str) -> Any:
    if name in ("PiNode", "FIRMWARE"):
        from . import node

        return getattr(node, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
