"""Typed async Python stubs for the tools a program may call in code mode, and the Python names they get.

A tool's stub comes from its ``inputSchema`` (and ``outputSchema``), on one line::

    async def add(a: int, b: int) -> int: \"\"\"Add two integers.\"\"\"

Tool names that are not Python identifiers (``fs.read-file``), keywords or builtins get a stable name that
collides with no other (``fs_read_file``, ``sum_``), and the stub says which tool it calls.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["Stub", "name_tools", "parameter_order", "python_type", "stub_text", "unwrap_result"]

RESERVED = frozenset({"asyncio", "json", "re", "math", "print", "ToolError"})
_DESCRIPTION_LIMIT = 400
QUOTES = chr(34) * 3
BACKSLASH = chr(92)


@dataclass(frozen=True)
class Stub:
    """One callable tool in the sandbox: its Python name, the tool name the chat knows, and its stub text."""

    python_name: str
    tool_name: str
    text: str
    wrapped_result: bool  # structured output {"result": x} (the SDK's wrapping of a plain return value): x
    server: str = ""  # the server offering the tool ("" for a local function)
    parameters: tuple[str, ...] = ()  # the stub's parameters in order (positional arguments bind to them)


def _identifier(name: str) -> str:
    text = re.sub(r"\W", "_", name, flags=re.ASCII)
    if not text or text[0].isdigit():
        text = f"_{text}"
    if keyword.iskeyword(text) or keyword.issoftkeyword(text) or hasattr(builtins, text) or text in RESERVED:
        text = f"{text}_"
    return text


def name_tools(names: Iterable[str]) -> dict[str, str]:
    """``{tool name: python name}``: valid identifiers, distinct, stable (the same names give the same result,
    whatever other tools come and go, as long as no two tools reduce to the same identifier)."""
    result: dict[str, str] = {}
    taken: set[str] = set()
    ordered = sorted(names)
    direct = {n for n in ordered if _identifier(n) == n}  # names that are identifiers already keep them
    taken.update(direct)
    for name in ordered:
        if name in direct:
            result[name] = name
            continue
        base = candidate = _identifier(name)
        number = 2
        while candidate in taken:
            candidate = f"{base}_{number}"
            number += 1
        taken.add(candidate)
        result[name] = candidate
    return result


_SIMPLE = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def python_type(schema: object, depth: int = 0) -> str:
    """The Python annotation (as text) for a JSON schema."""
    if not isinstance(schema, Mapping) or depth > 4:
        return "Any"
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        return f"Literal[{', '.join(repr(v) for v in schema['enum'][:20])}]"
    if "const" in schema:
        return f"Literal[{schema['const']!r}]"
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return " | ".join(dict.fromkeys(python_type(o, depth + 1) for o in options))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(dict.fromkeys(python_type({**schema, "type": k}, depth + 1) for k in kind)) or "Any"
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind == "array":
        return f"list[{python_type(schema.get('items'), depth + 1)}]"
    if kind == "object" or "properties" in schema:
        extra = schema.get("additionalProperties")
        value = python_type(extra, depth + 1) if isinstance(extra, Mapping) and not schema.get("properties") else "Any"
        return f"dict[str, {value}]"
    return "Any"


def _wrapped(output_schema: object) -> bool:
    """Whether ``output_schema`` is the SDK's wrapping of a plain return value: ``{"result": ...}`` alone."""
    if not isinstance(output_schema, Mapping):
        return False
    properties = output_schema.get("properties")
    return isinstance(properties, Mapping) and list(properties) == ["result"] and output_schema.get("required") == [
        "result"]


def unwrap_result(stub: Stub, structured: object) -> object:
    """A tool's structured output as the program gets it (the plain value of a wrapped one)."""
    if stub.wrapped_result and isinstance(structured, dict) and set(structured) == {"result"}:
        return structured["result"]
    return structured


def _returns(output_schema: object) -> str:
    if not isinstance(output_schema, Mapping):
        return "str"
    if _wrapped(output_schema):
        return python_type(output_schema["properties"]["result"])
    return python_type(output_schema)


def _fields(output_schema: object) -> str:
    """The fields of a structured (object) output, for the docstring: ``city: str, temperature: float``."""
    if not isinstance(output_schema, Mapping) or _wrapped(output_schema):
        return ""
    properties = output_schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return ""
    return ", ".join(f"{k}: {python_type(v)}" for k, v in list(properties.items())[:20])


def _properties(input_schema: object) -> tuple[list[tuple[str, object]], set[str]]:
    """The schema's properties, required ones first (the stub's parameter order), and the required names."""
    schema = input_schema if isinstance(input_schema, Mapping) else {}
    found = schema.get("properties")
    properties: Mapping[str, object] = found if isinstance(found, Mapping) else {}
    required = set(schema.get("required") or [])
    return sorted(properties.items(), key=lambda item: item[0] not in required), required


def _plain(key: str) -> bool:
    return key.isidentifier() and not keyword.iskeyword(key)


def parameter_order(input_schema: object) -> tuple[str, ...]:
    """The names of the stub's parameters in order (what positional arguments bind to)."""
    return tuple(key for key, _ in _properties(input_schema)[0] if _plain(key))


def stub_text(python_name: str, tool_name: str, description: str, input_schema: object, output_schema: object,
              where: str = "") -> str:
    """The ``async def`` stub of one tool, on one line, its docstring last."""
    ordered, required = _properties(input_schema)
    params: list[str] = []
    odd: list[str] = []
    notes: list[str] = []
    for key, prop in ordered:
        if not _plain(key):
            odd.append(key)
            continue
        annotation = python_type(prop)
        if key in required:
            params.append(f"{key}: {annotation}")
        else:
            default = prop.get("default") if isinstance(prop, Mapping) else None
            shown = repr(default) if isinstance(default, str | int | float | bool) or default is None else "..."
            if default is None and annotation.endswith(" | None"):
                annotation = annotation[: -len(" | None")]  # `x: str = None`, shorter and as clear as `str | None`
            params.append(f"{key}: {annotation} = {shown}")
        text = prop.get("description") if isinstance(prop, Mapping) else None
        if isinstance(text, str) and text.strip():
            notes.append(f"{key}: {_short(text, 160)}")
    if odd:
        params.append("**arguments: Any")
        notes.append(f"arguments not valid as Python names, passed as **{{...}}: {', '.join(map(repr, odd))}")
    signature = f"async def {python_name}({', '.join(params)})"
    lines = [_short(description, _DESCRIPTION_LIMIT) or "(no description)"]
    if python_name != tool_name:
        lines.append(f"Calls the tool {tool_name!r}{where}.")
    lines.extend(notes)
    fields = _fields(output_schema)
    if fields:
        lines.append(f"Returns a dict with {fields}.")
    quotes = QUOTES
    doc = " ".join(_sentence(line).replace(quotes, "'").replace(BACKSLASH, "/") for line in lines)
    return f"{signature} -> {_returns(output_schema)}: {quotes}{doc}{quotes}"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?", ")")) else f"{text}."


def _short(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."
