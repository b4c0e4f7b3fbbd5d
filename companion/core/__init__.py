"""Node core: code shared by the hub's simulated nodes and every real node.

Everything in this package runs unchanged under CPython and MicroPython: no
dataclasses, no typing imports, no f-strings, no CPython-only modules. Clocks,
pins and radios are passed in.
"""
