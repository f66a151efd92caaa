"""The tools a chat offers: MCP tools and local Python functions, under the names the model sees.

``ToolBox`` holds them, checks that two different tools never share a name, and caches their LiteLLM
definitions per model; ``LocalTool`` wraps a Python function (its schema from its type hints). Running a
call is the tool loop's business (``_chat/tool_loop.py``).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp_litellm._client.tool import Tool, ToolResult
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.naming import safe_tool_name
from mcp_litellm._core.user_code import call_user_code

if TYPE_CHECKING:
    import pydantic

logger = logging.getLogger("mcp_litellm")


@dataclass(eq=False)
class LocalTool:
    """A Python function offered to the model next to MCP tools.

    ``definition`` is the LiteLLM/OpenAI tool dict; ``function`` is called with the arguments as
    keywords (sync functions run on the bounded worker pool of ``_core.user_code``, async ones are
    awaited).
    """

    definition: dict[str, Any]
    function: Callable[..., Any]
    arguments_model: type[pydantic.BaseModel] | None = None
    """For a function offered as itself: the pydantic model of its parameters, which gave the schema and
    validates each call's arguments (``None``: the arguments are passed as they came)."""

    @property
    def name(self) -> str:
        """The tool name the model sees."""
        return str(self.definition["function"]["name"])

    @property
    def server(self) -> None:
        """A local function comes from no MCP server."""
        return None

    def renamed(self, name: str) -> LocalTool:
        """The same function offered to the model as ``name``."""
        definition = {**self.definition, "function": {**self.definition["function"], "name": name}}
        return LocalTool(definition, self.function, self.arguments_model)

    def to_litellm(self, model: str | None = None) -> dict[str, Any]:
        """The LiteLLM tool definition the function was offered with."""
        return self.definition

    async def arun(self, arguments: dict[str, Any]) -> ToolResult:
        """Call the function and wrap what it returns as a :class:`ToolResult`.

        With an :attr:`arguments_model`, the arguments are first validated and converted the way pydantic
        (and FastAPI) do in lax mode (``"5"`` for an ``int`` is ``5``, a date string a ``date``, a dict a
        model instance); arguments that do not fit give an error result naming them, without a call."""
        if self.arguments_model is not None:
            checked = checked_arguments(self.arguments_model, self.function, arguments)
            if isinstance(checked, str):
                return ToolResult.error(f"Error: wrong arguments for {self.name}: {checked}. Call it again with "
                                        "arguments that fit its parameters.", self.name)
            arguments = checked
        value = await call_user_code(self.function, **arguments)
        if isinstance(value, ToolResult):
            return value
        from mcp_types import TextContent

        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        return ToolResult(content=[TextContent(type="text", text=text)], tool_name=self.name)


_ERRORS_SHOWN = 5  # validation errors one answer lists
_INPUT_SHOWN = 80  # characters of a rejected value shown


def checked_arguments(model: type[pydantic.BaseModel], function: Callable[..., Any],
                      arguments: dict[str, Any]) -> dict[str, Any] | str:
    """``arguments`` validated and converted by ``model`` (the function's parameters), or what is wrong
    with them, in a line for the model. Arguments the function has no parameter for are refused, unless it
    takes ``**kwargs`` (they are then passed on as they are)."""
    import pydantic

    fields = model.model_fields
    extra = [name for name in arguments if name not in fields]
    if extra and not _takes_kwargs(function):
        return f"unexpected argument{'s' if len(extra) > 1 else ''} {', '.join(map(repr, extra))} (its parameters " \
               f"are {', '.join(map(repr, fields)) or 'none'})"
    try:
        instance = model.model_validate({name: value for name, value in arguments.items() if name in fields})
    except pydantic.ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False)[:_ERRORS_SHOWN]:
            where = ".".join(str(part) for part in error["loc"]) or "arguments"
            problem = f"{where}: {error['msg']}"
            if error["type"] != "missing":
                shown = repr(error.get("input"))
                problem += f" (got {shown[:_INPUT_SHOWN]}{'...' if len(shown) > _INPUT_SHOWN else ''})"
            problems.append(problem)
        more = exc.error_count() - len(problems)
        return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")
    # only what the model gave (converted): the function's own defaults apply to the rest
    checked = {name: getattr(instance, name) for name in instance.model_fields_set}
    return {**{name: value for name, value in arguments.items() if name not in fields}, **checked}


