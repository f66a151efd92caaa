"""Helpers the tests share: plain functions, classes and constants, imported as ``from tests.helpers.x import y``.

Fixtures stay in the ``conftest.py`` files; a test module imports nothing from a ``conftest`` or from another
test module (tests/core/test_test_layout.py checks it)."""
