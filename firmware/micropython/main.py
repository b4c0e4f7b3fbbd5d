"""Runs at power-up after boot.py: the sandtimer node (see nodeapp.py and firmware/README.md)."""

import nodeapp

try:
    nodeapp.main()
except KeyboardInterrupt:
    print("node stopped; the REPL is yours (mpremote can copy files now)")
