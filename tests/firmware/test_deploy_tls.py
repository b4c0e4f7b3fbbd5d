"""deploy.py --ca-file: the table's CA certificate goes to a TLS node's board, under its broker_ca name."""

from __future__ import annotations

import importlib.util
import shlex

from tests.firmware.conftest import REPO

MPY = REPO / "firmware" / "micropython"
_spec = importlib.util.spec_from_file_location("deploy_tls", MPY / "deploy.py")
deploy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(deploy)

PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def _config(tmp_path, **extra) -> str:
    config = {
        "node_id": "blue-2",
        "table": "kitchen",
        "board": "pico-w",
        "wifi_ssid": "cafe",
        "broker_host": "192.168.1.10",
        **extra,
    }
    path = tmp_path / "my-node.py"
    path.write_text(f"CONFIG = {config!r}\n")
    return str(path)


def _run(capsys, *args) -> tuple[int, str, str]:
    code = deploy.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_tls_node_gets_its_ca_on_the_board(capsys, tmp_path):
    ca = tmp_path / "ca.crt"
    ca.write_text(PEM)
    config = _config(
        tmp_path, broker_user="blue-2", broker_password="pw", broker_tls=True, broker_ca="ca.crt"
    )
    code, out, err = _run(
        capsys, "--config", config, "--ca-file", str(ca), "--dry-run", "--stage-dir", str(tmp_path / "s")
    )
    assert code == 0, err
    assert (tmp_path / "s" / "ca.crt").read_text() == PEM
    copies = [
        shlex.split(line[2:]) for line in out.splitlines() if line.startswith("$ ") and " fs cp " in line
    ]
    assert ["mpremote", "fs", "cp", str(tmp_path / "s" / "ca.crt"), ":ca.crt"] in copies


def test_a_tls_node_without_ca_file_is_refused(capsys, tmp_path):
    config = _config(tmp_path, broker_tls=True, broker_ca="ca.crt")
    code, out, err = _run(capsys, "--config", config, "--dry-run")
    assert code == 2 and "give --ca-file" in err and "'ca.crt'" in err and out == ""


def test_ca_file_must_be_a_certificate_and_no_key(capsys, tmp_path):
    config = _config(tmp_path, broker_tls=True, broker_ca="ca.crt")
    key = tmp_path / "ca.key"
    key.write_text("-----BEGIN PRIVATE KEY-----\n" + PEM)
    code, _, err = _run(capsys, "--config", config, "--ca-file", str(key), "--dry-run")
    assert code == 2 and "holds a private key" in err
    junk = tmp_path / "junk.crt"
    junk.write_text("hello")
    code, _, err = _run(capsys, "--config", config, "--ca-file", str(junk), "--dry-run")
    assert code == 2 and "is not a PEM certificate" in err
    code, _, err = _run(capsys, "--config", config, "--ca-file", str(tmp_path / "gone.crt"), "--dry-run")
    assert code == 2 and "cannot be read" in err


def test_ca_file_without_tls_is_refused(capsys, tmp_path):
    ca = tmp_path / "ca.crt"
    ca.write_text(PEM)
    code, _, err = _run(capsys, "--config", str(MPY / "config.example.py"), "--ca-file", str(ca), "--dry-run")
    assert code == 2 and "only for a config with" in err
