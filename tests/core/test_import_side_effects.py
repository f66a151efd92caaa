"""Importing mcp_litellm changes nothing process-wide in logging; a client installs its log filters as it starts,
and the secrets it made known are forgotten when it stops."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import mcp_litellm as ml
from mcp_litellm._core.redact import redact_text
from tests.helpers.servers import FIXTURE_SERVER

_SNAPSHOT = """
import json, logging, sys
import httpx, mcp.client.auth.oauth2, mcp.client.streamable_http

def snapshot():
    loggers = {name: [type(f).__qualname__ for f in logger.filters]
               for name, logger in logging.root.manager.loggerDict.items() if isinstance(logger, logging.Logger)}
    return {"factory": repr(logging.getLogRecordFactory()), "filters": {k: v for k, v in loggers.items() if v}}

before = snapshot()
import mcp_litellm, mcp_litellm.handlers
after = snapshot()
print(json.dumps([before, after]))
"""


def test_importing_the_package_leaves_the_record_factory_and_the_loggers_filters_alone():
    done = subprocess.run([sys.executable, "-c", _SNAPSHOT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    before, after = json.loads(done.stdout)
    assert after["factory"] == before["factory"]
    assert after["filters"] == before["filters"]


def test_a_starting_client_installs_its_filters_once(make_client):
    with make_client("memory"), make_client("memory", name="second"):
        pass
    for name in ("mcp.client.streamable_http", "mcp.client.auth.oauth2", "httpx", "mcp_litellm"):
        masking = [f for f in logging.getLogger(name).filters if type(f).__name__ == "MaskingFilter"]
        assert len(masking) == 1, (name, logging.getLogger(name).filters)
    kinds = [type(f).__name__ for f in logging.getLogger("mcp.client.streamable_http").filters]
    assert kinds.count("ExpiredSessionDeleteFilter") == 1
    assert [type(f).__name__ for f in logging.getLogger("mcp.client.auth.oauth2").filters].count(
        "FlowErrorToDebug") == 1


def test_a_stopped_clients_secrets_are_forgotten():
    secret = "sk-forget-me-0123456789"
    client = ml.client("secretive", "stdio", {"command": sys.executable, "args": [str(FIXTURE_SERVER)],
                                               "env": {"FIXTURE_TOKEN": secret}})
    try:
        assert redact_text(f"token {secret}") == "token ***"
    finally:
        client.stop()
    assert redact_text(f"token {secret}") == f"token {secret}"
    client.start()  # started again, its secrets are masked again
    try:
        assert redact_text(f"token {secret}") == "token ***"
    finally:
        client.stop()


def test_pooled_users_tokens_leave_with_their_clients():
    tokens = [f"Bearer user-token-{n}-abcdefgh" for n in range(3)]
    clients = [ml.client(f"user{n}", "stdio", {"command": sys.executable, "args": [str(FIXTURE_SERVER)],
                                               "env": {"AUTHORIZATION": token}}) for n, token in enumerate(tokens)]
    for client in clients:
        client.stop()
    for token in tokens:
        assert redact_text(token) == token
