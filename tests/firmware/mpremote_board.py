"""Run the flashing procedure with the real mpremote against a MicroPython "board" on a pseudo-terminal.

There is no board on a CI machine, so ``fake_board.mjs`` stands in for one: the
real MicroPython interpreter (WebAssembly, under Node) speaking the raw REPL
protocol. This script relays a pty to it, runs ``firmware/micropython/deploy.py``
with the given mpremote against the pty, then asks the "board" over mpremote to
list its files and import the deployed node program.

    python -m tests.firmware.mpremote_board --mpremote /path/to/mpremote

mpremote is not a project dependency (``pip install mpremote`` into any venv).
Exit status 0 means every step worked.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import tty
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FAKE_BOARD = Path(__file__).resolve().parent / "fake_board.mjs"


class FakeBoard:
    """A pty whose far end is MicroPython speaking the raw REPL; ``path`` is what mpremote connects to."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        node = shutil.which("node") or "node"
        self.proc = subprocess.Popen([node, str(FAKE_BOARD)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._threads = [
            threading.Thread(target=self._to_board, daemon=True),
            threading.Thread(target=self._from_board, daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _to_board(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            if not data:
                return
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def _from_board(self) -> None:
        while True:
            data = self.proc.stdout.read1(4096)
            if not data:
                return
            os.write(self.master, data)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(10)
        os.close(self.master)
        os.close(self._slave)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpremote", default="mpremote")
    parser.add_argument("--config", default=str(REPO / "firmware" / "micropython" / "config.example.py"))
    parser.add_argument(
        "--mip",
        action="store_true",
        help="also update the node with `mpremote mip install package.json` (fetches umqtt.simple: needs the internet)",
    )
    args = parser.parse_args(argv)
    board = FakeBoard()
    failures = 0
    try:

        def step(title: str, cmd: list[str], expect: str | None = None) -> str:
            nonlocal failures
            print(f"## {title}\n$ {' '.join(cmd)}", flush=True)
            result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            print(result.stdout + result.stderr, flush=True)
            if result.returncode != 0 or (expect is not None and expect not in result.stdout):
                print(f"!! step failed (exit {result.returncode})", flush=True)
                failures += 1
            return result.stdout

        mp = [args.mpremote, "connect", board.path]
        step("the board answers", mp + ["exec", "import sys; print(sys.implementation.name)"], "micropython")
        step(
            "deploy (umqtt via mip needs the internet, so --no-mip)",
            [
                sys.executable,
                str(REPO / "firmware" / "micropython" / "deploy.py"),
                "--config",
                args.config,
                "--port",
                board.path,
                "--mpremote",
                args.mpremote,
                "--no-mip",
            ],
        )
        step("files on the board", mp + ["fs", "ls", ":lib/companion/core"], "protocol.py")
        step("the program is in /lib", mp + ["fs", "ls", ":lib"], "nodeapp.py")
        if args.mip:
            step(
                "update with one command from package.json (and umqtt.simple from micropython-lib)",
                mp + ["mip", "install", str(REPO / "firmware" / "micropython" / "package.json")],
                "Done",
            )
            step("umqtt.simple is on the board", mp + ["fs", "ls", ":lib/umqtt"], "simple")
        step(
            "the node program imports on the board and checks its config",
            mp
            + [
                "exec",
                "import nodeapp, config; c = nodeapp.check_config(config.CONFIG); "
                "print(nodeapp.FIRMWARE, c['node_id'], c['board'])",
            ],
            "companion-mpy/1 blue-2 pico-w",
        )
        step(
            "the shared core runs on the board",
            mp
            + [
                "exec",
                "from companion.core.node import NodeCore; n = NodeCore('t1', 'blue-2', lambda: 5, "
                "'0a1b2c3d'); print(len(n.flip()), n.show())",
            ],
            "0 offline",
        )
    finally:
        board.close()
    print("all steps passed" if not failures else f"{failures} step(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
