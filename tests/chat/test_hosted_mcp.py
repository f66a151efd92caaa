"""chat.with_hosted_mcp(): a remote MCP server the provider calls itself, scripted at the HTTP level on OpenAI's
``/v1/responses`` (JSON and server-sent events), with a real MCP client of the fixture server over streamable
HTTP on 127.0.0.1 (its tool filters and headers), and the chat's real hooks and approval handlers."""

from __future__ import annotations

import json
from contextlib import aclosing

import httpx
import litellm
import openai
import pytest

import mcp_litellm as ml
from tests.helpers.responses import BASE, LLM, answer_responses, events, text
from tests.scripted_llm.respx_mock import litellm_respx

EXCLUDED = ["crash", "ask_*"]


def mcp_call(call_id, name, arguments, output=None, error=None, label="files", approval=None):
    item = {"type": "mcp_call", "id": call_id, "server_label": label, "name": name,
            "arguments": json.dumps(arguments), "output": output, "error": error}
    return {**item, "approval_request_id": approval} if approval else item


def approval_request(request_id, name, arguments, label="files"):
    return {"type": "mcp_approval_request", "id": request_id, "server_label": label, "name": name,
            "arguments": json.dumps(arguments)}


LISTED = {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "files",
          "tools": [{"name": "add", "input_schema": {"type": "object"}}]}


@pytest.fixture
def scripted():
    """``scripted(outputs, stream=False)``: answer each /responses request with the next output list; the
    requests are recorded as sent (parsed JSON and raw bytes)."""
    with litellm_respx() as router:
        requests: list[dict] = []
        raw: list[bytes] = []

        def install(outputs, stream=False):
            answer_responses(router, outputs, stream, requests, raw)
            return requests, raw
        yield install


@pytest.fixture
def files(fixture_http):
    """A client of the fixture server over streamable HTTP, with an exclude filter and its own auth header
    (from a config entry, as users write them)."""
    config = {"mcpServers": {"files": {"url": fixture_http["streamable-http"], "exclude_tools": EXCLUDED,
                                       "headers": {"Authorization": "Bearer client-own-secret"}}}}
    with ml.establish_connection(config) as clients:
        yield clients["files"]


def recorder(chat):
    seen = []
    chat.on_tool_call(lambda call, context: seen.append(("call", call.name, call.args, context.origin,
                                                         context.server, context.tool)), context=True)
    chat.on_tool_result(lambda result, context: seen.append(("result", context.call.id, result.text,
                                                             result.is_error)), context=True)
    return seen


def test_the_provider_gets_the_server_and_its_calls_enter_history_and_hooks(scripted, files, make_client):
    requests, raw = scripted([[LISTED, mcp_call("mcp_1", "add", {"a": 1, "b": 2}, output="3"), text("It is 3.")],
                              [text("Still 3.")]])
    chat = ml.Chat("openai/gpt-4o", **LLM).with_hosted_mcp(files, headers={"X-Chosen": "yes"})
    seen = recorder(chat)
    assert chat.ask("1+2?").content == "It is 3." and chat.api == "responses"
    offered = [t.mcp_name for t in files.tools()]
    everything = {t.mcp_name for t in make_client("streamable").tools()}
    assert {"crash", "ask_user"} <= everything and not {"crash", "ask_user", "ask_model"} & set(offered)
    [tool] = requests[0]["tools"]
    assert tool == {"type": "mcp", "server_label": "files", "server_url": files.config["url"],
                    "allowed_tools": offered,
                    "require_approval": "never", "headers": {"X-Chosen": "yes"}}
    assert b"client-own-secret" not in raw[0]  # the client's own auth header never leaves unless passed
    # history: the provider's call as a tool call answered by a tool message, then the answer
    roles = [(m["role"], bool(m.get("tool_calls"))) for m in chat.messages]
    assert roles == [("user", False), ("assistant", True), ("tool", False), ("assistant", False)]
    assert chat.messages[1]["tool_calls"][0]["function"] == {"name": "add", "arguments": '{"a": 1, "b": 2}'}
    assert chat.messages[2] == {"role": "tool", "tool_call_id": "mcp_1", "content": "3"}
    assert seen[0][:5] == ("call", "add", {"a": 1, "b": 2}, "provider", "files")
    assert seen[0][5] is not None and seen[0][5].client is files  # the client's own Tool
    assert seen[1] == ("result", "mcp_1", "3", False)
    # the next turn replays the provider's items as they came, not as function calls
    chat.ask("again?")
    kinds = [item["type"] for item in requests[1]["input"]]
    assert kinds == ["message", "mcp_list_tools", "mcp_call", "message", "message"]
    assert requests[1]["input"][2]["output"] == "3" and chat.usage.requests == 2


