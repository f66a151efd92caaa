"""Code mode in a chat: the ``run_code`` tool the model gets instead of the tools, and one run of it.

The chat's offer asks :class:`CodeModeOffer` for the request's tool definitions and hands it each
``run_code`` call together with ``run_inner``: the chat's own single-call path (hooks, approval, events,
telemetry). Every tool the program awaits goes through that path as a call of its own, and its result reaches
the program whole: the chat's result budget is for the model, so it applies to what the program prints.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from mcp_litellm._chat.builtin_names import RUN_CODE
from mcp_litellm._chat.code_mode.sandbox import Outcome, run_program
from mcp_litellm._chat.code_mode.settings import CodeMode
from mcp_litellm._chat.code_mode.stubs import Stub, name_tools, parameter_order, stub_text, unwrap_result
from mcp_litellm._chat.message import ToolCall, parse_arguments
from mcp_litellm._chat.toolbox import LocalTool, ToolBox
from mcp_litellm._client.tool import Tool, ToolResult
from mcp_litellm._core import telemetry
from mcp_litellm._core.code_run import CodeRun

__all__ = ["RUN_CODE", "CodeModeOffer", "RunInner"]

SEARCH_LIMIT = 5

RunInner = Callable[[ToolCall, CodeRun], Awaitable[ToolResult]]
"""Runs one tool call through the chat's single-call path and returns its whole result."""


class _Index(Protocol):
    def search(self, query: str, limit: int) -> Sequence[Any]: ...


class OfferLike(Protocol):
    """What code mode needs of the chat's :class:`~mcp_litellm._chat.offer.Offer`."""

    tools: ToolBox

    def use_search(self, model: str) -> bool: ...
    def index(self) -> Any: ...
    def cut(self, result: ToolResult, model: str, budget: int) -> ToolResult: ...


