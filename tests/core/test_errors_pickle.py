"""Every public error can be pickled (to a worker process, a task queue) and copied, keeping its message and
attributes, though most are made from other arguments than the message they keep."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

import mcp_litellm as ml

MADE: dict[type[BaseException], Any] = {
    ml.MCPLiteLLMError: lambda: ml.MCPLiteLLMError("something failed"),
    ml.ConfigError: lambda: ml.ConfigError("bad value"),
    ml.TransportError: lambda: ml.TransportError("closed", http_status=502),
    ml.AuthError: lambda: ml.AuthError("no token", http_status=401),
    ml.RequestTimeoutError: lambda: ml.RequestTimeoutError("too slow"),
    ml.ServerError: lambda: ml.ServerError(-32602, "bad params", {"field": "x"}, method="tools/call"),
    ml.UnsupportedFeature: lambda: ml.UnsupportedFeature("no subscriptions"),
    ml.NotFoundError: lambda: ml.NotFoundError("tool", "nope", ["a", "b"], server="demo"),
    ml.ToolChangedError: lambda: ml.ToolChangedError("demo", "echo", ("description",)),
    ml.ToolLoopLimitError: lambda: ml.ToolLoopLimitError(3, {"role": "assistant", "content": "more"}),
    ml.PoolFullError: lambda: ml.PoolFullError("alice", 2, 2, 1.5),
    ml.AppResourceError: lambda: ml.AppResourceError("not an app"),
}


def public_errors() -> list[type[BaseException]]:
    return [obj for name in ml.__all__ if isinstance(obj := getattr(ml, name), type) and issubclass(obj, BaseException)]


def test_every_public_error_is_covered():
    assert set(public_errors()) == set(MADE)


@pytest.mark.parametrize("cls", list(MADE), ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_a_public_error_pickles_and_copies_with_its_message_and_attributes(cls, how):
    error = MADE[cls]()
    error.server = "demo"
    ways = {"pickle": lambda e: pickle.loads(pickle.dumps(e)), "copy": copy.copy, "deepcopy": copy.deepcopy}
    again = ways[how](error)
    assert type(again) is cls and again is not error
    assert str(again) == str(error) and again.args == error.args
    assert vars(again) == vars(error)
    if isinstance(error, ml.PoolFullError):
        assert (again.user, again.busy, again.max_users, again.waited) == ("alice", 2, 2, 1.5)
