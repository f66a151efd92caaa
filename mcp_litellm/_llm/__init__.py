"""The one module that imports LiteLLM (lazily: ``import litellm`` takes seconds).

Everything else in mcp_litellm reaches LiteLLM through the small functions here, so importing the
package stays cheap and the provider layer has a single seam.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.thread
import contextlib
import functools
import importlib
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

from mcp_litellm._core import telemetry

_quieted = False


def litellm_module() -> Any:
    """The ``litellm`` module, imported on first use.

    At that first use LiteLLM's "Give Feedback / Get Help" banner, which it prints on every failed
    request, is turned off (``litellm.suppress_debug_info``), but only while the setting still holds
    LiteLLM's default: a user who set it to True keeps it, and one who sets it to False afterwards gets
    the banners back (our own error already says what failed and what to check).
    """
    import litellm

    global _quieted
    if not _quieted:
        _quieted = True
        if getattr(litellm, "suppress_debug_info", None) is False:
            litellm.suppress_debug_info = True
    return litellm


_FIRST_REQUEST_MODULES = ("openai.resources.chat", "openai.resources.chat.completions", "litellm._service_logger",
                          "litellm.integrations.prometheus_services", "anyio._backends._asyncio",
                          # LiteLLM 1.110: its callback manager and what the first request's provider lookup loads
                          "litellm.litellm_core_utils.logging_callback_manager",
                          "litellm.integrations.generic_api.generic_api_callback",
                          "litellm.llms.github_copilot.per_user_auth", "litellm.llms.github_copilot.authenticator",
                          "litellm.llms.github_copilot.common_utils", "litellm.llms.github_copilot.github_host")
"""What the first model request would import on the caller's loop: the OpenAI SDK imports its resource
classes when a client first reaches ``client.chat`` (about 0.5 s), LiteLLM its service logger (and from
1.110 its callback manager and GitHub Copilot helpers), and a first streamed answer anyio's asyncio
backend. A module this LiteLLM version does not have is skipped."""
_FIRST_ROUTED_MODULES = ("litellm.integrations.otel.logger", "litellm.router_utils.baseline_request",
                         # LiteLLM 1.110's Router
                         "litellm.router_rust.invoke.prompt_management",
                         "litellm.router_strategy.auto_router.baseline_request", "litellm.rust_bridge.logger",
                         "litellm.router_utils.pre_call_checks.continuation_prefill_check",
                         "litellm.router_utils.client_initalization_utils")
"""What a Router's first request imports besides (its OpenTelemetry logger, about 1 s; a module this LiteLLM
version does not have is skipped)."""
_warm_ups: dict[str | None, concurrent.futures.Future[None]] = {}
_ROUTED = "\0router"
"""The key of the Router's first-use work in ``_warm_ups`` (no model is named so)."""
_TOKENS = "\0tokens:"
"""The key prefix of a model's tokenizer load in ``_warm_ups``."""
_warm_ups_lock = threading.Lock()
_warm_up_pool: concurrent.futures.ThreadPoolExecutor | None = None


def _warm_up(model: str | None) -> None:
    """The slow first-use work of LiteLLM, done once: ``model=None`` imports LiteLLM (seconds) and what
    its first request imports; a model name loads that model's metadata and parameter rules, and with
    ``_TOKENS`` in front its tokenizer (about 1 s: only where tokens are counted, for tools)."""
    try:
        if model is None or model == _ROUTED:
            litellm_module()
            for name in _FIRST_REQUEST_MODULES if model is None else _FIRST_ROUTED_MODULES:
                with contextlib.suppress(ImportError):  # another LiteLLM version: nothing to do early
                    importlib.import_module(name)
        elif model.startswith(_TOKENS):
            count_tokens(model[len(_TOKENS):], text="warm up")
            with contextlib.suppress(ImportError):  # the encoding LiteLLM counts a stream's tokens with
                importlib.import_module("litellm.litellm_core_utils.default_encoding")
        else:
            model_metadata(model)
            streams_usage(model)
    except Exception:  # the request itself reports what is wrong (an unknown provider, a missing package)
        return


