"""Fixtures of the reliability suite: the scripted model (``llm``) and ``spans`` are the top conftest's."""
