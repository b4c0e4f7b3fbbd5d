"""Thin fakes of MicroPython's hardware modules, importable under CPython and MicroPython."""
