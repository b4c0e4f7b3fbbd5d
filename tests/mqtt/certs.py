"""A small CA and broker certificates made with openssl, exactly as docs/security.md tells a table's owner."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from companion.mqtt.broker import TlsFiles


def _openssl(*args: str, cwd: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.fail("openssl is not installed: apt-get install -y openssl")
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_ca(folder: Path, name: str = "companion table CA") -> tuple[Path, Path]:
    """``ca.crt`` and ``ca.key`` in ``folder`` (docs/security.md, step 1)."""
    folder.mkdir(parents=True, exist_ok=True)
    _openssl(
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "3650",
        "-keyout", "ca.key", "-out", "ca.crt", "-subj", f"/CN={name}",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=folder,
    )  # fmt: skip
    return folder / "ca.crt", folder / "ca.key"


def make_broker_cert(folder: Path, ca: tuple[Path, Path], names: list[str]) -> tuple[Path, Path]:
    """``broker.crt`` and ``broker.key`` in ``folder``, signed by ``ca``, valid for ``names``
    (host names and IP addresses) (docs/security.md, step 2)."""
    folder.mkdir(parents=True, exist_ok=True)
    san = ",".join(("IP:" if _is_ip(n) else "DNS:") + n for n in names)
    (folder / "broker.ext").write_text(
        f"subjectAltName={san}\n"
        "basicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\n"
        "authorityKeyIdentifier=keyid\n"
    )
    _openssl(
        "req", "-new", "-newkey", "rsa:2048", "-nodes", "-sha256",
        "-keyout", "broker.key", "-out", "broker.csr", "-subj", f"/CN={names[0]}",
        cwd=folder,
    )  # fmt: skip
    _openssl(
        "x509", "-req", "-in", "broker.csr", "-CA", str(ca[0]), "-CAkey", str(ca[1]),
        "-CAcreateserial", "-days", "825", "-sha256", "-extfile", "broker.ext", "-out", "broker.crt",
        cwd=folder,
    )  # fmt: skip
    (folder / "broker.key").chmod(0o600)
    return folder / "broker.crt", folder / "broker.key"


def make_tls_files(folder: Path, names: list[str], ca: tuple[Path, Path] | None = None) -> TlsFiles:
    """A CA (unless given) and a broker certificate for ``names``, as :class:`TlsFiles`."""
    ca = ca or make_ca(folder)
    cert, key = make_broker_cert(folder, ca, names)
    return TlsFiles(ca[0], cert, key)


def _is_ip(name: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
