"""Roots: configuration, validation, listing on both eras, and changes at run time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mcp_litellm as ml
from tests.helpers.features import refusal, result_json


def test_roots_are_listed_as_file_uris_on_both_eras(make_client, protocol, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    client = make_client("memory", protocol=protocol, roots=[str(project), tmp_path])
    assert client.roots.paths == [project.resolve(), tmp_path.resolve()]
    listed = result_json(client.execute_tool("client_roots"))
    assert listed == [{"uri": project.resolve().as_uri(), "name": "project"},
                      {"uri": tmp_path.resolve().as_uri(), "name": tmp_path.name}]


def test_relative_paths_and_file_uris_resolve(make_client, tmp_path, monkeypatch):
    (tmp_path / "sub dir").mkdir()
    monkeypatch.chdir(tmp_path)
    client = make_client("memory", roots=["./sub dir", (tmp_path / "sub dir").as_uri()], start=False)
    assert client.roots.paths == [(tmp_path / "sub dir").resolve()]  # the same directory once
    assert client.roots.uris[0].startswith("file:///") and "sub%20dir" in client.roots.uris[0]


@pytest.mark.parametrize(("root", "message"), [
    ("/definitely/not/here", "does not exist"),
    ("https://example.com/repo", "not a file:// URI"),
    ("file://otherhost/share", "remote host"),
])
def test_bad_roots_are_rejected(make_client, root, message):
    with pytest.raises(ml.ConfigError, match=message):
        make_client("memory", roots=[root], start=False)


def test_roots_must_be_a_list(make_client):
    with pytest.raises(ml.ConfigError, match="list of paths"):
        make_client("memory", roots="/tmp", start=False)


def test_unconfigured_roots_are_not_advertised(make_client, protocol):
    client = make_client("memory", protocol=protocol)
    assert not client.roots.configured and client.roots.paths == []
    assert "not supported" in refusal(client, "client_roots").lower()


def test_empty_roots_list_is_advertised_as_empty(make_client):
    client = make_client("memory", roots=[])
    assert result_json(client.execute_tool("client_roots")) == []


def test_add_and_remove_at_run_time(make_client, protocol, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    client = make_client("stdio", protocol=protocol, roots=[a])
    entry = client.roots.add(b, name="Bee")
    assert (entry.name, entry.path) == ("Bee", b.resolve())
    assert [r["name"] for r in result_json(client.execute_tool("client_roots"))] == ["a", "Bee"]
    client.roots.remove(str(a))
    assert [r["name"] for r in result_json(client.execute_tool("client_roots"))] == ["Bee"]
    with pytest.raises(ml.ConfigError, match="not one of the roots"):
        client.roots.remove(a)
    assert b in client.roots and a not in client.roots


async def test_async_add_on_a_client_without_roots_reinitialises(make_client, tmp_path):
    client = make_client("memory")
    assert "not supported" in refusal(client, "client_roots").lower()
    await client.roots.aadd(tmp_path)
    listed = json.loads((await client.aexecute_tool("client_roots")).text)
    assert listed == [{"uri": Path(tmp_path).resolve().as_uri(), "name": tmp_path.name}]


def test_add_and_remove_raise_no_sdk_deprecation_warnings(make_client, tmp_path):
    import warnings

    from mcp.shared.exceptions import MCPDeprecationWarning

    client = make_client("stdio", protocol="legacy", roots=[])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client.roots.add(tmp_path)
        client.roots.remove(tmp_path)
    assert client.protocol_version.startswith("2025")  # an era where the server is told of changes
    assert not [w for w in caught if issubclass(w.category, MCPDeprecationWarning)], [str(w.message) for w in caught]
    assert result_json(client.execute_tool("client_roots")) == []
