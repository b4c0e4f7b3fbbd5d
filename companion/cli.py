"""The ``companion`` command line: run a table, simulate nodes, score and referee games."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from companion import __version__
from companion.errors import CompanionError, InvalidRecordError
from companion.games import game_names, load_game

EXIT_BAD_INPUT = 2


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> None:
    """Print one clear line on stderr and exit with ``code``."""
    click.echo(f"companion: {message}", err=True)
    sys.exit(code)


def _read_json(source: str) -> Any:
    """Read a JSON document from a file path, or from stdin when ``source`` is ``-``."""
    try:
        if source == "-":
            text = sys.stdin.read()
            label = "standard input"
        else:
            with open(source, encoding="utf-8") as fh:
                text = fh.read()
            label = source
    except OSError as exc:
        raise InvalidRecordError(f"cannot read {source}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidRecordError(f"{source} is not UTF-8 text") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRecordError(f"{label} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc


def _run_record_command(game: str, source: str, function_name: str, verb: str) -> None:
    try:
        module = load_game(game)
        function = getattr(module, function_name, None)
        if function is None:
            raise InvalidRecordError(f"{verb} is not available for {game}")
        record = _read_json(source)
        result = function(record)
    except CompanionError as exc:
        _fail(str(exc))
    click.echo(json.dumps(result, indent=2, ensure_ascii=False))


GAME_CHOICE = click.Choice(game_names(), case_sensitive=False)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="companion")
def main() -> None:
    """Tabletop companion: a hub for board games played with electronic sandtimers."""


@main.command()
@click.argument("game", type=GAME_CHOICE)
@click.argument("file", metavar="FILE")
def score(game: str, file: str) -> None:
    """Final scoring of a JSON score sheet (FILE, or - for stdin); prints JSON."""
    _run_record_command(game, file, "score_record", "scoring")


@main.command()
@click.argument("game", type=GAME_CHOICE)
@click.argument("file", metavar="FILE")
def referee(game: str, file: str) -> None:
    """Replay a JSON game record through the rules (FILE, or - for stdin); prints JSON."""
    _run_record_command(game, file, "referee_record", "refereeing")


if __name__ == "__main__":  # pragma: no cover
    main()
