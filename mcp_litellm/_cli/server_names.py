"""Names for the servers given on the command line (``--command``, ``--url``): what a user recognises in
what they typed (the package a launcher runs, the host and path of a URL), kept to the characters a
tool-name prefix allows (``[a-zA-Z0-9_-]``, see ``mcp_litellm._core.naming``)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from urllib.parse import unquote, urlsplit

_LAUNCHERS = {"npx", "pnpx", "bunx", "uvx", "pipx", "uv", "node", "deno", "bun", "docker", "podman", "java",
              "tsx", "ts-node"}
_LAUNCHER_VERBS = {"run", "exec", "x", "dlx", "tool"}
_OPTIONS_WITH_VALUE = {"--from", "--with", "-p", "--package", "--python", "-e", "--env", "-v", "--volume", "-r",
                       "--require", "--import", "--loader",
                       "--name", "--network", "-w", "--workdir", "--entrypoint"}
"""Launcher options whose next word is their value, not the program (``uvx --from git+https://... tool``)."""
_GENERIC_SCRIPTS = {"index", "main", "server", "cli", "app", "__main__", "run", "start", "mod", "entry"}
"""Script names that say nothing about the server: the name is taken from the folders above instead."""
_BUILD_DIRS = {"dist", "build", "lib", "src", "bin", "out", "esm", "cjs", "es", "target", "release", "scripts",
               "server", "servers"}
_ENDPOINTS = {"mcp", "sse"}
"""A URL's last path segment that names the transport's endpoint, not the server (``/mcp``, ``/sse``)."""
_HOST_NOISE = {"www", "mcp", "api"}
_MAX_NAME = 40
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")


def _safe(name: str, fallback: str) -> str:
    return _UNSAFE.sub("-", name).strip("-")[:_MAX_NAME].strip("-") or fallback


def _strip_version(word: str) -> str:
    return re.sub(r"(?<=.)@[^/@]*$", "", word.replace("\\", "/").rstrip("/"))  # a trailing @version


def _script_name(word: str) -> str:
    """The package or program a path or package argument stands for: ``@scope/pkg@1.2`` -> ``pkg``;
    ``.../node_modules/@scope/server-filesystem/dist/index.js`` -> ``server-filesystem``;
    ``/home/me/weather/build/index.js`` -> ``weather``; ``tools/search.py`` -> ``search``."""
    parts = [part for part in _strip_version(word).split("/") if part not in ("", ".", "..")]
    if not parts:
        return ""
    stem = re.sub(r"\.(py|pyz|js|mjs|cjs|ts|mts|exe|jar)$", "", parts[-1], flags=re.I)
    if stem.lower() not in _GENERIC_SCRIPTS or len(parts) == 1:
        return stem
    if "node_modules" in parts:  # the package the script belongs to
        after = parts[len(parts) - 1 - parts[::-1].index("node_modules") + 1:]
        package = after[1] if after and after[0].startswith("@") and len(after) > 1 else (after or [""])[0]
        if package:
            return package
    for folder in reversed(parts[:-1]):
        if folder.lower() not in _BUILD_DIRS and folder != "node_modules" and not folder.startswith("@"):
            return folder
    return stem


def command_name(argv: Sequence[str]) -> str:
    """A short server name from a command line: the program's name, or for a launcher (``npx``, ``uvx``,
    ``node``, ``python``, ``docker run`` ...) the name of the package or script it runs
    (``npx -y @modelcontextprotocol/server-memory`` -> ``server-memory``,
    ``node .../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`` -> ``server-filesystem``).
    """
    program = _script_name(argv[0]).lower() if argv else ""
    if program in _LAUNCHERS or re.fullmatch(r"python[\d.]*w?|py", program):
        skip = False
        for word in argv[1:]:
            if skip:
                skip = False
                continue
            if word in _OPTIONS_WITH_VALUE:
                skip = True
                continue
            if word.startswith("-") or word in _LAUNCHER_VERBS or "=" in word:
                continue
            return _safe(_script_name(word), program or "server")
    return _safe(_script_name(argv[0]) if argv else "", "server")


def url_name(url: str) -> str:
    """A short server name from a URL: its host (``localhost`` or an IP address as given, with the port;
    a domain without ``www.``/``mcp.``/``api.`` and the top-level domain) and the path, without the
    transport's endpoint (``/mcp``, ``/sse``): ``http://127.0.0.1:8000/mcp`` -> ``127-0-0-1-8000``,
    ``http://localhost:8000/mcp`` -> ``localhost-8000``, ``http://[::1]:8000/mcp`` -> ``ip6-1-8000``,
    ``https://mcp.example.com/github/mcp`` -> ``example-github``."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    if host == "localhost":
        words = [host] + ([str(port)] if port else [])
    else:
        try:
            address = ipaddress.ip_address(host)  # named as given: 127.0.0.1 is not shown as localhost
            words = ([host] if address.version == 4 else ["ip6", *filter(None, host.split(":"))]) + (
                [str(port)] if port else [])
        except ValueError:
            labels = [label for label in host.split(".") if label]
            if len(labels) > 1:
                labels = labels[:-1]  # the top-level domain
            while len(labels) > 1 and labels[0] in _HOST_NOISE:
                labels = labels[1:]
            words = labels or ["server"]
    path = [unquote(segment) for segment in parts.path.split("/") if segment]
    if path and path[-1].lower() in _ENDPOINTS:
        path = path[:-1]
    return _safe("-".join(words + path), "server")
