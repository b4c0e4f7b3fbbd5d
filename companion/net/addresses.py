"""This machine's network addresses, and the one phones and nodes on the network should use.

A table served to a café's Wi-Fi needs one address that every phone and node can
reach. The rule:

* the candidates are the machine's addresses without loopback, IPv4 before IPv6,
  link-local (169.254.x.x, fe80::) only when there is nothing else;
* the default choice is the address the machine would send from to the internet
  (the one with the default route), found by ``connect()``-ing a UDP socket, which
  sends no packet; without a route, the first candidate;
* a user's choice (``--lan-address``, ``lan_address = "..."``) must be one of the
  candidates, or the name of an interface that has one; anything else is a
  :class:`ConfigError` that lists them;
* the URL shown in the terminal, on the dashboard and in every QR code is built by
  :func:`page_url`, which refuses loopback and wildcard addresses.

Addresses come from ``ifaddr`` (pure Python, a dependency of zeroconf) unless a
test passes its own list.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import quote

from companion.errors import ConfigError

ROUTE_PROBE_IPV4 = "198.51.100.1"
"""Where the default-route probe "connects" (TEST-NET-2: no packet is sent, and none could
reach anyone). Any address outside the local networks follows the default route."""
ROUTE_PROBE_IPV6 = "2001:db8::1"
"""The same for IPv6 (the documentation prefix)."""

_IP = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class HostAddress:
    """One address of one network interface of this machine."""

    address: str
    """``192.168.1.20`` or ``fd00::2``; an IPv6 link-local address carries its zone: ``fe80::1%wlan0``."""
    interface: str
    """The interface's name (``wlan0``, ``eth0``, ``en0``)."""

    @property
    def ip(self) -> _IP:
        return ipaddress.ip_address(self.address.split("%", 1)[0])

    @property
    def is_ipv4(self) -> bool:
        return self.ip.version == 4

    @property
    def is_loopback(self) -> bool:
        return self.ip.is_loopback

    @property
    def is_link_local(self) -> bool:
        return self.ip.is_link_local

    def __str__(self) -> str:
        return f"{self.address} ({self.interface})"


@dataclass(frozen=True)
class LanAddress:
    """The address a table is served on, and why it was chosen."""

    address: str
    interface: str
    reason: str
    """``"default route"``, ``"only network address"``, ``"first network address (no default route)"``
    or ``"chosen"``: said in the terminal so a player knows where it came from."""
    candidates: tuple[HostAddress, ...] = ()
    """Every address that could have been chosen, for the terminal and error messages."""

    def url(self, port: int, path: str = "/") -> str:
        """The URL a phone on the network opens: ``http://192.168.1.20:8080/``."""
        return page_url(self.address, port, path)

    @property
    def label(self) -> str:
        """For the terminal: ``192.168.1.20 (wlan0, default route)``."""
        return f"{self.address} ({self.interface}, {self.reason})"


def host_addresses() -> list[HostAddress]:
    """Every address of every interface of this machine, loopback included, in the system's order."""
    import ifaddr

    found: list[HostAddress] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, tuple):  # IPv6: (address, flowinfo, scope_id)
                text = ip.ip[0].split("%", 1)[0]
                if ipaddress.IPv6Address(text).is_link_local:
                    text = f"{text}%{adapter.name}"
            else:
                text = ip.ip
            found.append(HostAddress(text, adapter.name))
    return found


def lan_addresses(addresses: Iterable[HostAddress] | None = None) -> list[HostAddress]:
    """The addresses other devices could reach: no loopback, IPv4 first, link-local only if nothing else.

    The order within each family is the system's (interface order), without repeats.
    """
    pool = list(host_addresses() if addresses is None else addresses)
    seen: set[str] = set()
    unique = []
    for entry in pool:
        if entry.is_loopback or entry.ip.is_unspecified or entry.ip.is_multicast or entry.address in seen:
            continue
        seen.add(entry.address)
        unique.append(entry)
    routable = [a for a in unique if not a.is_link_local]
    chosen = routable or unique
    return [a for a in chosen if a.is_ipv4] + [a for a in chosen if not a.is_ipv4]


def default_route_address(probe: str = ROUTE_PROBE_IPV4) -> str | None:
    """The source address this machine would use to reach ``probe``: the default route's address.

    A UDP socket's ``connect()`` only asks the kernel for a route; nothing is sent. Returns
    None when there is no route (no network, or only loopback).
    """
    family = socket.AF_INET6 if ":" in probe else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect((probe, 9))  # port 9 (discard); no packet leaves a UDP connect()
            source = str(sock.getsockname()[0])
    except OSError:
        return None
    ip = ipaddress.ip_address(source.split("%", 1)[0])
    if ip.is_unspecified:
        return None
    return source


