"""The group tests use the top conftest's fixtures (``marker``, ``fixture_tools``); their helpers live in
tests/helpers/ (entries.py, processes.py)."""
