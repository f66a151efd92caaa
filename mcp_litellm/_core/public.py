"""Presenting public classes under the package that exports them (``mcp_litellm.Client``, not the
private module that defines it)."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterable, MutableMapping
from typing import Any

__all__ = ["show_as_public"]


def show_as_public(namespace: MutableMapping[str, Any], names: Iterable[str]) -> None:
    """Give each class among ``names`` in the package ``namespace`` (its ``globals()``) that package as
    ``__module__``, so reprs, tracebacks and docs show ``mcp_litellm.X`` where users import it from.

    Classes defined in the package's own modules are renamed, and so are classes of a private module of
    the distribution that the package re-exports (``mcp_litellm.handlers.Sample`` is defined a layer
    down, in ``mcp_litellm._client``); a class already shown under a public package keeps its name.

    A class's own annotations are resolved first, where they were written, so ``typing.get_type_hints``
    (and pydantic, which uses it) still work once ``__module__`` no longer names the defining module.
    """
    module = namespace["__name__"]
    for name in names:
        cls = namespace[name]
        if not isinstance(cls, type) or not _defined_privately(cls.__module__, module):
            continue
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except Exception:  # names only a type checker imports: left as they are
            hints = None
        if hints is not None:
            own = inspect.get_annotations(cls)
            cls.__annotations__ = {key: hints.get(key, value) for key, value in own.items()}
        cls.__module__ = module


def _defined_privately(defined_in: str, package: str) -> bool:
    """Whether a class of module ``defined_in`` is one ``package`` presents: one of its own modules, or a
    private module (a ``_name`` part) of the same distribution."""
    if defined_in.startswith(package + "."):
        return True
    root, *parts = defined_in.split(".")
    return root == package.split(".")[0] and any(part.startswith("_") for part in parts)
