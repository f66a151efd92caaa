"""Checking a value against a JSON schema, string formats included: the one check of what a user
accepts in an elicitation form (invalid content is never sent to the server)."""

from __future__ import annotations

import datetime
import functools
import re

__all__ = ["schema_errors"]

_URI_CHARS = r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*"
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:" + _URI_CHARS)  # RFC 3986: a scheme, then URI characters
_URI_REFERENCE = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.\-]*:)?" + _URI_CHARS)  # the scheme is optional
_DATE_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:[Zz]|[+-](\d\d):(\d\d))")


def _is_uri(instance: object) -> bool:
    return not isinstance(instance, str) or _URI.fullmatch(instance) is not None


def _is_uri_reference(instance: object) -> bool:
    return not isinstance(instance, str) or _URI_REFERENCE.fullmatch(instance) is not None


def _is_date_time(instance: object) -> bool:
    """RFC 3339: ``2024-01-15T10:30:00Z``, ``2024-01-15T10:30:00.5+02:00``."""
    if not isinstance(instance, str):
        return True
    match = _DATE_TIME.fullmatch(instance)
    if match is None:
        return False
    year, month, day, hour, minute, second, offset_hours, offset_minutes = (int(g or 0) for g in match.groups())
    try:
        datetime.datetime(year, month, day, hour, minute, min(second, 59))  # second 60: a leap second
    except ValueError:
        return False
    return offset_hours < 24 and offset_minutes < 60


@functools.cache
def _format_checker() -> object:
    """jsonschema's ``FormatChecker``, plus the formats MCP forms use that jsonschema checks only with
    optional packages (``rfc3987``, ``rfc3339-validator``): unchecked, any text would pass."""
    from jsonschema import FormatChecker

    checker = FormatChecker()
    for name, check in (("uri", _is_uri), ("uri-reference", _is_uri_reference), ("date-time", _is_date_time)):
        if name not in checker.checkers:
            checker.checks(name)(check)
    return checker


def schema_errors(content: object, schema: dict[str, object] | None) -> list[str]:
    """Why ``content`` does not match the requested ``schema`` (empty when it does).

    String formats are checked too: ``email``, ``uri``, ``uri-reference``, ``date``, ``date-time`` and
    the others jsonschema checks without optional packages.
    """
    from jsonschema.validators import validator_for

    if not isinstance(content, dict):
        return [f"the content must be an object, got {type(content).__name__}"]
    if not schema:
        return []
    validator = validator_for(schema)(schema, format_checker=_format_checker())
    errors = []
    for error in sorted(validator.iter_errors(content), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path)
        errors.append(f"{where}: {error.message}" if where else error.message)
    return errors
