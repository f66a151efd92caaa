"""Pure conversions between MCP sampling requests/results and LiteLLM, and the model policy."""

from __future__ import annotations

import base64

import pytest
from mcp_types import (
    AudioContent,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ImageContent,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
    Tool,
    ToolChoice,
    ToolResultContent,
    ToolUseContent,
)

from mcp_litellm._core import sampling as _sampling
from mcp_litellm._core.sampling import SamplingConversionError

IMG = base64.b64encode(b"\x89PNG fake").decode()
WEATHER = Tool(name="get_weather", description="Weather.", input_schema={
    "type": "object", "title": "Args", "properties": {"city": {"type": "string"}}, "required": ["city"]})


def params(*messages: SamplingMessage, **kw) -> CreateMessageRequestParams:
    return CreateMessageRequestParams(messages=list(messages), max_tokens=kw.pop("max_tokens", 100), **kw)


def user(*blocks) -> SamplingMessage:
    return SamplingMessage(role="user", content=list(blocks) if len(blocks) > 1 else blocks[0])


def text(t: str) -> TextContent:
    return TextContent(type="text", text=t)


def test_text_image_and_audio_become_litellm_parts():
    p = params(user(text("What is this?"), ImageContent(type="image", data=IMG, mime_type="image/png"),
                    AudioContent(type="audio", data="UklG", mime_type="audio/wav")),
               system_prompt="You describe media.")
    assert _sampling.to_litellm_messages(p) == [
        {"role": "system", "content": "You describe media."},
        {"role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{IMG}"}},
            {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
        ]},
    ]


