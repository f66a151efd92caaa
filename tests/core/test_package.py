"""The package itself: typed, lazy about LiteLLM, one public surface."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mcp_litellm as ml


def test_importing_the_package_does_not_import_litellm():
    code = "import sys, mcp_litellm; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False", "litellm must be imported lazily, only when a chat or sampling needs it"


def test_package_is_typed():
    assert (Path(ml.__file__).parent / "py.typed").exists()


def test_public_names_are_exported_and_documented():
    for name in ml.__all__:
        obj = getattr(ml, name)
        if callable(obj):
            assert obj.__doc__, f"public name {name} has no docstring"