async def test_approval_requests_go_to_the_handler_and_back_to_the_provider(scripted, files):
    asked = []

    class Approve(ml.handlers.HumanInTheLoopHandler):
        def execute(self):
            asked.append((self.client_name, self.tool_name, self.parameters, self.tool is not None))
            return self.approve() if self.tool_name == "add" else self.deny("not that one")

    files.on_human_in_the_loop(Approve)
    requests, _ = scripted([[{**LISTED, "server_label": "fs"},
                             approval_request("mcpr_1", "add", {"a": 2, "b": 2}, "fs"),
                             approval_request("mcpr_2", "echo", {"text": "x"}, "fs")],
                            [mcp_call("mcp_2", "add", {"a": 2, "b": 2}, output="4", label="fs", approval="mcpr_1"),
                             text("4, and I may not echo.")]])
    chat = ml.Chat("openai/gpt-4o", **LLM).with_hosted_mcp(files, label="fs")
    seen = recorder(chat)
    reply = await chat.aask("2+2, and echo x")
    assert reply.content == "4, and I may not echo."
    assert requests[0]["tools"][0]["require_approval"] == "always"  # a handler is set: it sees every call
    assert asked == [("fs", "add", {"a": 2, "b": 2}, True), ("fs", "echo", {"text": "x"}, True)]
    answers = [item for item in requests[1]["input"] if item["type"] == "mcp_approval_response"]
    assert answers == [{"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
                       {"type": "mcp_approval_response", "approval_request_id": "mcpr_2", "approve": False,
                        "reason": "not that one"}]
    kinds = [item["type"] for item in requests[1]["input"]]
    assert kinds == ["message", "mcp_list_tools", "mcp_approval_request", "mcp_approval_request",
                     "mcp_approval_response", "mcp_approval_response"]
    assert ("result", "mcpr_2", "Tool call was denied: not that one", True) in seen
    assert ("result", "mcp_2", "4", False) in seen
    tool_messages = {m["tool_call_id"]: m["content"] for m in chat.messages if m["role"] == "tool"}
    assert tool_messages == {"mcpr_2": "Tool call was denied: not that one", "mcp_2": "4"}
    assert chat.usage.requests == 2 and chat.last_message.usage.requests == 2


def test_streaming_shows_the_provider_calls_as_tool_events(scripted, files):
    requests, _ = scripted([[mcp_call("mcp_3", "add", {"a": 5, "b": 5}, output="10"), text("Ten.")]], stream=True)
    chat = ml.Chat("openai/gpt-4o", **LLM).with_hosted_mcp(files, allowed_tools=["add"], require_approval="never")
    seen = recorder(chat)
    chunks = list(chat.stream("5+5?"))
    assert requests[0]["stream"] is True and requests[0]["tools"][0]["allowed_tools"] == ["add"]
    tool_events = [(c.event, c.tool_call.id) for c in chunks if c.event in ("tool_start", "tool_end")]
    assert tool_events == [("tool_start", "mcp_3"), ("tool_end", "mcp_3")]
    assert next(c for c in chunks if c.event == "tool_end").tool_result.text == "10"
    assert "".join(c.content for c in chunks) == "Ten." and chat.last_message.content == "Ten."
    assert [s[0] for s in seen] == ["call", "result"]  # once, though the call shows in the stream and at the end
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]


