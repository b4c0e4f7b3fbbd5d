"""Request bodies of the hub's web routes: bounded, strict JSON objects, and the answer to one that is not.

Every POST route reads its body with :func:`read_json` (routes that take none too, with
``optional=True``): bounded in size (:data:`MAX_BODY_BYTES`) and nesting (:data:`MAX_DEPTH`),
strict JSON (no ``NaN``, no unpaired surrogates) read by the protocol's one bounded reader
(:func:`companion.core.protocol.loads`), and an object. A body that is not is a
:class:`BadRequestError`, answered ``{"ok": false, "error": "...", "message": ...}`` with a 4xx
(:func:`error_body`) before anything reaches the table.
"""

from __future__ import annotations

from typing import Any

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge

from companion.core import protocol
from companion.errors import CompanionError
from companion.rules.text import Text

MAX_BODY_BYTES = 64 * 1024
"""Largest JSON body the API reads (a setup or a game action is a few hundred bytes)."""

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects in a JSON body (a game action is at most 4 or 5 deep)."""


class BadRequestError(CompanionError, ValueError):
    """A request the API cannot use: answered with ``status`` and the sentence; nothing changes."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def error_body(message: Text | str, **more: Any) -> dict[str, Any]:
    """``{"ok": false, "error": English, "message": text}`` plus ``more``."""
    shown = message.to_json() if isinstance(message, Text) else message
    return {"ok": False, "error": str(message), "message": shown, **more}


def parse_json(raw: bytes) -> Any:
    """Strict, bounded JSON (the protocol's one reader): raises :class:`BadRequestError` with the reason,
    never anything else."""
    try:
        return protocol.loads(raw, MAX_BODY_BYTES, "the body", max_depth=MAX_DEPTH, strict=True)
    except protocol.PayloadTooLargeError:
        raise BadRequestError(f"the body is larger than {MAX_BODY_BYTES // 1024} KB", 413) from None
    except protocol.PayloadTooDeepError:
        raise BadRequestError(f"the body is nested more than {MAX_DEPTH} levels deep") from None
    except protocol.PayloadNotUnicodeError:
        raise BadRequestError("the body has text that is not valid Unicode") from None
    except protocol.MalformedPayloadError:
        raise BadRequestError("the body is not valid JSON") from None


def read_json(example: str, *, optional: bool = False) -> dict[str, Any]:
    """The request's JSON object (``example`` shows what to send); ``optional``: no body reads as ``{}``.

    Raises :class:`BadRequestError` for a body that is too large, too deep, not JSON, not
    sent as JSON, or not an object.
    """
    length = request.content_length
    if length is not None and length > MAX_BODY_BYTES:
        raise BadRequestError(
            f"send a JSON object like {example}: the body is larger than {MAX_BODY_BYTES // 1024} KB", 413
        )
    try:
        raw = request.stream.read(MAX_BODY_BYTES + 1)
    except RequestEntityTooLarge:
        raise BadRequestError(f"send a JSON object like {example}: the body is too large", 413) from None
    if not raw and optional:
        return {}
    if not request.is_json:
        raise BadRequestError(f"send a JSON object like {example}, as Content-Type: application/json")
    try:
        value = parse_json(raw)
    except BadRequestError as exc:
        raise BadRequestError(f"send a JSON object like {example}: {exc}", exc.status) from None
    if not isinstance(value, dict):
        raise BadRequestError(f"send a JSON object like {example}")
    return value
