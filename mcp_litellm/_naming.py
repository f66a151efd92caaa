"""Tool names every provider accepts: ``^[a-zA-Z0-9_-]{1,64}$``."""

from __future__ import annotations

import hashlib
import re

MAX_NAME = 64
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
PREFIX_SEPARATOR = "__"


def safe_tool_name(name: str, prefix: str | None = None) -> str:
    """Make ``name`` (optionally ``"{prefix}__{name}"``) provider-safe.

    Characters outside ``[a-zA-Z0-9_-]`` become ``_``; a name longer than 64 characters is cut and
    given a short hash of the full original, so two long names that share a start stay distinct and
    the same input always gives the same output.
    """
    full = f"{prefix}{PREFIX_SEPARATOR}{name}" if prefix else name
    cleaned = _UNSAFE.sub("_", full) or "_"
    if len(cleaned) <= MAX_NAME:
        return cleaned
    digest = hashlib.sha256(full.encode("utf-8")).hexdigest()[:8]
    return f"{cleaned[: MAX_NAME - len(digest) - 1]}_{digest}"
