"""A Pi that boots before its Wi-Fi joins: `companion run` with `lan = true` and no network address
waits for one instead of exiting, says so once on the console, and serves the hub's own waiting
screen on loopback meanwhile; when an address comes (a cable plugged into a network namespace made
here), the table starts on it."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

from companion.net.addresses import HostAddress, network_pending
from tests.net.conftest import REPO, cable


def test_network_pending_is_only_about_addresses_that_may_still_come():
    lo = HostAddress("127.0.0.1", "lo")
    wifi = HostAddress("192.168.1.20", "wlan0")
    assert network_pending(None, [lo]) and network_pending("", [lo])
    assert not network_pending(None, [lo, wifi])
    assert network_pending("eth0", [lo, wifi])  # an interface without an address (yet)
    assert not network_pending("wlan0", [lo, wifi])
    assert not network_pending("10.9.9.9", [lo, wifi])  # a foreign address is a mistake
    assert network_pending("10.9.9.9", [lo])


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    found: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            found.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return found


def _until(lines: queue.Queue[str], seen: list[str], wanted: str, timeout_s: float = 30) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            continue
        seen.append(line)
        if wanted in line:
            return line
    raise AssertionError(f"no line with {wanted!r} within {timeout_s} s; got {seen}")


FETCH = """
import json, urllib.error, urllib.request
def get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return [r.status, r.read().decode()]
    except urllib.error.HTTPError as e:
        return [e.code, e.read().decode()]
print(json.dumps([get("http://127.0.0.1:8080/"), get("http://127.0.0.1:8080/api/state")]))
"""


def test_a_networked_table_waits_for_its_address_and_shows_why(netns, tmp_path):
    hub_ns, router_ns = netns(), netns()
    config = tmp_path / "hub.toml"
    config.write_text(
        f'[hub]\ntable = "boot"\nlan = true\nsimulate = false\ndata_dir = "{tmp_path}"\nport = 8080\n'
        'language = "de"\n[broker]\nport = 1883\n'
    )
    env = dict(os.environ, PYTHONPATH=REPO, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            "ip",
            "netns",
            "exec",
            hub_ns.name,
            sys.executable,
            "-m",
            "companion",
            "run",
            "--config",
            str(config),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    lines = _lines(proc)
    seen: list[str] = []
    try:
        waiting = _until(lines, seen, "waiting for a network address")
        assert waiting == (
            "companion: waiting for a network address (this machine has none yet: join the Wi-Fi or plug "
            "in a cable); the screen says so at http://127.0.0.1:8080/"
        )
        (page_status, page), (api_status, api) = hub_ns.python(FETCH)
        assert page_status == 200 and "Warten auf das Netzwerk" in page  # the table's language
        assert 'http-equiv="refresh"' in page
        assert api_status == 503 and json.loads(api) == {"ok": False, "waiting": "network"}
        assert proc.poll() is None
        cable(hub_ns, router_ns, "10.77.0.2/24", "10.77.0.1/24")  # the Wi-Fi joined
        _until(lines, seen, "Dashboard: http://10.77.0.2:8080/")
        assert sum("waiting for a network address" in line for line in seen) == 1  # said once
        state = router_ns.python(
            "import json, urllib.request\n"
            "r = urllib.request.urlopen('http://10.77.0.2:8080/api/state', timeout=5)\n"
            "print(json.dumps([r.status, json.loads(r.read())['table']]))"
        )
        assert state == [200, "boot"]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