def _takes_kwargs(function: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind is p.VAR_KEYWORD for p in parameters)


def _parameters_model(function: Callable[..., Any]) -> type[pydantic.BaseModel]:
    """A pydantic model of ``function``'s keyword parameters, from its type hints: its JSON schema is the
    tool's, and it validates the model's arguments (so the two always agree)."""
    import pydantic

    try:
        hints = typing.get_type_hints(function)
    except Exception:  # unresolvable annotations: fall back to "any value"
        hints = {}
    fields: dict[str, Any] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD, parameter.POSITIONAL_ONLY):
            continue
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[name] = (hints.get(name, Any), default)
    model: type[pydantic.BaseModel] = pydantic.create_model(getattr(function, "__name__", "tool"), **fields)
    return model


def _schema_of(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    """The tool's JSON schema: ``model``'s, without pydantic's titles."""
    schema: dict[str, Any] = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return schema


def local_tool(item: Any) -> LocalTool:
    """A :class:`LocalTool` from a function, a ``(tool dict, function)`` pair, or a tool dict with a
    ``"function"`` callable under the key ``"callable"``."""
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Mapping) and callable(item[1]):
        return LocalTool(_checked_definition(item[0]), item[1])
    if isinstance(item, Mapping):
        function = item.get("callable")
        if not callable(function):
            raise ConfigError(
                f"the tool dict {_dict_name(item)!r} has no Python function to run: pass it as a (tool_dict, "
                "function) pair, or put the function under the key 'callable'"
            )
        definition = {k: v for k, v in item.items() if k != "callable"}
        return LocalTool(_checked_definition(definition), function)
    if callable(item) and not isinstance(item, type):
        name = safe_tool_name(getattr(item, "__name__", "tool"))
        doc = inspect.getdoc(item) or ""
        description = doc.split("\n\n", 1)[0].strip() or name
        model = _parameters_model(item)
        return LocalTool({"type": "function", "function": {"name": name, "description": description,
                                                           "parameters": _schema_of(model)}}, item, model)
    raise ConfigError(
        f"with_tools() takes MCP tools, clients and client groups, Python functions, (tool_dict, function) pairs "
        f"or tool dicts with a 'callable'; got {type(item).__name__}"
    )


def _dict_name(definition: Mapping[str, Any]) -> str:
    function = definition.get("function")
    return str(function.get("name")) if isinstance(function, Mapping) else "?"


def _checked_definition(definition: Mapping[str, Any]) -> dict[str, Any]:
    function = definition.get("function")
    if definition.get("type", "function") != "function" or not isinstance(function, Mapping):
        raise ConfigError('a tool dict must look like {"type": "function", "function": {"name": ..., '
                          '"description": ..., "parameters": {...}}}')
    name = function.get("name")
    if not isinstance(name, str) or safe_tool_name(name) != name:
        raise ConfigError(f"tool name {name!r} is not valid for LLM providers: use 1-64 characters "
                          "from a-z, A-Z, 0-9, '_' and '-'")
    return {"type": "function", "function": {"parameters": {"type": "object", "properties": {}}, **function}}


