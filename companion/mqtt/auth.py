"""Who may publish on a table's broker: one credential store per table, and mosquitto's files made from it.

A table on a café's Wi-Fi must not let any laptop on the network flip a player's
timer. The embedded mosquitto then asks every client for a user and a password
and limits each user to its own topics; this module keeps those users and writes
the two files mosquitto reads.

Store and files, under ``<data_dir>/auth/<table>/`` (the folder is 0700, every file 0600)::

    credentials.json   the store (format 1): the hub's user and password, and each node's
                       password, when it was added and, once revoked, when (its password is gone)
    mosquitto.passwd   made from the store: ``user:$7$101$salt$hash`` lines (PBKDF2-SHA512,
                       mosquitto 2.0's own format), the hub and every node that is not revoked
    mosquitto.acl      made from the store: what each user may read and write
    broker.json        while an embedded mosquitto runs with these files: its pid, binary and
                       config, so ``companion node revoke`` can tell it to reload
    tls/               optional: ``ca.crt``, ``broker.crt``, ``broker.key`` (docs/security.md);
                       when all three are there the table's broker speaks TLS to the network
    .lock              held (flock) while the store and the files are rewritten

The store keeps the passwords themselves, not only their hashes: the hub's own
tools on this machine (the simulated nodes, ``companion serial-bridge``) connect
*as* the nodes, and ``companion node add`` prints a node's lines again. Protect
the data folder as you would the Wi-Fi password.

The access rules (``mosquitto.acl``) for table ``T``; nothing else is allowed, no
anonymous client gets in, and a publish outside them is dropped by the broker::

    user hub                                   the hub: everything under its table
    topic readwrite companion/v1/T/#
    topic readwrite homeassistant/#                  (with Home Assistant discovery on)

    user red-1                                 a node (user = node id)
    topic write companion/v1/T/node/red-1/event
    topic write companion/v1/T/node/red-1/status     (also its last will)
    topic read  companion/v1/T/node/red-1/cmd
    topic read  companion/v1/T/state
    topic read  companion/v1/T/hub/status            (the node resends its outbox when the hub is back)

    user homeassistant                         Home Assistant (``companion ha add``)
    topic read companion/v1/T/#                      the table: node statuses and events, states
    topic readwrite homeassistant/#                  its discovery prefix: configs, birth, buttons

The rules name each user and the table explicitly instead of mosquitto's ``%u``
patterns, so a revoked node loses its topics with its password, and a node of this
table can never touch another table's topics on a shared broker.

**Topic = identity.** MQTT 3.1.1 does not tell a subscriber who published a message,
so the hub knows a node only by the topic it publishes on. That is only as good as
these rules: without them (an anonymous broker) any client can speak for any node.

API for the runtime and the command line::

    auth = BrokerAuth.for_table(data_dir, "kitchen")   # creates the folder; nothing else yet
    auth.hub_address(broker.address)    -> BrokerAddress with the hub's user and password
    auth.add_node("red-1")              -> NodeCredentials (an existing node keeps its password;
                                           new_password=True issues another)
    auth.ensure_node("red-1")           -> NodeCredentials (add if missing; for simulated nodes)
    auth.node_address(address, "red-1") -> BrokerAddress with the node's credentials
    auth.credentials("red-1")           -> NodeCredentials | None
    auth.revoke("red-1")                -> NodeEntry (UnknownNodeError if it never had credentials)
    auth.nodes()                        -> [NodeEntry] (no passwords)
    auth.mosquitto_files()              -> (password_file, acl_file), written afresh
    auth.tls_files()                    -> TlsFiles | None (the files in tls/, when all there)
    auth.reload_broker()                -> str | None: SIGHUP to the running embedded mosquitto
    auth.add_home_assistant(prefix=...) -> HomeAssistantLogin (Home Assistant's user and prefix)
    auth.home_assistant() / remove_home_assistant()

Every change rewrites both mosquitto files at once (under the lock, each by an
atomic rename). A running mosquitto reads them again on SIGHUP (``reload_broker``,
or ``MosquittoBroker.reload``) without dropping anyone else: a revoked node that is
still connected is disconnected then, and refused from then on.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.core import protocol
from companion.errors import CompanionError, ConfigError
from companion.mqtt.broker import BrokerAddress, TlsFiles

log = logging.getLogger(__name__)

HUB_USER = "hub"
"""The hub's user on its table's broker; no node may take this id."""
HA_USER = "homeassistant"
"""Home Assistant's user on the table's broker (``companion ha add``); no node may take this id."""
HA_PREFIX = "homeassistant"
"""Home Assistant's MQTT discovery prefix unless told otherwise."""
STORE_FORMAT = 1
PASSWORD_BYTES = 18
"""Random bytes in a generated password: 24 characters of ``A-Z a-z 0-9 _ -`` (144 bits)."""
PBKDF2_ITERATIONS = 101
"""mosquitto_passwd 2.0's default for ``$7$`` (sha512-pbkdf2) hashes."""
SALT_BYTES = 12
"""mosquitto_passwd's salt length."""
MOSQUITTO_PASSWD_PATHS = ("mosquitto_passwd", "/usr/bin/mosquitto_passwd", "/usr/local/bin/mosquitto_passwd")
TLS_NAMES = ("ca.crt", "broker.crt", "broker.key")


