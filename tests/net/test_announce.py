"""How a table is announced, seen from another machine (two network namespaces joined by a cable):
a readable instance name, a TLS broker under ``_secure-mqtt._tcp``, IPv6 addresses beside IPv4; and
on a machine where avahi-daemon runs, through avahi (a real avahi-daemon, started in the hub's
namespace with its own /run and /etc/avahi/services), under avahi's own host name."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from companion.net import discovery
from companion.net.discovery import AvahiAnnouncer, avahi_service_file, table_services
from tests.net.conftest import REPO, cable

HUB_ZEROCONF = """
import json, sys
from companion.net.discovery import TableAnnouncer
a = TableAnnouncer(table="kitchen", address="10.77.0.2", more_addresses=["fd77::2"],
                   http_port=8080, mqtt_port=8883, tls=True, auth=True).start()
print(json.dumps([a.wait(5), a.problem]), flush=True)
sys.stdin.read()
a.stop()
"""

LOOK = """
import json
from zeroconf import InterfaceChoice, IPVersion, Zeroconf
from companion.net.discovery import SECURE_MQTT_TYPE, find_broker, find_tables, instance_name
zc = Zeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.All)
try:
    info = zc.get_service_info(SECURE_MQTT_TYPE, instance_name("kitchen") + "." + SECURE_MQTT_TYPE, timeout=4000)
    secure = info and [sorted(info.parsed_addresses()), info.port, info.decoded_properties, info.server]
finally:
    zc.close()
broker = find_broker("kitchen", 5)
tables = [[t.table, t.http_port, t.port, t.tls] for t in find_tables(3)]
print(json.dumps([secure, broker and [broker.host, broker.port, broker.tls, broker.server], tables]))
"""


def test_a_tls_broker_is_announced_as_secure_mqtt_with_its_ipv6_address_too(netns):
    hub_ns, node_ns = netns(), netns()
    cable(hub_ns, node_ns, "10.77.0.2/24", "10.77.0.3/24")
    hub_ns.ip("addr", "add", "fd77::2/64", "dev", "net0", "nodad")
    node_ns.ip("addr", "add", "fd77::3/64", "dev", "net0", "nodad")
    hub = hub_ns.popen(HUB_ZEROCONF)
    try:
        assert hub.stdout is not None and hub.stdout.readline().strip() == "[true, null]"
        secure, broker, tables = node_ns.python(LOOK)
        addresses, port, txt, server = secure
        assert addresses == ["10.77.0.2", "fd77::2"] and port == 8883
        assert txt == {"table": "kitchen", "proto": "v1", "tls": "1", "auth": "1"}
        assert server == "table-kitchen.local."
        assert broker == ["10.77.0.2", 8883, True, "table-kitchen.local."]
        assert tables == [["kitchen", 8080, 8883, True]]
    finally:
        if hub.stdin is not None:
            hub.stdin.close()
        hub.wait(10)


def test_the_avahi_service_file_names_every_service_with_its_txt(tmp_path):
    services = table_services("kitchen", http_port=8080, mqtt_port=8883, tls=True, auth=True)
    assert [s[0] for s in services] == [discovery.HTTP_TYPE, discovery.MQTT_TYPE, discovery.SECURE_MQTT_TYPE]
    text = avahi_service_file("kitchen", services)
    assert "<name>Kitchen table (companion)</name>" in text
    assert text.count("<service>") == 3 and "<type>_secure-mqtt._tcp</type>" in text
    assert "<txt-record>tls=1</txt-record>" in text and "<port>8883</port>" in text
    announcer = AvahiAnnouncer(table="kitchen", http_port=8080, mqtt_port=None, services_dir=tmp_path)
    assert announcer.start().wait() and announcer.path == tmp_path / "companion-kitchen.service"
    announcer.stop()
    assert not announcer.path.exists()  # its own file is removed
    appliance = tmp_path / discovery.APPLIANCE_SERVICE
    appliance.write_text("")  # the installer's, writable by the hub
    announcer = AvahiAnnouncer(table="kitchen", http_port=8080, mqtt_port=1883, services_dir=tmp_path).start()
    assert announcer.path == appliance and "<port>1883</port>" in appliance.read_text()
    announcer.stop()
    assert appliance.exists() and appliance.read_text() == ""  # kept, emptied


AVAHI_CONF = """
[server]
host-name=hubbox
use-ipv4=yes
use-ipv6=yes
enable-dbus=no
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-addresses=yes
"""

HUB_AVAHI = """
import json, sys, time
from companion.net import discovery
assert discovery.avahi_running(), "avahi-daemon --check says no"
a = discovery.announce_table(table="kitchen", address="10.78.0.2", http_port=8080, mqtt_port=1883, auth=True)
print(json.dumps([type(a).__name__, str(getattr(a, "path", ""))]), flush=True)
sys.stdin.read()
a.stop()
print(json.dumps(sorted(p.name for p in discovery.AVAHI_SERVICES.iterdir())), flush=True)
"""


def test_where_avahi_runs_the_table_is_announced_through_it(netns, tmp_path):
    avahi = "/usr/sbin/avahi-daemon"
    if subprocess.run(["test", "-x", avahi]).returncode != 0:
        pytest.fail("avahi-daemon is not installed: apt-get install -y avahi-daemon (.ci/run does this)")
    hub_ns, node_ns = netns(), netns()
    cable(hub_ns, node_ns, "10.78.0.2/24", "10.78.0.3/24")
    services, conf = tmp_path / "services", tmp_path / "avahi-daemon.conf"
    services.mkdir()
    conf.write_text(AVAHI_CONF)
    script = tmp_path / "hub.py"
    script.write_text(HUB_AVAHI)
    # A mount namespace of its own: avahi's pid file and services folder are this test's, so no other
    # process on this machine sees an avahi-daemon running.
    shell = textwrap.dedent(
        f"""
        set -e
        mkdir -p /run/avahi-daemon
        mount -t tmpfs tmpfs /run/avahi-daemon
        mount --bind {services} /etc/avahi/services
        {avahi} -f {conf} --no-drop-root --no-chroot --no-rlimits --daemonize
        for i in $(seq 50); do {avahi} --check && break; sleep 0.1; done
        cd {REPO}
        PYTHONPATH={REPO} {sys.executable} {script}
        {avahi} --kill
        """
    )
    hub = subprocess.Popen(
        [
            "ip",
            "netns",
            "exec",
            hub_ns.name,
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "bash",
            "-c",
            shell,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert hub.stdout is not None and hub.stdin is not None
        line = hub.stdout.readline()
        assert line, hub.stderr.read() if hub.stderr else ""
        kind, path = json.loads(line)
        assert kind == "AvahiAnnouncer" and path == "/etc/avahi/services/companion-kitchen.service"
        assert (services / "companion-kitchen.service").exists()  # written into avahi's folder
        found = node_ns.python(
            "import json\nfrom companion.net.discovery import find_broker\n"
            "f = find_broker('kitchen', 8)\n"
            "print(json.dumps(f and [f.host, f.port, f.auth, f.server, f.addresses]))",
            timeout_s=40,
        )
        assert found is not None, "avahi did not announce the table"
        host, port, auth, server, addresses = found
        assert (host, port, auth) == ("10.78.0.2", 1883, True)
        assert server == "hubbox.local."  # avahi's own host name: no second responder, no extra name
        hub.stdin.close()
        left = json.loads(hub.stdout.readline())
        assert left == []  # withdrawn: its file is gone
    finally:
        if hub.poll() is None:
            if hub.stdin is not None and not hub.stdin.closed:
                hub.stdin.close()
            hub.wait(20)