async def test_a_streamed_turn_asks_for_approval_and_goes_on(scripted, files):
    asked = []
    files.on_human_in_the_loop(lambda tool_name, parameters: asked.append((tool_name, parameters)) or True)
    requests, _ = scripted([[approval_request("mcpr_5", "add", {"a": 3, "b": 4})],
                            [mcp_call("mcp_5", "add", {"a": 3, "b": 4}, output="7", approval="mcpr_5"),
                             text("Seven.")]], stream=True)
    chat = ml.Chat("openai/gpt-4o", **LLM).with_hosted_mcp(files)
    seen = recorder(chat)
    chunks = [chunk async for chunk in chat.astream("3+4?")]
    assert asked == [("add", {"a": 3, "b": 4})]
    assert requests[1]["input"][-1] == {"type": "mcp_approval_response", "approval_request_id": "mcpr_5",
                                        "approve": True}
    assert [c.event for c in chunks if c.event.startswith("tool_")] == ["tool_start", "tool_end"]
    assert [s[:2] for s in seen] == [("call", "add"), ("result", "mcp_5")]
    assert "".join(c.content for c in chunks) == "Seven." and chat.usage.requests == 2


async def test_leaving_a_stream_keeps_the_text_and_endless_approvals_stop_at_the_round_limit(scripted, files):
    files.on_human_in_the_loop(lambda tool_name, parameters: True)
    scripted([[mcp_call("mcp_6", "add", {"a": 1, "b": 1}, output="2"), text("Two, as the server says.")],
              [approval_request("mcpr_7", "add", {"a": 1, "b": 1})],
              [approval_request("mcpr_8", "add", {"a": 1, "b": 1})]], stream=True)
    chat = ml.Chat("openai/gpt-4o", max_tool_rounds=1, **LLM).with_hosted_mcp(files)
    async with aclosing(chat.astream("1+1?")) as chunks:
        async for chunk in chunks:
            if chunk.content:
                break  # the caller leaves while the model writes
    assert chat.messages[-1]["role"] == "assistant" and chat.messages[-1]["content"] == "Two, as the server says."
    with pytest.raises(ml.ToolLoopLimitError):
        _ = [chunk async for chunk in chat.astream("again, forever")]
    answered = [m for m in chat.messages if m.get("mcp_items")]
    assert [i["type"] for i in answered[-1]["mcp_items"]] == ["mcp_approval_request", "mcp_approval_response"]


async def test_a_url_and_local_tools_together_and_a_call_without_a_handler_is_denied(scripted, files):
    requests, _ = scripted([[approval_request("mcpr_9", "search", {"q": "mcp"}, label="docs"),
                             {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add",
                              "arguments": json.dumps({"a": 1, "b": 1}), "status": "completed"}],
                            [text("Two; no search.")]])
    chat = (ml.Chat("gpt-4o", **LLM).with_tools(files.tool("add"))
            .with_hosted_mcp("https://docs.example.com/mcp", label="docs", require_approval="always",
                             allowed_tools=["search"], headers={"Authorization": "Bearer chosen"}))
    assert (await chat.aask("1+1, and search")).content == "Two; no search."
    first, second = requests
    assert [t["type"] for t in first["tools"]] == ["function", "mcp"]
    assert first["tools"][1] == {"type": "mcp", "server_label": "docs", "server_url": "https://docs.example.com/mcp",
                                 "allowed_tools": ["search"], "require_approval": "always",
                                 "headers": {"Authorization": "Bearer chosen"}}
    denial = next(i for i in second["input"] if i["type"] == "mcp_approval_response")
    assert denial["approve"] is False and "no approval handler" in denial["reason"]  # fails closed
    output = next(i for i in second["input"] if i["type"] == "function_call_output")
    assert output["call_id"] == "call_1" and "2" in json.dumps(output["output"])  # the local tool ran


