"""The command line's tests share the group tests' fixtures (a process marker, the fixture server's tools)."""

from tests.group.conftest import fixture_tools, marker

__all__ = ["fixture_tools", "marker"]
