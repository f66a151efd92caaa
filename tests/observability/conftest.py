"""The observability tests' own fixture: a tracer of the test's own (``spans`` and ``llm`` are the top
conftest's; tests/helpers/spans.py records the spans)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.spans import Spans, provider


@pytest.fixture
def tracer(spans: Spans) -> Any:
    """A tracer of the test's own (the caller's spans)."""
    return provider().get_tracer("tests")
