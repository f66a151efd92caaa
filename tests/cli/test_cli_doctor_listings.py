"""``mcp-litellm doctor`` against a server that answers "Method not found" to ``resources/templates/list``
(as server-postgres and mcp-server-duckdb do): it lists no templates, which is healthy (exit 0)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

NO_TEMPLATES = Path(__file__).resolve().parent.parent / "servers" / "no_templates_server.py"


def test_doctor_exits_0_for_a_server_without_resource_templates(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"bare": {"command": sys.executable, "args": [str(NO_TEMPLATES)]}}}))
    done = subprocess.run([sys.executable, "-m", "mcp_litellm", "doctor", "--config", str(config), "--format", "json"],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ), stdin=subprocess.DEVNULL)
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    assert done.returncode == report["exit_code"] == 0, done.stdout
    [row] = report["servers"]
    assert row["status"] == "ok" and "list_errors" not in row
    assert row["counts"] == {"tools": 1, "resources": 1, "resource_templates": 0, "prompts": 0}
