"""Runs first at every reset. Kept tiny so a broken main.py never locks you out of the board."""

import gc

gc.collect()
# To stop the node starting (e.g. to flash with mpremote while it misbehaves), delete or rename main.py:
#   mpremote fs rm :main.py