def warm_up(model: str | None = None, router: object = None, *, tokens: bool = False
            ) -> list[concurrent.futures.Future[None]]:
    """Start LiteLLM's slow first-use work (its import, the OpenAI SDK's lazy imports, a ``router``'s,
    ``model``'s metadata, and with ``tokens`` its tokenizer) in a worker thread, each piece once per
    process; returns the pieces' futures (see :func:`prepare`)."""
    global _warm_up_pool
    futures = []
    keys = [None, *([_ROUTED] if router is not None else []), *([model] if model else []),
            *([_TOKENS + model] if model and tokens else [])]
    for key in keys:
        future = _warm_ups.get(key)
        if future is None or future.cancelled():
            with _warm_ups_lock:
                future = _warm_ups.get(key)
                if future is None or future.cancelled():
                    if _warm_up_pool is None:
                        _warm_up_pool = concurrent.futures.ThreadPoolExecutor(1, "mcp-litellm-warm-up")
                    future = _warm_ups[key] = _warm_up_pool.submit(_warm_up, key)
        futures.append(future)
    return futures


async def prepare(model: str | None = None, router: object = None, *, tokens: bool = False) -> None:
    """Wait until LiteLLM's first-use work for ``model`` (see :func:`warm_up`) is done, without blocking
    the caller's event loop: it runs in a worker thread, so the loop keeps serving its other tasks (the
    first ``chat.aask`` would otherwise stall all of them for seconds). Concurrent callers share it.

    What a worker thread cannot hide: C code that holds the GIL meanwhile (LiteLLM parsing its 3 MB
    price table, tiktoken building an encoding) still pauses the loop, for a fraction of the time."""
    for future in warm_up(model, router, tokens=tokens):
        if not future.done():
            await asyncio.shield(asyncio.wrap_future(future))


_UNLISTED_PARAMS = frozenset({"extra_body", "extra_query", "top_k", "cache_control_injection_points", "mock_tool_calls",
                               "mock_delay", "reasoning"})
"""Keyword arguments ``litellm.completion`` reads from its ``**kwargs`` (or passes to the provider) that are in
none of LiteLLM's own lists below."""


def completion_params() -> frozenset[str] | None:
    """The keyword arguments LiteLLM's ``completion`` knows: its signature, LiteLLM's lists of its own
    parameters (``all_litellm_params``, its generic deployment params, the AWS and other credential
    keywords) and the OpenAI chat parameters; ``None`` while LiteLLM is not imported yet (importing it takes
    seconds: :func:`prepare` does it off the loop)."""
    imported = _warm_ups.get(None)
    if imported is None or not imported.done() or imported.cancelled() or imported.exception() is not None:
        return None
    return _read_completion_params()


@functools.cache
def _read_completion_params() -> frozenset[str]:
    import inspect

    litellm = litellm_module()
    names = {*inspect.signature(litellm.completion).parameters, *_UNLISTED_PARAMS}
    lists = (("litellm.types.utils", "all_litellm_params"), ("litellm.constants", "OPENAI_CHAT_COMPLETION_PARAMS"),
             ("litellm.litellm_core_utils.get_litellm_params", "AWS_CREDENTIAL_KWARGS_KEYS"),
             ("litellm.litellm_core_utils.get_litellm_params", "OPTIONAL_KWARGS_KEYS"))
    for module, name in lists:  # where this LiteLLM keeps them (another version may move one: then it is left out)
        with contextlib.suppress(ImportError):
            names.update(getattr(importlib.import_module(module), name, ()))
    with contextlib.suppress(ImportError, AttributeError):
        names.update(importlib.import_module("litellm.types.router").GenericLiteLLMParams.model_fields)
    return frozenset(names - {"kwargs", "self"})


async def acompletion(*, router: Any = None, **kwargs: Any) -> Any:
    """``litellm.acompletion(**kwargs)``, or ``router.acompletion(**kwargs)`` when a Router is given.

    While an OpenTelemetry span of ours records (a chat turn, a sampling request), it goes to LiteLLM as
    ``metadata["litellm_parent_otel_span"]``: LiteLLM's ``otel`` callback then records each model request
    as a span of its own under ours, whichever thread it logs from, instead of writing onto ours.
    """
    parent = telemetry.current_span()
    if parent is not telemetry.NO_SPAN:
        metadata = kwargs.get("metadata")
        metadata = dict(metadata) if isinstance(metadata, dict) else {}
        metadata.setdefault("litellm_parent_otel_span", parent)
        kwargs["metadata"] = metadata
    try:
        if router is not None:
            return await router.acompletion(**kwargs)
        return await litellm_module().acompletion(**kwargs)
    except Exception as exc:
        explain_failure(exc, kwargs, router)
        raise  # the same exception, of the same LiteLLM type (code that catches it keeps working)


async def aresponses(**kwargs: Any) -> Any:
    """``litellm.aresponses(**kwargs)`` (the Responses API); a failure is explained like :func:`acompletion`'s
    (``metadata`` is a field of the Responses request itself, so no span rides on it)."""
    try:
        return await litellm_module().aresponses(**kwargs)
    except Exception as exc:
        explain_failure(exc, kwargs)
        raise


