"""Resources and templates of the fixture server on every transport and both protocol eras."""

from __future__ import annotations

import threading

import pytest
from mcp.server.lowlevel.server import Server
from mcp_types import (
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    ResourceTemplate,
    TextResourceContents,
)

import mcp_litellm as ml
from tests.servers.fixture_server import PNG


def test_resources_listing_content_and_messages(make_client, transport):
    client = make_client(transport)
    resources = client.resources()
    assert {r.name for r in resources} == {"readme", "pixel", "blob"}
    readme = client.resource("readme")
    assert isinstance(readme, ml.Resource)
    assert readme.uri == "file:///docs/readme.md" and readme.mime_type == "text/markdown"
    assert readme.description == "The project readme." and readme.client is client
    assert client.resource("file:///docs/readme.md") is readme, "a resource is found by its uri too"
    assert readme.content() == "# Fixture\nThis is the readme."
    assert client.resource("pixel").content() == PNG
    assert client.resource("blob").content() == bytes(range(16))
    assert client.read_resource("file:///docs/readme.md") == "# Fixture\nThis is the readme."

    text_message = readme.to_message()
    assert text_message["role"] == "user" and isinstance(text_message["content"], str)
    assert text_message["content"].endswith("# Fixture\nThis is the readme.")
    assert "readme <file:///docs/readme.md>" in text_message["content"]
    image_message = client.resource("pixel").to_message()
    assert [p["type"] for p in image_message["content"]] == ["text", "image_url"]
    assert image_message["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    blob_message = client.resource("blob").to_message()
    assert "application/octet-stream, 16 bytes" in blob_message["content"]
    with pytest.raises(ml.NotFoundError):
        client.resource("missing")


def test_content_is_cached_until_refresh(make_client):
    client = make_client("memory")
    readme = client.resource("readme")
    first = readme.content()
    cache = client._catalog_cache.contents
    assert "file:///docs/readme.md" in cache
    cached_result = cache["file:///docs/readme.md"]
    assert readme.content() == first and cache["file:///docs/readme.md"] is cached_result
    readme.content(refresh=True)
    assert cache["file:///docs/readme.md"] is not cached_result


def test_templates_expand_read_and_complete(make_client, transport):
    client = make_client(transport)
    templates = client.resource_templates()
    assert [t.name for t in templates] == ["logs"]
    logs = client.resource_template("logs")
    assert isinstance(logs, ml.ResourceTemplate)
    assert logs.uri_template == "logs://{date}/{level}" and logs.mime_type == "text/plain"
    assert logs.variables == ["date", "level"]
    assert logs.expand({"date": "2026-01-02", "level": "warning"}) == "logs://2026-01-02/warning"
    assert logs.to_content(arguments={"date": "2026-01-02", "level": "error"}) == "error logs for 2026-01-02: all quiet"
    assert logs.to_message({"date": "d", "level": "info"})["content"].endswith("info logs for d: all quiet")
    with pytest.raises(ml.ConfigError, match="'level'"):
        logs.to_content({"date": "2026-01-02"})
    completion = logs.complete("level", "w")
    assert isinstance(completion, ml.Completion)
    assert completion.values == ["warning"] and completion.total == 1 and completion.has_more is False
    assert logs.complete("level", "", context={"date": "never"}).values == []


def test_expansion_encodes_reserved_characters():
    template = ml.ResourceTemplate(uri_template="search://{query}", name="s", client=None)  # type: ignore[arg-type]
    assert template.expand({"query": "a b/c"}) == "search://a%20b%2Fc"


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_subscriptions_deliver_updates_and_drop_cached_content(make_client, transport, protocol):
    client = make_client(transport, protocol=protocol)
    updated: list[str] = []
    arrived = threading.Event()
    client.on_resource_updated(lambda uri: (updated.append(uri), arrived.set()))
    readme = client.resource("readme")
    readme.content()
    readme.subscribe()
    client.execute_tool("touch", {"uri": readme.uri})
    assert arrived.wait(10), f"no resources/updated arrived ({protocol})"
    assert updated == [readme.uri]
    assert readme.uri not in client._catalog_cache.contents, "an update drops the cached content"
    readme.unsubscribe()
    arrived.clear()
    client.execute_tool("touch", {"uri": readme.uri})
    client.execute_tool("touch", {"uri": "file:///other"})  # never subscribed
    assert client.ping()
    assert not arrived.wait(0.5) and updated == [readme.uri]


def test_subscribe_without_server_support_is_unsupported():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("plain", subscriptions=False)

    @server.resource("note://one", name="one")
    def one() -> str:
        return "1"

    for protocol in ("legacy", "auto"):
        client = ml.client("plain", "memory", {"server": server}, protocol=protocol)
        try:
            with pytest.raises(ml.UnsupportedFeature):
                client.resource("one").subscribe()
            assert client.resource("one").content() == "1"
        finally:
            client.stop()


async def test_async_twins(make_client):
    client = make_client("memory")
    readme = await client.aresource("readme")
    assert len(await client.aresources()) == 3
    assert await readme.acontent() == "# Fixture\nThis is the readme."
    assert (await readme.ato_message())["role"] == "user"
    assert await client.aread_resource("file:///data/blob.bin") == bytes(range(16))
    logs = await client.aresource_template("logs")
    assert len(await client.aresource_templates()) == 1
    assert await logs.ato_content({"date": "d", "level": "debug"}) == "debug logs for d: all quiet"
    assert (await logs.acomplete("level", "d")).values == ["debug"]
    await readme.asubscribe()
    await readme.aunsubscribe()


def test_query_variables_are_optional_and_others_required():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("search")

    @server.resource("search://items{?q,limit}", name="search")
    def search(q: str = "", limit: str = "10") -> str:
        return f"q={q} limit={limit}"

    @server.resource("user://{id}/profile", name="profile")
    def profile(id: str) -> str:
        return f"profile {id}"

    client = ml.client("search", "memory", {"server": server})
    try:
        template = client.resource_template("search")
        assert template.expand({"q": "cats"}) == "search://items?q=cats"
        assert template.expand({}) == "search://items"
        assert template.expand({"q": "cats", "limit": 5}) == "search://items?q=cats&limit=5"
        assert template.to_content({"q": "cats"}) == "q=cats limit=10"
        with pytest.raises(ml.ConfigError, match="needs 'id'"):
            client.resource_template("profile").expand({})
    finally:
        client.stop()


def test_kinds_the_server_does_not_offer_are_unsupported_features():
    from mcp.server.lowlevel.server import Server
    from mcp_types import ListToolsResult, Tool

    async def list_tools(context, params):
        return ListToolsResult(tools=[Tool(name="only", input_schema={"type": "object"})])

    client = ml.client("tools-only", "memory", {"server": Server("tools-only", on_list_tools=list_tools)}, start=False)
    with ml.ClientGroup([client]) as group:
        assert [t.name for t in client.tools()] == ["only"]
        for call in (client.prompts, client.resources, client.resource_templates,
                     lambda: client.read_resource("file:///x")):
            with pytest.raises(ml.UnsupportedFeature, match="did not advertise"):
                call()
        assert group.prompts() == [] and group.resources() == [] and group.resource_templates() == []
        assert [t.name for t in group.tools()] == ["only"]


def level4_server() -> Server:
    """A server whose templates use every RFC 6570 level (the SDK's own template class refuses some)."""
    templates = [
        ResourceTemplate(name="prefix", uri_template="demo://users/{name:3}/profile"),
        ResourceTemplate(name="search", uri_template="demo://search{?q,tags*}"),
        ResourceTemplate(name="paths", uri_template="demo://files/{+root}/{+path}{#section}"),
        ResourceTemplate(name="matrix", uri_template="demo://m{;id,opts*}{/seg*}{.ext}"),
        ResourceTemplate(name="broken", uri_template="demo://x/{open"),
        ResourceTemplate(name="filter", uri_template="demo://filter{?keys*}"),
        ResourceTemplate(name="pairs", uri_template="demo://pairs{/keys*}{;more*}{?all}{#frag*}"),
    ]

    async def list_templates(ctx, params) -> ListResourceTemplatesResult:  # type: ignore[no-untyped-def]
        return ListResourceTemplatesResult(resource_templates=templates)

    async def read(ctx, params) -> ReadResourceResult:  # type: ignore[no-untyped-def]
        return ReadResourceResult(contents=[TextResourceContents(uri=params.uri, mime_type="text/plain",
                                                                 text=f"read {params.uri}")])

    async def list_resources(ctx, params) -> ListResourcesResult:  # type: ignore[no-untyped-def]
        return ListResourcesResult(resources=[])

    return Server("level4", on_list_resources=list_resources, on_list_resource_templates=list_templates,
                  on_read_resource=read)


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_rfc6570_level4_templates_expand_and_read(protocol):
    client = ml.client("level4", "memory", {"server": level4_server()}, protocol=protocol)
    try:
        prefix, search = client.resource_template("prefix"), client.resource_template("search")
        paths, matrix = client.resource_template("paths"), client.resource_template("matrix")
        assert prefix.expand({"name": "alexandra"}) == "demo://users/ale/profile"
        assert search.variables == ["q", "tags"]
        assert search.expand({"q": "red shoes", "tags": ["a", "b"]}) == "demo://search?q=red%20shoes&tags=a&tags=b"
        assert search.expand({}) == "demo://search"
        assert paths.expand({"root": "home/ada", "path": "notes/today.md", "section": "top"}) == (
            "demo://files/home/ada/notes/today.md#top")
        assert matrix.expand({"id": 7, "opts": {"x": "1"}, "seg": ["a", "b"], "ext": "json"}) == (
            "demo://m;id=7;x=1/a/b.json")
        assert prefix.to_content({"name": "alexandra"}) == "read demo://users/ale/profile"
        with pytest.raises(ml.ConfigError, match="prefix modifier"):
            prefix.expand({"name": ["a", "b"]})
        with pytest.raises(ml.ConfigError, match="needs 'name'"):
            prefix.expand({})
        with pytest.raises(ml.ConfigError, match="got a object"):
            search.expand({"q": object()})
        broken = client.resource_template("broken")
        with pytest.raises(ml.ConfigError, match="invalid URI template"):
            broken.expand({"open": "x"})
        with pytest.raises(ml.ConfigError, match="invalid URI template"):
            _ = broken.variables
    finally:
        client.stop()


def test_a_mapping_expands_in_the_order_given():
    """RFC 6570 keeps an associative array's order; uritemplate sorts a dict by key unless given pairs."""
    client = ml.client("level4", "memory", {"server": level4_server()})
    try:
        keys = {"semi": ";", "dot": "."}
        assert client.resource_template("filter").expand({"keys": keys}) == "demo://filter?semi=%3B&dot=."
        assert client.resource_template("filter").to_content({"keys": keys}) == "read demo://filter?semi=%3B&dot=."
        pairs = client.resource_template("pairs")
        assert pairs.expand({"keys": {"z": 1, "a": 2}, "more": {"y": "b", "b": "y"}, "all": {"q": 1, "c": 2},
                             "frag": {"n": "x", "m": "y"}}) == "demo://pairs/z=1/a=2;y=b;b=y?all=q,1,c,2#n=x,m=y"
        assert client.resource_template("filter").expand({"keys": {}}) == "demo://filter"  # empty: undefined
    finally:
        client.stop()
