"""Servers given on the command line are named after what a user recognises in what they typed: the
package a launcher runs (also through a node_modules path to a generic ``index.js``), the host and path of
a URL. Real servers: server-everything run by ``node`` from its node_modules path, the fixture server over
streamable HTTP and SSE."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from mcp_litellm._cli.server_names import command_name, url_name
from tests.helpers.cli import run
from tests.helpers.servers import EVERYTHING

SAFE = re.compile(r"[a-zA-Z0-9_-]{1,40}")


@pytest.mark.parametrize(("command", "name"), [
    ("node /x/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js /tmp", "server-filesystem"),
    ("node /x/node_modules/mcp-weather/build/main.mjs", "mcp-weather"),
    ("npx -y @modelcontextprotocol/server-filesystem@latest /tmp", "server-filesystem"),
    ("uvx mcp-server-fetch", "mcp-server-fetch"),
    ("uvx --from git+https://github.com/a/b mcp-git", "mcp-git"),
    ("python -m mcp_server_time", "mcp_server_time"),
    ("node /home/me/weather/build/index.js", "weather"),
    ("docker run -i --rm -e X=1 mcp/fetch", "fetch"),
    ("node -r dotenv/config ./srv/notes/dist/index.js", "notes"),
    ("node node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js",
     "simpleStreamableHttp"),
    ("/opt/my.server --stdio", "my-server"),
])
def test_a_command_is_named_after_its_package(command, name):
    assert command_name(shlex.split(command)) == name
    assert SAFE.fullmatch(name)


@pytest.mark.parametrize(("url", "name"), [
    ("http://127.0.0.1:8000/mcp", "127-0-0-1-8000"),
    ("http://127.0.0.1:4390/mcp", "127-0-0-1-4390"),
    ("http://[::1]:8000/mcp", "ip6-1-8000"),
    ("http://0.0.0.0:8000/mcp", "0-0-0-0-8000"),
    ("http://localhost:3001/sse", "localhost-3001"),
    ("https://mcp.deepwiki.com/mcp", "deepwiki"),
    ("https://api.githubcopilot.com/mcp/", "githubcopilot"),
    ("https://example.com/servers/github/mcp", "example-servers-github"),
    ("http://10.0.0.5:9000/mcp", "10-0-0-5-9000"),
    ("https://gitmcp.io/owner/repo?api_key=sekrit-123", "gitmcp-owner-repo"),
])
def test_a_url_is_named_after_its_host_and_path(url, name):
    assert url_name(url) == name
    assert SAFE.fullmatch(name)


def test_a_node_script_in_node_modules_is_named_after_its_package(everything_js):
    done = run("servers", "--command", f"node {shlex.quote(str(EVERYTHING))}", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert [row["name"] for row in json.loads(done.stdout)] == ["server-everything"]


def test_url_servers_are_named_after_host_port_and_path(fixture_http):
    streamable, sse = fixture_http["streamable-http"], fixture_http["sse"]
    done = run("servers", "--url", streamable, "--url", sse, "--url", streamable, "--format", "json")
    assert done.returncode == 0, done.stderr
    ports = [url.rsplit(":", 1)[1].split("/")[0] for url in (streamable, sse)]
    assert streamable.startswith("http://127.0.0.1:")  # named after the host as given, not "localhost"
    assert [row["name"] for row in json.loads(done.stdout)] == [
        f"127-0-0-1-{ports[0]}", f"127-0-0-1-{ports[1]}", f"127-0-0-1-{ports[0]}-2"]
