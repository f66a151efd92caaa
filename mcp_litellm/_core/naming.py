"""Tool names every provider accepts: ``^[a-zA-Z0-9_-]{1,64}$``."""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections.abc import Iterable

MAX_NAME = 64
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
PREFIX_SEPARATOR = "__"
_MIN_PREFIX = 3
"""Characters of a shortened server prefix kept before its hash (below that, the tool name is cut instead)."""


def safe_tool_name(name: str, prefix: str | None = None) -> str:
    """Make ``name`` (optionally ``"{prefix}__{name}"``) provider-safe.

    Characters outside ``[a-zA-Z0-9_-]`` become ``_``; a name longer than 64 characters gets a short hash
    of the full original, so two long names that share a start stay distinct and the same input always
    gives the same output. With a prefix, the prefix is shortened first and the tool's own name kept
    whole (``long_server_na_1a2b3c4d__search_documents``); only a tool name too long for that is cut.
    """
    full = f"{prefix}{PREFIX_SEPARATOR}{name}" if prefix else name
    cleaned = _UNSAFE.sub("_", full) or "_"
    if len(cleaned) <= MAX_NAME:
        return cleaned
    digest = hashlib.sha256(full.encode("utf-8")).hexdigest()[:8]
    if prefix:  # a long server name gives way first: the tool's own name is what the model reads
        tool = _UNSAFE.sub("_", name) or "_"
        room = MAX_NAME - len(tool) - len(PREFIX_SEPARATOR) - len(digest) - 1
        if room >= _MIN_PREFIX:
            return f"{_UNSAFE.sub('_', prefix)[:room]}_{digest}{PREFIX_SEPARATOR}{tool}"
    return f"{cleaned[: MAX_NAME - len(digest) - 1]}_{digest}"


def hashed_name(name: str, original: str) -> str:
    """``name`` (cut to fit) with a short hash of ``original``: distinct and the same for the same input."""
    digest = hashlib.sha256(original.encode("utf-8")).hexdigest()[:8]
    return f"{name[: MAX_NAME - len(digest) - 1]}_{digest}"


def distinct_names(names: list[str], originals: list[str]) -> list[str]:
    """Make safe ``names`` unique within one server's list; ``originals`` are the names before cleaning.

    When cleaning made several names equal (``a.b`` and ``a_b`` both give ``a_b``), a name that was
    already safe keeps it and each cleaned one gets a short hash of its original, so every tool stays
    reachable and the result does not depend on the order the server lists them in.
    """
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return [hashed_name(name, original) if counts[name] > 1 and name != original else name
            for name, original in zip(names, originals, strict=True)]


def distinct_prefixes(servers: list[str]) -> dict[str, str]:
    """Provider-safe tool-name prefixes for server names, distinct even where cleaning makes names equal.

    ``github.com`` and ``github_com`` both clean to ``github_com``: the name that needed no cleaning keeps
    it and the cleaned one gets a short hash of its original (see ``distinct_names``), so the prefixes
    are the same whatever order the servers come in.
    """
    cleaned = [_UNSAFE.sub("_", server) or "_" for server in servers]
    return dict(zip(servers, distinct_names(cleaned, servers), strict=True))


def tool_matches(patterns: Iterable[str], server: str, *names: str) -> bool:
    """Whether a tool of ``server`` known by ``names`` (its name on the server, the name it is offered
    under) matches one of ``patterns``: the one rule for every include/exclude list of tools.

    A pattern is a tool name or glob (``"write_*"``) matched against each name, or
    ``"{server}__{glob}"`` (``"fs__*"``, the server part a glob too) for that server's tools whether or
    not their names carry its prefix.
    """
    for pattern in patterns:
        if any(fnmatch.fnmatchcase(name, pattern) for name in names):
            return True
        prefix, separator, rest = pattern.partition(PREFIX_SEPARATOR)
        if separator and fnmatch.fnmatchcase(server, prefix) and any(fnmatch.fnmatchcase(n, rest) for n in names):
            return True
    return False
