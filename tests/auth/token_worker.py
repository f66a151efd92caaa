"""One worker process of a web app, for the shared-token tests: connects to the OAuth test server with tokens
stored in Redis, says ``ready``, waits for a go file, calls ``add`` and prints the result.

    python tests/auth/token_worker.py URL REDIS_URL GO_FILE [--authorize] [--dpop]

Without ``--authorize`` the worker may not ask a person: it must find usable tokens in Redis (stored, or
refreshed, by another worker); an authorization it would start fails it. ``--dpop``: with ``oauth.dpop`` (the
key the tokens are bound to is in Redis with them).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import mcp_litellm as ml
from tests.auth.oauth_server import follow


def refuse(url: str) -> str:
    raise RuntimeError("this worker was asked to authorize: it found no usable tokens in Redis")


def main() -> int:
    url, redis_url, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    authorize = follow if "--authorize" in sys.argv else refuse
    config = {"url": url, "oauth": {"storage": redis_url, "authorize": authorize, "dpop": "--dpop" in sys.argv}}
    with ml.Client("notes", "streamable", config, request_timeout=30) as client:
        print("ready", flush=True)
        deadline = time.monotonic() + 60
        while not go.exists():
            if time.monotonic() > deadline:
                print("no go file", flush=True)
                return 2
            time.sleep(0.01)
        try:
            print("result", client.tool("add").execute({"a": 2, "b": 40}).text, flush=True)
        except ml.AuthError as exc:
            print("error", exc, flush=True)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
