#!/usr/bin/env python3
"""Add up the bills of materials in hardware/bom/ so no total is ever typed by hand.

Reads one CSV per node kind (``<kind>.csv``: ref, part, typical_part_number, qty,
unit_cost_eur, optionally unit_cost_10_eur, optional, notes) and ``table-extras.csv``
(things a whole table needs once, such as chargers or a USB hub), and writes
``table-sets.csv``: the cost of one node and of a full table of 8 nodes (Time 'n'
Space) or 10 nodes (Space Dealer) for every kind, with and without the optional parts.

``unit_cost_eur`` is the approximate price of one piece bought for one node;
``unit_cost_10_eur``, where a BOM gives it, the price of one piece when buying for ten
nodes (packs, reels, bulk listings). A table buys its parts for 8 or 10 nodes at once,
so the table totals use the 10-unit prices (the single price where there is none).
All prices are in EUR; the script only does the arithmetic. Standard library only.

Usage::

    python hardware/tools/bom_totals.py            # print the summary
    python hardware/tools/bom_totals.py --write    # rewrite hardware/bom/table-sets.csv
    python hardware/tools/bom_totals.py --check    # exit 1 if table-sets.csv is stale
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

BOM_DIR = Path(__file__).resolve().parent.parent / "bom"
KINDS = ("pi-zero-2w", "esp32", "pico-w", "pico-usb", "esp32-c3")
TABLE_SIZES = ((8, "Time 'n' Space"), (10, "Space Dealer"))
NODE_COLUMNS = ("ref", "part", "typical_part_number", "qty", "unit_cost_eur", "optional", "notes")
NODE_COLUMNS_10 = (*NODE_COLUMNS[:5], "unit_cost_10_eur", *NODE_COLUMNS[5:])
"""The same with the price per piece when buying for ten nodes."""
EXTRA_COLUMNS = ("kind", "part", "typical_part_number", "qty_8", "qty_10", "unit_cost_eur", "notes")
SUMMARY_COLUMNS = (
    "kind",
    "game",
    "nodes",
    "node_eur",
    "node_10_eur",
    "node_with_options_eur",
    "table_extras_eur",
    "table_total_eur",
    "table_total_with_options_eur",
)
CENT = Decimal("0.01")


class BomError(ValueError):
    """A bill-of-materials file is malformed; the message names the file and line."""


@dataclass(frozen=True)
class BomRow:
    """One line of a node's bill of materials."""

    ref: str
    """Reference designator(s), e.g. ``R2-R9``."""
    part: str
    """What the part is, in words."""
    typical_part_number: str
    """A part number or product id that fits; equivalents are fine."""
    qty: int
    """How many one node needs."""
    unit_cost_eur: Decimal
    """Approximate price of one piece in EUR."""
    optional: bool
    """True for parts a node works without (e.g. the accelerometer)."""
    notes: str
    unit_cost_10_eur: Decimal | None = None
    """Price of one piece when buying for ten nodes; None where the BOM gives only one price."""

    @property
    def line_cost_eur(self) -> Decimal:
        return self.qty * self.unit_cost_eur

    @property
    def line_cost_10_eur(self) -> Decimal:
        """The line at 10-unit prices (the single price where the BOM has no other)."""
        price = self.unit_cost_10_eur if self.unit_cost_10_eur is not None else self.unit_cost_eur
        return self.qty * price


@dataclass(frozen=True)
class TableExtra:
    """Something a whole table of one kind needs once (charger, USB hub)."""

    kind: str
    part: str
    qty_by_nodes: dict[int, int]
    unit_cost_eur: Decimal


def _money(text: str, where: str, column: str = "unit_cost_eur") -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise BomError(f"{where}: {column} {text!r} is not a number") from None
    if not value.is_finite() or value < 0:
        raise BomError(f"{where}: {column} {text!r} must be a price of zero or more")
    if value != value.quantize(CENT):
        raise BomError(f"{where}: {column} {text!r} has more than two decimals")
    return value


def _count(text: str, where: str, column: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise BomError(f"{where}: {column} {text!r} is not a whole number") from None
    if value < 1:
        raise BomError(f"{where}: {column} {text!r} must be at least 1")
    return value


def _reader(text: str, name: str, *choices: tuple[str, ...]) -> csv.DictReader:
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) not in choices:
        raise BomError(f"{name}: header must be {' or '.join(','.join(c) for c in choices)}")
    return reader


