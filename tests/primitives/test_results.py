"""ToolResult to LiteLLM messages per provider family (pure conversions, SDK content blocks)."""

from __future__ import annotations

import base64

import pytest
from mcp_types import (
    Annotations,
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

import mcp_litellm as ml
from mcp_litellm._client.tool import images_in_tool_messages

PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
WAV_B64 = base64.b64encode(b"RIFF0000WAVEfmt ").decode()


def mixed_result() -> ml.ToolResult:
    sdk = CallToolResult(content=[
        TextContent(type="text", text="Here you go", annotations=Annotations(audience=["user"], priority=0.5)),
        ImageContent(type="image", data=PNG_B64, mime_type="image/png"),
        AudioContent(type="audio", data=WAV_B64, mime_type="audio/wav"),
        ResourceLink(type="resource_link", uri="file:///a.txt", name="a", mime_type="text/plain",
                     description="first file"),
        EmbeddedResource(type="resource", resource=TextResourceContents(uri="file:///b.md", text="# B",
                                                                         mime_type="text/markdown")),
        EmbeddedResource(type="resource", resource=BlobResourceContents(uri="file:///c.zip", blob="UEsDBA==",
                                                                         mime_type="application/zip")),
    ])
    return ml.ToolResult.from_sdk(sdk, "mixed")


def test_blocks_keep_their_types_mime_types_uris_and_annotations():
    result = mixed_result()
    text, image, audio, link, embedded, blob = result.content
    assert text.annotations.audience == ["user"] and text.annotations.priority == 0.5
    assert image.mime_type == "image/png" and audio.mime_type == "audio/wav"
    assert link.uri == "file:///a.txt" and link.mime_type == "text/plain"
    assert str(embedded.resource.uri) == "file:///b.md" and blob.resource.mime_type == "application/zip"


def test_text_joins_text_like_blocks_and_str_is_text():
    result = mixed_result()
    assert result.text.splitlines() == [
        "Here you go",
        "[resource link: a <file:///a.txt> (text/plain): first file]",
        "# B",
        "[binary resource file:///c.zip: application/zip, 4 bytes, not shown]",
    ]
    assert str(result) == result.text


@pytest.mark.parametrize("model", [None, "gpt-4o-mini", "openai/gpt-4o", "groq/llama3-70b-8192"])
def test_text_only_providers_get_a_text_tool_message_and_a_media_user_message(model):
    assert not images_in_tool_messages(model)
    messages = mixed_result().to_messages("call_1", model)
    assert len(messages) == 2
    tool, media = messages
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_1" and isinstance(tool["content"], str)
    assert "[image (image/png) attached in the next message]" in tool["content"]
    assert "[audio (audio/wav) attached in the next message]" in tool["content"]
    assert media["role"] == "user"
    kinds = [p["type"] for p in media["content"]]
    assert kinds == ["text", "image_url", "input_audio"]
    assert media["content"][1]["image_url"]["url"] == f"data:image/png;base64,{PNG_B64}"
    assert media["content"][2]["input_audio"] == {"data": WAV_B64, "format": "wav"}
    assert mixed_result().to_message("call_1", model) == tool


@pytest.mark.parametrize("model", ["anthropic/claude-3-5-sonnet-latest", "gemini/gemini-2.0-flash",
                                   "vertex_ai/gemini-1.5-pro", "bedrock/amazon.nova-pro-v1:0"])
def test_image_capable_providers_get_images_inside_the_tool_message(model):
    assert images_in_tool_messages(model)
    tool, media = mixed_result().to_messages("call_1", model)
    assert [p["type"] for p in tool["content"]] == ["text", "image_url"]
    assert "[image" not in tool["content"][0]["text"], "the image is in the message, not a note"
    assert "[audio (audio/wav) attached in the next message]" in tool["content"][0]["text"]
    assert [p["type"] for p in media["content"]] == ["text", "input_audio"], "only audio needs the follow-up"


def test_text_only_results_give_one_message():
    result = ml.ToolResult.from_sdk(CallToolResult(content=[TextContent(type="text", text="42")]), "t")
    assert result.to_messages("c", "anthropic/claude-3-5-sonnet-latest") == [
        {"role": "tool", "tool_call_id": "c", "content": "42"}]
    assert result.media_message() is None


def test_errors_and_empty_results_are_clear_to_the_model():
    failed = ml.ToolResult.from_sdk(CallToolResult(content=[TextContent(type="text", text="disk full")],
                                                   is_error=True), "t")
    assert failed.to_message("c")["content"] == "Error: disk full"
    assert ml.ToolResult.from_sdk(CallToolResult(content=[]), "t").to_message("c")["content"] == "(no output)"
    assert ml.ToolResult.error("Error: nope").to_message("c")["content"] == "Error: nope"


def test_structured_content_is_the_text_when_there_is_no_text():
    result = ml.ToolResult.from_sdk(CallToolResult(content=[], structured_content={"a": 1}), "t")
    assert result.structured == {"a": 1} and result.text == '{"a": 1}'


def test_batch_messages_put_every_tool_message_before_the_media():
    plain = ml.ToolResult.from_sdk(CallToolResult(content=[TextContent(type="text", text="ok")]), "plain")
    messages = ml.ToolResult.batch_messages([("c1", mixed_result()), ("c2", plain)], model="gpt-4o-mini")
    assert [m["role"] for m in messages] == ["tool", "tool", "user"]
    assert [m.get("tool_call_id") for m in messages[:2]] == ["c1", "c2"]


def test_truncation_marker_says_how_much_was_cut():
    sdk = CallToolResult(content=[TextContent(type="text", text="x" * 1000),
                                  ImageContent(type="image", data=PNG_B64, mime_type="image/png")])
    result = ml.ToolResult.from_sdk(sdk, "big", max_chars=100)
    assert result.truncated_chars == 900
    assert result.text.startswith("x" * 100)
    assert "900 of 1000 characters cut" in result.text and "max_result_chars=100" in result.text
    assert isinstance(result.content[-1], ImageContent), "media is kept when text is cut"
    untouched = ml.ToolResult.from_sdk(sdk, "big", max_chars=1000)
    assert untouched.truncated_chars == 0 and untouched.text == "x" * 1000
