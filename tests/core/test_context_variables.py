"""Context travels as an argument (issue 33): at most two context variables are left in the package, the
HTTP observer and the one kept for the deprecated ``CodeRun.current()``."""

from __future__ import annotations

import ast
from pathlib import Path

import mcp_litellm

ALLOWED = {("_transports/observer.py", "http_observer"), ("_core/code_run.py", "_serving")}


def _context_variables() -> set[tuple[str, str]]:
    root = Path(mcp_litellm.__file__).parent
    found: set[tuple[str, str]] = set()
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            called = getattr(node.func, "attr", getattr(node.func, "id", None)) if isinstance(node, ast.Call) else None
            if isinstance(node, ast.Call) and called == "ContextVar":
                names = [t.id if isinstance(t, ast.Name) else ast.unparse(t) for t in _targets(tree, node)]
                found.add((path.relative_to(root).as_posix(), ",".join(names) or "?"))
    return found


def _targets(tree: ast.AST, call: ast.Call) -> list[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and node.value is call:
            return [node.target]
        if isinstance(node, ast.Assign) and node.value is call:
            return list(node.targets)
    return []


def test_no_context_variable_beyond_the_two():
    assert _context_variables() == ALLOWED