def test_bad_servers_models_and_settings_are_refused_with_what_to_do(files, make_client):
    chat = ml.Chat("openai/gpt-4o", **LLM)
    with pytest.raises(ml.ConfigError, match="'memory', which the provider cannot reach"):
        chat.with_hosted_mcp(make_client("memory"))
    with pytest.raises(ml.ConfigError, match="http"):
        chat.with_hosted_mcp("ftp://example.com/mcp")
    with pytest.raises(ml.ConfigError, match="require_approval must be"):
        chat.with_hosted_mcp("https://example.com/mcp", require_approval="sometimes")
    with pytest.raises(ml.ConfigError, match="Anthropic's MCP connector"):
        ml.Chat("anthropic/claude-sonnet-4-5", api_key="sk-ant").with_hosted_mcp("https://example.com/mcp")
    assert chat._hosted == [] and chat.api == "chat"
    chat.with_hosted_mcp(files, allowed_tools=["add", "crash"])
    with pytest.raises(ml.ConfigError, match=r"\['crash'\].*withhold"):
        chat.ask("hi")
    assert chat.messages == []  # the question was rolled back: it can be asked again


# -- one loop: rounds, errors and the approval rule, the same as the chat path's (issue 33, defect 6) ---------


def test_provider_approvals_and_own_tool_calls_count_as_rounds_of_one_limit(scripted, files):
    """``max_tool_rounds`` counts rounds of calls on both paths: a round of approvals is a round, as a round of
    the chat's own tool calls is (the hosted path used to count its requests apart, per step)."""
    files.on_human_in_the_loop(lambda tool_name, parameters: True)
    own_call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add",
                "arguments": json.dumps({"a": 1, "b": 1}), "status": "completed"}
    outputs = [[approval_request("mcpr_1", "add", {"a": 1, "b": 1})],
               [mcp_call("mcp_1", "add", {"a": 1, "b": 1}, output="2", approval="mcpr_1"), own_call],
               [text("Two, twice.")]]
    requests, _ = scripted([list(o) for o in outputs])
    chat = ml.Chat("openai/gpt-4o", max_tool_rounds=1, **LLM).with_tools(files.tool("add")).with_hosted_mcp(files)
    with pytest.raises(ml.ToolLoopLimitError) as stopped:
        chat.ask("1+1, twice")
    assert stopped.value.rounds == 1 and len(requests) == 2  # the approvals were round 1; the own call not run
    assert chat.messages[-1] == {"role": "tool", "tool_call_id": "call_1",
                                 "content": "Error: not run: the chat stopped after max_tool_rounds=1 rounds."}
    requests.clear()
    scripted([list(o) for o in outputs])
    chat = ml.Chat("openai/gpt-4o", max_tool_rounds=2, **LLM).with_tools(files.tool("add")).with_hosted_mcp(files)
    reply = chat.ask("1+1, twice")
    assert reply.content == "Two, twice." and len(requests) == 3 and chat.usage.requests == 3


async def test_endless_approvals_are_refused_at_the_round_limit_without_asking_again(scripted, files):
    asked = []
    files.on_human_in_the_loop(lambda tool_name, parameters: asked.append(tool_name) or True)
    requests, _ = scripted([[approval_request("mcpr_1", "add", {"a": 1, "b": 1})],
                            [approval_request("mcpr_2", "add", {"a": 1, "b": 1})]])
    chat = ml.Chat("openai/gpt-4o", max_tool_rounds=1, **LLM).with_hosted_mcp(files)
    with pytest.raises(ml.ToolLoopLimitError):
        await chat.aask("1+1")
    assert asked == ["add"] and len(requests) == 2  # the second request is over the limit: refused unasked
    last = [m for m in chat.messages if m.get("mcp_items")][-1]["mcp_items"][-1]
    assert last == {"type": "mcp_approval_response", "approval_request_id": "mcpr_2", "approve": False,
                    "reason": "not run: the chat stopped after max_tool_rounds=1 rounds."}
    assert chat.messages[-1]["content"] == "Error: not run: the chat stopped after max_tool_rounds=1 rounds."


