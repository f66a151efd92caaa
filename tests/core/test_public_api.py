"""The public surface: ``ml.__all__`` pinned, public classes shown as ``mcp_litellm.X``, errors that carry
their server and method as attributes, and a timeout error that does not shadow the builtin."""

from __future__ import annotations

import builtins
import dataclasses
import types
import typing
import uuid

import pytest

import mcp_litellm as ml
from tests.helpers.entries import fixture_entry
from tests.helpers.processes import wait_no_processes
from tests.servers.fixture_server import build_server

PUBLIC = [
    "AppBridge", "AppResource", "AppResourceError", "AppView", "ToolUI",
    "AuthError", "CallContext", "Chat", "Chunk", "Client", "ClientGroup", "ClientPool", "CodeMode", "CodeRun",
    "Completion",
    "Config", "ConfigError", "FilePinStore", "MCPLiteLLMError", "MemoryConfig", "Message", "MessageContext",
    "NotFoundError", "PinStore", "PoolFullError", "ProgressUpdate", "Prompt", "PromptArgument", "RequestTimeoutError",
    "Resource",
    "ResourceTemplate", "ServerError", "SseConfig", "StdioConfig", "StreamableConfig", "Task", "Tool", "ToolCall",
    "ToolChangedError", "ToolContext", "ToolLoopLimitError", "ToolResult", "TransportError", "UnsupportedFeature",
    "Usage", "__version__", "aestablish_connection", "client", "config", "configure", "establish_connection",
    "handlers", "load_config", "register_transport", "to_litellm_tools", "use_running_loop",
]
"""Every public name. Adding or removing one is an API change: update this list, the docs and the CHANGELOG."""

NOT_IN_ALL = {
    "TimeoutError": "deprecated alias of RequestTimeoutError, left out so a star import does not shadow the builtin",
    "VERSION": "the version string, older than __version__",
}


def test_all_is_pinned_and_matches_the_public_attributes():
    assert sorted(ml.__all__) == sorted(PUBLIC)
    assert len(set(ml.__all__)) == len(ml.__all__)
    public = {name for name in vars(ml) if not name.startswith("_")
              and not (isinstance(getattr(ml, name), types.ModuleType) and name != "handlers")}
    assert public - set(NOT_IN_ALL) == set(ml.__all__) - {"__version__"}, "a public attribute is not in __all__"
    handlers_public = {name for name in vars(ml.handlers) if not name.startswith("_")
                       and not isinstance(getattr(ml.handlers, name), types.ModuleType)}
    internal = {"ClientFeatureSet", "install_features", "decide_tool_call"}  # doors for the layers above, documented
    assert handlers_public - internal == set(ml.handlers.__all__)


def test_public_classes_show_as_the_package():
    classes = [getattr(ml, name) for name in ml.__all__ if isinstance(getattr(ml, name), type)]
    assert len(classes) > 20
    for cls in classes:
        assert cls.__module__ == "mcp_litellm", cls
        assert repr(cls) == f"<class 'mcp_litellm.{cls.__name__}'>"
    assert repr(ml.handlers.SamplingHandler) == "<class 'mcp_litellm.handlers.SamplingHandler'>"
    assert "mcp_litellm.ServerError: server error -1" in _formatted(ml.ServerError(-1, "boom"))


def test_type_hints_of_public_dataclasses_still_resolve():
    for cls in (ml.Usage, ml.Message, ml.ToolCall, ml.Config, ml.Completion, ml.PromptArgument, ml.ToolContext,
                ml.MessageContext):
        assert dataclasses.is_dataclass(cls)
        hints = typing.get_type_hints(cls)
        assert hints, cls
    assert typing.get_type_hints(ml.Usage)["prompt_tokens"] is int
    # the contexts' chat is typed by what it holds (so that the hooks need not import chat.py); a Chat is one
    from mcp_litellm._chat.hooks import ChatView

    assert typing.get_type_hints(ml.ToolContext)["chat"] is ChatView
    assert typing.get_type_hints(ml.MessageContext)["chat"] is ChatView
    chat = ml.Chat("gpt-4o-mini")
    assert all(hasattr(chat, name) for name in typing.get_type_hints(ChatView)), typing.get_type_hints(ChatView)
    assert hasattr(chat, "prompt_cache")


