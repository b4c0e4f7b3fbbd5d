"""Which address a table is served on: the selection rules on given address lists, the real machine,
and namespaces made with `ip` (two network cards, a default route or none, only link-local)."""

from __future__ import annotations

import ipaddress
import json
import shutil
import subprocess

import pytest

from companion.errors import ConfigError
from companion.net.addresses import (
    HostAddress,
    check_lan_address,
    choose_lan_address,
    default_route_address,
    host_addresses,
    lan_addresses,
    page_url,
)

CAFE = [
    HostAddress("127.0.0.1", "lo"),
    HostAddress("::1", "lo"),
    HostAddress("fd00::20", "wlan0"),
    HostAddress("192.168.1.20", "wlan0"),
    HostAddress("fe80::1%wlan0", "wlan0"),
    HostAddress("172.17.0.1", "docker0"),
    HostAddress("169.254.7.7", "usb0"),
    HostAddress("192.168.1.20", "wlan0"),  # listed twice by some systems
]


def _addresses(entries):
    return [a.address for a in entries]


# --- the rules, on given lists -------------------------------------------------------------------


def test_candidates_drop_loopback_and_link_local_and_put_ipv4_first():
    assert _addresses(lan_addresses(CAFE)) == ["192.168.1.20", "172.17.0.1", "fd00::20"]


def test_link_local_only_when_nothing_else():
    only = [
        HostAddress("127.0.0.1", "lo"),
        HostAddress("fe80::2%eth0", "eth0"),
        HostAddress("169.254.1.2", "eth0"),
    ]
    assert _addresses(lan_addresses(only)) == ["169.254.1.2", "fe80::2%eth0"]
    assert lan_addresses([HostAddress("127.0.0.1", "lo")]) == []


def test_the_default_route_wins():
    chosen = choose_lan_address(addresses=CAFE, default_route=lambda: "172.17.0.1")
    assert (chosen.address, chosen.interface, chosen.reason) == ("172.17.0.1", "docker0", "default route")
    assert chosen.label == "172.17.0.1 (docker0, default route)"
    assert chosen.url(8080) == "http://172.17.0.1:8080/"
    assert _addresses(chosen.candidates) == ["192.168.1.20", "172.17.0.1", "fd00::20"]


def test_without_a_route_the_first_candidate():
    chosen = choose_lan_address(addresses=CAFE, default_route=lambda: None)
    assert (chosen.address, chosen.reason) == ("192.168.1.20", "first network address (no default route)")
    # a route through an address that is no candidate (a VPN's link-local tunnel, say) is not taken
    assert choose_lan_address(addresses=CAFE, default_route=lambda: "169.254.7.7").address == "192.168.1.20"
    single = [HostAddress("127.0.0.1", "lo"), HostAddress("10.0.0.5", "eth0")]
    assert choose_lan_address(addresses=single, default_route=lambda: None).reason == "only network address"


def test_no_network_at_all_is_said_plainly():
    with pytest.raises(ConfigError, match="no network address besides loopback"):
        choose_lan_address(addresses=[HostAddress("127.0.0.1", "lo")], default_route=lambda: None)


def test_a_users_choice_is_checked():
    assert choose_lan_address("192.168.1.20", addresses=CAFE).reason == "chosen"
    assert check_lan_address(" 172.17.0.1 ", CAFE).interface == "docker0"
    assert check_lan_address("wlan0", CAFE).address == "192.168.1.20"  # an interface: its IPv4 address
    assert check_lan_address("[fd00::20]", CAFE).address == "fd00::20"
    assert check_lan_address("169.254.7.7", CAFE).address == "169.254.7.7"  # one of ours, if odd


@pytest.mark.parametrize(
    "choice, reason",
    [
        ("192.168.1.99", "--lan-address 192.168.1.99 is not an address of this machine"),
        ("127.0.0.1", "--lan-address 127.0.0.1 cannot be reached from phones or nodes (loopback)"),
        ("0.0.0.0", "(the wildcard address)"),
        ("kitchen-wifi", "is neither an IP address nor an interface of this machine"),
    ],
)
def test_a_wrong_choice_lists_the_machines_addresses(choice, reason):
    with pytest.raises(ConfigError) as err:
        check_lan_address(choice, CAFE)
    message = str(err.value)
    assert reason in message
    assert "192.168.1.20 (wlan0), 172.17.0.1 (docker0), fd00::20 (wlan0)" in message


