"""The public surface as a user's type checker and the layer contract see it.

- ``mypy --strict`` passes on the examples and on ``user_program.py`` (every public entry point);
- three typical misuses are each reported by mypy;
- the import-linter contract in ``pyproject.toml`` holds, and breaks on an import against the layers.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(300)


def mypy(tmp_path: Path, *targets: str) -> tuple[int, str]:
    from mypy import api

    stdout, stderr, status = api.run(["--strict", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"),
                                      "--python-version", "3.10", *targets])
    return status, stdout + stderr


def test_examples_and_a_typed_user_program_pass_mypy_strict(tmp_path: Path) -> None:
    status, output = mypy(tmp_path, str(ROOT / "examples"), str(ROOT / "tests" / "typing" / "user_program.py"))
    assert status == 0, output


MISUSES = '''\
import mcp_litellm as ml

chat = ml.Chat("gpt-4o-mini")
chat.on_tool_call(lambda c: print(c.nmae))
client = ml.client("x", "stdio", {"command": "x"}, request_timeout="8", start=False)
client.on_progress(lambda p, total, m, t: p / total)
misspelt: ml.StdioConfig = {"command": "x", "argz": ["y"]}
wrong: ml.StreamableConfig = {"url": "https://example.com/mcp", "timeout": "5"}
'''


def test_mypy_reports_each_deliberate_misuse(tmp_path: Path) -> None:
    program = tmp_path / "misuse.py"
    program.write_text(MISUSES)
    status, output = mypy(tmp_path, str(program))
    assert status == 1, output
    errors = [line for line in output.splitlines() if ": error:" in line]
    assert any(":4:" in line and '"ToolCall" has no attribute "nmae"' in line for line in errors), output
    assert any(":5:" in line and '"request_timeout"' in line and '"str"' in line and '"float"' in line
               for line in errors), output
    assert any(":6:" in line and "Unsupported operand types for /" in line and '"None"' in line
               for line in errors), output
    assert any(":7:" in line and '"argz"' in line for line in errors), output  # typed transport configs
    assert any(":8:" in line and '"timeout"' in line for line in errors), output
    assert {line.split(":")[1] for line in errors} == {"4", "5", "6", "7", "8"}, output


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / "lint-imports"
    env = {"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "COLUMNS": "200"}
    return subprocess.run([str(script), "--config", str(root / "pyproject.toml")], cwd=root, capture_output=True,
                          text=True, timeout=120, env=env)


def test_the_layer_contract_holds_and_catches_an_import_against_the_layers(tmp_path: Path) -> None:
    pytest.importorskip("importlinter", reason="import-linter runs on Python 3.11+ (CI checks the layers there)")
    assert lint_imports(ROOT).returncode == 0
    copy = tmp_path / "tree"
    shutil.copytree(ROOT / "mcp_litellm", copy / "mcp_litellm", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    tool = copy / "mcp_litellm" / "_client" / "primitives" / "tool.py"
    tool.write_text(tool.read_text() + textwrap.dedent("""
        from mcp_litellm._chat.message import Message  # against the layers: the client may not see the chat
    """))
    broken = lint_imports(copy)
    assert broken.returncode != 0, broken.stdout
    report = " ".join(broken.stdout.split())
    assert "mcp_litellm._client is not allowed to import mcp_litellm._chat" in report, report
    assert "mcp_litellm._client.primitives.tool -> mcp_litellm._chat.message" in report, report
