"""RFC 6570 URI templates, all four levels, for expanding resource templates on the client side.

The MCP SDK's ``UriTemplate`` is built for matching URIs on the server and refuses valid level-4
templates (``{var:3}``, ``{?list*}``, two ``{+var}`` in one template); expansion here goes through the
``uritemplate`` package, after a strict syntax check of our own (that package expands malformed
templates without a word). A mapping's pairs expand in the order the caller gave them: ``uritemplate``
sorts a ``dict`` by key, so it gets the pairs as a list, which it keeps as they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from uritemplate import URITemplate

_VARCHAR = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARSPEC = re.compile(rf"({_VARCHAR}(?:\.?{_VARCHAR})*)(?::([1-9][0-9]{{0,3}})|(\*))?")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_OPERATORS = "+#./;?&"
_RESERVED_OPERATORS = "=,!@|"
_SCALARS = (str, int, float, bool)


class TemplateError(ValueError):
    """A malformed URI template, or a value that cannot be expanded into it."""


@dataclass(frozen=True)
class Variable:
    """One variable of a template: its name, the operator of its expression, and its modifier."""

    name: str
    operator: str
    prefix: int | None = None
    explode: bool = False

    @property
    def optional(self) -> bool:
        """Query-style variables (``{?q}``, ``{&q}``) may be left out: RFC 6570 drops undefined ones."""
        return self.operator in ("?", "&")


def parse_template(template: str) -> list[Variable]:
    """The variables of ``template`` in order; ``TemplateError`` for anything RFC 6570 does not allow."""
    variables: list[Variable] = []
    literal = _EXPRESSION.sub("", template)
    if "{" in literal or "}" in literal:
        raise TemplateError("unbalanced or nested braces")
    for match in _EXPRESSION.finditer(template):
        body = match.group(1)
        operator = body[:1] if body[:1] in _OPERATORS else ""
        if body[:1] in _RESERVED_OPERATORS:
            raise TemplateError(f"operator {body[:1]!r} in {{{body}}} is reserved by RFC 6570")
        specs = body[len(operator):]
        if not specs:
            raise TemplateError(f"empty expression {{{body}}}")
        for spec in specs.split(","):
            found = _VARSPEC.fullmatch(spec)
            if found is None:
                raise TemplateError(f"{spec!r} in {{{body}}} is not a variable name (letters, digits, _, "
                                    "%-escapes, dots between them) with an optional :N or *")
            name, prefix, explode = found.groups()
            variables.append(Variable(name, operator, int(prefix) if prefix else None, bool(explode)))
    return variables


def expand_template(template: str, values: Mapping[str, Any]) -> str:
    """``template`` with ``values`` (strings, numbers, lists, or mappings for exploded variables)."""
    variables = parse_template(template)
    prepared: dict[str, Any] = {}
    for variable in variables:
        if variable.name not in values or values[variable.name] is None:
            continue
        prepared[variable.name] = _value(variable, values[variable.name])
    return str(URITemplate(template).expand(prepared))


def _value(variable: Variable, value: Any) -> Any:
    def scalar(item: Any) -> str:
        if isinstance(item, bool):
            return "true" if item else "false"
        if not isinstance(item, _SCALARS):
            raise TemplateError(f"variable {variable.name!r} got a {type(item).__name__}; use strings, numbers, "
                                "lists of them, or a mapping of them")
        return str(item)

    if isinstance(value, Mapping) or (isinstance(value, Sequence) and not isinstance(value, str)):
        if variable.prefix is not None:
            raise TemplateError(f"variable {variable.name!r} has a prefix modifier (:{variable.prefix}) and so "
                                "takes a single value, not a list or mapping")
        if isinstance(value, Mapping):  # as (key, value) pairs: uritemplate would sort a dict by key
            return [(scalar(k), scalar(v)) for k, v in value.items()]
        return [scalar(item) for item in value]
    return scalar(value)


# What one expression can expand to, by operator (RFC 6570 section 3.2): simple and label values are
# percent-encoded, so they hold no "/", "?" or "#"; reserved and fragment values may hold anything.
_EXPANDS_TO = {"": "[^/?#]*", "+": ".*", "#": "(?:#.*)?", ".": r"(?:\.[^/?#]*)?", "/": "(?:/[^?#]*)?",
               ";": "(?:;[^/?#]*)?", "?": r"(?:\?[^#]*)?", "&": "(?:&[^#]*)?"}


def template_pattern(template: str) -> re.Pattern[str]:
    """A regular expression matching every URI ``template`` can expand to (and a little more: it
    checks the shape, not each value); ``TemplateError`` when the template is malformed."""
    parse_template(template)  # the strict check
    parts = []
    for literal, expression in re.findall(r"([^{]*)(\{[^}]*\})?", template):
        parts.append(re.escape(literal))
        if expression:
            operator = expression[1:2] if expression[1:2] in _OPERATORS else ""
            parts.append(_EXPANDS_TO[operator])
    return re.compile("".join(parts))


def template_matches(template: str, uri: str) -> bool:
    """Whether ``uri`` could come from ``template``; a malformed template matches nothing."""
    try:
        return template_pattern(template).fullmatch(uri) is not None
    except TemplateError:
        return False
