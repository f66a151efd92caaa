"""Scripted models for tests, mocked only at the HTTP level so LiteLLM's real request and response code runs.

- :mod:`tests.scripted_llm.server`: a scripted OpenAI-compatible chat-completions server on 127.0.0.1
  (``fake_llm``, ``Turn``), for chats driven end to end, in this process or in a child process.
- :mod:`tests.scripted_llm.respx_mock`: a respx router that sees LiteLLM's sync and async HTTP calls
  (``litellm_respx``), for answers scripted per request in this process: ``ScriptedLLM`` (a script of
  turns; the chat tests' ``llm``) and ``QueuedLLM`` (queued completion bodies; the feature tests' ``llm``).
- :mod:`tests.scripted_llm.openai`: the chat-completions bodies both answer with (``Turn``, JSON or stream
  chunks).
"""
