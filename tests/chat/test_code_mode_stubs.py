"""Code mode's stubs: Python names for any tool name, and types from JSON schemas (no sandbox needed)."""

from __future__ import annotations

from mcp_litellm._chat.code_mode.stubs import name_tools, parameter_order, python_type, stub_text


def test_tool_names_become_stable_distinct_identifiers():
    names = ["add", "fs.read-file", "fs_read_file", "fs-read.file", "2fast", "class", "sum", "search_tools", "ünï"]
    mapped = name_tools(names)
    assert mapped["add"] == "add" and mapped["fs_read_file"] == "fs_read_file"  # identifiers keep their names
    assert {mapped["fs.read-file"], mapped["fs-read.file"]} == {"fs_read_file_2", "fs_read_file_3"}
    assert mapped["2fast"] == "_2fast" and mapped["class"] == "class_" and mapped["sum"] == "sum_"
    assert mapped["search_tools"] == "search_tools"  # a tool keeps its name; the program's search gives way
    assert all(n.isidentifier() for n in mapped.values()) and len(set(mapped.values())) == len(names)
    assert name_tools(reversed(names)) == mapped  # the same whatever the order


def test_types_and_stub_text():
    assert python_type({"type": "array", "items": {"type": "integer"}}) == "list[int]"
    assert python_type({"enum": ["a", "b"]}) == "Literal['a', 'b']"
    assert python_type({"anyOf": [{"type": "string"}, {"type": "null"}]}) == "str | None"
    assert python_type({"type": "object", "additionalProperties": {"type": "number"}}) == "dict[str, float]"
    schema = {"type": "object", "required": ["path"],
              "properties": {"limit": {"type": "integer", "default": 10}, "path": {"type": "string",
                                                                                   "description": "where"},
                             "x-y": {"type": "string"}}}
    text = stub_text("fs_read", "fs.read", 'Read """a""" file', schema, None, " on server 'fs'")
    assert text == ('async def fs_read(path: str, limit: int = 10, **arguments: Any) -> str: """Read \'a\' file. '
                    "Calls the tool 'fs.read' on server 'fs'. path: where. arguments not valid as Python names, "
                    "passed as **{...}: 'x-y'.\"\"\"")
    assert parameter_order(schema) == ("path", "limit")
    compile(text, "<stub>", "exec")  # a stub is valid Python
    optional = {"type": "object", "properties": {"tags": {"anyOf": [{"type": "array", "items": {"type": "string"}},
                                                                     {"type": "null"}], "default": None},
                                                 "note": {"type": ["string", "null"], "default": "x"}}}
    text = stub_text("tag", "tag", "Tag it.", optional, None)  # `= None` says optional: `| None` adds nothing
    assert text == "async def tag(tags: list[str] = None, note: str | None = 'x') -> str: \"\"\"Tag it.\"\"\""
    compile(text, "<stub>", "exec")
