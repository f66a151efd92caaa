"""A griffe extension for the API reference: the docstrings' Sphinx roles as Markdown.

The package's docstrings are Google style with Sphinx cross-reference roles (``:class:`Tool```,
``:meth:`start```). mkdocstrings renders Markdown, where a role would show as literal text, so each
role becomes a code span; a role naming a public name of ``mcp_litellm`` or ``mcp_litellm.handlers``
becomes a link to that name's entry in the reference (the build fails if that entry is missing).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

import mcp_litellm
import mcp_litellm.handlers

_ROLE = re.compile(r":(?:class|meth|func|attr|data|exc|mod|obj):`~?([^`]+)`")
_PUBLIC = {name: f"mcp_litellm.{name}" for name in mcp_litellm.__all__ if not name.startswith("_")}
_PUBLIC.update({name: f"mcp_litellm.handlers.{name}" for name in mcp_litellm.handlers.__all__})


def _replace(match: re.Match[str]) -> str:
    target = match.group(1)
    name = target.rsplit(".", 1)[-1]
    if name in _PUBLIC and (target == name or target.startswith("mcp_litellm")):
        return f"[`{name}`][{_PUBLIC[name]}]"
    return f"`{name if match.group(0).count('~') else target}`"


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles in every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(_replace, obj.docstring.value)
