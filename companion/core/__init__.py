"""Node core: code shared by the hub's simulated nodes and every real node.

Everything in this package runs unchanged under CPython and MicroPython: no
dataclasses, no f-strings, no CPython-only modules. Clocks, pins and radios are
passed in.

It is fully annotated (mypy checks it strictly). MicroPython parses annotations
and ignores them, but it has no ``__future__``, ``typing`` or ``collections.abc``
module, and CPython evaluates function annotations when it defines the function.
So: builtin generics (``list[int]``, ``int | None``) are used directly, and
names such as ``Callable`` or ``Any`` are imported only inside
``try: ... except ImportError: pass``. That block holds imports only: a type
alias like ``X = tuple[int, str]`` would run on a board with a typing stub
installed and fail there (builtin types cannot be subscripted on MicroPython).
"""
