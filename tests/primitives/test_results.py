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
from mcp_litellm._client.primitives.tool import images_in_tool_messages

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
    texts = [p["text"] for p in tool["content"] if p["type"] == "text"]
    if model.startswith(("gemini", "vertex_ai")):  # one text, the image's place marked, the image after it
        assert [p["type"] for p in tool["content"]] == ["text", "image_url"]
        assert texts[0].startswith("Here you go\n[image 1 (image/png), attached]\n[audio (audio/wav)")
    else:  # the server's order: text, the image, the rest of the text
        assert [p["type"] for p in tool["content"]] == ["text", "image_url", "text"]
        assert texts[0] == "Here you go" and "[image" not in " ".join(texts), "the image is in the message"
        assert texts[1].startswith("[audio (audio/wav) attached in the next message]")
    assert [p["type"] for p in media["content"]] == ["text", "input_audio"], "only audio needs the follow-up"


def _story() -> ml.ToolResult:
    red, blue = ImageContent(type="image", data=PNG_B64, mime_type="image/png"), \
        ImageContent(type="image", data=PNG_B64, mime_type="image/gif")
    return ml.ToolResult.from_sdk(CallToolResult(content=[
        red, TextContent(type="text", text="the image above is red"), blue,
        TextContent(type="text", text="and the one above is blue")]), "story")


def test_text_and_images_keep_the_servers_order():
    tool = _story().to_message("c", "anthropic/claude-sonnet-4-5")
    assert [(p["type"], p.get("text") or p["image_url"]["url"][:14]) for p in tool["content"]] == [
        ("image_url", "data:image/png"), ("text", "the image above is red"),
        ("image_url", "data:image/gif"), ("text", "and the one above is blue")]
    gemini = _story().to_message("c", "gemini/gemini-2.0-flash")["content"]
    assert gemini[0]["text"] == ("[image 1 (image/png), attached]\nthe image above is red\n"
                                 "[image 2 (image/gif), attached]\nand the one above is blue")
    assert [p["image_url"]["url"][:14] for p in gemini[1:]] == ["data:image/png", "data:image/gif"]
    failed = ml.ToolResult(content=_story().content, is_error=True, tool_name="story").to_message(
        "c", "anthropic/claude-sonnet-4-5")["content"]
    assert failed[0] == {"type": "text", "text": "Error:"} and failed[1]["type"] == "image_url"
    openai = _story().to_message("c", "gpt-4o-mini")["content"]
    assert openai.startswith("[image (image/png) attached in the next message]\nthe image above is red\n[image")


def test_text_blobs_are_shown_as_text():
    import base64

    def blob(mime: str, data: bytes) -> EmbeddedResource:
        return EmbeddedResource(type="resource", resource=BlobResourceContents(
            uri="file:///x", blob=base64.b64encode(data).decode(), mime_type=mime))

    result = ml.ToolResult.from_sdk(CallToolResult(content=[
        blob("text/csv", b"a,b\n1,2"), blob("application/json", b'{"k": 1}'),
        blob("text/plain; charset=latin-1", "caf\u00e9".encode("latin-1")),
        blob("text/plain", b"\xff\xfe not utf-8"), blob("application/zip", b"PK\x03\x04")]), "blobs")
    lines = result.text.split("\n")
    assert lines[:4] == ["a,b", "1,2", '{"k": 1}', "caf\u00e9"]
    assert lines[4].startswith("[binary resource file:///x: text/plain,") and "not shown" in lines[4]
    assert lines[5].startswith("[binary resource file:///x: application/zip")


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
    image = ImageContent(type="image", data=PNG_B64, mime_type="image/png")
    note = len("[image (image/png) attached in the next message]")
    sdk = CallToolResult(content=[image, TextContent(type="text", text="x" * 1000)])
    result = ml.ToolResult.from_sdk(sdk, "big", max_chars=100 + note + 1)
    total = note + 1 + 1000
    assert result.truncated_chars == 900
    assert result.text.startswith("x" * 100)
    assert f"900 of {total} characters cut" in result.text and f"max_result_chars={100 + note + 1}" in result.text
    assert isinstance(result.content[0], ImageContent), "an image within the limit is kept, in its place"
    untouched = ml.ToolResult.from_sdk(sdk, "big", max_chars=total)
    assert untouched.truncated_chars == 0 and untouched.content == sdk.content


def test_images_count_toward_max_result_chars():
    image = ImageContent(type="image", data=PNG_B64, mime_type="image/png")
    note = len("[image (image/png) attached in the next message]")
    result = ml.ToolResult.from_sdk(CallToolResult(content=[TextContent(type="text", text="x" * 100)] + [image] * 50),
                                    "gallery", max_chars=100 + 3 * (note + 1))
    assert sum(isinstance(b, ImageContent) for b in result.content) == 3
    assert "47 image/audio block(s) left out" in result.text
    assert result.truncated_chars == 47 * (note + 1)


def test_images_models_do_not_take_are_given_as_text():
    import base64

    svg = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>'
    result = ml.ToolResult.from_sdk(CallToolResult(content=[
        ImageContent(type="image", data=base64.b64encode(svg.encode()).decode(), mime_type="image/svg+xml"),
        ImageContent(type="image", data=base64.b64encode(b"II*\0" * 10).decode(), mime_type="image/tiff"),
        ImageContent(type="image", data=PNG_B64, mime_type="image/png"),
        EmbeddedResource(type="resource", resource=BlobResourceContents(
            uri="file:///logo.svg", blob=base64.b64encode(svg.encode()).decode(), mime_type="image/svg+xml"))]), "pics")
    for model in ("anthropic/claude-sonnet-4-5", "bedrock/amazon.nova-pro-v1:0", "gemini/gemini-2.0-flash"):
        content = result.to_message("c", model)["content"]
        urls = [p["image_url"]["url"] for p in content if p["type"] == "image_url"]
        assert len(urls) == 1 and urls[0].startswith("data:image/png;"), model  # only the PNG is an image part
        text = " ".join(p["text"] for p in content if p["type"] == "text")
        assert text.count(svg) == 2 and "[image: image/tiff, 40 bytes, not shown: models take PNG" in text
    openai = result.to_messages("c", "gpt-4o-mini")
    assert [p["type"] for p in openai[1]["content"]] == ["text", "image_url"]  # the follow-up carries the PNG only
