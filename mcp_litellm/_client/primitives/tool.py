"""``Tool``: an MCP tool as LiteLLM sees it (``ToolResult``, what running it returned, is in ``tool_result``)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from mcp_types import ToolAnnotations

from mcp_litellm._client.primitives.progress import ProgressHandler
from mcp_litellm._client.primitives.task import Task
from mcp_litellm._client.primitives.tool_result import ToolResult, images_in_tool_messages
from mcp_litellm._client.primitives.tool_ui import ToolUI
from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.schema import schema_for_model

_DEFAULT_ANNOTATIONS = {"read_only_hint": False, "destructive_hint": True, "idempotent_hint": False,
                        "open_world_hint": True}


def _with_spec_defaults(annotations: ToolAnnotations | None) -> ToolAnnotations:
    given = annotations.model_dump(exclude_none=True) if annotations is not None else {}
    return ToolAnnotations(**{**_DEFAULT_ANNOTATIONS, **given})


class ToolOwner(Protocol):
    """What a :class:`Tool` needs of the client it came from (a :class:`~mcp_litellm.Client` is one): its
    name and the calls that run the tool. Typed by what it holds, so that this module need not import the
    client."""

    @property
    def name(self) -> str: ...
    @property
    def with_prefix(self) -> bool: ...

    def execute_tool(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                     timeout: float | None = None, on_progress: ProgressHandler | None = None,
                     task: bool | None = None, reset_timeout_on_progress: bool | None = None,
                     max_total_timeout: float | None = None) -> ToolResult: ...
    async def aexecute_tool(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                            timeout: float | None = None, on_progress: ProgressHandler | None = None,
                            task: bool | None = None, reset_timeout_on_progress: bool | None = None,
                            max_total_timeout: float | None = None) -> ToolResult: ...
    async def call_tool(self, name: str | Tool, arguments: Mapping[str, object] | None = None,
                        ctx: CallContext | None = None) -> ToolResult: ...
    def start_task(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                   ttl: float | None = None, timeout: float | None = None) -> Task: ...
    async def astart_task(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                          ttl: float | None = None, timeout: float | None = None) -> Task: ...


@dataclass(eq=False, frozen=True)
class Tool:
    """A tool offered by an MCP server.

    ``name`` is what the model sees (provider-safe, maybe prefixed); ``mcp_name`` is the server's own
    name, used on the wire. Frozen: a client's cached tools are shared, so a different name (a group's
    prefix) is a copy made with ``dataclasses.replace``.
    """

    name: str
    mcp_name: str
    description: str
    input_schema: dict[str, Any]
    client: ToolOwner = field(repr=False)
    title: str | None = None
    output_schema: dict[str, Any] | None = None
    annotations: ToolAnnotations = field(default_factory=lambda: _with_spec_defaults(None))
    task_support: str = "forbidden"
    """Whether the tool runs as a task: ``"required"``, ``"optional"`` (when asked) or ``"forbidden"``."""
    ui: ToolUI | None = None
    """The tool's interface (MCP Apps, ``_meta.ui``): a :class:`~mcp_litellm.ToolUI`, ``None`` without one."""

    @property
    def server(self) -> str:
        """The name of the server (client) offering the tool."""
        return self.client.name

    def renamed(self, name: str) -> Tool:
        """The same tool offered to the model as ``name`` (a copy; the wire name stays :attr:`mcp_name`)."""
        return replace(self, name=name)

    def to_litellm(self, model: str | None = None) -> dict[str, Any]:
        """The LiteLLM (OpenAI-format) tool definition; ``model`` applies that provider's schema rules."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description or self.title or self.mcp_name,
                "parameters": schema_for_model(self.input_schema, model),
            },
        }

    def _call_arguments(self, method: str, arguments: Mapping[str, object] | None, kwargs: Mapping[str, object],
                        options: Mapping[str, Any]) -> tuple[dict[str, object], dict[str, Any]]:
        """The tool's arguments and the call's options, as ``(arguments, options)``: new dicts, the
        caller's are never changed.

        A mapping given positionally holds tool arguments, and then every keyword option is an option.
        Without a mapping, keywords are the tool's arguments; an option keyword (``timeout=``...) the
        tool's schema also declares is ambiguous there: as before, it goes to the tool, with a
        ``DeprecationWarning`` saying how to write the call unambiguously.
        """
        if arguments is not None and not isinstance(arguments, Mapping):
            raise ConfigError(f"{method}() takes the tool's arguments as one mapping (or as keywords), "
                              f"got {type(arguments).__name__}")
        merged = {**(arguments or {}), **kwargs}
        chosen = dict(options)
        declared = self.input_schema.get("properties")
        if arguments is None and isinstance(declared, Mapping):
            ambiguous = [key for key, value in options.items()
                         if value is not None and key in declared and key not in merged]
            if ambiguous:
                names = ", ".join(repr(key) for key in ambiguous)
                keywords = ", ".join(f"{key}=..." for key in ambiguous)
                mapping = ", ".join(f"{key!r}: ..." for key in ambiguous)
                warnings.warn(
                    f"tool {self.name!r} has an argument named {names}, so {method}({keywords}) passes it to "
                    f"the tool; this keyword form is deprecated: pass the tool's arguments as a mapping, "
                    f"{method}({{{mapping}}}), and the call's options beside it ({method}({{...}}, {keywords}))",
                    DeprecationWarning, stacklevel=3)
                for key in ambiguous:
                    merged[key], chosen[key] = options[key], None
        return merged, chosen

    async def aexecute(self, arguments: Mapping[str, object] | None = None, /, *, timeout: float | None = None,
                       on_progress: ProgressHandler | None = None, task: bool | None = None,
                       reset_timeout_on_progress: bool | None = None, max_total_timeout: float | None = None,
                       **kwargs: object) -> ToolResult:
        """Call the tool with ``arguments`` (a mapping, or keywords); see :meth:`execute`."""
        merged, options = self._call_arguments("aexecute", arguments, kwargs,
                                               {"timeout": timeout, "on_progress": on_progress, "task": task,
                                                "reset_timeout_on_progress": reset_timeout_on_progress,
                                                "max_total_timeout": max_total_timeout})
        return await self.client.aexecute_tool(self, merged, **options)

    def execute(self, arguments: Mapping[str, object] | None = None, /, *, timeout: float | None = None,
                on_progress: ProgressHandler | None = None, task: bool | None = None,
                reset_timeout_on_progress: bool | None = None, max_total_timeout: float | None = None,
                **kwargs: object) -> ToolResult:
        """Call the tool and return its :class:`ToolResult`.

        The tool's arguments go as one mapping (``tool.execute({"a": 1, "b": 2})``) or as keywords
        (``tool.execute(a=1, b=2)``). ``timeout=`` (seconds for this call, end to end), ``on_progress=``,
        ``task=``, ``reset_timeout_on_progress=`` and ``max_total_timeout=`` (see
        :meth:`Client.execute_tool <mcp_litellm.Client.execute_tool>`) are the call's options. With a
        mapping they always are, whatever the tool's arguments are called:
        ``tool.execute({"timeout": 30}, timeout=5)`` gives the tool ``timeout=30`` and the call 5 seconds.
        In the keyword form, an option the tool's input schema also declares goes to the tool, as it did
        before; that is deprecated (a ``DeprecationWarning`` says so): use the mapping. The mapping is
        never changed.

        A tool whose ``task_support`` is ``"required"`` runs as a task (``task=True`` asks for one from an
        ``"optional"`` tool): the call waits for the task, reports its status messages to ``on_progress``
        and cancels it on timeout or cancellation. The result is the same :class:`ToolResult`.
        """
        merged, options = self._call_arguments("execute", arguments, kwargs,
                                               {"timeout": timeout, "on_progress": on_progress, "task": task,
                                                "reset_timeout_on_progress": reset_timeout_on_progress,
                                                "max_total_timeout": max_total_timeout})
        return self.client.execute_tool(self, merged, **options)

    async def astart_task(self, arguments: Mapping[str, object] | None = None, /, *, ttl: float | None = None,
                          **kwargs: object) -> Task:
        """Async twin of :meth:`start_task`."""
        merged, options = self._call_arguments("astart_task", arguments, kwargs, {"ttl": ttl})
        return await self.client.astart_task(self, merged, **options)

    def start_task(self, arguments: Mapping[str, object] | None = None, /, *, ttl: float | None = None,
                   **kwargs: object) -> Task:
        """Start the tool as a task on the server and return its :class:`~mcp_litellm.Task` handle at once.

        Arguments go as in :meth:`execute` (with a mapping, ``ttl=`` is always the option). ``ttl`` asks
        the server to keep the task (and its result) that many seconds from its creation; the server may
        grant less (``task.ttl`` says). Then ``task.result()`` waits for the :class:`ToolResult`,
        ``task.refresh()`` reads the status and ``task.cancel()`` cancels. A server that runs the call at
        once gives an already completed task.
        """
        merged, options = self._call_arguments("start_task", arguments, kwargs, {"ttl": ttl})
        return self.client.start_task(self, merged, **options)


def to_litellm_tools(tools: Iterable[Tool], model: str | None = None) -> list[dict[str, Any]]:
    """LiteLLM tool definitions for ``tools`` (see :meth:`Tool.to_litellm`); ``model`` applies its provider's rules."""
    return [tool.to_litellm(model) for tool in tools]


__all__ = ["Tool", "ToolOwner", "ToolResult", "images_in_tool_messages", "to_litellm_tools"]