def parse_bom(text: str, name: str = "<bom>") -> list[BomRow]:
    """Parse one node's BOM CSV; every row needs a ref, a part, a qty >= 1 and a price (two prices,
    the 10-unit one no higher than the single one, when the header has ``unit_cost_10_eur``)."""
    rows = []
    reader = _reader(text, name, NODE_COLUMNS, NODE_COLUMNS_10)
    columns = tuple(reader.fieldnames or ())
    bulk = "unit_cost_10_eur" in columns
    for line_no, raw in enumerate(reader, start=2):
        where = f"{name} line {line_no}"
        if None in raw or any(raw[c] is None for c in columns):
            raise BomError(f"{where}: expected {len(columns)} columns")
        required = ("ref", "part", "typical_part_number", "qty", "unit_cost_eur", "optional")
        for column in required + (("unit_cost_10_eur",) if bulk else ()):
            if not raw[column].strip():
                raise BomError(f"{where}: {column} is empty")
        if raw["optional"] not in ("yes", "no"):
            raise BomError(f"{where}: optional must be yes or no, not {raw['optional']!r}")
        single = _money(raw["unit_cost_eur"], where)
        ten = _money(raw["unit_cost_10_eur"], where, "unit_cost_10_eur") if bulk else None
        if ten is not None and ten > single:
            raise BomError(f"{where}: unit_cost_10_eur {ten} is more than the single-unit price {single}")
        rows.append(
            BomRow(
                ref=raw["ref"],
                part=raw["part"],
                typical_part_number=raw["typical_part_number"],
                qty=_count(raw["qty"], where, "qty"),
                unit_cost_eur=single,
                optional=raw["optional"] == "yes",
                notes=raw["notes"],
                unit_cost_10_eur=ten,
            )
        )
    if not rows:
        raise BomError(f"{name}: no parts listed")
    return rows


def parse_extras(text: str, name: str = "table-extras.csv") -> list[TableExtra]:
    """Parse the per-table extras; quantities are given for 8 and for 10 nodes."""
    extras = []
    for line_no, raw in enumerate(_reader(text, name, EXTRA_COLUMNS), start=2):
        where = f"{name} line {line_no}"
        if None in raw or any(raw[c] is None for c in EXTRA_COLUMNS):
            raise BomError(f"{where}: expected {len(EXTRA_COLUMNS)} columns")
        if raw["kind"] not in KINDS:
            raise BomError(f"{where}: unknown node kind {raw['kind']!r}")
        extras.append(
            TableExtra(
                kind=raw["kind"],
                part=raw["part"],
                qty_by_nodes={n: _count(raw[f"qty_{n}"], where, f"qty_{n}") for n, _ in TABLE_SIZES},
                unit_cost_eur=_money(raw["unit_cost_eur"], where),
            )
        )
    return extras


def node_cost(rows: list[BomRow], *, include_optional: bool = False, tens: bool = False) -> Decimal:
    """Cost of one node: sum of qty x unit price, optional parts only when asked; at 10-unit
    prices with ``tens``."""
    return sum(
        (r.line_cost_10_eur if tens else r.line_cost_eur for r in rows if include_optional or not r.optional),
        Decimal("0.00"),
    )


def extras_cost(extras: list[TableExtra], kind: str, nodes: int) -> Decimal:
    """Cost of the things one table of ``nodes`` nodes of ``kind`` needs once."""
    return sum(
        (e.qty_by_nodes[nodes] * e.unit_cost_eur for e in extras if e.kind == kind),
        Decimal("0.00"),
    )


def load_boms(bom_dir: Path = BOM_DIR) -> dict[str, list[BomRow]]:
    """Read ``<kind>.csv`` for every node kind."""
    boms = {}
    for kind in KINDS:
        path = bom_dir / f"{kind}.csv"
        if not path.is_file():
            raise BomError(f"{path}: missing bill of materials for node kind {kind}")
        boms[kind] = parse_bom(path.read_text(encoding="utf-8"), path.name)
    return boms


def table_sets(bom_dir: Path = BOM_DIR) -> list[dict[str, str]]:
    """One summary row per node kind and table size, all money as strings with 2 decimals."""
    boms = load_boms(bom_dir)
    extras_path = bom_dir / "table-extras.csv"
    extras = parse_extras(extras_path.read_text(encoding="utf-8")) if extras_path.is_file() else []
    summary = []
    for kind in KINDS:
        base = node_cost(boms[kind])
        full = node_cost(boms[kind], include_optional=True)
        base_10 = node_cost(boms[kind], tens=True)
        full_10 = node_cost(boms[kind], include_optional=True, tens=True)
        for nodes, game in TABLE_SIZES:
            shared = extras_cost(extras, kind, nodes)
            summary.append(
                {
                    "kind": kind,
                    "game": game,
                    "nodes": str(nodes),
                    "node_eur": f"{base:.2f}",
                    "node_10_eur": f"{base_10:.2f}",
                    "node_with_options_eur": f"{full:.2f}",
                    "table_extras_eur": f"{shared:.2f}",
                    "table_total_eur": f"{nodes * base_10 + shared:.2f}",
                    "table_total_with_options_eur": f"{nodes * full_10 + shared:.2f}",
                }
            )
    return summary


def render_summary(rows: list[dict[str, str]]) -> str:
    """The text of table-sets.csv (Unix newlines, fixed column order)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite table-sets.csv")
    mode.add_argument("--check", action="store_true", help="fail if table-sets.csv is stale")
    parser.add_argument("--bom-dir", type=Path, default=BOM_DIR)
    args = parser.parse_args(argv)
    try:
        text = render_summary(table_sets(args.bom_dir))
    except BomError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    target = args.bom_dir / "table-sets.csv"
    if args.write:
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target}")
    elif args.check:
        current = target.read_text(encoding="utf-8") if target.is_file() else ""
        if current != text:
            print(f"{target} is stale: run python hardware/tools/bom_totals.py --write", file=sys.stderr)
            return 1
        print(f"{target} is up to date")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
