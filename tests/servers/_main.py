"""The command line of the test servers: ``python tests/servers/X.py [stdio|streamable-http|sse] [--port N]``.

Each server module's ``main()`` hands ``run`` a function that builds its ``MCPServer`` from the parsed
arguments; ``run`` serves it over stdio or HTTP on 127.0.0.1."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def run(build: Callable[[argparse.Namespace], Any], argv: list[str] | None = None, *, name: str | None = None,
        sse: bool = False, options: Callable[[argparse.ArgumentParser], None] | None = None) -> None:
    """Parse ``argv`` (``transport``, ``--port``; ``--name`` when ``name`` is its default; what ``options``
    adds), build the server with ``build(args)`` and run it until it is stopped."""
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", nargs="?", default="stdio",
                        choices=["stdio", "streamable-http", *(["sse"] if sse else [])])
    parser.add_argument("--port", type=int, default=8000)
    if name is not None:
        parser.add_argument("--name", default=name)
    if options is not None:
        options(parser)
    args = parser.parse_args(argv)
    server = build(args)
    if args.transport == "stdio":
        server.run()
    else:
        server.run(args.transport, host="127.0.0.1", port=args.port)
