"""``mcp-litellm pins``: each server's pinned tool definitions, what changed, and accepting changes."""

from __future__ import annotations

import argparse

from mcp_litellm._cli.commands import PROG, UsageError, connect, exit_status
from mcp_litellm._client.client import Client
from mcp_litellm._client.pins import describe_diff
from mcp_litellm._client.primitives.tool_ui import UI_SCHEME
from mcp_litellm._core.clean_text import printable
from mcp_litellm._core.errors import NotFoundError

HELP = ("Show each server's pinned tool definitions (tool_pins) and a readable diff of what changed; "
        "--accept SERVER [TOOL...] accepts the current definitions.")


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``pins``."""
    sub.add_argument("--pins", metavar="FILE", help="the pins file for servers whose config sets no tool_pins")
    sub.add_argument("--accept", nargs="+", metavar=("SERVER", "TOOL"),
                     help="accept SERVER's current definitions (only these TOOLs when given)")


def run(args: argparse.Namespace) -> int:
    """Show the pins (or accept changes); exit 1 when a tool is withheld (and nothing was accepted)."""
    with connect(args, tool_pins=args.pins) as group:
        pinned = [client for client in group if client._tool_pins is not None]
        if not pinned:
            raise UsageError(f"no server has tool_pins: set \"tool_pins\" in the config file or run '{PROG} pins "
                             "--pins FILE'")
        if args.accept:
            server, *tools = args.accept
            client = group.get(server)
            if client is None or client._tool_pins is None:
                raise NotFoundError("server with tool_pins", server, [c.name for c in pinned])
            accepted = client.pin_tools(tools or None)
            print(f"{server}: accepted {', '.join(accepted) if accepted else 'no tools'}")
            return exit_status(group)
        withheld = sum([_show(client) for client in pinned])
        return exit_status(group, ok=not withheld)


def _show(client: Client) -> int:
    """Print one server's pins and changes; returns how many tools are withheld."""
    client.tools(refresh=True)  # a fresh listing, checked against the pins
    pins = client._tool_pins
    assert pins is not None
    interfaces = sorted(key for key in pins.pinned if key.startswith(UI_SCHEME))  # MCP Apps' ui:// resources
    pinned = {name: pin for name, pin in pins.pinned.items() if not name.startswith(UI_SCHEME)}
    where = getattr(pins.store, "path", pins.store)
    also = f", {len(interfaces)} interface{'s' * (len(interfaces) != 1)}" if interfaces else ""
    print(f"{client.name}: {len(pinned)} pinned, {len(pins.withheld)} withheld{also} (pins: {where})")
    for name in sorted(pins.current):
        changes = pins.withheld.get(name)
        if not changes:
            print(f"  {printable(name)}: as pinned")
            continue
        print(f"  {printable(name)}: WITHHELD, {', '.join(changes)}")
        for line in describe_diff(pinned.get(name), pins.current[name]):
            print(f"    {printable(line)}")
    for name in sorted(set(pinned) - set(pins.current)):
        print(f"  {printable(name)}: pinned, no longer offered by the server")
    for uri in interfaces:  # checked when an app reads it: a changed one raises ToolChangedError until pin_ui
        print(f"  {printable(uri)}: interface pinned (a changed one is withheld until client.pin_ui(tool))")
    if pins.withheld:
        print(f"  accept with: {PROG} pins --accept {client.name} {' '.join(sorted(pins.withheld))}")
    return len(pins.withheld)
