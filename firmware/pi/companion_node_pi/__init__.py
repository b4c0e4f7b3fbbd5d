"""Sandtimer node for a Raspberry Pi (CPython + gpiozero + paho): ``python -m companion_node_pi``."""

from .config import PiNodeConfig, TiltSettings, load_config, parse_config
from .node import FIRMWARE, PiNode

__all__ = ["FIRMWARE", "PiNode", "PiNodeConfig", "TiltSettings", "load_config", "parse_config"]
