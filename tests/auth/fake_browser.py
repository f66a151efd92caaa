"""A stand-in browser for ``$BROWSER``: approves at the (auto-approving) authorization server, then
loads the page it was redirected to (mcp-litellm's loopback listener), as a browser would."""

from __future__ import annotations

import sys

import httpx2

if __name__ == "__main__":
    answer = httpx2.get(sys.argv[1], follow_redirects=False, timeout=10)
    page = httpx2.get(answer.headers["location"], timeout=10)
    sys.exit(0 if page.status_code == 200 and "close this tab" in page.text else 1)