class CodeModeOffer:
    """Per chat, while code mode is on: the ``run_code`` definition and the runs of the model's programs."""

    def __init__(self, settings: CodeMode) -> None:
        self.settings = settings
        self._stubs: tuple[int, dict[str, Stub]] | None = None  # by python name, per toolbox version

    # -- what the model sees ---------------------------------------------------------------------------

    def stubs(self, tools: ToolBox) -> dict[str, Stub]:
        """Every tool's stub, by its Python name (rebuilt when the tools change)."""
        if self._stubs is None or self._stubs[0] != tools.version:
            names = name_tools(t.name for t in tools)
            stubs = {}
            for tool in tools.ordered():
                python_name = names[tool.name]
                stubs[python_name] = _stub(tool, python_name)
            self._stubs = (tools.version, stubs)
        return self._stubs[1]

    def definition(self, offer: OfferLike, model: str, name: str = RUN_CODE) -> dict[str, Any]:
        """The ``run_code`` tool definition, offered as ``name``: the contract, then every stub (or, with
        tool search, how to find them)."""
        stubs = self.stubs(offer.tools)
        s = self.settings
        # every word here is paid for on every request of the chat: say the contract once, briefly (the stubs'
        # return types say what each call gives back)
        parts = [
            "Run Python in a sandbox (no files, network or environment). Call the tools below with "
            "`await name(arg=value)` (top-level await works), concurrently with `asyncio.gather`; a failing tool "
            "raises RuntimeError. "
            "Only printed output and the last expression's value come back to you: do the whole task in one "
            f"program, filtering in code. Limits: {s.timeout:g} s, {s.memory_mb} MB, {s.max_tool_calls} tool calls.",
        ]
        if offer.use_search(model):
            parts.append(
                f"There are {len(stubs)} tools, too many to list: in the program, "
                "`print(await search_tools(\"what you need, in a few words\"))` prints the stubs of the best "
                f"{SEARCH_LIMIT}; then call them.")
        else:
            parts.append(_listing(stubs.values()))
        return {"type": "function", "function": {
            "name": name,
            "description": "\n\n".join(parts),
            "parameters": {"type": "object", "properties": {"code": {
                "type": "string", "description": "Python source."}},
                "required": ["code"]},
        }}

    # -- running a program ----------------------------------------------------------------------------

    async def run(self, call: ToolCall, offer: OfferLike, model: str, budget: int, run_inner: RunInner) -> ToolResult:
        """Run the program of one ``run_code`` call (``call.name``: the name it is offered under); its output
        (or error) as the call's result, capped."""
        try:
            code = parse_arguments(call.arguments).get("code")
        except ValueError as exc:
            return ToolResult.error(f"Error: could not call {call.name}: {exc}.", call.name)
        if not isinstance(code, str) or not code.strip():
            return ToolResult.error(f"Error: {call.name} needs the program as the string argument 'code'.", call.name)
        stubs = self.stubs(offer.tools)
        settings = self.settings
        count = 0

        def host_function(stub: Stub) -> Callable[..., Awaitable[Any]]:
            async def call_tool(*args: Any, **arguments: Any) -> Any:
                nonlocal count
                if len(args) > len(stub.parameters):
                    raise TypeError(f"{stub.python_name}() takes {len(stub.parameters)} positional arguments but "
                                    f"{len(args)} were given")
                for name, value in zip(stub.parameters, args, strict=False):
                    if name in arguments:
                        raise TypeError(f"{stub.python_name}() got multiple values for argument {name!r}")
                    arguments[name] = value
                count += 1
                if count > settings.max_tool_calls:
                    raise RuntimeError(f"the tool call limit of this run is reached ({settings.max_tool_calls} "
                                       f"calls): {stub.python_name} was not called")
                inner = ToolCall(id=f"{call.id}.{count}", name=stub.tool_name,
                                 arguments=json.dumps(arguments, ensure_ascii=False, default=str))
                result = await run_inner(inner, run)
                if result.is_error:
                    raise RuntimeError(f"{stub.python_name} failed: {result.text}")
                if result.structured is not None:
                    return unwrap_result(stub, result.structured)
                return result.text
            return call_tool

        async def search_tools(query: str = "") -> str:
            if not isinstance(query, str) or not query.strip():
                raise ValueError("search_tools needs a query: await search_tools(\"what you need\")")
            by_tool = {stub.tool_name: stub for stub in stubs.values()}
            found = [by_tool[e.name] for e in offer.index().search(query[:1_000], SEARCH_LIMIT) if e.name in by_tool]
            if not found:
                return f"No tool matches {query!r}; try other words."
            return _listing(found)

        functions: dict[str, Any] = {name: host_function(stub) for name, stub in stubs.items()}
        functions["search_tools"] = search_tools
        run = CodeRun(id=uuid.uuid4().hex, tool_call_id=call.id, code=code,
                      read_only_without_approval=settings.read_only_without_approval)
        # the run's span: the spans of the calls the program makes nest under it
        with telemetry.span(f"execute_tool {call.name}", {
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name,
                "gen_ai.tool.type": "function", "gen_ai.tool.call.id": call.id,
                "mcp_litellm.code_run.id": run.id}) as span:
            outcome = await run_program(code, functions, settings)
            span.set_attribute("mcp_litellm.code_run.tool_calls", count)
            if outcome.error is not None:
                telemetry.fail(span, "tool_error")
        return offer.cut(_result(outcome, count, call.name), model, budget)


def _listing(stubs: Iterable[Stub]) -> str:
    """The stubs, under a comment naming each server (local functions first, as the toolbox orders them)."""
    lines: list[str] = []
    server: str | None = None
    for stub in stubs:
        if stub.server != server:
            server = stub.server
            lines.append(f"# tools of server {server!r}" if server else "# local tools")
        lines.append(stub.text)
    return "\n".join(lines)


def _stub(tool: Tool | LocalTool, python_name: str) -> Stub:
    if isinstance(tool, Tool):
        where = f" on server {tool.client.name!r}"
        text = stub_text(python_name, tool.mcp_name, tool.description, tool.input_schema, tool.output_schema, where)
        wrapped = isinstance(tool.output_schema, Mapping) and list(tool.output_schema.get("properties") or {}) == [
            "result"] and tool.output_schema.get("required") == ["result"]
        return Stub(python_name, tool.name, text, wrapped, tool.client.name, parameter_order(tool.input_schema))
    function = tool.definition["function"]
    text = stub_text(python_name, tool.name, str(function.get("description") or ""), function.get("parameters"), None)
    return Stub(python_name, tool.name, text, False, "", parameter_order(function.get("parameters")))


def _result(outcome: Outcome, calls: int, name: str) -> ToolResult:
    from mcp_types import TextContent

    pieces = [outcome.printed.rstrip("\n")] if outcome.printed else []
    if outcome.error is not None:
        pieces.append(outcome.error)
    elif outcome.has_value:
        pieces.append(outcome.value_text)
    if not pieces:
        pieces.append("(the program printed nothing, and its last line has no value)")
    text = "\n".join(pieces)
    return ToolResult(content=[TextContent(type="text", text=text)], is_error=outcome.error is not None,
                      tool_name=name)
