"""Local Python functions as tools: :class:`LocalTool` (a function and its LiteLLM definition, its schema and
the validation of its arguments from its type hints) and :class:`FunctionToolset`, the
:class:`~mcp_litellm._client.primitives.toolset.Toolset` a chat reaches them through: arguments validated and converted
by pydantic, the call bounded by the context's timeout, inside an ``execute_tool`` span of type
``function``, and every failure an error result addressed to the model.
"""

from __future__ import annotations

import inspect
import json
import logging
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from mcp_litellm._client.primitives.tool_result import ToolResult
from mcp_litellm._client.primitives.toolset import CallContext, DefinedTool
from mcp_litellm._core import telemetry
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, NotFoundError
from mcp_litellm._core.naming import safe_tool_name
from mcp_litellm._core.user_code import call_user_code, is_async_callable

if TYPE_CHECKING:
    import pydantic

__all__ = ["FunctionToolset", "LocalTool", "checked_arguments", "local_tool"]

logger = logging.getLogger("mcp_litellm")

@dataclass(eq=False)
class LocalTool(DefinedTool):
    """A Python function offered to the model next to MCP tools.

    ``definition`` is the LiteLLM/OpenAI tool dict; ``function`` is called with the arguments as
    keywords (sync functions run on the bounded worker pool of ``_core.user_code``, async ones are
    awaited).
    """

    definition: dict[str, Any]
    function: Callable[..., object]
    arguments_model: type[pydantic.BaseModel] | None = None
    """For a function offered as itself: the pydantic model of its parameters, which gave the schema and
    validates each call's arguments (``None``: the arguments are passed as they came)."""

    @property
    def mcp_name(self) -> str:
        """The name the function is known by (its tool name: no server renames it)."""
        return self.name

    @property
    def description(self) -> str:
        """What the definition says the function does."""
        return str(self.definition["function"].get("description") or "")

    @property
    def input_schema(self) -> dict[str, Any]:
        """The JSON schema of its arguments."""
        parameters = self.definition["function"].get("parameters")
        return parameters if isinstance(parameters, dict) else {}

    @property
    def output_schema(self) -> None:
        """A local function declares no output schema."""
        return None

    def renamed(self, name: str) -> LocalTool:
        """The same function offered to the model as ``name``."""
        return LocalTool(self.definition_named(name), self.function, self.arguments_model)

    async def arun(self, arguments: dict[str, object]) -> ToolResult:
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


def checked_arguments(model: type[pydantic.BaseModel], function: Callable[..., object],
                      arguments: Mapping[str, object]) -> dict[str, object] | str:
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


def _takes_kwargs(function: Callable[..., object]) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind is p.VAR_KEYWORD for p in parameters)


def _parameters_model(function: Callable[..., object]) -> type[pydantic.BaseModel]:
    """A pydantic model of ``function``'s keyword parameters, from its type hints: its JSON schema is the
    tool's, and it validates the model's arguments (so the two always agree)."""
    import pydantic

    try:
        hints = typing.get_type_hints(function)
    except Exception:  # unresolvable annotations: fall back to "any value"
        hints = {}
    fields: dict[str, Any] = {}  # pydantic type forms
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


def local_tool(item: object) -> LocalTool:
    """A :class:`LocalTool` from a function, a ``(tool dict, function)`` pair, or a tool dict with a
    ``"function"`` callable under the key ``"callable"``."""
    if isinstance(item, tuple) and len(item) == 2:
        definition, function = item
        if isinstance(definition, Mapping) and callable(function):
            return LocalTool(_checked_definition(definition), function)
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


def _dict_name(definition: Mapping[str, object]) -> str:
    function = definition.get("function")
    return str(function.get("name")) if isinstance(function, Mapping) else "?"


def _checked_definition(definition: Mapping[str, object]) -> dict[str, Any]:
    function = definition.get("function")
    if definition.get("type", "function") != "function" or not isinstance(function, Mapping):
        raise ConfigError('a tool dict must look like {"type": "function", "function": {"name": ..., '
                          '"description": ..., "parameters": {...}}}')
    name = function.get("name")
    if not isinstance(name, str) or safe_tool_name(name) != name:
        raise ConfigError(f"tool name {name!r} is not valid for LLM providers: use 1-64 characters "
                          "from a-z, A-Z, 0-9, '_' and '-'")
    return {"type": "function", "function": {"parameters": {"type": "object", "properties": {}}, **function}}


class FunctionToolset:
    """A chat's local functions, by the name the model sees: the :class:`Toolset` they are called through."""

    def __init__(self) -> None:
        self.tools: dict[str, LocalTool] = {}

    async def list_tools(self) -> Sequence[LocalTool]:
        """The functions, as added."""
        return list(self.tools.values())

    async def call_tool(self, name: str, arguments: dict[str, object], ctx: CallContext) -> ToolResult:
        """Call function ``name`` with ``arguments`` (validated first when it was offered as itself), for at
        most ``ctx.timeout`` seconds, in an ``execute_tool`` span; its failures are error results."""
        tool = self.tools.get(name)
        if tool is None:
            raise NotFoundError("tool", name, self.tools)
        attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                      "gen_ai.tool.type": "function", "gen_ai.tool.call.id": ctx.tool_call_id}
        try:
            with telemetry.span(f"execute_tool {name}", attributes) as span:
                result = await _run_within(tool, arguments, ctx.timeout)
                if result.is_error:
                    telemetry.fail(span, "tool_error")
                return result
        except MCPLiteLLMError as exc:
            return ToolResult.error(f"Error: the tool {name} failed: {exc}", name)
        except Exception as exc:
            logger.warning("tool %s raised %s: %s", name, type(exc).__name__, exc)
            return ToolResult.error(f"Error: the tool {name} raised {type(exc).__name__}: {exc}", name)

async def _run_within(tool: LocalTool, arguments: dict[str, object], timeout: float | None) -> ToolResult:
    """Run a local tool for at most ``timeout`` seconds; then an error result says it timed out.

    An async function is cancelled; a sync one cannot be stopped, so its thread is left to finish alone.
    """
    with anyio.move_on_after(timeout):
        return await tool.arun(arguments)
    stopped = "it was cancelled" if is_async_callable(tool.function) else "the chat stopped waiting for it"
    return ToolResult.error(f"Error: the tool {tool.name} timed out after {timeout:g}s; {stopped}.", tool.name)