class UnknownNodeError(CompanionError, LookupError):
    """The credential store has no such node."""


@dataclass(frozen=True)
class NodeCredentials:
    """What one node needs to log in to its table's broker."""

    table: str
    node: str
    """The node id, which is also its user name (at a club's table: ``<table>.<node>``)."""
    password: str
    in_club: bool = False
    """The table plays in a club: on the club's one broker every table's nodes log in, and the same
    node id may sit at two tables, so the user name says the table too."""

    @property
    def user(self) -> str:
        return f"{self.table}.{self.node}" if self.in_club else self.node

    def address(self, broker: BrokerAddress) -> BrokerAddress:
        """``broker`` with this node's user and password."""
        return replace(broker, username=self.user, password=self.password)


@dataclass(frozen=True)
class NodeEntry:
    """A node as ``companion node list`` shows it: never its password."""

    node: str
    added_at: str
    """When its current password was issued (UTC, ISO 8601)."""
    revoked_at: str | None = None
    """When it was revoked (UTC, ISO 8601); None while it may log in."""

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None


@dataclass(frozen=True)
class HomeAssistantLogin:
    """What Home Assistant's MQTT integration needs to log in to a table's broker."""

    table: str
    user: str
    password: str
    prefix: str
    """Its discovery prefix (Home Assistant's MQTT setting of that name)."""

    def address(self, broker: BrokerAddress) -> BrokerAddress:
        return replace(broker, username=self.user, password=self.password)


def check_prefix(prefix: str) -> str:
    """A discovery prefix: topic levels of a-z, 0-9, ``_`` and ``-``; :class:`ConfigError` otherwise."""
    levels = prefix.strip().strip("/").split("/")
    if not prefix.strip() or not all(protocol.is_valid_id(level) for level in levels):
        raise ConfigError(
            f"discovery prefix {prefix!r} must be topic levels of a-z, 0-9, '_' or '-' (e.g. homeassistant)"
        )
    return "/".join(levels)


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def make_password() -> str:
    """A random password that needs no quoting in TOML, Python or a URL."""
    return secrets.token_urlsafe(PASSWORD_BYTES)


# --- mosquitto's password hashes ---------------------------------------------------------------
def find_mosquitto_passwd() -> str | None:
    for candidate in MOSQUITTO_PASSWD_PATHS:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def pbkdf2_hash(password: str, *, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> str:
    """mosquitto 2.0's ``$7$`` hash of ``password``: ``$7$<iterations>$<base64 salt>$<base64 PBKDF2-HMAC-SHA512>``.

    The same derivation as ``mosquitto_passwd -H sha512-pbkdf2`` (the default of 2.0):
    a 12-byte random salt, 64 bytes of PBKDF2-HMAC-SHA512 over the UTF-8 password.
    """
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations)
    b64 = base64.b64encode
    return f"$7${iterations}${b64(salt).decode()}${b64(digest).decode()}"


