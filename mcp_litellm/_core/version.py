"""The installed package's version, read from its metadata (``pyproject.toml`` is the one source)."""

from __future__ import annotations

from importlib import metadata

try:
    VERSION = metadata.version("mcp-litellm")
except metadata.PackageNotFoundError:  # run from a source tree that was never installed
    VERSION = "0+unknown"
