"""Elicitation forms asked field by field in the terminal.

Choice fields follow the elicitation schema of the 2025-11-25 specification: single-select as
``enum`` (untitled), ``oneOf`` of ``{"const", "title"}`` (titled) or ``enum`` with the legacy
``enumNames``; multi-select as an ``array`` whose ``items`` are an ``enum`` (untitled) or an
``anyOf`` of ``{"const", "title"}`` (titled), with ``minItems`` / ``maxItems``. Choices are listed
by their titles, numbered; an answer may be the number, the title or the value.
"""

from __future__ import annotations

import json
from collections.abc import Callable

Ask = Callable[[str], "str | None"]
Say = Callable[[str], None]


class _Cancelled(Exception):
    """The input ended (or was interrupted) in the middle of the form."""


def _titled(options: object) -> list[tuple[object, str]] | None:
    """``[{"const": v, "title": t}, ...]`` as (value, title) pairs; None when it is not that shape."""
    if not isinstance(options, list) or not options:
        return None
    pairs = []
    for option in options:
        if not isinstance(option, dict) or "const" not in option:
            return None
        title = option.get("title")
        pairs.append((option["const"], str(title) if isinstance(title, str) and title else _show(option["const"])))
    return pairs


def choices(schema: object) -> list[tuple[object, str]] | None:
    """The (value, title) choices of a single-select schema (titled, untitled or legacy), else None."""
    if not isinstance(schema, dict):
        return None
    for key in ("oneOf", "anyOf"):
        pairs = _titled(schema.get(key))
        if pairs is not None:
            return pairs
    values = schema.get("enum")
    if not isinstance(values, list) or not values:
        return None
    names = schema.get("enumNames")
    if isinstance(names, list) and len(names) == len(values) and all(isinstance(n, str) and n for n in names):
        return list(zip(values, names, strict=True))
    return [(value, _show(value)) for value in values]


def multi_choices(schema: object) -> list[tuple[object, str]] | None:
    """The (value, title) choices of a multi-select field (an array of choices), else None."""
    if not isinstance(schema, dict) or schema.get("type") != "array":
        return None
    return choices(schema.get("items"))


