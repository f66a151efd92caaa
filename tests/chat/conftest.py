"""The chat tests' scripted model is the top conftest's ``llm`` (a
:class:`~tests.scripted_llm.respx_mock.ScriptedLLM`, at the HTTP level, so LiteLLM's real request and response
code runs); their helpers live in tests/helpers/chat.py.

Each request takes the next :class:`~tests.scripted_llm.openai.Turn`; streamed answers split text into words and
tool-call arguments into fragments the way providers do (or use ``Turn.raw_chunks`` for hand-made deltas)."""