def _formatted(error: BaseException) -> str:
    import traceback

    return "".join(traceback.format_exception_only(type(error), error))


def test_request_timeout_error_does_not_shadow_the_builtin():
    assert ml.TimeoutError is ml.RequestTimeoutError
    assert issubclass(ml.RequestTimeoutError, builtins.TimeoutError)
    assert issubclass(ml.RequestTimeoutError, ml.MCPLiteLLMError)
    namespace: dict[str, object] = {}
    exec("from mcp_litellm import *", namespace)
    assert "TimeoutError" not in namespace and namespace["RequestTimeoutError"] is ml.RequestTimeoutError


def _memory(name: str) -> ml.Client:
    return ml.client(name, "memory", {"server": build_server(name)}, start=False)


def _broken(name: str, marker: str) -> ml.Client:
    return ml.client(name, "stdio", fixture_entry(name, marker, args=["-c", f"raise SystemExit('{marker}')"]),
                     start=False, request_timeout=10)


def test_a_client_error_names_its_server_and_method():
    with _memory("slow") as client:
        with pytest.raises(ml.RequestTimeoutError) as timed_out:
            client.execute_tool("wait", {"seconds": 5}, timeout=0.3)
        assert (timed_out.value.server, timed_out.value.method) == ("slow", "tools/call")
    assert ml.ConfigError("bad").server is None and ml.ConfigError("bad").method is None


def test_a_group_error_names_its_server_in_an_attribute():
    marker = f"mltest{uuid.uuid4().hex[:10]}"
    with ml.ClientGroup([_memory("a"), _memory("b")]) as group:
        with pytest.raises(ml.RequestTimeoutError) as timed_out:
            group.execute_tool("b__wait", {"seconds": 5}, timeout=0.3)
        assert timed_out.value.server == "b" and timed_out.value.method == "tools/call"
        with pytest.raises(ml.NotFoundError) as missing:
            group["a"].tool("nope")
        assert missing.value.server == "a"

    with ml.ClientGroup([_memory("good"), _broken("broken", marker)], strict=False) as group:
        assert group.failed["broken"].server == "broken"
        with pytest.raises(ml.TransportError) as unavailable:
            group["broken"]
        assert unavailable.value.server == "broken"
    with pytest.raises(ml.TransportError) as failed:
        ml.ClientGroup([_memory("fine"), _broken("broken", marker)]).start()
    assert failed.value.server == "broken"
    assert wait_no_processes(marker) == []


def test_client_has_the_parameters_of_client_class_in_its_own_source():
    """``ml.client`` spells out ``Client``'s parameters (not ``*args, **kwargs``), so the API reference (read
    from the source) and editors show them; a parameter added to ``Client`` must be added to it too."""
    import ast
    import inspect

    made = inspect.signature(ml.client)
    init = inspect.signature(ml.Client.__init__)
    assert [(p.name, p.kind, p.default, p.annotation) for p in made.parameters.values()] == \
        [(p.name, p.kind, p.default, p.annotation) for p in list(init.parameters.values())[1:]]
    source = ast.parse(inspect.getsource(ml.client))  # the source itself, not a __signature__ set at run time
    arguments = source.body[0].args  # type: ignore[attr-defined]
    assert [a.arg for a in arguments.args] == ["name", "transport_type", "config"]
    assert "start" in [a.arg for a in arguments.kwonlyargs] and arguments.vararg is None
    client = ml.client("named", config={"command": "true"}, start=False, request_timeout=7, with_prefix=True)
    assert (client.name, client.request_timeout, client.with_prefix, client.is_alive()) == ("named", 7.0, True, False)
    with pytest.raises(ml.ConfigError, match="unknown option"):
        ml.client("named", config={"command": "true"}, start=False, bogus=1)  # type: ignore[call-arg]
