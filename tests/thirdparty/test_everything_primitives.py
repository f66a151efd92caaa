"""Primitives against the third-party reference server (@modelcontextprotocol/server-everything, stdio)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from mcp_types import EmbeddedResource, ImageContent, ResourceLink, TextContent

import mcp_litellm as ml
from mcp_litellm._client.notifications import LOG_LEVELS

pytestmark = pytest.mark.thirdparty


@pytest.fixture
def everything(everything_js) -> Iterator[Callable[..., ml.Client]]:
    made: list[ml.Client] = []

    def make(**kwargs) -> ml.Client:
        client = ml.client("everything", "stdio", {"command": "node", "args": [str(everything_js), "stdio"]}, **kwargs)
        made.append(client)
        return client

    yield make
    for client in made:
        client.stop()


def test_tools_list_changed_right_after_initialisation(everything):
    client = everything(start=False)
    changed = threading.Event()
    client.on_list_changed(lambda kind: kind == "tools" and changed.set())
    client.start()
    assert client.protocol_version == "2025-11-25"
    assert changed.wait(10), "server-everything announces its tool list after notifications/initialized"
    assert {"echo", "get-tiny-image", "get-structured-content"} <= {t.name for t in client.tools()}


def test_content_blocks(everything):
    client = everything()
    image = client.execute_tool("get-tiny-image")
    assert [type(b) for b in image.content] == [TextContent, ImageContent, TextContent]
    assert image.content[1].mime_type == "image/png"
    tool_message, media = image.to_messages("call_1")
    assert "[image (image/png) attached in the next message]" in tool_message["content"]
    assert media["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    inline = image.to_message("call_1", model="anthropic/claude-3-5-sonnet-latest")
    assert [p["type"] for p in inline["content"]] == ["text", "image_url", "text"]  # the server's order

    annotated = client.execute_tool("get-annotated-message", {"messageType": "error", "includeImage": True})
    assert annotated.content[0].annotations.priority == 1.0
    assert annotated.content[0].annotations.audience == ["user", "assistant"]

    links = client.execute_tool("get-resource-links", {"count": 2})
    link_blocks = [b for b in links.content if isinstance(b, ResourceLink)]
    assert len(link_blocks) == 2 and all(str(b.uri).startswith("demo://resource/dynamic/") for b in link_blocks)
    assert f"<{link_blocks[0].uri}>" in links.text

    reference = client.execute_tool("get-resource-reference", {"resourceType": "Text", "resourceId": 1})
    embedded = next(b for b in reference.content if isinstance(b, EmbeddedResource))
    assert str(embedded.resource.uri) == "demo://resource/dynamic/text/1"
    assert embedded.resource.text in reference.text

    structured = client.tool("get-structured-content")
    assert structured.output_schema is not None
    result = structured.execute(location="New York")
    assert set(result.structured) == {"temperature", "conditions", "humidity"} and not result.is_error


def test_progress(everything):
    client = everything()
    seen: list[tuple] = []
    client.on_progress(lambda progress, total, message, tool: seen.append((progress, total, tool)))
    per_call: list[tuple] = []
    result = client.tool("trigger-long-running-operation").execute(
        duration=0.3, steps=3, on_progress=lambda p, t, m: per_call.append((p, t)))
    assert not result.is_error
    assert client.ping()
    assert sorted(per_call) == [(1, 3), (2, 3), (3, 3)]
    assert sorted(seen) == [(i, 3, "trigger-long-running-operation") for i in (1, 2, 3)]


def test_resources_templates_and_subscriptions(everything):
    client = everything()
    resources = client.resources()
    assert len(resources) == 7 and all(r.mime_type == "text/markdown" for r in resources)
    features = client.resource("features.md")
    assert isinstance(features.content(), str) and features.content()
    assert features.to_message()["role"] == "user"

    templates = client.resource_templates()
    assert len(templates) == 2
    text_template = client.resource_template("demo://resource/dynamic/text/{resourceId}")
    assert "Resource 7" in text_template.to_content({"resourceId": 7})
    blob_template = next(t for t in templates if "blob" in t.uri_template)
    assert blob_template.to_content({"resourceId": 2})

    updated: list[str] = []
    arrived = threading.Event()
    client.on_resource_updated(lambda uri: (updated.append(uri), arrived.set()))
    features.subscribe()
    client.execute_tool("toggle-subscriber-updates")  # sends one update at once, then every 5 s
    try:
        assert arrived.wait(10)
        assert updated[0] == features.uri
    finally:
        client.execute_tool("toggle-subscriber-updates")
        features.unsubscribe()


def test_prompts_and_completion(everything):
    client = everything()
    assert {p.name for p in client.prompts()} == {"simple-prompt", "args-prompt", "completable-prompt",
                                                   "resource-prompt"}
    assert client.prompt("simple-prompt").messages()[0]["role"] == "user"
    args_text = client.prompt("args-prompt").messages({"city": "Paris", "state": "TX"})[0]["content"]
    assert "Paris" in args_text
    with pytest.raises(ml.ConfigError, match="'city'"):
        client.prompt("args-prompt").messages({"state": "TX"})
    completable = client.prompt("completable-prompt")
    assert completable.complete("department", "Eng").values == ["Engineering"]
    names = completable.complete("name", "", context={"department": "Engineering"})
    assert names.values and all(isinstance(v, str) for v in names.values)
    messages = client.prompt("resource-prompt").messages({"resourceType": "Text", "resourceId": "3"})
    assert len(messages) == 2 and all(m["role"] == "user" for m in messages)
    assert "Resource 3" in messages[1]["content"], "the embedded resource becomes its text"


def test_logging(everything):
    client = everything()
    received: list[tuple] = []
    arrived = threading.Event()
    client.on_logging(lambda level, logger, data: (received.append((level, data)), arrived.set()), level="debug")
    client.execute_tool("toggle-simulated-logging")  # one message at once, then every 5 s
    try:
        assert arrived.wait(10)
        level, data = received[0]
        assert level in LOG_LEVELS and "message" in data.lower()
    finally:
        client.execute_tool("toggle-simulated-logging")