def _show(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _numbered(options: list[tuple[object, str]]) -> bool:
    """Whether choices may be picked by number (not when a value or title is itself a number)."""
    return not any(_show(v).strip().isdigit() or t.strip().isdigit() for v, t in options)


def _pick(token: str, options: list[tuple[object, str]]) -> object:
    token = token.strip()
    if _numbered(options) and token.isdigit():
        index = int(token)
        if 1 <= index <= len(options):
            return options[index - 1][0]
    for fold in (False, True):  # the exact spelling first, then in any case
        wanted = token.casefold() if fold else token
        found = [value for value, title in options
                 if wanted in ((title.casefold(), _show(value).casefold()) if fold else (title, _show(value)))]
        if found:
            return found[0]
    how = f"a number from 1 to {len(options)} or a name" if _numbered(options) else "one of the names"
    raise ValueError(f"{token!r} is not one of the choices; answer with {how}")


def _title_of(value: object, options: list[tuple[object, str]]) -> str:
    for option, title in options:
        if option == value:
            return title
    return _show(value)


def _parse(value: str, schema: dict[str, object]) -> object:
    kind = schema.get("type")
    if kind == "boolean":
        lowered = value.strip().lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        if lowered in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer yes or no")
    if kind == "integer":
        try:
            return int(value.strip())
        except ValueError:
            raise ValueError(f"{value.strip()!r} is not a whole number") from None
    if kind == "number":
        try:
            return float(value.strip())
        except ValueError:
            raise ValueError(f"{value.strip()!r} is not a number") from None
    if kind == "array":
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class _Field:
    """One property of the form: how it is shown, and how an answer becomes its value."""

    def __init__(self, key: str, schema: dict[str, object], required: bool) -> None:
        self.key, self.schema, self.required = key, schema, required
        self.label = str(schema.get("title") or key)
        self.single = choices(schema)
        self.multi = multi_choices(schema)

    def listing(self) -> list[str]:
        """The lines shown before the question: the field's description and its choices."""
        lines = []
        options = self.single or self.multi
        if options is not None:
            what = "choose one or more" if self.multi is not None else "choose one"
            description = f" - {self.schema['description']}" if self.schema.get("description") else ""
            lines.append(f"    {self.label}{description} ({what}):")
            numbered = _numbered(options)
            lines += [f"      {i}) {title}" if numbered else f"      - {title}" for i, (_, title) in
                      enumerate(options, 1)]
        return lines

    def question(self) -> str:
        hints: list[str] = []
        options = self.single or self.multi
        if self.multi is not None:
            hints.append("separate several with commas")
            low, high = self.schema.get("minItems"), self.schema.get("maxItems")
            if isinstance(low, int) and low > 0:
                hints.append(f"at least {low}")
            if isinstance(high, int):
                hints.append(f"at most {high}")
        elif self.single is None:
            kind = self.schema.get("type", "string")
            hints.append(f"{'yes/no' if kind == 'boolean' else kind}")
            if self.schema.get("format"):
                hints.append(str(self.schema["format"]))
        if "default" in self.schema:
            default = self.schema["default"]
            if options is not None and isinstance(default, list):
                shown = ", ".join(_title_of(v, options) for v in default) or "none"
            elif options is not None:
                shown = _title_of(default, options)
            else:
                shown = _show(default)
            hints.append(f"default {shown}")
        if not self.required:
            hints.append("optional")
        description = ""
        if options is None and self.schema.get("description"):
            description = f" - {self.schema['description']}"
        return f"    {self.label} ({', '.join(hints)}){description}: "

    def value(self, raw: str) -> object:
        if self.single is not None:
            return _pick(raw, self.single)
        if self.multi is not None:
            picked = []
            for token in raw.split(","):
                if token.strip():
                    value = _pick(token, self.multi)
                    if value not in picked:
                        picked.append(value)
            low, high = self.schema.get("minItems"), self.schema.get("maxItems")
            if isinstance(low, int) and len(picked) < low:
                raise ValueError(f"choose at least {low}")
            if isinstance(high, int) and len(picked) > high:
                raise ValueError(f"choose at most {high}")
            return picked
        return _parse(raw, self.schema)


def _ask_field(field: _Field, ask: Ask, say: Say, content: dict[str, object]) -> None:
    for line in field.listing():
        say(line)
    while True:
        raw = ask(field.question())
        if raw is None:
            raise _Cancelled
        if not raw.strip():
            if "default" in field.schema:
                content[field.key] = field.schema["default"]
                return
            if not field.required:
                return
            say("    this field is required")
            continue
        try:
            content[field.key] = field.value(raw)
            return
        except ValueError as exc:
            say(f"    {exc}")


def ask_form(ask: Ask, say: Say, message: str, schema: dict[str, object]) -> dict[str, object] | str:
    """Ask a form's fields with ``ask`` (one question, one answer; None when the input ended) and show
    notices with ``say``; returns the content, or ``"decline"`` / ``"cancel"``."""
    say(f"  {message}")
    answer = ask("  answer? [Y]es / [n]o (decline) / [c]ancel: ")
    if answer is None or answer.strip().lower() in ("c", "cancel"):
        return "cancel"
    if answer.strip().lower() in ("n", "no", "decline"):
        return "decline"
    properties = schema.get("properties")
    listed = schema.get("required")
    required = set(listed) if isinstance(listed, list) else set()
    content: dict[str, object] = {}
    try:
        for key, field_schema in (properties.items() if isinstance(properties, dict) else ()):
            _ask_field(_Field(str(key), field_schema if isinstance(field_schema, dict) else {}, key in required),
                       ask, say, content)
    except _Cancelled:
        return "cancel"
    return content
