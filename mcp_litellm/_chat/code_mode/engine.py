"""Code mode in a chat: :class:`CodeModeToolset`, the wrapper that offers the model one tool, ``run_code``,
instead of the tools it wraps, and runs its programs.

Every tool the program awaits is a call of its own through the chat's single-call path (``run_inner``: hooks,
approval, events, telemetry), with a :class:`CallContext` of origin ``"code"`` naming the run; its result
reaches the program whole (the chat's result budget is for the model, so it applies to what the program
prints). The program's ``search_tools`` ranks with the chat's own ranker (:class:`SearchToolset`), and is
named by the chat's rule for built-ins: a tool of that name keeps it, the search is then
``mcp_litellm_search_tools``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping

from mcp_litellm._chat.builtin_names import RUN_CODE, SEARCH_TOOL, BuiltinNames, BuiltinTool, builtin_name
from mcp_litellm._chat.code_mode.sandbox import Outcome, run_program
from mcp_litellm._chat.code_mode.settings import CodeMode
from mcp_litellm._chat.code_mode.stubs import Stub, name_tools, parameter_order, stub_text, unwrap_result
from mcp_litellm._chat.message import ToolCall
from mcp_litellm._chat.tool_search.toolset import SEARCH_LIMIT, SearchToolset
from mcp_litellm._chat.toolbox import ChatTool, ToolBox
from mcp_litellm._client.primitives.tool_result import ToolResult
from mcp_litellm._client.primitives.toolset import CallContext, ToolDef
from mcp_litellm._core import telemetry
from mcp_litellm._core.code_run import CodeRun

__all__ = ["RUN_CODE", "CodeModeToolset", "RunInner"]

RunInner = Callable[[ToolCall, CallContext], Awaitable[ToolResult]]
"""Runs one tool call a program made through the chat's single-call path and returns its whole result."""


