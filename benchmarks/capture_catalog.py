"""Save a real MCP server's tool catalog as a JSON fixture of benchmarks/search_catalogs/ (the tools' names,
descriptions and input schemas, and the server's name, title and version), listed through mcp_litellm.

    python benchmarks/capture_catalog.py NAME -- COMMAND [ARGS...]   # a stdio server
    python benchmarks/capture_catalog.py NAME --env KEY=VALUE -- COMMAND [ARGS...]

It prints the tools' names only (``--names-only`` is the default): the held-out requests are written from a
server's purpose and its tool names before anyone reads the descriptions, so this does not show them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mcp_litellm as ml  # noqa: E402

CATALOGS = ROOT / "benchmarks" / "search_catalogs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("name", help="the catalog's name (the file is search_catalogs/NAME.json)")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the server's environment")
    parser.add_argument("--package", help="the package and version it came from (kept in the file)")
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.error("give the server's command line after --")
    split = argv.index("--")
    arguments, command = parser.parse_args(argv[:split]), argv[split + 1:]
    env = dict(item.split("=", 1) for item in arguments.env)
    config = {"command": command[0], "args": command[1:], "env": {"PATH": os.environ["PATH"], **env}}
    with ml.client(arguments.name, "stdio", config, request_timeout=60) as client:
        info = client.server_info
        tools = client.tools()
        saved = {
            "server": arguments.name,
            "package": arguments.package,
            "serverInfo": {"name": info.name if info else None, "title": getattr(info, "title", None),
                           "version": info.version if info else None},
            "tools": [{"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in tools],
        }
    (CATALOGS / f"{arguments.name}.json").write_text(json.dumps(saved, indent=1, ensure_ascii=False) + "\n")
    print(f"{arguments.name}: {len(saved['tools'])} tools: {', '.join(t['name'] for t in saved['tools'])}")


if __name__ == "__main__":
    main()