def check_hash(password: str, hashed: str) -> bool:
    """Whether ``hashed`` (a ``$7$`` or ``$6$`` line of a mosquitto password file) is ``password``'s."""
    parts = hashed.split("$")
    try:
        if len(parts) == 5 and parts[1] == "7":
            iterations, salt, digest = int(parts[2]), base64.b64decode(parts[3]), base64.b64decode(parts[4])
            mine = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations)
        elif len(parts) == 4 and parts[1] == "6":
            salt, digest = base64.b64decode(parts[2]), base64.b64decode(parts[3])
            mine = hashlib.sha512(password.encode("utf-8") + salt).digest()
        else:
            return False
    except (ValueError, TypeError):
        return False
    return secrets.compare_digest(mine, digest)


def mosquitto_passwd_hash(password: str, binary: str) -> str:
    """The hash ``mosquitto_passwd`` itself makes for ``password``.

    The password goes to it on standard input (its prompt), never on the command line
    where ``mosquitto_passwd -b`` would show it to every user of the machine in ``ps``.
    """
    if "\n" in password or "\r" in password:
        raise ConfigError("a broker password cannot contain a line break")
    with tempfile.TemporaryDirectory(prefix="companion-passwd-") as tmp:
        path = Path(tmp) / "passwd"
        result = subprocess.run(
            [binary, "-c", str(path), "x"],
            input=f"{password}\n{password}\n",
            capture_output=True,
            text=True,
            timeout=10,
        )
        line = path.read_text().strip() if path.exists() else ""
    if result.returncode != 0 or not line.startswith("x:$"):
        raise OSError(f"mosquitto_passwd failed: {(result.stderr or result.stdout).strip()[-200:]}")
    return line.split(":", 1)[1]


def password_hash(password: str) -> str:
    """A mosquitto password-file hash: by ``mosquitto_passwd`` when installed, else :func:`pbkdf2_hash`."""
    binary = find_mosquitto_passwd()
    if binary is not None:
        try:
            return mosquitto_passwd_hash(password, binary)
        except (OSError, subprocess.SubprocessError) as exc:
            log.warning("%s; hashing the password here instead", exc)
    return pbkdf2_hash(password)


# --- files -----------------------------------------------------------------------------------
def _write_private(path: Path, text: str, mode: int = 0o600) -> None:
    """Write ``text`` to ``path`` atomically, readable by this user only (0600, or ``mode``)."""
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _private_dir(path: Path) -> None:
    """Make ``path`` (0700), or tighten it to that; a folder shared with the broker's group on
    purpose (0750, :meth:`BrokerAuth.share_with_broker`) stays so. :class:`ConfigError` when this
    user cannot."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        loose = path.stat().st_mode & 0o077
        if loose and loose != 0o050:  # group read-and-enter only: shared with the broker on purpose
            path.chmod(0o700)
    except OSError as exc:
        raise ConfigError(f"cannot make the private folder {path}: {exc.strerror or exc}") from None


def _process_argv(pid: int) -> list[str] | None:
    """The command line of process ``pid`` (Linux), or None when it is gone or cannot be read."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


