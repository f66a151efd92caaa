"""The tests' own layout: helpers live in tests/helpers/, fixtures in conftest files, and no module imports from a
``conftest`` or from a test module (a test module's helpers would run its tests' import side effects, and a
conftest's names are pytest's to load, once, under its own rules)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def forbidden_imports(path: Path) -> list[str]:
    """``file:line module`` for each import of a ``conftest`` or ``test_*`` module in the Python file ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.ImportFrom):  # relative: from . import conftest, from .test_x import y
            modules = [node.module or "", *(alias.name for alias in node.names)]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            last = module.rsplit(".", 1)[-1]
            if last == "conftest" or last.startswith("test_"):
                found.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{node.lineno} {module}")
                break
    return found


def python_files() -> list[Path]:
    return [path for folder in ("tests", "benchmarks") for path in sorted((ROOT / folder).rglob("*.py"))
            if "node_modules" not in path.parts]


def test_no_module_imports_from_a_conftest_or_a_test_module():
    found = [hit for path in python_files() for hit in forbidden_imports(path)]
    assert not found, "import these from tests/helpers/ instead (move the helper there):\n" + "\n".join(found)


def test_the_check_sees_each_form_of_the_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from tests.chat.conftest import x\nimport tests.core.test_loop\n"
                      "from tests.features import test_elicitation\nfrom .conftest import y\n"
                      "def f():\n    from tests.cli.test_cli import run\n")
    assert [hit.rsplit(" ", 1)[1] for hit in forbidden_imports(sample)] == [
        "tests.chat.conftest", "tests.core.test_loop", "tests.features.test_elicitation", "conftest",
        "tests.cli.test_cli"]
