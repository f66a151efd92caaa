"""``mcp-litellm login / logout / servers`` against the OAuth test server, run as subprocesses.

``login`` either finds no browser (``MCP_LITELLM_NO_BROWSER``), prints the authorization URL on stderr
and reads the redirected URL pasted on stdin (the test plays the user), or opens ``$BROWSER``, here
tests/auth/fake_browser.py, which approves and loads the redirect from the loopback listener.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.auth.oauth_server import OAuthServer
from tests.helpers.oauth import env, login


def config(tmp_path: Path, server: OAuthServer) -> str:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {
        "notes": {"url": server.url, "auth": "oauth"},
        "plain": {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]},
    }}))
    return str(path)


def run(*args: str, token_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_litellm", *args], capture_output=True, text=True, timeout=90,
                          env=env(token_dir), stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("paste", [True, False], ids=["paste-back", "loopback-listener"])
def test_login_servers_call_logout(oauth_server, token_dir, tmp_path, paste):
    cfg = config(tmp_path, oauth_server)

    done = run("servers", "-c", cfg, token_dir=token_dir)
    assert done.returncode == 0, done.stderr
    assert "login needed" not in done.stdout
    notes = next(line for line in done.stdout.splitlines() if line.startswith("notes"))
    assert "not authorized: run 'mcp-litellm login notes'" in notes
    assert oauth_server.grants() == []  # servers did not start an authorization

    code, stderr = login(cfg, token_dir, paste=paste)
    assert code == 0, stderr
    assert "authorized 'notes'" in stderr
    assert ("paste here the URL" in stderr) is paste and ("opened your browser" in stderr) is not paste
    assert "to authorize access to server 'notes' (http://" in stderr
    assert oauth_server.grants() == ["register", "authorize", "authorization_code"]

    done = run("servers", "-c", cfg, "--format", "json", token_dir=token_dir)
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["notes"]["status"] == "ok" and rows["notes"]["auth"] == "authorized"
    assert "auth" not in rows["plain"]

    done = run("call", "add", "a=2", "b=40", "-c", cfg, "-s", "notes", token_dir=token_dir)  # stdin closed: no prompt
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "42"
    assert oauth_server.grants().count("authorize") == 1

    assert oauth_server.provider.access and oauth_server.provider.refresh
    done = run("logout", "notes", "-c", cfg, token_dir=token_dir)
    assert done.returncode == 0 and "removed the stored tokens of 'notes'" in done.stderr
    assert "the authorization server revoked 2 token(s)" in done.stderr  # RFC 7009, at its revocation_endpoint
    assert not oauth_server.provider.access and not oauth_server.provider.refresh
    assert not list(token_dir.iterdir())
    done = run("servers", "-c", cfg, "-s", "notes", token_dir=token_dir)
    assert "not authorized" in done.stdout


def test_login_needs_an_oauth_server(oauth_server, token_dir, tmp_path):
    cfg = config(tmp_path, oauth_server)
    done = run("login", "plain", "-c", cfg, token_dir=token_dir)
    assert done.returncode == 2 and "does not use OAuth" in done.stderr
    done = run("login", "nope", "-c", cfg, token_dir=token_dir)
    assert done.returncode == 2 and "no server named 'nope'" in done.stderr


def test_login_denied_fails_with_one_line(oauth_server, token_dir, tmp_path):
    oauth_server.provider.deny = True
    code, stderr = login(config(tmp_path, oauth_server), token_dir, paste=True)
    assert code == 1
    assert "Traceback" not in stderr
    assert "mcp-litellm: error: server 'notes': OAuth with" in stderr and "access_denied" in stderr


def test_login_with_stdin_closed_fails_fast(oauth_server, token_dir, tmp_path):
    done = run("login", "notes", "-c", config(tmp_path, oauth_server), token_dir=token_dir)
    assert done.returncode == 1
    assert "no redirect URL was pasted" in done.stderr


def test_servers_starts_a_client_credentials_server_without_a_login(oauth_server, token_dir, tmp_path):
    from tests.auth.oauth_server import CC_CLIENT

    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"machine": {"url": oauth_server.url, "oauth": {
        "grant": "client_credentials", "client_id": CC_CLIENT[0], "client_secret": "${CC_SECRET}",
        "issuer": oauth_server.issuer}}}}))
    done = subprocess.run([sys.executable, "-m", "mcp_litellm", "servers", "-c", str(path), "--format", "json"],
                          capture_output=True, text=True, timeout=90, env={**env(token_dir), "CC_SECRET": CC_CLIENT[1]},
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    [row] = json.loads(done.stdout)
    assert row["status"] == "ok" and row["tools"] == 2  # add and whoami
    assert oauth_server.grants() == ["client_credentials"]
    assert CC_CLIENT[1] not in done.stdout + done.stderr
