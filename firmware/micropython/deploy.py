#!/usr/bin/env python3
"""Copy the MicroPython node program onto a board with mpremote.

Runs on your computer (CPython 3.11+, standard library; ``pip install
mpremote``). It stages exactly the files the board needs::

    :boot.py :main.py :config.py          (at the root: what the board runs at power-up)
    :lib/nodeapp.py :lib/board.py         (the program: the files of package.json, below)
    :lib/companion/__init__.py            (a docstring only: the hub's package is not needed)
    :lib/companion/core/{__init__,sand,protocol,node,debounce,leds,serial_lines}.py
    :lib/mdns.py                          (Wi-Fi nodes without "broker_host": they find the hub by mDNS)
    :lib/umqtt/simple.py                  (Wi-Fi nodes, by `mpremote mip install`)
    :ca.crt                               (with "broker_tls": True: --ca-file, as "broker_ca" names it)

and runs the mpremote commands, one per step, stopping at the first failure.
``--dry-run`` prints the commands and leaves the staged copy for inspection.

The program's files and its dependency are listed once, in ``package.json`` next to this
script, in the form ``mpremote mip install`` reads: so a node that already has its config
is updated with one command (``mpremote mip install firmware/micropython/package.json``),
which puts the same files in the same places as this script.

    python3 firmware/micropython/deploy.py --config my-config.py --port /dev/ttyACM0
"""

from __future__ import annotations

import argparse
import ast
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PACKAGE = HERE / "package.json"
"""The node's program and dependencies for ``mpremote mip install`` (installed under /lib)."""
ROOT_FILES = ("boot.py", "main.py")
MDNS_FILE = "mdns.py"
"""Only for a Wi-Fi node whose config has no broker_host: the one-shot mDNS query that finds the hub."""
OLD_ROOT_MODULES = ("nodeapp.py", "board.py", "mdns.py")
"""Where deploy.py put the program before it moved to /lib: removed, since the root comes first on
the board's import path and old copies there would hide the new ones."""


class DeployError(Exception):
    """Something the user must fix before flashing; the message says what."""


def read_config(path: Path) -> dict:
    """The CONFIG dict of a config.py, read without running it on this computer."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except OSError as exc:
        raise DeployError(f"config {str(path)!r} cannot be read ({exc.strerror})") from None
    except SyntaxError as exc:
        raise DeployError(f"config {path} is not valid Python: line {exc.lineno}: {exc.msg}") from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CONFIG" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                raise DeployError(f"config {path}: CONFIG must be a plain dict of literals") from None
            if not isinstance(value, dict):
                raise DeployError(f"config {path}: CONFIG must be a dict")
            return value
    raise DeployError(f"config {path} defines no CONFIG")


def check(config: dict) -> dict:
    """Check the config with the node's own rules (nodeapp.check_config) before it goes on the board."""
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(HERE))
    try:
        import nodeapp
    finally:
        sys.path.remove(str(HERE))
        sys.path.remove(str(REPO))
    try:
        return nodeapp.check_config(config)
    except nodeapp.ConfigError as exc:
        raise DeployError(str(exc)) from None


