"""What ``mcp-litellm doctor`` asks LiteLLM: how many tokens a model counts for each tool definition, and the
declarations LiteLLM sends Gemini (to see which schema keys it drops)."""

from __future__ import annotations

import json
from collections.abc import Callable

from mcp_litellm._llm import litellm_module

_DOWNLOADED_TOKENIZERS = {
    # LiteLLM's Hugging Face tokenizers that are fetched from the Hub on first use (litellm/utils.py,
    # ``_load_huggingface_tokenizer``); the Anthropic one ships inside the litellm package.
    "cohere": "Xenova/c4ai-command-r-v01-tokenizer",
    "llama2": "hf-internal-testing/llama-tokenizer",
    "llama3": "Xenova/llama-3-tokenizer",
}


def _hub_cached(repo: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    return isinstance(try_to_load_from_cache(repo, "tokenizer.json"), str)


def _tokenizer_name(litellm: object, model: str, kind: str | None, exact_provider: bool) -> tuple[str, bool]:
    """The tokenizer ``token_counter`` uses for ``model`` (``kind``: LiteLLM's Hugging Face tokenizer for it,
    if any) and whether its count is the model's own."""
    if kind is not None:
        return f"LiteLLM's {kind} tokenizer (Hugging Face)", False
    try:
        from litellm.litellm_core_utils.token_counter import openai_tokenizer_encoding_name
    except ImportError:  # another LiteLLM version
        return "tiktoken", False
    known = model in getattr(litellm, "open_ai_chat_completion_models", ())
    return f"tiktoken {openai_tokenizer_encoding_name(model)}", exact_provider and known


def tool_tokens(model: str, tools: list[dict[str, object]], *,
                provider: str | None = None) -> tuple[int, str, bool, int]:
    """``(tokens, tokenizer, exact, estimated)``: what ``tools`` cost in a request to ``model``, by
    ``litellm.token_counter(messages=[], tools=tools)`` (``model`` without its provider prefix).

    ``exact`` is True only for OpenAI models whose tiktoken encoding LiteLLM knows; other providers'
    counts are LiteLLM's approximation with the tokenizer named. Nothing is downloaded: a Hugging Face
    tokenizer that is not cached yet is replaced by LiteLLM's tiktoken fallback (said in ``tokenizer``).
    A definition LiteLLM cannot count (it fails on an array without ``items``), or every definition when
    the tokenizer itself is unavailable offline, is estimated at characters / 4: ``estimated`` says how many.
    """
    litellm = litellm_module()
    kind = getattr(litellm.utils, "huggingface_tokenizer_kind", lambda _: None)(model)
    tokenizer, exact = _tokenizer_name(litellm, model, kind, provider in ("openai", "azure"))
    offline = kind in _DOWNLOADED_TOKENIZERS and not _hub_cached(_DOWNLOADED_TOKENIZERS[kind])
    saved = getattr(litellm, "disable_hf_tokenizer_download", False)
    if offline:
        litellm.disable_hf_tokenizer_download = True
        tokenizer, exact = f"tiktoken cl100k_base (LiteLLM's {kind} tokenizer is not downloaded)", False

    def count(some: list[dict[str, object]]) -> int:
        return int(litellm.token_counter(model=model, messages=[], tools=some or None))

    try:
        try:
            litellm.token_counter(model=model, text="probe")
        except Exception as exc:  # the tokenizer itself: an encoding missing offline
            return sum(map(_estimate, tools)), f"{tokenizer} unavailable ({type(exc).__name__})", False, len(tools)
        try:
            return count(tools), tokenizer, exact, 0
        except Exception:  # LiteLLM raises KeyError, ValueError, ...: find the definitions at fault
            good = [_countable(count, tool) for tool in tools]
            countable = [tool for tool, ok in zip(tools, good, strict=True) if ok]
            estimate = sum(_estimate(tool) for tool, ok in zip(tools, good, strict=True) if not ok)
            return (count(countable) if countable else 0) + estimate, tokenizer, exact, good.count(False)
    finally:
        if offline:
            litellm.disable_hf_tokenizer_download = saved


def _countable(count: Callable[[list[dict[str, object]]], int], tool: dict[str, object]) -> bool:
    try:
        count([tool])
    except Exception:  # LiteLLM's formatting of this definition fails
        return False
    return True


def _estimate(tool: dict[str, object]) -> int:

    return len(json.dumps(tool, separators=(",", ":"))) // 4


def gemini_declarations(tools: list[dict[str, object]]) -> list[dict[str, object] | str] | None:
    """For each OpenAI-format tool, the function declaration LiteLLM sends Gemini (its own conversion,
    ``VertexGeminiConfig._map_function``), or the error LiteLLM raises converting it (a ``str``: that
    request would fail before reaching Gemini); ``None`` when this LiteLLM version has no such helper."""

    try:
        from litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini import VertexGeminiConfig
    except ImportError:
        return None
    config = VertexGeminiConfig()
    if not callable(getattr(config, "_map_function", None)):
        return None
    converted: list[dict[str, object] | str] = []
    for tool in tools:
        try:
            mapped = config._map_function([json.loads(json.dumps(tool))], optional_params={})
            [declaration] = [d for item in mapped for d in (item.get("function_declarations") or [])]
        except Exception as exc:  # LiteLLM's conversion refuses the schema (too deep, anyOf of only null, ...)
            converted.append(f"{type(exc).__name__}: {exc}")
            continue
        converted.append(dict(declaration))
    return converted


def gemini_schema_fields() -> tuple[set[str], set[str]] | None:
    """The keywords and type names of Gemini's ``Schema`` as LiteLLM declares it
    (``litellm.types.llms.vertex_ai.Schema``), or ``None`` when this LiteLLM version lacks it."""
    import typing

    try:
        from litellm.types.llms.vertex_ai import Schema
    except ImportError:
        return None
    hints = typing.get_type_hints(Schema)
    return set(hints), {str(t) for t in typing.get_args(hints.get("type"))}
