"""Reading a config file: JSON (with VS Code's JSONC comments and trailing commas) or YAML."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_litellm._core.errors import ConfigError

__all__ = ["read_config_file", "strip_jsonc"]


def read_config_file(path: Path) -> object:
    """The parsed content of a config file: YAML for ``.yaml``/``.yml``, else JSON (JSONC allowed);
    ``ConfigError`` naming the file (and the line and column of a syntax error)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise ConfigError(f"{path}: reading YAML config files needs PyYAML; install it with "
                              "pip install 'mcp-litellm[yaml]'") from None
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            raise ConfigError(f"{path}: invalid YAML{at}: {getattr(exc, 'problem', None) or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:  # JSONC, as VS Code's .vscode/mcp.json allows
        return json.loads(strip_jsonc(text))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None


def strip_jsonc(text: str) -> str:
    """``text`` with JSONC's ``//`` and ``/* */`` comments and trailing commas blanked out.

    Only characters outside strings change, each into a space (line breaks stay), so the JSON parser's
    error positions still point into the original text. An unterminated ``/*`` is left for the parser
    to report where it starts.
    """
    out = list(text)
    comma: int | None = None  # a comma with no value after it yet: trailing if a bracket closes next
    i, end = 0, len(text)
    while i < end:
        char = text[i]
        if char == '"':
            i += 1
            while i < end and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            comma = None
        elif text.startswith("//", i) or text.startswith("/*", i):
            close = text.find("\n", i) if text[i + 1] == "/" else text.find("*/", i + 2)
            if close < 0 and text[i + 1] == "*":
                return "".join(out)
            stop = end if close < 0 else close + (2 if text[i + 1] == "*" else 0)
            out[i:stop] = [c if c == "\n" else " " for c in text[i:stop]]
            i = stop
            continue
        elif char == ",":
            comma = i
        elif char in "}]":
            if comma is not None:
                out[comma] = " "
            comma = None
        elif not char.isspace():
            comma = None
        i += 1
    return "".join(out)