def _responses_bridge() -> Any:
    from litellm.completion_extras.litellm_responses_transformation.transformation import (
        LiteLLMResponsesTransformationHandler,
    )

    return LiteLLMResponsesTransformationHandler()  # type: ignore[no-untyped-call]


def responses_input(messages: list[dict[str, Any]]) -> tuple[list[Any], str | None]:
    """Chat messages as Responses API input items, and the leading system messages as ``instructions``
    (LiteLLM's own converter: tool calls and outputs, images, the reasoning items kept on messages)."""
    items, instructions = _responses_bridge().convert_chat_completion_messages_to_responses_api(messages)
    return list(items), instructions


def responses_tools(tools: list[dict[str, Any]]) -> list[Any]:
    """Chat tool definitions as Responses API tools (LiteLLM's converter; other tool types pass as they are)."""
    return list(_responses_bridge()._convert_tools_to_responses_format(tools))


_CONNECTION_WORDS = ("connection error", "connecterror", "connection refused", "all connection attempts failed",
                     "name or service not known", "nodename nor servname", "timed out", "timeout")
_KEY_WORDS = ("api key", "api_key", "credentials", "unauthorized", "authentication", "invalid x-api-key")
_REPEATED_PREFIX = re.compile(r"^(?:litellm\.)?[A-Za-z]*(?:Error|Exception|Timeout)\s*:\s*")


def explain_failure(exc: BaseException, kwargs: Mapping[str, object], router: object = None) -> None:
    """Rewrite the message of a LiteLLM exception (in place, its type kept) to say once which model and
    endpoint failed and what to check: ``litellm.InternalServerError: InternalServerError: OpenAIException
    - Connection error.`` becomes ``model request to 'openai/x' at http://127.0.0.1:8000/v1 failed
    (InternalServerError: OpenAIException - Connection error.): check that the endpoint is running ...``.
    Other exceptions are left as they are."""
    if not type(exc).__module__.startswith(("litellm", "openai")) or getattr(exc, "_mcp_litellm_explained", False):
        return
    from mcp_litellm._core.redact import redact_text, redact_url, secret_params

    model = str(kwargs.get("model") or getattr(exc, "model", None) or "?")
    said = str(getattr(exc, "message", None) or exc)
    while _REPEATED_PREFIX.match(said):
        said = _REPEATED_PREFIX.sub("", said, count=1)
    endpoint = _endpoint(model, kwargs, router)
    at = f" at {redact_url(endpoint)}" if endpoint else ""
    routed = " (through the Router)" if router is not None else ""
    advice = _advice(type(exc).__name__, said.lower(), model, kwargs, endpoint)
    text = f"model request to {model!r}{at}{routed} failed ({type(exc).__name__}: {said.strip()})"
    text = redact_text(f"{text}: {advice}" if advice else text, secret_params(kwargs))
    try:
        exc.message = text  # type: ignore[attr-defined]  # what LiteLLM's __str__ shows
        exc.args = (text,)
        exc._mcp_litellm_explained = True  # type: ignore[attr-defined]
    except AttributeError:  # an exception type that refuses new attributes: leave it as it is
        return


def _endpoint(model: str, kwargs: Mapping[str, object], router: object) -> str | None:
    """The URL a request to ``model`` went to: ``api_base``/``base_url``, a Router deployment's, else the
    provider's default as LiteLLM knows it (``None`` when it does not say)."""
    given = kwargs.get("api_base") or kwargs.get("base_url")
    if given:
        return str(given)
    if router is not None:
        for entry in getattr(router, "model_list", None) or []:
            if isinstance(entry, dict) and entry.get("model_name") == model:
                params = entry.get("litellm_params") or {}
                if params.get("api_base"):
                    return str(params["api_base"])
                model = str(params.get("model") or model)
                break
    try:
        _, _, _, base = litellm_module().get_llm_provider(model=model)
    except Exception:  # a model LiteLLM cannot place
        return None
    return str(base) if base else None


