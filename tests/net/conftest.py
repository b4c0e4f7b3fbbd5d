"""Network namespaces for the address and discovery tests: a machine of our own making, with `ip`.

A namespace has its own interfaces, addresses and routes, so a test can give "this machine" two
network cards, a default route or none, or make two machines joined by a cable (a veth pair),
without touching the real machine's network. Needs root and iproute2 (CI has both); the tests
that use it are skipped with the reason where namespaces cannot be made.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_names = itertools.count(1)


class Namespace:
    """One network namespace: ``ip(...)`` runs ``ip`` inside it, ``python(code)`` runs Python inside it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def ip(self, *args: str) -> None:
        subprocess.run(["ip", "netns", "exec", self.name, "ip", *args], check=True, capture_output=True)

    def popen(self, code: str) -> subprocess.Popen[str]:
        env = dict(os.environ, PYTHONPATH=REPO)
        return subprocess.Popen(
            ["ip", "netns", "exec", self.name, sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )

    def python(self, code: str, timeout_s: float = 30) -> object:
        """Run ``code`` in the namespace; it prints one JSON value as its last line, returned here."""
        proc = self.popen(code)
        out, err = proc.communicate(timeout=timeout_s)
        assert proc.returncode == 0, err
        return json.loads(out.strip().splitlines()[-1])


def cable(left: Namespace, right: Namespace, left_cidr: str, right_cidr: str) -> None:
    """Join two namespaces by a veth pair (``net0`` in each), with these addresses, links up."""
    subprocess.run(
        [
            "ip",
            "netns",
            "exec",
            left.name,
            "ip",
            "link",
            "add",
            "net0",
            "type",
            "veth",
            "peer",
            "name",
            "net0",
            "netns",
            right.name,
        ],
        check=True,
        capture_output=True,
    )
    for ns, cidr in ((left, left_cidr), (right, right_cidr)):
        ns.ip("addr", "add", cidr, "dev", "net0")
        ns.ip("link", "set", "net0", "up")


def _can_make_namespaces() -> str | None:
    if shutil.which("ip") is None:
        return "iproute2 (ip) is not installed"
    if os.geteuid() != 0:
        return "network namespaces need root"
    return None


@pytest.fixture
def netns() -> Iterator[Callable[[], Namespace]]:
    """``make()`` gives a new namespace with loopback up; all are deleted after the test."""
    reason = _can_make_namespaces()
    if reason:  # .ci/run installs iproute2 and runs as root: a missing piece is a failure, not a pass
        pytest.fail(f"network namespace tests cannot run: {reason}")
    made: list[str] = []

    def make() -> Namespace:
        name = f"companion-test-{os.getpid()}-{next(_names)}"
        result = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
        if result.returncode != 0:
            pytest.fail(f"cannot make a network namespace here: {result.stderr.strip()}")
        made.append(name)
        ns = Namespace(name)
        ns.ip("link", "set", "lo", "up")
        return ns

    yield make
    for name in made:
        subprocess.run(["ip", "netns", "del", name], capture_output=True)
