"""An MCP server whose tools break provider rules on purpose, for ``mcp-litellm doctor``.

Names: too long, dotted, with a space, starting with a digit (Gemini refuses), and two that clean to
the same name. Schemas (set directly, as a hand-written server would send them): an array without
``items`` (OpenAI refuses), an enum with an empty string (Gemini refuses, LiteLLM sends it as null),
and one using ``$ref``/``$defs``, ``anyOf`` with types, ``additionalProperties``, an empty object,
non-string ``enum``, ``oneOf`` and ``const`` (rewritten for Gemini, not refused).

Run: ``python doctor_server.py [stdio|streamable-http] [--port N] [--fail-tools-list]`` (the last makes
every ``tools/list`` answer an error).
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer

LONG_NAME = "x" * 70
NAMES = [LONG_NAME, "files.read", "read file", "1st_tool", "a.b", "a_b"]

NO_ITEMS = {"type": "object", "properties": {"paths": {"type": "array", "description": "paths to read"}},
            "required": ["paths"]}
EMPTY_ENUM = {"type": "object", "properties": {"mode": {"type": "string", "enum": ["fast", ""]}}}
RICH = {
    "type": "object",
    "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                        "additionalProperties": False}},
    "properties": {
        "at": {"$ref": "#/$defs/Point"},
        "size": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "options": {"type": "object", "properties": {}},
        "level": {"type": "integer", "enum": [1, 2, 3]},
        "shape": {"oneOf": [{"type": "string"}, {"type": "number"}]},
        "kind": {"const": "circle"},
    },
    "required": ["at"],
    "additionalProperties": False,
}
SCHEMAS = {"no_items": NO_ITEMS, "empty_enum": EMPTY_ENUM, "rich": RICH}


def build_server(name: str = "doctor", *, fail_tools_list: bool = False) -> MCPServer:
    server = MCPServer(name)

    def plain(text: str = "") -> str:
        return text

    for tool_name in NAMES:
        server.add_tool(plain, name=tool_name, description=f"A tool named {tool_name!r}.")
    for tool_name, schema in SCHEMAS.items():
        server.add_tool(plain, name=tool_name, description=f"A tool whose schema is {tool_name!r}.")
        tool = server._tool_manager.get_tool(tool_name)
        assert tool is not None
        tool.parameters = schema

    if fail_tools_list:
        async def refuse() -> list[object]:
            raise RuntimeError("the tool catalog is unavailable")

        server.list_tools = refuse  # type: ignore[method-assign]

    @server.resource("doctor://readme", description="A resource.")
    def readme() -> str:
        return "hello"

    @server.prompt(description="A prompt.")
    def greet(who: str) -> str:
        return f"Hello {who}"

    return server


def main() -> None:
    from tests.servers._main import run

    run(lambda args: build_server(args.name, fail_tools_list=args.fail_tools_list), name="doctor",
        options=lambda parser: parser.add_argument("--fail-tools-list", action="store_true"))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    main()
