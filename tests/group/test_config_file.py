"""load_config: the mcpServers JSON format, YAML, environment expansion, and precise errors."""

from __future__ import annotations

import json
import sys

import pytest

import mcp_litellm as ml
from mcp_litellm._servers.config_file import ServerConfig

ENV = {"HOME_DIR": "/home/me", "TOKEN": "s3cr3t-token", "EMPTY": ""}


def write(tmp_path, data, name="mcp.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_mcp_servers_json_file(tmp_path):
    path = write(tmp_path, {
        "globalShortcut": "Ctrl+Space",  # other settings of a desktop app's file are ignored
        "mcpServers": {
            "files": {"command": "npx", "args": ["-y", "server-filesystem", "${HOME_DIR}/docs"],
                      "env": {"API_KEY": "${TOKEN}", "PORT": 8080}, "cwd": "/tmp"},
            "remote": {"type": "http", "url": "https://example.com/mcp",
                       "headers": {"Authorization": "Bearer ${TOKEN}"}},
            "legacy": {"url": "https://example.com/sse"},
            "modern": {"url": "https://example.com/mcp"},
            "gemini": {"httpUrl": "https://example.com/mcp2"},
            "old": {"transport": "sse", "url": "https://example.com/events"},
        },
    })
    servers = ml.load_config(path, environ=ENV)
    assert list(servers) == ["files", "remote", "legacy", "modern", "gemini", "old"]
    files = servers["files"]
    assert files.transport_type == "stdio"
    assert files.config == {"command": "npx", "args": ["-y", "server-filesystem", "/home/me/docs"],
                            "env": {"API_KEY": "s3cr3t-token", "PORT": "8080"}, "cwd": "/tmp"}
    assert servers["remote"].transport_type == "streamable"
    assert servers["remote"].config["headers"] == {"Authorization": "Bearer s3cr3t-token"}
    assert servers["legacy"].transport_type == "sse"
    assert servers["modern"].transport_type == "streamable"
    assert servers["gemini"].config == {"url": "https://example.com/mcp2"}
    assert servers["old"].transport_type == "sse"


def test_secrets_stay_out_of_reprs(tmp_path):
    servers = ml.load_config({"mcpServers": {"r": {"url": "https://x.test/mcp", "headers": {"X-Key": "${TOKEN}"}},
                                             "s": {"command": "srv", "env": {"KEY": "${TOKEN}"}}}}, environ=ENV)
    assert "s3cr3t" not in repr(servers)
    assert "s3cr3t" not in repr(servers["r"].client())


def test_env_defaults_and_escapes():
    servers = ml.load_config({"mcpServers": {"s": {
        "command": "${CMD:-python}",
        "args": ["${EMPTY:-fallback}", "${HOME_DIR:-unused}", "$${NOT_EXPANDED}", "${env:TOKEN}", "${MISSING:-}"],
    }}}, environ=ENV)
    assert servers["s"].config["command"] == "python"
    assert servers["s"].config["args"] == ["fallback", "/home/me", "${NOT_EXPANDED}", "s3cr3t-token", ""]


def test_vs_code_workspace_folder_is_the_folder_of_the_config_file(tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / ".vscode").mkdir(parents=True)
    entry = {"type": "stdio", "command": "${workspaceFolder}/.venv/bin/python",
             "args": ["${workspaceFolderBasename}", "${userHome}", "${env:workspaceFolder:-unset}"],
             "cwd": "${workspaceFolder}"}
    monkeypatch.setenv("workspaceFolder", "/not/this/one")  # not an environment variable in VS Code
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    vscode = ml.load_config(write(project / ".vscode", {"servers": {"s": entry}}))["s"].config
    assert vscode["command"] == f"{project}/.venv/bin/python"  # .vscode/mcp.json: the workspace above it
    assert vscode["args"] == ["project", str(tmp_path / "home"), "/not/this/one"]
    assert vscode["cwd"] == str(project)
    beside = ml.load_config(write(project, {"mcpServers": {"s": entry}}))["s"].config
    assert beside["command"] == f"{project}/.venv/bin/python"  # a file in the folder itself
    monkeypatch.chdir(project)
    given = ml.load_config({"mcpServers": {"s": entry}})["s"].config  # a mapping: the current directory
    assert given["cwd"] == str(project)


def test_env_defaults_to_os_environ(monkeypatch):
    monkeypatch.setenv("MCP_LITELLM_TEST_CMD", "my-server")
    assert ml.load_config({"mcpServers": {"s": {"command": "${MCP_LITELLM_TEST_CMD}"}}})["s"].config["command"] \
        == "my-server"


def test_unset_variable_is_named():
    with pytest.raises(ml.ConfigError) as info:
        ml.load_config({"mcpServers": {"api": {"url": "https://x.test", "headers": {"A": "Bearer ${API_TOKEN}"}}}},
                       environ=ENV)
    message = str(info.value)
    assert "'API_TOKEN'" in message and "'api'" in message and "headers" in message


def test_unsupported_placeholder():
    with pytest.raises(ml.ConfigError, match="unsupported placeholder"):
        ml.load_config({"mcpServers": {"s": {"command": "x", "args": ["${input:token}"]}}}, environ=ENV)


def test_yaml_with_reference_keys(tmp_path):
    path = write(tmp_path, """
mcp_servers:
  filesystem:
    transport_type: stdio
    command: npx
    args: ["@modelcontextprotocol/server-filesystem", "${HOME_DIR}"]
    env: {}
    with_prefix: true
    request_timeout: 12
    roots: [/tmp]
    exclude_tools: ["write_*"]
  api_server:
    transport_type: sse
    url: https://api.example.com/mcp/sse
    headers:
      Authorization: "Bearer ${TOKEN}"
    disabled: true
    include_tools: [search, "get_*"]
""", name="mcps.yml")
    servers = ml.load_config(path, environ=ENV)
    fs = servers["filesystem"]
    assert (fs.transport_type, fs.with_prefix, fs.request_timeout, fs.roots, fs.exclude_tools) == (
        "stdio", True, 12.0, ("/tmp",), ("write_*",))
    assert fs.config["args"] == ["@modelcontextprotocol/server-filesystem", "/home/me"]
    assert fs.client_kwargs() == {"request_timeout": 12.0, "with_prefix": True, "roots": ["/tmp"]}
    api = servers["api_server"]
    assert (api.transport_type, api.disabled, api.include_tools) == ("sse", True, ("search", "get_*"))
    assert api.client_kwargs() == {}


def test_camel_case_options_and_other_hosts_keys():
    server = ml.load_config({"mcpServers": {"s": {
        "command": "x", "withPrefix": False, "requestTimeout": 5, "includeTools": ["a"], "excludeTools": ["b"],
        "autoApprove": ["a"], "description": "from another host", "maxResultChars": 100,
    }}})["s"]
    assert (server.with_prefix, server.request_timeout, server.include_tools, server.exclude_tools) == (
        False, 5.0, ("a",), ("b",))
    assert server.client_kwargs() == {"request_timeout": 5.0, "max_result_chars": 100}


def test_client_from_config_gets_the_options():
    server = ml.load_config({"mcpServers": {"s": {"command": sys.executable, "request_timeout": 7,
                                                  "with_prefix": True, "protocol": "legacy"}}})["s"]
    client = server.client()
    assert (client.name, client.transport_type, client.request_timeout, client.with_prefix, client.protocol) == (
        "s", "stdio", 7.0, True, "legacy")
    assert not client.is_alive()


def test_max_message_size_per_server_and_for_the_whole_file(tmp_path):
    data = {"max_message_size": 4 * 2**20, "mcpServers": {
        "own": {"command": sys.executable, "maxMessageSize": 2**30},
        "default": {"command": sys.executable},
    }}
    servers = ml.load_config(write(tmp_path, data))
    assert servers["own"].client_kwargs()["max_message_size"] == 2**30
    assert servers["default"].client_kwargs()["max_message_size"] == 4 * 2**20
    assert servers["default"].client().max_message_size == 4 * 2**20
    assert "max_message_size" not in ml.load_config({"mcpServers": {"s": {"command": "x"}}})["s"].client_kwargs()


@pytest.mark.parametrize(("top", "fragment"), [
    ({"max_message_size": True}, "top-level .max_message_size. must be a whole number of bytes >= 1024 .*, got True"),
    ({"maxMessageSize": 10}, "got 10"),
    ({"max_message_size": 2048, "maxMessageSize": 2048}, "give max_message_size once"),
])
def test_bad_file_wide_max_message_size(top, fragment):
    with pytest.raises(ml.ConfigError, match=fragment):
        ml.load_config({**top, "mcpServers": {"s": {"command": "x"}}})


def test_yaml_needs_pyyaml(tmp_path, monkeypatch):
    path = write(tmp_path, "mcp_servers: {}\n", name="servers.yaml")
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(ml.ConfigError, match=r"PyYAML.*mcp-litellm\[yaml\]"):
        ml.load_config(path)


@pytest.mark.parametrize(("entry", "key", "fragment"), [
    ({"command": "x", "comand": "y"}, "comand", "unknown key"),
    ({"command": "x", "timeout": 10}, "timeout", "did you mean 'request_timeout'"),
    ({"url": "https://x.test/mcp", "command": "x", "type": "http"}, "url", "give either 'command' (a local stdio"),
    ({"command": "x", "url": "https://x.test/mcp"}, "url", "or 'url' (a remote HTTP server), not both"),
    ({"command": "x", "args": "--flag"}, "args", "must be a list of strings, got str"),
    ({"command": "x", "args": [["nested"]]}, "args", "must be a list of strings"),
    ({"command": 5}, "command", "must be a string, got 5"),
    ({"command": "x", "env": ["A=1"]}, "env", "must be a mapping"),
    ({"command": "x", "env": {"A": ["1"]}}, "env.A", "must be a string, got list"),
    ({"command": "x", "with_prefix": "yes"}, "with_prefix", "must be true or false, got str"),
    ({"command": "x", "disabled": 1}, "disabled", "must be true or false, got 1"),
    ({"command": "x", "request_timeout": "10"}, "request_timeout", "must be a positive number of seconds, got str"),
    ({"command": "x", "request_timeout": -1}, "request_timeout", "positive number of seconds, got -1"),
    ({"command": "x", "max_result_chars": 0}, "max_result_chars", "must be a positive integer, got 0"),
    ({"command": "x", "max_message_size": 512}, "max_message_size", ">= 1024 (e.g. 67108864 for 64 MiB), got 512"),
    ({"command": "x", "maxMessageSize": "64MiB"}, "maxMessageSize", "(e.g. 67108864 for 64 MiB), got str"),
    ({"command": "x", "exclude_tools": ["a", 1]}, "exclude_tools", "a list whose item 1 is 1 (quote it"),
    ({"command": "x", "args": ["a", {"b": 1}]}, "args", "a list whose item 1 is dict"),
    ({"command": "x", "include_tools": "read_*"}, "include_tools", "list of tool names or globs, got str"),
    ({"command": "x", "roots": [1]}, "roots", "list of paths"),
    ({"url": "https://x.test", "headers": "Bearer abc"}, "headers", "must be a mapping"),
    ({"url": "ftp://x.test"}, "url", "must start with http"),
    ({"type": "stdio"}, "command", "is required"),
    ({"type": "sse"}, "url", "is required"),
    ({"type": "websocket", "url": "wss://x"}, "type", "unknown transport 'websocket'"),
    ({"type": "stdio", "transport": "stdio", "command": "x"}, "transport", "once"),
    ({"command": "x", "with_prefix": True, "withPrefix": True}, "withPrefix", "given twice"),
    ({"command": "x", "protocol": "v9"}, "protocol", "must be 'auto', 'legacy' or a protocol version"),
    ({"url": "https://x.test", "timeout": 0}, "timeout", "must be a positive number of seconds, got 0"),
])
def test_bad_entries_name_server_and_key(entry, key, fragment):
    with pytest.raises(ml.ConfigError) as info:
        ml.load_config({"mcpServers": {"my-server": entry}}, environ=ENV)
    message = str(info.value)
    assert "server 'my-server'" in message
    assert f"key {key!r}" in message
    assert fragment in message


def test_wrong_type_error_never_shows_the_value():
    with pytest.raises(ml.ConfigError) as info:
        ml.load_config({"mcpServers": {"s": {"url": "https://x.test", "headers": {"Authorization": ["s3cr3t"]}}}})
    assert "s3cr3t" not in str(info.value)


@pytest.mark.parametrize(("data", "fragment"), [
    ({"servers_list": []}, "no servers found"),
    ({"mcpServers": [], }, "must map server names"),
    ({"mcpServers": {}, "mcp_servers": {}}, "only one of"),
    ({"mcpServers": {"s": "npx server"}}, "settings must be a mapping, got str"),
    ({"mcpServers": {"s": {}}}, "needs 'command'"),
    ([1, 2], "takes a file path or a mapping, got list"),
])
def test_bad_documents(data, fragment):
    with pytest.raises(ml.ConfigError, match=fragment):
        ml.load_config(data)


def test_bad_files(tmp_path):
    with pytest.raises(ml.ConfigError, match="not found"):
        ml.load_config(tmp_path / "missing.json")
    with pytest.raises(ml.ConfigError, match=r"invalid JSON at line 2, column \d+"):
        ml.load_config(write(tmp_path, '{"mcpServers": {\n  "s": {"command": "x" "args": []}}}'))
    with pytest.raises(ml.ConfigError, match="top level must be a mapping"):
        ml.load_config(write(tmp_path, "[1]"))
    with pytest.raises(ml.ConfigError, match="invalid YAML at line"):
        ml.load_config(write(tmp_path, "mcp_servers:\n  s: [unclosed\n", name="x.yaml"))


def test_empty_server_table_and_vscode_key():
    assert ml.load_config({"mcpServers": None}) == {}
    servers = ml.load_config({"servers": {"s": {"type": "stdio", "command": "x"}}, "inputs": []})
    assert isinstance(servers["s"], ServerConfig) and servers["s"].transport_type == "stdio"


def test_memory_server_from_a_mapping():
    from mcp_litellm.demo_server import build_server

    server = build_server()
    config = ml.load_config({"mcpServers": {"demo": {"server": server}}})["demo"]
    assert config.transport_type == "memory" and config.config["server"] is server


def test_a_missing_root_names_its_server(tmp_path):
    config = {"mcpServers": {"files": {"command": "x", "roots": [str(tmp_path / "missing")]}}}
    with pytest.raises(ml.ConfigError, match=r"server 'files': root .* does not exist"):
        ml.ClientGroup(config)


def test_jsonc_comments_and_trailing_commas(tmp_path):
    text = """{
  // VS Code's .vscode/mcp.json is JSONC
  "servers": {
    "local": {"type": "stdio", "command": "x", /* inline */ "args": ["//not a comment", "/* nor this */",],},
    /* a block
       comment */
    "web": {"serverUrl": "https://h.test/sse", "headers": {"A": "b, }"},},
  },
}"""
    servers = ml.load_config(write(tmp_path, text))
    assert servers["local"].config["args"] == ["//not a comment", "/* nor this */"]
    assert (servers["web"].transport_type, servers["web"].config["url"]) == ("sse", "https://h.test/sse")
    assert servers["web"].config["headers"] == {"A": "b, }"}
    # a real syntax error after comments still points at its own line and column
    with pytest.raises(ml.ConfigError, match="invalid JSON at line 4, column 24"):
        ml.load_config(write(tmp_path, '{\n// one\n/* two */ "servers": {\n  "s": {"command": "x" "args": []}}}'))
    with pytest.raises(ml.ConfigError, match="invalid JSON at line 1"):
        ml.load_config(write(tmp_path, '{"servers": {} /* not closed'))


def test_windsurf_server_url():
    server = ml.load_config({"mcpServers": {"s": {"serverUrl": "https://h.test/mcp"}}})["s"]
    assert (server.transport_type, server.config) == ("streamable", {"url": "https://h.test/mcp"})
    with pytest.raises(ml.ConfigError, match="key 'serverUrl': give the URL once"):
        ml.load_config({"mcpServers": {"s": {"url": "https://h.test/mcp", "serverUrl": "https://h.test/mcp"}}})


@pytest.mark.parametrize("name", ["off", "on", "yes", "no"])
def test_yaml_server_names_read_as_booleans_say_to_quote_them(tmp_path, name):
    path = write(tmp_path, f"mcp_servers:\n  {name}:\n    command: x\n", name="mcp.yaml")
    with pytest.raises(ml.ConfigError, match=r"read as (true|false): YAML reads unquoted on, off, yes and no"):
        ml.load_config(path)
    path = write(tmp_path, f"mcp_servers:\n  '{name}':\n    command: x\n", name="mcp.yaml")
    assert list(ml.load_config(path)) == [name]
