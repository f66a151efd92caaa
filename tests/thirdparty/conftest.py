"""Fixtures the server-everything tests share with the suites they came from (client features: a
scripted model and a clean global config for each test)."""

from tests.features.conftest import clean_config, llm

__all__ = ["clean_config", "llm"]
