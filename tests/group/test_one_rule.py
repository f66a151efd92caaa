"""One rule each, shared by the group, the command line and config files: which URIs a resource template
fits (the strict RFC 6570 parser), which server owns a URI, and which tools an include/exclude glob picks."""

from __future__ import annotations

import pytest

import mcp_litellm as ml
from mcp_litellm._core.naming import tool_matches
from mcp_litellm._core.uri_template import template_matches
from tests.servers.fixture_server import build_server


@pytest.mark.parametrize(("template", "uri", "fits"), [
    ("logs://{date}/{level}", "logs://2026-01-01/error", True),
    ("logs://{date}/{level}", "logs://2026-01-01/error/extra", False),  # a simple value holds no "/"
    ("file:///{+path}", "file:///a/b/c.txt", True),  # a reserved value may
    ("s://x{?q,page}", "s://x?q=mcp&page=2", True),
    ("s://x{?q}", "s://x", True),  # query variables may be left out
    ("s://x{#frag}", "s://x#top", True),
    ("s://{.ext}", "s://.json", True),
    ("s://r{/segments*}", "s://r/a/b", True),
    ("s://{;p}", "s://;p=1", True),
    ("s://{x}", "t://y", False),
    ("s://{x", "s://{x", False),  # malformed: the strict parser refuses it, so it fits nothing
    ("s://{|x}", "s://x", False),  # a reserved operator
])
def test_template_matching_follows_rfc_6570(template, uri, fits):
    assert template_matches(template, uri) is fits


def test_tool_globs_are_one_rule():
    assert tool_matches(["write_*"], "fs", "write_file", "fs__write_file")
    assert tool_matches(["fs__*"], "fs", "write_file", "write_file")  # server__glob, unprefixed
    assert tool_matches(["f?__read"], "fs", "read")
    assert not tool_matches(["db__*"], "fs", "write_file")
    assert not tool_matches([], "fs", "write_file")


def test_a_configs_tool_lists_understand_server_globs_like_the_group():
    config = {"mcpServers": {"files": {"server": build_server("files"), "include_tools": ["files__add", "echo"]},
                             "other": {"server": build_server("other"), "exclude_tools": ["files__*", "other__a*"]}}}
    with ml.establish_connection(config) as group:
        assert sorted(t.name for t in group["files"].tools()) == ["add", "echo"]
        other = {t.name for t in group["other"].tools()}
        assert "echo" in other and not any(name.startswith("a") for name in other)
        assert {t.mcp_name for t in group.tools(include=["files__*"])} == {"add", "echo"}


def test_a_uri_two_servers_offer_is_ambiguous_not_the_first_servers():
    clients = [ml.client(name, "memory", {"server": build_server(name)}, start=False) for name in ("a", "b")]
    with ml.ClientGroup(clients) as group:
        with pytest.raises(ml.ConfigError, match=r"several servers \('a', 'b'\); read it from one"):
            group.read_resource("file:///docs/readme.md")
        with pytest.raises(ml.ConfigError, match="several servers"):
            group.read_resource("logs://2026-01-01/error")  # both templates fit
        assert "readme" in group["b"].read_resource("file:///docs/readme.md").lower()
    with ml.ClientGroup([ml.client("solo", "memory", {"server": build_server("solo")}, start=False)]) as group:
        assert "error" in group.read_resource("logs://2026-01-01/error")
        with pytest.raises(ml.ServerError) as unknown:  # the template does not fit; the only server is asked
            group.read_resource("logs://2026-01-01/error/extra")
        assert unknown.value.server == "solo" and unknown.value.method == "resources/read"
