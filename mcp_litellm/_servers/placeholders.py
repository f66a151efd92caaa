"""``${...}`` placeholders in config-file values: environment variables (``${VAR}``, ``${env:VAR}``,
``${VAR:-default}``) and the variables VS Code defines for its ``mcp.json`` (``${workspaceFolder}``,
``${workspaceFolderBasename}``, ``${userHome}``), which are not environment variables."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcp_litellm._core.errors import ConfigError

__all__ = ["editor_variables", "expand_env"]

_PLACEHOLDER = re.compile(r"\$(\$?)\{([^}]*)\}")
_VAR = re.compile(r"(env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?", re.S)


def editor_variables(source: str | os.PathLike[str] | None) -> dict[str, str]:
    """VS Code's variables for a config file at ``source``: ``workspaceFolder`` is the file's folder, or the
    folder above it for a file in ``.vscode/`` (``.vscode/mcp.json`` sits in the workspace it configures);
    ``None`` (a config given as a mapping): the current directory."""
    if source is None:
        folder = Path.cwd()
    else:
        folder = Path(os.path.abspath(source)).parent
        if folder.name == ".vscode":
            folder = folder.parent
    return {"workspaceFolder": str(folder), "workspaceFolderBasename": folder.name,
            "userHome": os.path.expanduser("~")}


def expand_env(value: Any, environ: Mapping[str, str], where: str,
               editor: Mapping[str, str] | None = None) -> Any:
    """Expand ``${VAR}``, ``${VAR:-default}`` and ``${env:VAR}`` in every string inside ``value``, and
    ``editor``'s variables (see :func:`editor_variables`) for ``${name}`` (``${env:name}`` is always the
    environment's).

    ``$${...}`` stays literal (as ``${...}``). An unset variable without a default is a ``ConfigError``
    naming the variable and ``where`` it was used.
    """
    if isinstance(value, str):
        return _expand_string(value, environ, where, editor or {})
    if isinstance(value, Mapping):
        return {k: expand_env(v, environ, f"{where}.{k}", editor) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [expand_env(v, environ, f"{where}[{i}]", editor) for i, v in enumerate(value)]
    return value


def _expand_string(text: str, environ: Mapping[str, str], where: str, editor: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        escaped, body = match.group(1), match.group(2)
        if escaped:
            return "${" + body + "}"
        var = _VAR.fullmatch(body)
        if var is None:
            raise ConfigError(f"{where}: unsupported placeholder '${{{body}}}'; use ${{VAR}} or ${{VAR:-default}}")
        env_prefix, name, default = var.group(1), var.group(2), var.group(3)
        if not env_prefix and name in editor:
            return editor[name]
        found: str | None = environ.get(name)
        if found is not None and (found != "" or default is None):
            return found
        if default is not None:
            return default
        raise ConfigError(f"{where}: environment variable {name!r} is not set (use ${{{name}:-default}} "
                          "to give a default)")

    return _PLACEHOLDER.sub(replace, text)