def test_tool_use_and_tool_result_map_to_tool_calls_and_tool_messages():
    use = ToolUseContent(type="tool_use", id="call_7", name="get_weather", input={"city": "Oslo"})
    result = ToolResultContent(type="tool_result", tool_use_id="call_7",
                               content=[text("Oslo: -3C"), ImageContent(type="image", data=IMG, mime_type="image/png")])
    failed = ToolResultContent(type="tool_result", tool_use_id="call_8", content=[text("no such city")], is_error=True)
    structured = ToolResultContent(type="tool_result", tool_use_id="call_9", structured_content={"t": 1})
    p = params(user(text("Weather?")),
               SamplingMessage(role="assistant", content=[text("Let me look."), use]),
               user(result, failed, structured, text("And tomorrow?")))
    messages = _sampling.to_litellm_messages(p)
    assert messages[1] == {"role": "assistant", "content": "Let me look.", "tool_calls": [
        {"id": "call_7", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]}
    assert messages[2] == {"role": "tool", "tool_call_id": "call_7", "content": "Oslo: -3C"}
    assert messages[3] == {"role": "tool", "tool_call_id": "call_8", "content": "Error: no such city"}
    assert messages[4] == {"role": "tool", "tool_call_id": "call_9", "content": '{"t": 1}'}
    # media from the tool result follows the tool messages in a user message, before the user's own text
    assert messages[5]["role"] == "user"
    kinds = [part["type"] for part in messages[5]["content"]]
    assert kinds == ["text", "image_url", "text"]
    assert messages[5]["content"][-1] == {"type": "text", "text": "And tomorrow?"}


def test_misplaced_tool_blocks_are_rejected():
    use = ToolUseContent(type="tool_use", id="c", name="x", input={})
    with pytest.raises(SamplingConversionError):
        _sampling.to_litellm_messages(CreateMessageRequestParams.model_construct(
            messages=[SamplingMessage.model_construct(role="user", content=[use])], max_tokens=5))


def test_completion_kwargs_cap_tokens_and_carry_tools_choice_and_metadata():
    p = params(user(text("hi")), max_tokens=500, temperature=0.5, stop_sequences=["\n\n"],
               tools=[WEATHER], tool_choice=ToolChoice(mode="required"), metadata={"trace": "abc"})
    kwargs = _sampling.completion_kwargs(p, model="anthropic/claude-x", max_tokens=64, server="weather")
    assert kwargs["model"] == "anthropic/claude-x"
    assert kwargs["max_tokens"] == 64
    assert kwargs["temperature"] == 0.5
    assert kwargs["stop"] == ["\n\n"]
    assert kwargs["tool_choice"] == "required"
    assert kwargs["tools"][0]["function"]["name"] == "get_weather"
    assert "title" not in kwargs["tools"][0]["function"]["parameters"]  # anthropic rule applied
    assert kwargs["metadata"] == {"mcp_server": "weather", "mcp_sampling_metadata": {"trace": "abc"}}
    assert _sampling.completion_kwargs(p, model="m", max_tokens=None)["max_tokens"] == 500
    assert _sampling.completion_kwargs(p, model="m", max_tokens=9999)["max_tokens"] == 500


@pytest.mark.parametrize(("finish", "expected"), [
    ("stop", "endTurn"), ("length", "maxTokens"), ("tool_calls", "toolUse"), ("function_call", "toolUse"),
    ("stop_sequence", "stopSequence"), ("content_filter", "content_filter"), (None, None)])
def test_stop_reason_mapping(finish, expected):
    assert _sampling.map_stop_reason(finish) == expected


def response(content=None, tool_calls=None, finish="stop", model="gpt-x-2025"):
    return {"model": model, "choices": [{"message": {"role": "assistant", "content": content,
                                                     "tool_calls": tool_calls}, "finish_reason": finish}]}


def test_to_result_plain_and_with_tools():
    plain = _sampling.to_result(response("hi", finish="length"), with_tools=False, model="fallback")
    assert isinstance(plain, CreateMessageResult)
    assert (plain.content.text, plain.model, plain.stop_reason) == ("hi", "gpt-x-2025", "maxTokens")

    calls = [{"id": "call_1", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]
    tooled = _sampling.to_result(response("Checking.", calls, finish="tool_calls"), with_tools=True, model="f")
    assert isinstance(tooled, CreateMessageResultWithTools)
    assert tooled.stop_reason == "toolUse"
    blocks = tooled.content_as_list
    assert blocks[0] == text("Checking.")
    assert blocks[1] == ToolUseContent(type="tool_use", id="call_1", name="get_weather", input={"city": "Rome"})


def test_malformed_tool_arguments_are_an_error_not_a_guess():
    calls = [{"id": "c", "function": {"name": "get_weather", "arguments": "{city: Rome"}}]
    with pytest.raises(SamplingConversionError, match="not JSON"):
        _sampling.to_result(response(None, calls, finish="tool_calls"), with_tools=True, model="m")
    calls = [{"id": "c", "function": {"name": "get_weather", "arguments": "[1]"}}]
    with pytest.raises(SamplingConversionError, match="not a JSON object"):
        _sampling.to_result(response(None, calls), with_tools=True, model="m")


def test_to_result_shorthands():
    assert _sampling.to_result("plain text", with_tools=False, model="mine").model == "mine"
    assert _sampling.to_result("plain text", with_tools=True, model="m").content == text("plain text")
    sdk = CreateMessageResult(role="assistant", content=text("x"), model="m", stop_reason="endTurn")
    assert _sampling.to_result(sdk, with_tools=False, model="other") is sdk
    assert isinstance(_sampling.to_result(sdk, with_tools=True, model="other"), CreateMessageResultWithTools)
    empty = _sampling.to_result(response(None), with_tools=False, model="m")
    assert empty.content.text == ""
    with pytest.raises(SamplingConversionError):
        _sampling.to_result(42, with_tools=False, model="m")
    with pytest.raises(SamplingConversionError, match="no choices"):
        _sampling.to_result({"choices": []}, with_tools=False, model="m")


META = {
    "cheap-mini": {"input_cost_per_token": 1e-7, "output_cost_per_token": 4e-7, "max_input_tokens": 128000},
    "big-smart": {"input_cost_per_token": 1e-5, "output_cost_per_token": 4e-5, "max_input_tokens": 200000},
    "thinker": {"input_cost_per_token": 2e-6, "output_cost_per_token": 8e-6, "max_input_tokens": 200000,
                "supports_reasoning": True},
}


def pick(prefs, allowed=("cheap-mini", "big-smart", "thinker"), default=None):
    return _sampling.select_model(prefs, allowed_models=list(allowed), default_model=default, metadata=META.get)


def test_first_matching_hint_wins_among_allowed_models():
    prefs = ModelPreferences(hints=[ModelHint(name="claude"), ModelHint(name="smart"), ModelHint(name="mini")],
                             cost_priority=1.0)
    assert pick(prefs) == "big-smart"  # "claude" is not allowed; "smart" matches before priorities apply


def test_hints_naming_unallowed_models_are_ignored():
    prefs = ModelPreferences(hints=[ModelHint(name="gpt-5-ultra")])
    assert pick(prefs, default="cheap-mini") == "cheap-mini"
    # without allowed models a hint cannot pick anything: the user's default stands
    assert _sampling.select_model(prefs, allowed_models=None, default_model="mine", metadata=META.get) == "mine"


def test_priorities_rank_by_litellm_metadata():
    assert pick(ModelPreferences(cost_priority=1.0)) == "cheap-mini"
    assert pick(ModelPreferences(speed_priority=1.0)) == "cheap-mini"
    assert pick(ModelPreferences(intelligence_priority=1.0)) == "big-smart"
    assert pick(ModelPreferences(intelligence_priority=0.8, cost_priority=0.8)) in {"thinker", "big-smart"}
    # a model without metadata scores in the middle
    ranked = _sampling.rank_models(["big-smart", "unknown-model", "cheap-mini"], ModelPreferences(cost_priority=1),
                                   META.get)
    assert ranked == ["cheap-mini", "unknown-model", "big-smart"]


def test_default_then_first_allowed_then_nothing():
    assert pick(None, default="dflt") == "dflt"
    assert pick(ModelPreferences(), default=None) == "cheap-mini"
    assert _sampling.select_model(None, allowed_models=None, default_model=None, metadata=META.get) is None


def test_request_text_joins_text_blocks():
    p = params(user(text("one")), SamplingMessage(role="assistant", content=text("two")),
               user(ToolResultContent(type="tool_result", tool_use_id="x", content=[text("three")])))
    assert _sampling.request_text(p) == "one\ntwo\nthree"
