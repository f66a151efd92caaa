"""A small in-process server with a read-only tool and a writing one (annotations), for code-mode and
approval tests."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations


def notes_server() -> MCPServer:
    """A small in-process server with a read-only tool and a writing one (annotations)."""
    server = MCPServer("notes")
    notes: dict[str, str] = {"a": "alpha", "b": "beta"}

    @server.tool(description="Read a note.", annotations=ToolAnnotations(read_only_hint=True))
    def read_note(key: str) -> str:
        return notes.get(key, "")

    @server.tool(description="Write a note.", annotations=ToolAnnotations(read_only_hint=False))
    def write_note(key: str, text: str) -> str:
        notes[key] = text
        return "ok"

    @server.tool(name="notes.count-all", description="How many notes there are.")
    def count_all() -> int:
        return len(notes)

    return server