def _advice(kind: str, said: str, model: str, kwargs: Mapping[str, object], endpoint: str | None) -> str:
    where = "api_base" if kwargs.get("api_base") or kwargs.get("base_url") else "the provider's endpoint"
    if any(word in said for word in _KEY_WORDS) or kind in ("AuthenticationError", "PermissionDeniedError"):
        return f"check the API key: {_key_hint(model, kwargs)}"
    if kind in ("APIConnectionError", "Timeout", "ServiceUnavailableError", "BadGatewayError") or (
            kind in ("InternalServerError", "APIError") and any(word in said for word in _CONNECTION_WORDS)):
        missing = "" if kwargs.get("api_key") else _missing_keys(model)
        key = f"; and set the API key ({missing})" if missing else ""
        return f"check that {where} is running and reachable from here (the URL, the port, a proxy){key}"
    if kind == "NotFoundError":
        return f"check the model name {model!r} and {where}"
    if kind == "RateLimitError":
        return "the provider is rate limiting: retry later, or pass num_retries= to the Chat"
    if kind == "InternalServerError":
        return f"the model server failed: see its logs, or retry ({where} answered with an error)"
    return ""


def _missing_keys(model: str) -> str:
    """``"OPENAI_API_KEY not set in the environment, no api_key= given"``, or ``""`` when LiteLLM finds
    the provider's key variables set (or cannot tell)."""
    try:
        missing = litellm_module().validate_environment(model=model).get("missing_keys") or []
    except Exception:  # a model LiteLLM cannot place
        missing = []
    return f"{', '.join(missing)} not set in the environment, no api_key= given" if missing else ""


def _key_hint(model: str, kwargs: Mapping[str, object]) -> str:
    if kwargs.get("api_key"):
        return "an api_key= was given: is it the right one for this endpoint?"
    return _missing_keys(model) or "no api_key= given, the provider's key variable is set: is it the right one?"


async def aembedding(**kwargs: Any) -> Any:
    """``litellm.aembedding(**kwargs)``."""
    return await litellm_module().aembedding(**kwargs)


def model_metadata(model: str) -> dict[str, Any] | None:
    """LiteLLM's cost/context metadata for ``model`` (with or without a provider prefix), or ``None``.

    Reads ``litellm.model_cost`` directly: ``get_model_info`` prints to stdout for unmapped models.
    """
    table: dict[str, Any] = litellm_module().model_cost
    for key in (model, model.split("/", 1)[1] if "/" in model else None, model.lower()):
        if key and isinstance(table.get(key), dict):
            return dict(table[key])
    return None


def router_metadata(router: object) -> Callable[[str], dict[str, Any] | None]:
    """``model_metadata`` for a Router's aliases: an alias gets the metadata of the model(s) behind it in
    the Router's model list (averaged over its deployments; flags like ``supports_reasoning`` if any has
    them); a name that is no alias is looked up as a model."""
    behind: dict[str, list[str]] = {}
    for entry in getattr(router, "model_list", None) or []:
        if isinstance(entry, dict):
            model = (entry.get("litellm_params") or {}).get("model")
            if entry.get("model_name") and isinstance(model, str):
                behind.setdefault(str(entry["model_name"]), []).append(model)

    def lookup(name: str) -> dict[str, Any] | None:
        found = [info for info in (model_metadata(model) for model in behind.get(name, [])) if info]
        if not found:
            return model_metadata(name)
        merged: dict[str, Any] = {}
        for key in {key for info in found for key in info}:
            values = [info[key] for info in found if key in info]
            if all(isinstance(v, bool) for v in values):
                merged[key] = any(values)
            elif all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                merged[key] = sum(values) / len(values)
            else:
                merged[key] = values[0]
        return merged

    return lookup


def router_model_names(router: object) -> list[str]:
    """The model group names (aliases) a ``litellm.Router`` serves."""
    ordered: list[str] = []
    for entry in getattr(router, "model_list", None) or []:  # in the order the user listed them
        name = entry.get("model_name") if isinstance(entry, dict) else None
        if name and str(name) not in ordered:
            ordered.append(str(name))
    return ordered or sorted(str(n) for n in getattr(router, "model_names", None) or [])


def count_tokens(model: str, *, messages: list[dict[str, Any]] | None = None,
                 tools: list[dict[str, Any]] | None = None, text: str | None = None) -> int:
    """Prompt tokens of ``messages`` and ``tools`` (or of ``text``) for ``model``: ``litellm.token_counter``.

    LiteLLM falls back to a generic tokenizer for models it does not know, so this never raises for a
    model name; a message LiteLLM cannot count makes the count ``len(text) // 4`` instead.
    """
    litellm = litellm_module()
    try:
        if text is not None:
            return int(litellm.token_counter(model=model, text=text))
        return int(litellm.token_counter(model=model, messages=messages or [], tools=tools or None))
    except Exception:  # an exotic content part: a rough estimate beats failing the chat
        import json

        return len(text if text is not None else json.dumps([messages, tools], default=str)) // 4


