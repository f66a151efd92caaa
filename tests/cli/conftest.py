"""The command line's tests use the top conftest's fixtures (a process marker, the fixture server's tools)."""