FAILED = {"id": "resp_f", "object": "response", "created_at": 1, "model": "gpt-4o", "status": "failed",
          "output": [], "error": {"code": "server_error", "message": "the provider broke"}}


@pytest.mark.parametrize("hosted", [False, True], ids=["chat path", "hosted path"])
def test_a_failed_provider_answer_raises_litellms_exception_on_both_paths(hosted):
    """A failed Responses answer raises LiteLLM's exception, explained, with the question taken back, whether
    or not the chat has hosted servers (the hosted path gave an empty answer)."""
    with litellm_respx() as router:
        router.post(f"{BASE}/responses").mock(return_value=httpx.Response(200, json=FAILED))
        chat = ml.Chat("openai/gpt-4o", api="responses", **LLM)
        if hosted:
            chat.with_hosted_mcp("https://docs.example.com/mcp", require_approval="never")
        with pytest.raises(litellm.APIConnectionError, match="the provider broke") as failed:
            chat.ask("hi")
    assert not isinstance(failed.value, ml.MCPLiteLLMError)
    assert str(failed.value).startswith("model request to 'openai/") and BASE in str(failed.value)
    assert chat.messages == []


@pytest.mark.parametrize("hosted", [False, True], ids=["chat path", "hosted path"])
async def test_a_cut_provider_stream_raises_litellms_exception_on_both_paths(hosted):
    whole = events([text("Hello there")])
    cut = whole[:whole.index(b"event: response.completed")]
    with litellm_respx() as router:
        router.post(f"{BASE}/responses").mock(
            return_value=httpx.Response(200, content=cut, headers={"content-type": "text/event-stream"}))
        chat = ml.Chat("openai/gpt-4o", api="responses", **LLM)
        if hosted:
            chat.with_hosted_mcp("https://docs.example.com/mcp", require_approval="never")
        with pytest.raises(openai.APIError, match="closed the responses stream") as failed:
            _ = [chunk async for chunk in chat.astream("hi")]
    assert type(failed.value).__module__ == "litellm.exceptions"


async def test_a_server_given_by_url_keeps_the_approval_rule_ml_config_had_when_it_was_added(scripted):
    """As a client takes ``ml.config``'s approval handler when it is made, a server given by URL takes it when
    ``with_hosted_mcp`` is called (it was read again at every request)."""
    asked = []
    ml.configure(human_in_the_loop=lambda tool_name, parameters: asked.append(tool_name) or True)
    try:
        chat = ml.Chat("openai/gpt-4o", **LLM).with_hosted_mcp("https://docs.example.com/mcp", label="docs")
        ml.config.reset()  # a later change of the defaults does not reach the chat's server
        later = ml.Chat("openai/gpt-4o", **LLM).with_hosted_mcp("https://docs.example.com/mcp", label="docs")
        ml.configure(human_in_the_loop=lambda tool_name, parameters: asked.append("later") or True)
        requests, _ = scripted([[approval_request("mcpr_1", "search", {"q": "x"}, label="docs")], [text("Found.")],
                                [approval_request("mcpr_2", "search", {"q": "y"}, label="docs")], [text("No.")]])
        assert (await chat.aask("search x")).content == "Found."
        assert (await later.aask("search y")).content == "No."
    finally:
        ml.config.reset()
    assert [r["tools"][0]["require_approval"] for r in requests[::2]] == ["always", "never"]
    assert asked == ["search"]
    answers = [i for r in requests[1::2] for i in r["input"] if i["type"] == "mcp_approval_response"]
    assert [a["approve"] for a in answers] == [True, False] and "no approval handler" in answers[1]["reason"]


def test_a_client_says_which_approval_handler_it_asks(make_client):
    """``Client.approval_handler``: what a chat's hosted server asks for that client's calls (no private reach)."""
    client = make_client("memory")
    assert client.approval_handler is None

    def approve(tool_name, parameters):
        return True

    assert client.on_human_in_the_loop(approve).approval_handler.handler is approve
    assert client.off_human_in_the_loop().approval_handler is None
