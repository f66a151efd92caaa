"""Config entries for the test servers (tests/servers/): the fixture server, the pool server, the rug-pull server
and the misbehaving stdio server, each tagged so a test can find its processes."""

from __future__ import annotations

import sys
from typing import Any

import mcp_litellm as ml
from tests.helpers.servers import FIXTURE_SERVER, ROOT


def fixture_entry(name: str, marker: str, **options: Any) -> dict[str, Any]:
    """A stdio config entry for the fixture server, tagged with ``marker`` on its command line."""
    return {"command": sys.executable, "args": [str(FIXTURE_SERVER), "--name", f"{name}-{marker}"], **options}



POOL_SERVER = ROOT / "tests" / "servers" / "pool_server.py"


def pool_entry(marker: str, **options: Any) -> dict[str, Any]:
    """A stdio config entry for the pool server, tagged with ``marker`` on its command line."""
    return {"command": sys.executable, "args": [str(POOL_SERVER), "--name", marker], **options}


RUG_SERVER = str(ROOT / "tests" / "servers" / "rug_pull_server.py")


def rug_stdio(pulled: bool = False) -> dict[str, Any]:
    """The stdio config of the rug-pull server (``pulled``: it starts with its changed definitions)."""
    return {"command": sys.executable, "args": [RUG_SERVER], "env": {"RUG_PULLED": "1" if pulled else "0"}}


def rug_memory(pulled: bool = False) -> dict[str, Any]:
    """The in-process config of a new rug-pull server (the same server code, no process to start)."""
    from tests.servers.rug_pull_server import build_server

    return {"server": build_server(pulled)}


BAD_SERVER = ROOT / "tests" / "servers" / "bad_stdio_server.py"


def bad_server(mode: str, **kwargs: object) -> ml.Client:
    return ml.client(f"bad-{mode}", "stdio", {"command": sys.executable, "args": [str(BAD_SERVER), mode]},
                     protocol="legacy", **kwargs)