def _listing(candidates: list[HostAddress]) -> str:
    if not candidates:
        return "this machine has no network address besides loopback (join a network first)"
    return "this machine's network addresses: " + ", ".join(str(c) for c in candidates)


def check_lan_address(
    requested: str, addresses: Iterable[HostAddress] | None = None, *, what: str = "--lan-address"
) -> LanAddress:
    """The user's choice, if it is one of this machine's network addresses (or an interface that has one).

    ``what`` names the option or setting in the error (``--lan-address``, ``lan_address``). Loopback,
    wildcard and foreign addresses are refused with a :class:`ConfigError` listing the candidates.
    """
    pool = list(host_addresses() if addresses is None else addresses)
    candidates = lan_addresses(pool)
    text = requested.strip()
    by_interface = [c for c in candidates if c.interface == text]
    if by_interface:
        chosen = by_interface[0]
        return LanAddress(chosen.address, chosen.interface, f"chosen (interface {text})", tuple(candidates))
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0].strip("[]"))
    except ValueError:
        raise ConfigError(
            f"{what} {requested!r} is neither an IP address nor an interface of this machine; "
            f"{_listing(candidates)}"
        ) from None
    if ip.is_loopback or ip.is_unspecified:
        raise ConfigError(
            f"{what} {requested} cannot be reached from phones or nodes "
            f"({'loopback' if ip.is_loopback else 'the wildcard address'}); {_listing(candidates)}"
        )
    for candidate in pool:
        if candidate.ip == ip and not candidate.is_loopback:
            return LanAddress(candidate.address, candidate.interface, "chosen", tuple(candidates))
    raise ConfigError(f"{what} {requested} is not an address of this machine; {_listing(candidates)}")


def choose_lan_address(
    requested: str | None = None,
    *,
    addresses: Iterable[HostAddress] | None = None,
    default_route: Callable[[], str | None] = default_route_address,
    what: str = "--lan-address",
) -> LanAddress:
    """The address to serve a table on: ``requested`` if given (checked), else the default route's.

    Without a default route (a travel router with no uplink, a hotspot without data)
    the first network address is used. A machine with no network address at all gets a
    :class:`ConfigError` that says so.
    """
    pool = list(host_addresses() if addresses is None else addresses)
    if requested is not None and requested.strip():
        return check_lan_address(requested, pool, what=what)
    candidates = lan_addresses(pool)
    if not candidates:
        raise ConfigError(
            "cannot serve the table on the network: this machine has no network address besides "
            "loopback (join the Wi-Fi, or plug in a network cable, first)"
        )
    route = default_route()
    if route is not None:
        for candidate in candidates:
            if candidate.address == route or candidate.ip == ipaddress.ip_address(route.split("%", 1)[0]):
                return LanAddress(candidate.address, candidate.interface, "default route", tuple(candidates))
    first = candidates[0]
    reason = "only network address" if len(candidates) == 1 else "first network address (no default route)"
    return LanAddress(first.address, first.interface, reason, tuple(candidates))


def network_pending(requested: str | None = None, addresses: Iterable[HostAddress] | None = None) -> bool:
    """Whether waiting could give the table its address: this machine has no network address yet
    (booted before its Wi-Fi joined), or ``requested`` names an interface that has none yet.

    An IP address that is not this machine's is a mistake, not something to wait for."""
    pool = list(host_addresses() if addresses is None else addresses)
    candidates = lan_addresses(pool)
    if requested is None or not requested.strip():
        return not candidates
    text = requested.strip()
    try:
        ipaddress.ip_address(text.split("%", 1)[0].strip("[]"))
    except ValueError:
        return not any(c.interface == text for c in candidates)  # an interface, still without address
    return not candidates


def page_url(address: str, port: int, path: str = "/") -> str:
    """``http://<address>:<port><path>`` for a phone on the network; never a loopback or wildcard address.

    IPv6 addresses are bracketed (a zone is written ``%25wlan0``, RFC 6874); a host name
    (``table-kitchen.local``) is used as it is.
    """
    if not 0 < port < 65536:
        raise ConfigError(f"port {port} is not a TCP port")
    if not path.startswith("/"):
        path = "/" + path
    host = address.strip("[]")
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        if host in ("", "localhost") or host.endswith(".localhost"):
            raise ConfigError(f"{address!r} cannot be opened from a phone: give a network address") from None
        return f"http://{host}:{port}{path}"
    if ip.is_loopback or ip.is_unspecified:
        raise ConfigError(
            f"{address} cannot be opened from a phone ({'loopback' if ip.is_loopback else 'wildcard address'}); "
            "give this machine's network address"
        )
    if ip.version == 6:
        bare, _, zone = host.partition("%")
        host = f"[{bare}%25{quote(zone, safe='')}]" if zone else f"[{bare}]"
    return f"http://{host}:{port}{path}"