class CodeModeToolset:
    """Per chat, while code mode is on: the ``run_code`` tool over the tools of ``tools`` (every other call
    goes to them), and the runs of the model's programs.

    ``search`` is the chat's tool search (whether to list the stubs or let the program search, and the
    ranker); ``model`` gives the chat's provider model; ``run_inner`` (set by the tool loop) runs each call a
    program makes."""

    def __init__(self, settings: CodeMode, tools: ToolBox, names: BuiltinNames, search: SearchToolset, *,
                 model: Callable[[], str], run_inner: RunInner | None = None) -> None:
        self.settings = settings
        self.tools = tools
        self.names = names
        self.search = search
        self.model = model
        self.run_inner = run_inner
        self._stubs: tuple[int, dict[str, Stub], str] | None = None  # per toolbox version

    # -- what the model sees ---------------------------------------------------------------------------

    def stubs(self) -> dict[str, Stub]:
        """Every tool's stub, by its Python name (rebuilt when the tools change)."""
        return self._built()[0]

    def search_name(self) -> str:
        """The name of the program's ``search_tools`` (its own, unless a tool's Python name is that)."""
        return self._built()[1]

    def _built(self) -> tuple[dict[str, Stub], str]:
        if self._stubs is None or self._stubs[0] != self.tools.version:
            names = name_tools(t.name for t in self.tools)
            stubs = {names[tool.name]: _stub(tool, names[tool.name]) for tool in self.tools.ordered()}
            self._stubs = (self.tools.version, stubs, builtin_name(SEARCH_TOOL, stubs))
        return self._stubs[1], self._stubs[2]

    def definition(self, name: str = RUN_CODE) -> dict[str, object]:
        """The ``run_code`` tool definition, offered as ``name``: the contract, then every stub (or, with
        tool search, how to find them)."""
        stubs = self.stubs()
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
        if self.search.use_search(self.model()):
            parts.append(
                f"There are {len(stubs)} tools, too many to list: in the program, "
                f"`print(await {self.search_name()}(\"what you need, in a few words\"))` prints the stubs of the best "
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

    # -- the Toolset interface -------------------------------------------------------------------------

    def offered(self) -> list[ToolDef]:
        """The one tool the model gets: ``run_code``, under the name it is offered as."""
        return [BuiltinTool(self.definition(self.names.offered(RUN_CODE)))]

    async def list_tools(self) -> list[ToolDef]:
        """``run_code`` (its stubs from the tools as they are now)."""
        await self.tools.list_tools()
        return self.offered()

    def listed_now(self) -> list[ToolDef]:
        """:meth:`list_tools` with the live sources' tools as last listed."""
        return self.offered()

    async def call_tool(self, name: str, arguments: dict[str, object], ctx: CallContext) -> ToolResult:
        """Run the program of a ``run_code`` call; pass every other call (a program's) to the tools."""
        if self.names.builtin(name) != RUN_CODE:
            return await self.tools.call_tool(name, arguments, ctx)
        code = arguments.get("code")
        if not isinstance(code, str) or not code.strip():
            return ToolResult.error(f"Error: {name} needs the program as the string argument 'code'.", name)
        return await self.run(name, code, ctx)

    # -- running a program ----------------------------------------------------------------------------

    async def run(self, name: str, code: str, ctx: CallContext) -> ToolResult:
        """Run the program ``code`` of one ``run_code`` call (offered as ``name``); its output (or error) as
        the call's result."""
        stubs, search_name = self._built()
        settings = self.settings
        run_inner = self.run_inner
        call_id = ctx.tool_call_id or uuid.uuid4().hex
        run = CodeRun(id=uuid.uuid4().hex, tool_call_id=call_id, code=code,
                      read_only_without_approval=settings.read_only_without_approval)
        count = 0

        def host_function(stub: Stub) -> Callable[..., Awaitable[object]]:
            async def call_tool(*args: object, **arguments: object) -> object:
                nonlocal count
                if len(args) > len(stub.parameters):
                    raise TypeError(f"{stub.python_name}() takes {len(stub.parameters)} positional arguments but "
                                    f"{len(args)} were given")
                for parameter, value in zip(stub.parameters, args, strict=False):
                    if parameter in arguments:
                        raise TypeError(f"{stub.python_name}() got multiple values for argument {parameter!r}")
                    arguments[parameter] = value
                count += 1
                if count > settings.max_tool_calls:
                    raise RuntimeError(f"the tool call limit of this run is reached ({settings.max_tool_calls} "
                                       f"calls): {stub.python_name} was not called")
                inner = ToolCall(id=f"{call_id}.{count}", name=stub.tool_name,
                                 arguments=json.dumps(arguments, ensure_ascii=False, default=str))
                inner_ctx = ctx.but(origin="code", tool_call_id=inner.id, code_run=run)
                if run_inner is None:
                    raise RuntimeError("code mode runs outside a chat's tool loop")
                result = await run_inner(inner, inner_ctx)
                if result.is_error:
                    raise RuntimeError(f"{stub.python_name} failed: {result.text}")
                if result.structured is not None:
                    return unwrap_result(stub, result.structured)
                return result.text
            return call_tool

        async def search_tools(query: str = "") -> str:
            if not isinstance(query, str) or not query.strip():
                raise ValueError(f"{search_name} needs a query: await {search_name}(\"what you need\")")
            by_tool = {stub.tool_name: stub for stub in stubs.values()}
            found = [by_tool[e.name] for e in await self.search.ranked(query[:1_000]) if e.name in by_tool]
            if not found:
                return f"No tool matches {query!r}; try other words."
            return _listing(found)

        functions: dict[str, Callable[..., Awaitable[object]]] = {n: host_function(stub) for n, stub in stubs.items()}
        functions[search_name] = search_tools
        # the run's span: the spans of the calls the program makes nest under it
        with telemetry.span(f"execute_tool {name}", {
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                "gen_ai.tool.type": "function", "gen_ai.tool.call.id": ctx.tool_call_id,
                "mcp_litellm.code_run.id": run.id}) as span:
            outcome = await run_program(code, functions, settings)
            span.set_attribute("mcp_litellm.code_run.tool_calls", count)
            if outcome.error is not None:
                telemetry.fail(span, "tool_error")
        return _result(outcome, count, name)


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


def _stub(tool: ChatTool, python_name: str) -> Stub:
    server = tool.server or ""
    where = f" on server {server!r}" if server else ""
    text = stub_text(python_name, tool.mcp_name, tool.description, tool.input_schema, tool.output_schema, where)
    output = tool.output_schema
    wrapped = isinstance(output, Mapping) and list(output.get("properties") or {}) == ["result"] and output.get(
        "required") == ["result"]
    return Stub(python_name, tool.name, text, wrapped, server, parameter_order(tool.input_schema))


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