def test_the_setting_is_named_as_the_user_wrote_it():
    with pytest.raises(ConfigError, match=r"^lan_address 10\.9\.9\.9 is not an address"):
        choose_lan_address("10.9.9.9", addresses=CAFE, what="lan_address")


def test_page_urls():
    assert page_url("192.168.1.20", 8080) == "http://192.168.1.20:8080/"
    assert page_url("192.168.1.20", 8080, "play/ana") == "http://192.168.1.20:8080/play/ana"
    assert page_url("fd00::20", 80, "/setup") == "http://[fd00::20]:80/setup"
    assert page_url("fe80::1%wlan0", 8080) == "http://[fe80::1%25wlan0]:8080/"
    assert page_url("table-kitchen.local", 8080) == "http://table-kitchen.local:8080/"
    for never in ("127.0.0.1", "::1", "0.0.0.0", "::", "localhost"):
        with pytest.raises(ConfigError, match="cannot be opened from a phone"):
            page_url(never, 8080)


# --- this machine ----------------------------------------------------------------------------------


def test_this_machine_has_loopback_and_its_candidates_are_reachable_ones():
    mine = host_addresses()
    assert any(a.address == "127.0.0.1" for a in mine)
    for candidate in lan_addresses(mine):
        assert not candidate.is_loopback and candidate in mine


def test_the_route_probe_on_loopback():
    """The probe asks the kernel for a route and sends nothing: to a loopback address it is loopback."""
    assert default_route_address("127.0.0.1") == "127.0.0.1"
    assert default_route_address("::1") in ("::1", None)  # None where IPv6 is off


def test_the_default_route_address_is_the_kernels():
    found = default_route_address()
    assert shutil.which("ip") is not None, "iproute2 (ip) is needed: .ci/run installs it"
    result = subprocess.run(["ip", "-j", "route", "get", "198.51.100.1"], capture_output=True, text=True)
    if result.returncode != 0:  # no route on this machine: the probe says so too
        assert found is None
        return
    kernel = json.loads(result.stdout)[0].get("prefsrc")
    assert found == kernel
    if found is not None and not ipaddress.ip_address(found).is_loopback:
        assert choose_lan_address().address == found


# --- namespaces: a machine of our own making -----------------------------------------------------

CHOOSE = """
import json
from companion.errors import ConfigError
from companion.net.addresses import choose_lan_address, lan_addresses
try:
    chosen = choose_lan_address()
    print(json.dumps([chosen.address, chosen.reason, [a.address for a in lan_addresses()]]))
except ConfigError as exc:
    print(json.dumps(["error", str(exc), []]))
"""


def test_two_network_cards_and_the_default_route(netns):
    ns = netns()
    ns.ip("link", "add", "wlan0", "type", "veth", "peer", "name", "eth0")
    ns.ip("addr", "add", "192.168.50.7/24", "dev", "wlan0")
    ns.ip("addr", "add", "10.20.30.40/24", "dev", "eth0")
    ns.ip("link", "set", "wlan0", "up")
    ns.ip("link", "set", "eth0", "up")
    address, reason, candidates = ns.python(CHOOSE)
    assert sorted(candidates) == ["10.20.30.40", "192.168.50.7"]
    assert reason == "first network address (no default route)" and address == candidates[0]
    for device, gateway, expected in (
        ("wlan0", "192.168.50.1", "192.168.50.7"),
        ("eth0", "10.20.30.1", "10.20.30.40"),
    ):
        ns.ip("route", "replace", "default", "via", gateway, "dev", device)
        assert ns.python(CHOOSE)[:2] == [expected, "default route"]


def test_a_machine_with_only_loopback(netns):
    error, message, _ = netns().python(CHOOSE)
    assert error == "error" and "no network address besides loopback" in message


def test_a_link_local_only_network(netns):
    """Two machines joined by a cable with no DHCP server: only 169.254.x.x, which then counts."""
    ns = netns()
    ns.ip("link", "add", "eth0", "type", "veth", "peer", "name", "eth1")
    ns.ip("addr", "add", "169.254.12.34/16", "dev", "eth0")
    ns.ip("link", "set", "eth0", "up")
    ns.ip("link", "set", "eth1", "up")
    address, _, candidates = ns.python(CHOOSE)
    assert address == "169.254.12.34"  # IPv4 first; the cards' fe80:: addresses follow
    assert candidates[0] == address and all(c.startswith("fe80:") for c in candidates[1:])