def package(path: Path = PACKAGE) -> dict:
    """package.json: ``urls`` (path under /lib, file relative to package.json) and ``deps``
    (micropython-lib package, version), checked so a broken file is named, not half-deployed."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        urls = [(str(target), str(source)) for target, source in data["urls"]]
        deps = [(str(name), str(version)) for name, version in data.get("deps", [])]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DeployError(f"{path} is not a mip package file: {exc}") from None
    return {"urls": urls, "deps": deps}


def lib_files(*, discovery: bool, path: Path = PACKAGE) -> list[tuple[str, Path]]:
    """(path under /lib, file here) for every file of package.json, mdns.py only with ``discovery``."""
    found = []
    for target, source in package(path)["urls"]:
        if target == MDNS_FILE and not discovery:
            continue
        local = (path.parent / source).resolve()
        if not local.is_file():
            raise DeployError(f"{path}: {source} (for {target}) does not exist")
        found.append((target, local))
    return found


def stage(
    config_path: Path, into: Path, ca_file: tuple[Path, str] | None = None, *, discovery: bool = False
) -> list[Path]:
    """Lay out the board's files under ``into``; return them relative to it.

    ``ca_file`` is (the table's CA certificate here, its name on the board) for a TLS node."""
    for target, local in lib_files(discovery=discovery):
        dest = into / "lib" / target
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(local, dest)
    for name in ROOT_FILES:
        shutil.copy(HERE / name, into / name)
    shutil.copy(config_path, into / "config.py")
    files = sorted(p.relative_to(into) for p in into.rglob("*.py"))
    if ca_file is not None:
        local, on_board = ca_file
        target = into / on_board.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(local, target)
        files.append(target.relative_to(into))
    return files


def ca_for(cfg: dict, ca_file: Path | None) -> tuple[Path, str] | None:
    """(local CA file, name on the board) for a TLS node; None without TLS. Checks the file is PEM."""
    if not cfg.get("broker_tls"):
        if ca_file is not None:
            raise DeployError('--ca-file is only for a config with "broker_tls": True')
        return None
    if ca_file is None:
        raise DeployError(
            f'the config has "broker_tls": True: give --ca-file with the table\'s CA certificate '
            f"(it goes on the board as {cfg['broker_ca']!r})"
        )
    try:
        pem = ca_file.read_bytes()
    except OSError as exc:
        raise DeployError(f"CA file {str(ca_file)!r} cannot be read ({exc.strerror})") from None
    if b"-----BEGIN CERTIFICATE-----" not in pem:
        raise DeployError(f"CA file {ca_file} is not a PEM certificate")
    if b"PRIVATE KEY" in pem:
        raise DeployError(f"{ca_file} holds a private key: give the CA certificate (ca.crt) only")
    return ca_file, cfg["broker_ca"]


def commands(
    mpremote: str, port: str | None, staged: Path, files: list[Path], *, mip: bool
) -> list[list[str]]:
    """The mpremote invocations, in order."""
    base = [mpremote] + (["connect", port] if port else [])
    out = []
    if mip:  # package.json's dependencies: umqtt.simple (never umqtt.robust: it blocks for ever)
        for name, version in package()["deps"]:
            out.append(base + ["mip", "install", name if version == "latest" else f"{name}@{version}"])
    old = ", ".join(f'"{name}"' for name in OLD_ROOT_MODULES)
    out.append(base + ["exec", f'import os; [os.remove(n) for n in ({old}) if n in os.listdir("/")]'])
    dirs = sorted(
        {parent for p in files for parent in p.parents if parent != Path(".")},
        key=lambda d: (len(d.parts), d.as_posix()),
    )
    for d in dirs:
        parent, name = "/" + d.parent.as_posix().strip("."), d.name
        parent = parent.rstrip("/") or "/"
        out.append(
            base
            + [
                "exec",
                f'import os; os.mkdir("/{d.as_posix()}") if "{name}" not in os.listdir("{parent}") else None',
            ]
        )
    for f in files:
        out.append(base + ["fs", "cp", str(staged / f), f":{f.as_posix()}"])
    out.append(base + ["reset"])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Copy the sandtimer node program to a MicroPython board.")
    parser.add_argument("--config", type=Path, required=True, help="your config.py (from config.example.py)")
    parser.add_argument("--port", help="serial port, e.g. /dev/ttyACM0 (default: mpremote's auto-detection)")
    parser.add_argument("--mpremote", default="mpremote", help="the mpremote command")
    parser.add_argument(
        "--no-mip", action="store_true", help="do not install umqtt (USB-serial nodes need none)"
    )
    parser.add_argument("--dry-run", action="store_true", help="stage the files and print the commands only")
    parser.add_argument(
        "--stage-dir", type=Path, help="stage into this new folder (default: a temporary one)"
    )
    parser.add_argument(
        "--ca-file",
        type=Path,
        help='the table\'s CA certificate, for a config with "broker_tls": True (copied as broker_ca)',
    )
    args = parser.parse_args(argv)
    try:
        cfg = check(read_config(args.config))
        ca = ca_for(cfg, args.ca_file)
        package()
        if not args.dry_run and shutil.which(args.mpremote) is None:
            raise DeployError(f"{args.mpremote} not found: pip install mpremote")
    except DeployError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.stage_dir is not None:
        args.stage_dir.mkdir(parents=True)
        staged = args.stage_dir
    else:
        staged = Path(tempfile.mkdtemp(prefix="companion-node-"))
    discovery = cfg["link"] == "wifi" and cfg["broker_host"] is None
    files = stage(args.config, staged, ca, discovery=discovery)
    mip = cfg["link"] == "wifi" and not args.no_mip
    steps = commands(args.mpremote, args.port, staged, files, mip=mip)
    print(
        f"node {cfg['node_id']} ({cfg['board']}, link {cfg['link']}): {len(files)} files staged in {staged}"
    )
    for step in steps:
        print("$ " + shlex.join(step))
        if args.dry_run:
            continue
        result = subprocess.run(step)
        if result.returncode != 0:
            print(
                f"error: the step above failed (exit {result.returncode}); is the board plugged in and the "
                "serial bridge stopped?",
                file=sys.stderr,
            )
            return 1
    if not args.dry_run:
        shutil.rmtree(staged)
    return 0


if __name__ == "__main__":
    sys.exit(main())