def input_window(model: str) -> int | None:
    """How many input tokens ``model`` takes (``max_input_tokens`` in LiteLLM's model info), or ``None``."""
    info = model_metadata(model) or {}
    value = info.get("max_input_tokens") or info.get("max_tokens")
    return int(value) if isinstance(value, int | float) and value > 0 else None


def completion_cost(model: str, response: Any = None, *, prompt_tokens: int = 0, completion_tokens: int = 0,
                    cache_read_tokens: int = 0, cache_write_tokens: int = 0) -> float | None:
    """The USD cost of one model request (``litellm.completion_cost``), or ``None`` when LiteLLM has no
    price for ``model``. A streamed request has no response object: its token counts are priced, the
    prompt tokens read from and written to the provider's cache at its cache prices."""
    if model_metadata(model) is None:
        return None
    hidden = getattr(response, "_hidden_params", None)
    known = hidden.get("response_cost") if isinstance(hidden, dict) else None
    if isinstance(known, int | float) and not isinstance(known, bool):
        return float(known)  # LiteLLM priced this response already (pricing again takes about 0.5 ms)
    litellm = litellm_module()
    try:
        if response is not None:
            return float(litellm.completion_cost(completion_response=response, model=model))
        prompt_cost, completion_part = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
            cache_read_input_tokens=cache_read_tokens, cache_creation_input_tokens=cache_write_tokens)
        return float(prompt_cost) + float(completion_part)
    except Exception:  # LiteLLM raises for prices it cannot work out
        return None


def priced_response_cost(response: Any) -> float | None:
    """The USD cost LiteLLM already put on ``response`` (``_hidden_params["response_cost"]``; a Router prices
    the deployment it chose), or ``None``."""
    hidden = getattr(response, "_hidden_params", None)
    known = hidden.get("response_cost") if isinstance(hidden, dict) else None
    return float(known) if isinstance(known, int | float) and not isinstance(known, bool) else None


_STREAM_USAGE_PROVIDERS = frozenset({"anthropic", "bedrock", "vertex_ai", "gemini"})
"""Providers whose streams LiteLLM gives a usage chunk (cache tokens included) only when asked with
``stream_options``, though ``get_supported_openai_params`` does not list it for them."""


def streams_usage(model: str) -> bool:
    """Whether ``model``'s provider takes ``stream_options={"include_usage": True}`` (LiteLLM drops the
    usage of a stream without it)."""
    litellm = litellm_module()
    try:
        if "stream_options" in (litellm.get_supported_openai_params(model=model) or []):
            return True
    except Exception:  # an unknown provider
        return False
    return llm_provider(model)[1] in _STREAM_USAGE_PROVIDERS


# -- what ``mcp-litellm doctor`` asks LiteLLM ------------------------------------------------------

def llm_provider(model: str) -> tuple[str, str | None]:
    """``(model name without its provider, provider)`` as ``litellm.get_llm_provider`` sees ``model``;
    the provider is ``None`` when LiteLLM cannot tell (it then needs a ``provider/`` prefix)."""
    import contextlib
    import io

    litellm = litellm_module()
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # it prints a provider list before raising
            name, provider, _, _ = litellm.get_llm_provider(model=model)
    except Exception:  # LiteLLM raises BadRequestError for a model it cannot place
        return model, None
    return str(name), str(provider)


def needs_cache_breakpoints(model: str, provider: str | None = None) -> bool:
    """Whether ``model`` caches a prompt prefix only where the request marks it (``cache_control``), as
    LiteLLM judges it: Claude on Anthropic, Bedrock, Vertex AI and Azure AI, where the model map says it
    supports prompt caching. Providers that cache on their own (OpenAI, DeepSeek, ...) need no marks."""
    try:
        from litellm.llms.anthropic.common_utils import supports_anthropic_cache_control
    except ImportError:  # a LiteLLM without the helper: mark nothing rather than guess
        return False
    try:
        return bool(supports_anthropic_cache_control(model, provider))
    except Exception:  # an unknown model is simply not marked
        return False


# What ``mcp-litellm doctor`` asks LiteLLM (tool tokens, Gemini's declarations) lives in .doctor, which uses
# the functions above.
from mcp_litellm._llm.doctor import gemini_declarations as gemini_declarations  # noqa: E402
from mcp_litellm._llm.doctor import gemini_schema_fields as gemini_schema_fields  # noqa: E402
from mcp_litellm._llm.doctor import tool_tokens as tool_tokens  # noqa: E402
