"""A crowd of hostile web clients, in a process of its own (standard library only).

    python tests/faults/flooder.py burst HOST PORT --connections 1500 --sources 60 --rounds 3 --hold-s 1
    python tests/faults/flooder.py hold HOST PORT --connections 1200 --sources 1 --seconds 20

``burst``: opens N idle connections at once (spread over ``sources`` loopback addresses,
127.0.3.1, 127.0.3.2, ...), holds them ``hold-s`` seconds, then closes them all at once;
``rounds`` times. ``hold``: keeps N half-open connections, each sending a request line and
headers a few bytes a second and never finishing them (slowloris), opening a new one for each
the server closes, until ``seconds`` pass. Either way it prints one JSON line per round (or
every second while holding) and raises its own open-file limit as far as it may, so the
flooder is never the side that runs out of files.
"""

from __future__ import annotations

import argparse
import errno
import json
import resource
import selectors
import socket
import sys
import time


def sources(count: int) -> list[str]:
    return [f"127.0.{3 + i // 250}.{1 + i % 250}" for i in range(count)]


def open_many(host: str, port: int, count: int, addresses: list[str]) -> list[socket.socket]:
    """Start ``count`` connects at once (non-blocking); the sockets whose connect did not fail at once."""
    started = []
    for i in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.bind((addresses[i % len(addresses)], 0))
            code = sock.connect_ex((host, port))
        except OSError:
            sock.close()
            continue
        if code not in (0, errno.EINPROGRESS):
            sock.close()
            continue
        started.append(sock)
    return started


def wait_connected(socks: list[socket.socket], timeout_s: float) -> tuple[list[socket.socket], int]:
    """The sockets whose connect finished within ``timeout_s``, and how many failed or never did."""
    selector = selectors.DefaultSelector()
    for sock in socks:
        selector.register(sock, selectors.EVENT_WRITE)
    done: list[socket.socket] = []
    failed = 0
    deadline = time.monotonic() + timeout_s
    pending = len(socks)
    while pending and time.monotonic() < deadline:
        for key, _ in selector.select(0.2):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            selector.unregister(sock)
            pending -= 1
            if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                done.append(sock)
            else:
                failed += 1
                sock.close()
    for key in list(selector.get_map().values()):
        failed += 1
        key.fileobj.close()  # type: ignore[union-attr]
    selector.close()
    return done, failed


def burst(args: argparse.Namespace) -> None:
    addresses = sources(args.sources)
    for round_no in range(1, args.rounds + 1):
        began = time.monotonic()
        socks, failed = wait_connected(open_many(args.host, args.port, args.connections, addresses), 20.0)
        opened_s = time.monotonic() - began
        time.sleep(args.hold_s)
        closing = time.monotonic()
        for sock in socks:
            sock.close()
        print(
            json.dumps(
                {
                    "round": round_no,
                    "connected": len(socks),
                    "failed": failed,
                    "open_s": round(opened_s, 3),
                    "close_s": round(time.monotonic() - closing, 4),
                    "at": closing,
                }
            ),
            flush=True,
        )
        time.sleep(args.pause_s)


HEAD = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: flood\r\n"


def hold(args: argparse.Namespace) -> None:
    """Keep ``connections`` half-open; reopen what the server closes."""
    addresses = sources(args.sources)
    selector = selectors.DefaultSelector()
    live: dict[socket.socket, int] = {}  # socket -> bytes of the endless head sent
    closed_by_server = reopened = 0
    ended = time.monotonic() + args.seconds
    next_report = time.monotonic() + 1.0
    most = 0

    def top_up() -> None:
        nonlocal reopened
        missing = args.connections - len(live)
        if missing <= 0:
            return
        fresh, _failed = wait_connected(open_many(args.host, args.port, missing, addresses), 2.0)
        for sock in fresh:
            live[sock] = 0
            selector.register(sock, selectors.EVENT_READ)
        reopened += len(fresh)

    def drop(sock: socket.socket) -> None:
        nonlocal closed_by_server
        closed_by_server += 1
        selector.unregister(sock)
        live.pop(sock, None)
        sock.close()

    top_up()
    print(json.dumps({"at_the_door": len(live)}), flush=True)  # the test's signal to go on
    reopened = 0
    next_top_up = time.monotonic() + args.interval_s
    next_send = 0.0
    while time.monotonic() < ended:
        sending = time.monotonic() >= next_send
        if sending:
            next_send = time.monotonic() + args.interval_s
        for sock in list(live) if sending else ():  # a few more bytes of a request that never ends
            sent = live[sock]
            piece = HEAD[sent : sent + 4] if sent < len(HEAD) else b"X-a: b\r\n"
            try:
                sock.send(piece)
                live[sock] = sent + len(piece)
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                drop(sock)
        for key, _ in selector.select(args.interval_s):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                if sock.recv(65536) == b"":
                    drop(sock)
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                drop(sock)
        now = time.monotonic()
        if now >= next_top_up:  # like a slowloris tool: what was closed is opened again, twice a second
            next_top_up = now + args.interval_s
            top_up()
        most = max(most, len(live))
        if now >= next_report:
            next_report = now + 1.0
            report = {"held": len(live), "most": most, "closed_by_server": closed_by_server}
            print(json.dumps({**report, "reopened": reopened}), flush=True)
    for sock in live:
        sock.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("burst", "hold"))
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--connections", type=int, default=1500)
    parser.add_argument("--sources", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--hold-s", type=float, default=1.0)
    parser.add_argument("--pause-s", type=float, default=1.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--interval-s", type=float, default=0.5)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, args.connections * 2 + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    if args.mode == "burst":
        burst(args)
    else:
        hold(args)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