class BrokerAuth:
    """The credential store of one table and the mosquitto files made from it (see the module docstring)."""

    def __init__(self, directory: Path, table: str) -> None:
        if not protocol.is_valid_id(table):
            raise ConfigError(f"table id {table!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
        self.table = table
        self.directory = Path(directory)
        _private_dir(self.directory)
        self.store_path = self.directory / "credentials.json"
        self.password_file = self.directory / "mosquitto.passwd"
        self.acl_file = self.directory / "mosquitto.acl"
        self.broker_record = self.directory / "broker.json"
        self.tls_dir = self.directory / "tls"
        self.hub_user = HUB_USER
        self.discovery_prefix: str | None = None
        """The Home Assistant discovery prefix the running hub publishes under (``[hub] ha_discovery``),
        set by the runtime before the broker starts: the hub's rules then include it."""

    @classmethod
    def for_table(cls, data_dir: str | Path, table: str) -> BrokerAuth:
        """The store of ``table`` under ``<data_dir>/auth/<table>/`` (made, 0700, if missing)."""
        if not protocol.is_valid_id(table):
            raise ConfigError(f"table id {table!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
        auth_dir = Path(data_dir) / "auth"
        _private_dir(auth_dir)
        return cls(auth_dir / table, table)

    # --- the store --------------------------------------------------------------------
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            lock = open(self.directory / ".lock", "a+")
        except OSError as exc:
            raise ConfigError(
                f"cannot lock the credentials in {self.directory}: {exc.strerror or exc}"
            ) from None
        with lock:
            os.fchmod(lock.fileno(), 0o600)
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def _read(self) -> dict[str, Any]:
        try:
            text = self.store_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {"format": STORE_FORMAT, "table": self.table, "hub": None, "nodes": {}}
        except OSError as exc:
            raise ConfigError(f"cannot read {self.store_path}: {exc.strerror or exc}") from None
        try:
            data = json.loads(text)
            if data.get("format") != STORE_FORMAT or data.get("table") != self.table:
                raise ValueError
            if not isinstance(data.get("nodes"), dict):
                raise ValueError
        except (ValueError, AttributeError):
            raise ConfigError(
                f"{self.store_path} is not a credential store of table {self.table!r} (format {STORE_FORMAT})"
            ) from None
        return data

    def _write(self, data: dict[str, Any]) -> None:
        """Save the store, then make both mosquitto files from it (caller holds the lock)."""
        try:
            _write_private(self.store_path, json.dumps(data, indent=2, sort_keys=True) + "\n")
            self._write_mosquitto_files(data)
        except OSError as exc:
            raise ConfigError(
                f"cannot write the credentials in {self.directory}: {exc.strerror or exc}"
            ) from None

    def _with_hub(self, data: dict[str, Any]) -> bool:
        """Give the store the hub's credentials if it has none; whether it changed."""
        if data.get("hub"):
            return False
        password = make_password()
        data["hub"] = {"user": HUB_USER, "password": password, "hash": password_hash(password)}
        return True

    def _check_node_id(self, node: str) -> None:
        if not protocol.is_valid_id(node):
            raise ConfigError(f"node id {node!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
        if node == HUB_USER:
            raise ConfigError(f"{HUB_USER!r} is the hub's own user on the broker; give the node another id")
        if node == HA_USER:
            raise ConfigError(f"{HA_USER!r} is Home Assistant's user on the broker; give the node another id")

    # --- the API ------------------------------------------------------------------------
    def hub_address(self, address: BrokerAddress) -> BrokerAddress:
        """``address`` with the hub's user and password (made, and written to the files, on first use)."""
        data = self._read()
        if not data.get("hub"):
            with self._locked():
                data = self._read()
                if self._with_hub(data):
                    self._write(data)
        return replace(address, username=data["hub"]["user"], password=data["hub"]["password"])

    def add_node(self, node: str, *, new_password: bool = False) -> NodeCredentials:
        """Credentials for ``node``: a new password for a new or revoked node; an existing node keeps
        its password unless ``new_password`` (then the old one stops working at the next reload)."""
        self._check_node_id(node)
        with self._locked():
            data = self._read()
            changed = self._with_hub(data)
            entry = data["nodes"].get(node)
            if entry is None or entry.get("revoked_at") or not entry.get("password") or new_password:
                password = make_password()
                data["nodes"][node] = {
                    "password": password,
                    "hash": password_hash(password),
                    "added_at": _now(),
                    "revoked_at": None,
                }
                changed = True
            if changed:
                self._write(data)
            return NodeCredentials(self.table, node, data["nodes"][node]["password"], self._in_club(data))

    def ensure_node(self, node: str) -> NodeCredentials:
        """The node's credentials, adding it first if it has none (e.g. for simulated nodes)."""
        return self.credentials(node) or self.add_node(node)

    def credentials(self, node: str) -> NodeCredentials | None:
        """The node's credentials, or None if it has none (never added, or revoked)."""
        data = self._read()
        entry = data["nodes"].get(node)
        if not entry or entry.get("revoked_at") or not entry.get("password"):
            return None
        return NodeCredentials(self.table, node, entry["password"], self._in_club(data))

    def _in_club(self, data: dict[str, Any]) -> bool:
        return bool(data.get("club_users"))

    def join_club(self) -> None:
        """From now on this table's nodes log in as ``<table>.<node>`` (a club's one broker holds the
        users of every table; see :class:`ClubAuth`). Their passwords stay; a node configured before
        needs its lines again (``companion node add NODE --table T`` prints them)."""
        with self._locked():
            data = self._read()
            if data.get("club_users"):
                return
            data["club_users"] = True
            self._with_hub(data)
            self._write(data)

    def node_user(self, node: str, data: dict[str, Any] | None = None) -> str:
        """The user name ``node`` logs in with."""
        data = self._read() if data is None else data
        return f"{self.table}.{node}" if self._in_club(data) else node

    def node_rules(self, data: dict[str, Any] | None = None) -> list[tuple[str, str]]:
        """(user, password hash) of every node that may log in, for a password file."""
        data = self._read() if data is None else data
        return [
            (self.node_user(node, data), entry["hash"])
            for node, entry in sorted(data["nodes"].items())
            if not entry.get("revoked_at") and entry.get("hash")
        ]

    def node_address(self, address: BrokerAddress, node: str) -> BrokerAddress:
        """``address`` with ``node``'s user and password; :class:`UnknownNodeError` if it has none."""
        found = self.credentials(node)
        if found is None:
            raise UnknownNodeError(
                f"node {node!r} has no credentials for table {self.table!r}: companion node add {node}"
            )
        return found.address(address)

    def revoke(self, node: str) -> NodeEntry:
        """Take ``node``'s password away (kept in the list as revoked); it is refused after the next reload."""
        with self._locked():
            data = self._read()
            entry = data["nodes"].get(node)
            if entry is None:
                raise UnknownNodeError(f"node {node!r} has no credentials for table {self.table!r}")
            if not entry.get("revoked_at"):
                entry.update(password=None, hash=None, revoked_at=_now())
                self._write(data)
            return NodeEntry(node, entry["added_at"], entry["revoked_at"])

    # --- Home Assistant -------------------------------------------------------------------------
    def add_home_assistant(
        self, *, prefix: str = HA_PREFIX, new_password: bool = False
    ) -> HomeAssistantLogin:
        """A broker user for Home Assistant: it may read the table's topics and read and write its
        discovery prefix (its configs, its birth message, the buttons), nothing else. An existing
        user keeps its password unless ``new_password``; the prefix is updated."""
        prefix = check_prefix(prefix)
        with self._locked():
            data = self._read()
            changed = self._with_hub(data)
            entry = data.get("homeassistant")
            if not entry or new_password:
                password = make_password()
                entry = {
                    "user": HA_USER,
                    "password": password,
                    "hash": password_hash(password),
                    "added_at": _now(),
                }
                changed = True
            if entry.get("prefix") != prefix:
                entry = {**entry, "prefix": prefix}
                changed = True
            data["homeassistant"] = entry
            if changed:
                self._write(data)
            return HomeAssistantLogin(self.table, entry["user"], entry["password"], entry["prefix"])

    def home_assistant(self) -> HomeAssistantLogin | None:
        """Home Assistant's login on this table's broker, if ``companion ha add`` made one."""
        entry = self._read().get("homeassistant")
        if not entry:
            return None
        return HomeAssistantLogin(
            self.table, entry["user"], entry["password"], entry.get("prefix", HA_PREFIX)
        )

    def remove_home_assistant(self) -> bool:
        """Take Home Assistant's user away (refused from the next reload); whether there was one."""
        with self._locked():
            data = self._read()
            if not data.get("homeassistant"):
                return False
            data.pop("homeassistant")
            self._write(data)
            return True

    def discovery_prefixes(self, data: dict[str, Any] | None = None) -> list[str]:
        """The discovery prefixes the hub may publish under: the runtime's and Home Assistant's user's."""
        data = self._read() if data is None else data
        found = [self.discovery_prefix] if self.discovery_prefix else []
        entry = data.get("homeassistant")
        if entry:
            found.append(entry.get("prefix", HA_PREFIX))
        return list(dict.fromkeys(found))

    def nodes(self) -> list[NodeEntry]:
        """Every node that ever had credentials, sorted by id, without passwords."""
        return [
            NodeEntry(node, entry.get("added_at", ""), entry.get("revoked_at"))
            for node, entry in sorted(self._read()["nodes"].items())
        ]

    def mosquitto_files(self) -> tuple[Path, Path]:
        """(password_file, acl_file) for mosquitto's ``password_file`` and ``acl_file``, written afresh."""
        with self._locked():
            data = self._read()
            if not self._with_hub(data) and self.password_file.exists() and self.acl_file.exists():
                try:
                    self._write_mosquitto_files(data)
                except OSError as exc:
                    raise ConfigError(f"cannot write {self.password_file}: {exc.strerror or exc}") from None
            else:
                self._write(data)
        return self.password_file, self.acl_file

    def tls_files(self) -> TlsFiles | None:
        """The table's TLS files in ``tls/`` (``ca.crt``, ``broker.crt``, ``broker.key``), when all are there."""
        paths = [self.tls_dir / name for name in TLS_NAMES]
        if not all(p.is_file() for p in paths):
            return None
        return TlsFiles(*paths)

    # --- mosquitto's files ------------------------------------------------------------------
    def acl_text(self, data: dict[str, Any] | None = None) -> str:
        data = self._read() if data is None else data
        root = protocol.table_prefix(self.table)
        lines = [
            f"# Made by companion from {self.store_path.name} for table {self.table}; edits are overwritten.",
            "# Each node may publish only its own event and status, and read only its own cmd,",
            "# the table's state and the hub's status. The hub reads and writes the whole table",
            "# (and Home Assistant's discovery prefix); Home Assistant reads the table and writes",
            "# only under its discovery prefix.",
            "",
            f"user {HUB_USER}",
            f"topic readwrite {root}/#",
        ]
        lines += [f"topic readwrite {prefix}/#" for prefix in self.discovery_prefixes(data)]
        ha = data.get("homeassistant")
        if ha and ha.get("hash"):
            lines += [
                "",
                f"user {ha['user']}",
                f"topic read {root}/#",
                f"topic readwrite {ha.get('prefix', HA_PREFIX)}/#",
            ]
        lines += self.node_acl_lines(data)
        return "\n".join(lines) + "\n"

    def node_acl_lines(self, data: dict[str, Any] | None = None) -> list[str]:
        """The nodes' part of the rules: each may publish its own event and status and read its own
        commands, the table's state and the hub's status."""
        data = self._read() if data is None else data
        lines: list[str] = []
        for node, entry in sorted(data["nodes"].items()):
            if entry.get("revoked_at") or not entry.get("hash"):
                continue
            lines += [
                "",
                f"user {self.node_user(node, data)}",
                f"topic write {protocol.node_topic(self.table, node, 'event')}",
                f"topic write {protocol.node_topic(self.table, node, 'status')}",
                f"topic read {protocol.node_topic(self.table, node, 'cmd')}",
                f"topic read {protocol.table_state_topic(self.table)}",
                f"topic read {protocol.hub_status_topic(self.table)}",
            ]
        return lines

    def password_text(self, data: dict[str, Any] | None = None) -> str:
        data = self._read() if data is None else data
        lines = []
        if data.get("hub"):
            lines.append(f"{data['hub']['user']}:{data['hub']['hash']}")
        lines += [f"{user}:{hashed}" for user, hashed in self.node_rules(data)]
        ha = data.get("homeassistant")
        if ha and ha.get("hash"):
            lines.append(f"{ha['user']}:{ha['hash']}")
        return "\n".join(lines) + "\n"

    def _write_mosquitto_files(self, data: dict[str, Any]) -> None:
        mode = 0o640 if data.get("broker_group_reads") else 0o600  # see share_with_broker
        _write_private(self.password_file, self.password_text(data), mode)
        _write_private(self.acl_file, self.acl_text(data), mode)

    def share_with_broker(self) -> None:
        """Let the system's mosquitto read the password and ACL files through this user's group
        (the installer puts the ``mosquitto`` user in the ``companion`` group): both files become
        0640 and their folders 0750 from now on; the credential store itself stays 0600."""
        with self._locked():
            data = self._read()
            self._with_hub(data)
            data["broker_group_reads"] = True
            try:
                for folder in (self.directory.parent, self.directory):
                    folder.chmod(0o750)
            except OSError as exc:
                raise ConfigError(
                    f"cannot open {self.directory} to the broker's group: {exc.strerror or exc}"
                ) from None
            self._write(data)

    # --- a running broker ----------------------------------------------------------------------
    def record_broker(self, pid: int, argv: list[str]) -> None:
        """Note the mosquitto process that uses these files (``MosquittoBroker`` calls this on start)."""
        _write_private(self.broker_record, json.dumps({"pid": pid, "argv": argv}) + "\n")

    def forget_broker(self, pid: int | None = None) -> None:
        """The broker stopped: forget it (only if it is still the one recorded, when ``pid`` is given)."""
        try:
            if pid is not None and json.loads(self.broker_record.read_text()).get("pid") != pid:
                return
            self.broker_record.unlink()
        except (OSError, ValueError):
            pass

    def running_broker_pid(self) -> int | None:
        """The pid of the embedded mosquitto that uses these files, if one runs now.

        Checked against the process's command line, so a stale record (after a crash, with
        the pid used again by another program) is never signalled."""
        try:
            record = json.loads(self.broker_record.read_text())
            pid, argv = int(record["pid"]), list(record["argv"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return pid if _process_argv(pid) == argv else None

    def reload_broker(self) -> str | None:
        """Tell the running embedded mosquitto to read the files again (SIGHUP); what was done, or
        None when no broker of this table runs here."""
        pid = self.running_broker_pid()
        if pid is None:
            return None
        try:
            os.kill(pid, signal.SIGHUP)
        except OSError as exc:
            raise ConfigError(
                f"cannot tell the broker (pid {pid}) to reload: {exc.strerror or exc}; "
                "run this as the user that runs the hub"
            ) from None
        return f"the table's broker (pid {pid}) reloaded its users"


class ClubAuth:
    """The users of a club's one locked broker, made from every table's own store.

    Each table keeps its credential store (``<data_dir>/auth/<table>/``, the same as a lone table's:
    ``companion node add NODE --table T`` works as for one table), and its nodes log in as
    ``<table>.<node>`` (:meth:`BrokerAuth.join_club`), so two tables may both have a ``red-1``. The
    club's shared connection logs in as ``hub`` with the club's own password
    (``<data_dir>/club-auth/hub.json``) and may read and write every table. The broker reads
    ``<data_dir>/club-auth/mosquitto.passwd`` and ``mosquitto.acl``, written afresh by
    :meth:`mosquitto_files` whenever a table joins or a table's store changes
    (:meth:`changed_since`), and read again on SIGHUP. Home Assistant logins and TLS are a lone
    table's features for now (docs/club.md).
    """

    def __init__(self, data_dir: str | Path) -> None:
        self.data_dir = Path(data_dir)
        self.directory = self.data_dir / "club-auth"
        _private_dir(self.directory)
        self.password_file = self.directory / "mosquitto.passwd"
        self.acl_file = self.directory / "mosquitto.acl"
        self.hub_file = self.directory / "hub.json"
        self.broker_record = self.directory / "broker.json"
        self.tables: dict[str, BrokerAuth] = {}
        self._seen: dict[str, float] = {}
        """Each table's store as last written into the files (its modification time)."""
        self._running: tuple[int, list[str]] | None = None
        """(pid, argv) of the club's mosquitto while it runs."""
        self._lock = threading.Lock()

    def table(self, table: str) -> BrokerAuth:
        """The store of ``table``, joined to the club (its nodes log in as ``<table>.<node>``)."""
        with self._lock:
            auth = self.tables.get(table)
            if auth is None:
                auth = BrokerAuth.for_table(self.data_dir, table)
                auth.join_club()
                if self._running is not None:  # `companion node add --table T` reloads the club's broker
                    auth.record_broker(*self._running)
                self.tables[table] = auth
            return auth

    def leave(self, table: str) -> None:
        """``table`` ended: its nodes are dropped from the files at the next :meth:`mosquitto_files`."""
        with self._lock:
            self.tables.pop(table, None)
            self._seen.pop(table, None)

    def _hub(self) -> dict[str, str]:
        try:
            found: dict[str, str] = json.loads(self.hub_file.read_text(encoding="utf-8"))
            if found.get("user") == HUB_USER and found.get("password") and found.get("hash"):
                return found
        except (OSError, ValueError):
            pass
        password = make_password()
        made = {"user": HUB_USER, "password": password, "hash": password_hash(password)}
        _write_private(self.hub_file, json.dumps(made, indent=2) + "\n")
        return made

    def hub_address(self, address: BrokerAddress) -> BrokerAddress:
        """``address`` with the club's hub user and password."""
        hub = self._hub()
        return replace(address, username=hub["user"], password=hub["password"])

    def changed_since(self) -> bool:
        """Whether a table's store was written since the files were made (a node added or revoked)."""
        with self._lock:
            tables = dict(self.tables)
        for name, auth in tables.items():
            try:
                if auth.store_path.stat().st_mtime != self._seen.get(name):
                    return True
            except OSError:
                continue
        return False

    def mosquitto_files(self) -> tuple[Path, Path]:
        """(password_file, acl_file) of every table in the club, written afresh."""
        hub = self._hub()
        passwd = [f"{hub['user']}:{hub['hash']}"]
        acl = [
            "# Made by companion for a club's broker from each table's credentials; edits are overwritten.",
            "# The club's hub reads and writes every table; each node only its own topics at its table.",
            "",
            f"user {HUB_USER}",
            "topic readwrite companion/v1/#",
        ]
        with self._lock:
            tables = dict(self.tables)
        seen: dict[str, float] = {}
        for name, auth in sorted(tables.items()):
            with auth._locked():
                data = auth._read()
                try:
                    seen[name] = auth.store_path.stat().st_mtime
                except OSError:
                    seen[name] = 0.0
            passwd += [f"{user}:{hashed}" for user, hashed in auth.node_rules(data)]
            acl += auth.node_acl_lines(data)
        try:
            _write_private(self.password_file, "\n".join(passwd) + "\n")
            _write_private(self.acl_file, "\n".join(acl) + "\n")
        except OSError as exc:
            raise ConfigError(
                f"cannot write the club's broker users in {self.directory}: {exc.strerror or exc}"
            ) from None
        with self._lock:
            self._seen.update(seen)
        return self.password_file, self.acl_file

    def record_broker(self, pid: int, argv: list[str]) -> None:
        """Note the club's mosquitto, here and in every table's store (``companion node add`` then
        tells it to reload; the club rewrites the files it reads within a moment)."""
        record = json.dumps({"pid": pid, "argv": argv}) + "\n"
        _write_private(self.broker_record, record)
        with self._lock:
            self._running = (pid, list(argv))
            tables = list(self.tables.values())
        for auth in tables:
            auth.record_broker(pid, argv)

    def forget_broker(self, pid: int | None = None) -> None:
        with self._lock:
            self._running = None
            tables = list(self.tables.values())
        for auth in tables:
            auth.forget_broker(pid)
        try:
            self.broker_record.unlink()
        except OSError:
            pass
