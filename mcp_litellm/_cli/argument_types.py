"""Whether a tool call's argument values have the types the tool's input schema asks for.

``mcp-litellm call add a=two`` should say at once that ``a`` must be an integer, rather than send the
call and print the server's validation error. Only types are checked here (``type``, and ``anyOf`` /
``oneOf`` whose branches differ by type, through ``$ref`` and nested objects and arrays); ranges,
patterns and the like are the server's to judge.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from mcp_litellm._cli.render import type_name

_SHOWN = 40
"""Characters of a wrong value shown in the message."""

_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"),
               (dict, "object"), (type(None), "null"))


def _json_type(value: Any) -> str:
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), type(value).__name__)


def _is_type_error(error: Any) -> bool:
    """A ``type`` failure, or an ``anyOf``/``oneOf`` none of whose branches fits for type reasons alone."""
    if error.validator == "type":
        return True
    return error.validator in ("anyOf", "oneOf") and bool(error.context) and all(
        _is_type_error(e) for e in error.context)


def _where(path: Iterable[Any]) -> str:
    """``person.addresses[0].zip`` from a path of keys and indexes."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def type_errors(arguments: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """One phrase per argument value of the wrong type (``argument 'a' must be integer, got "two" (string)``);
    empty when every type fits, or when the schema cannot be read (then the server judges)."""
    try:
        from jsonschema.validators import validator_for

        validator = validator_for(schema)(schema)
        errors = sorted((e for e in validator.iter_errors(arguments) if e.absolute_path and _is_type_error(e)),
                        key=lambda e: [str(p) for p in e.absolute_path])
    except Exception:  # an unreadable schema or an unresolvable $ref: not ours to refuse the call for
        return []
    phrases: list[str] = []
    for error in errors:
        phrase = (f"argument {_where(error.absolute_path)!r} must be {type_name(error.schema)}, "
                  f"got {_shown(error.instance)} ({_json_type(error.instance)})")
        if phrase not in phrases:
            phrases.append(phrase)
    return phrases