class ToolBox:
    """The tools of one chat, by the name the model sees, with their definitions cached per model.

    Besides tools, it holds *live* sources (a :class:`~mcp_litellm.Client` or
    :class:`~mcp_litellm.ClientGroup`): :meth:`refresh`, before each model request, puts their current
    tools in (what a list_changed brought; never a tool their pins withhold).
    """

    def __init__(self) -> None:
        self._given: dict[str, Tool | LocalTool] = {}
        self._sources: list[Any] = []
        self._live: dict[str, Tool] = {}
        self._live_key: tuple[Any, ...] = ()
        self._tools: dict[str, Tool | LocalTool] = {}
        self._definitions: dict[str | None, list[dict[str, Any]]] = {}
        self.version = 0
        """Grows with every change (so indexes built from the tools know when to rebuild)."""

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> typing.Iterator[Tool | LocalTool]:
        return iter(self._tools.values())

    def _changed(self) -> None:
        self._tools = {**self._live, **self._given}
        self._definitions.clear()
        self.version += 1

    def clear(self) -> None:
        """Remove every tool (and live source)."""
        self._given.clear()
        self._sources.clear()
        self._live, self._live_key = {}, ()
        self._changed()

    def add(self, items: Iterable[Any]) -> None:
        """Add MCP tools, local functions and tool dicts (lists and tuples of tools are flattened), and
        live sources (clients and groups)."""
        for item in _flatten(items):
            if _is_source(item):
                if not any(source is item for source in self._sources):
                    self._sources.append(item)
                continue
            tool = item if isinstance(item, Tool) else local_tool(item)
            current = self._given.get(tool.name) or self._live.get(tool.name)
            if current is not None and not _same(current, tool):
                raise ConfigError(
                    f"two different tools are named {tool.name!r}{_origins(current, tool)}: create the clients "
                    "with with_prefix=True (or use ml.ClientGroup, which prefixes clashing names), or leave one out"
                )
            self._given[tool.name] = tool
        self._changed()

    async def refresh(self) -> None:
        """Put the live sources' current tools in (their listings are cached until a list_changed)."""
        if not self._sources:
            return
        listed = [tool for source in self._sources for tool in await source.atools()]
        self._take(listed)

    def refresh_now(self) -> None:
        """:meth:`refresh` for blocking code; inside a running event loop it keeps the last known tools."""
        if not self._sources or _loop_running():
            return
        self._take([tool for source in self._sources for tool in source.tools()])

    def _take(self, listed: list[Tool]) -> None:
        live: dict[str, Tool] = {}
        for tool in listed:
            current = self._given.get(tool.name) or live.get(tool.name)
            if current is not None and not _same(current, tool):
                logger.warning("two different tools are named %r%s; the chat offers the first", tool.name,
                               _origins(current, tool))
                continue
            live[tool.name] = tool
        # a new listing makes new schema objects; the same cached listing (or a group's renamed copies of
        # it) keeps them, so the definitions and the search index are rebuilt only when the tools changed
        key = tuple((t.name, id(t.client), t.mcp_name, t.description, id(t.input_schema)) for t in live.values())
        if key != self._live_key:
            self._live, self._live_key = live, key
            self._changed()

    def get(self, name: str) -> Tool | LocalTool | None:
        """The tool the model calls ``name``, or ``None``."""
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        """The names the model sees."""
        return list(self._tools)

    def ordered(self) -> list[Tool | LocalTool]:
        """The tools by server, then name (local functions first): the order definitions are sent in,
        the same in every request, so providers' prompt caches keep matching."""
        return sorted(self._tools.values(), key=lambda t: (server_of(t), t.name))

    def definitions(self, model: str | None) -> list[dict[str, Any]]:
        """LiteLLM tool definitions for ``model`` (its provider's schema rules applied), in :meth:`ordered`
        order, cached."""
        cached = self._definitions.get(model)
        if cached is None:
            cached = [t.to_litellm(model) if isinstance(t, Tool) else t.definition for t in self.ordered()]
            self._definitions[model] = cached
        return cached


def server_of(tool: Tool | LocalTool) -> str:
    """The name of the server offering ``tool`` (``""`` for a local function)."""
    return tool.client.name if isinstance(tool, Tool) else ""


def _is_source(item: Any) -> bool:
    """Whether ``item`` is a live source of tools: a client or a group (offered with its current tools)."""
    from mcp_litellm._client.client import Client
    from mcp_litellm._servers.group import ClientGroup

    return isinstance(item, Client | ClientGroup)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _flatten(items: Iterable[Any]) -> typing.Iterator[Any]:
    for item in items:
        if isinstance(item, list | set | frozenset) or (isinstance(item, tuple) and not _is_pair(item)):
            yield from _flatten(item)
        else:
            yield item


def _is_pair(item: tuple[Any, ...]) -> bool:
    return len(item) == 2 and isinstance(item[0], Mapping) and callable(item[1])


def _same(a: Tool | LocalTool, b: Tool | LocalTool) -> bool:
    if isinstance(a, Tool) and isinstance(b, Tool):
        return a.client is b.client and a.mcp_name == b.mcp_name
    return a is b or (isinstance(a, LocalTool) and isinstance(b, LocalTool) and a.function is b.function)


def _origins(a: Tool | LocalTool, b: Tool | LocalTool) -> str:
    def origin(tool: Tool | LocalTool) -> str:
        return f"server {tool.client.name!r}" if isinstance(tool, Tool) else "a local function"

    return f" ({origin(a)} and {origin(b)})"
