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


def test_sdist_and_wheel_hold_the_package_and_honest_metadata(tmp_path):
    """Build both distributions from this checkout (no network: ``--no-isolation``) and read them back."""
    import email
    import tarfile
    import zipfile

    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path), str(root)],
                   capture_output=True, text=True, timeout=300, check=True)
    sdist = next(tmp_path.glob("mcp_litellm-*.tar.gz"))
    wheel = next(tmp_path.glob("mcp_litellm-*.whl"))
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"README.md", "CHANGELOG.md", "LICENSE", "pyproject.toml", "mcp_litellm/py.typed",
            "mcp_litellm/__init__.py", "mcp_litellm/_client/client.py"} <= names
    # no tests at all rather than tests that cannot run from the sdist (they need npm servers and .ci)
    leaked = sorted(n for n in names if n.startswith(("tests/", "benchmarks/", "examples/", ".ci/"))
                    or "__pycache__" in n)
    assert leaked == [], leaked
    with zipfile.ZipFile(wheel) as archive:
        files = set(archive.namelist())
        metadata_name = next(n for n in files if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(archive.read(metadata_name))
    assert "mcp_litellm/py.typed" in files and not any(n.startswith("tests/") for n in files)
    requires = metadata.get_all("Requires-Dist")
    litellm = next(r for r in requires if r.startswith("litellm"))
    assert "<" not in litellm and "==" not in litellm, f"litellm must have no upper bound: {litellm}"
    classifiers = metadata.get_all("Classifier")
    assert "Typing :: Typed" in classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)
    versions = {c.rsplit(" ", 1)[-1] for c in classifiers if c.startswith("Programming Language :: Python :: 3.")}
    assert {"3.10", "3.11"} <= versions
    assert metadata["Requires-Python"] == ">=3.10"
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL"))
    assert {"Homepage", "Repository", "Issues", "Changelog"} <= set(urls)


def test_changelog_has_a_released_section_and_the_version_matches():
    text = (Path(__file__).resolve().parents[2] / "CHANGELOG.md").read_text()
    import re

    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, flags=re.M)
    assert released, "CHANGELOG.md needs a released section: '## [X.Y.Z] - YYYY-MM-DD'"
    assert released[0][0] == ml.__version__, "the newest released section names the package's version"
