"""Answering ``sampling/createMessage``: the request as a :class:`Sample`, the policy (rate limit,
guard, approval, handler or the default LiteLLM completion) and the answer or refusal."""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Mapping
from typing import Any, ClassVar

from mcp_types import INTERNAL_ERROR, CreateMessageRequestParams, ErrorData

from mcp_litellm._client.primitives.handler_specs import SamplingSettings
from mcp_litellm._client.primitives.handler_types import Decision, Sample, SamplingOutcome
from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._core import sampling as _sampling
from mcp_litellm._core import telemetry
from mcp_litellm._core.redact import secret_params
from mcp_litellm._core.usage import Usage
from mcp_litellm._core.user_code import call_user_code
from mcp_litellm._llm import (
    acompletion,
    completion_cost,
    model_metadata,
    prepare,
    priced_response_cost,
    router_metadata,
    router_model_names,
)
from mcp_litellm.handlers._base import Handler, RateLimiter, is_handler_class
from mcp_litellm.handlers._registry import HumanInTheLoopRegistry

logger = logging.getLogger("mcp_litellm")

__all__ = ["REJECTED", "Sample", "SamplingHandler", "SamplingRunner", "SamplingSpend"]

REJECTED = -1
"""JSON-RPC error code sent when the client refuses a request (the MCP spec's "user rejected")."""
_APPROVAL_TIMEOUT = 300.0


def verdict_reason(verdict: Any, default: str) -> str | None:
    """Guard/approval contract: ``True``/``None``/approve pass (``None``); ``False``, a string or a
    deny decision fail with a reason."""
    if verdict is True or verdict is None:
        return None
    if isinstance(verdict, Decision):
        if verdict.kind in ("approve", "accept"):
            return None
        return verdict.reason or default
    if isinstance(verdict, str) and verdict:
        return verdict
    return default


class SamplingHandler(Handler):
    """Base class for sampling handlers: implement ``execute`` returning ``self.accept(response)`` or
    ``self.reject(reason)`` (or ``True`` for the default completion, ``False`` to reject).

    ``self.sample`` is the :class:`Sample`; ``self.default_completion(model=None, **kwargs)`` (async:
    ``adefault_completion``) runs the LiteLLM completion the client would run without a handler and
    returns LiteLLM's response, which ``accept`` takes as it is.

    Options (class defaults, overridden at registration: ``client.on_sampling(MyHandler,
    default_model="gpt-4o-mini")``), used by the default completion (also when ``execute`` returns
    ``True`` or ``accept()``):

    - ``model``: the model to use, skipping the model policy (a ``model`` argument still wins);
    - ``default_model``: the policy's last resort, in place of the client's ``default_model``.
    """

    default_options: ClassVar[Mapping[str, object]] = {"model": None, "default_model": None}
    kind = "sampling"
    _stop_kind = "reject"

    def __init__(self, sample: Sample, *, client_name: str, options: dict[str, Any] | None = None,
                 runner: SamplingRunner | None = None) -> None:
        super().__init__(client_name=client_name, options=options)
        self.sample = sample
        self._runner = runner

    def execute(self) -> SamplingOutcome | Awaitable[SamplingOutcome]:
        """Decide (sync or async): ``self.accept(response)``, ``self.reject(reason)``, ``True`` (the default
        completion) or ``False`` (reject)."""
        raise NotImplementedError(f"{type(self).__name__} must implement execute()")

    def accept(self, response: Any = None) -> Decision:
        """Answer with ``response``: a LiteLLM response, a string, or an SDK result/content block
        (``None``: the default completion)."""
        return Decision("accept", value=response)

    def reject(self, reason: str = "rejected by the sampling handler") -> Decision:
        """Refuse; the server receives an error with ``reason``."""
        return Decision("reject", reason=reason)

    async def adefault_completion(self, model: str | None = None, **overrides: Any) -> Any:
        """Run the default LiteLLM completion for this request, with the handler's ``model`` and
        ``default_model`` options (``model``: skip the model policy)."""
        if self._runner is None:
            raise RuntimeError("this handler is not attached to a client")
        return await run_async(self._runner.complete(self.sample, model or self.options.get("model"), overrides,
                                                     default_model=self.options.get("default_model")))

    def default_completion(self, model: str | None = None, **overrides: Any) -> Any:
        """Blocking twin of :meth:`adefault_completion` (for sync ``execute`` methods)."""
        return run_sync(self.adefault_completion(model, **overrides))


class SamplingSpend:
    """What one client's sampling completions cost so far (it outlives handler changes)."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.unpriced: set[str] = set()
        """Models whose completions LiteLLM could not price (they count nothing toward ``max_cost``)."""
        self._lock = threading.Lock()

    def add(self, request: Usage) -> None:
        with self._lock:
            self.usage = self.usage + request


class SamplingRunner:
    """Answers one client's sampling requests according to its :class:`SamplingSettings`."""

    def __init__(self, settings: SamplingSettings, client_name: str, spend: SamplingSpend | None = None) -> None:
        self.settings = settings
        self.client_name = client_name
        self.limiter = RateLimiter(settings.rate_limit) if settings.rate_limit else None
        self.spend = spend if spend is not None else SamplingSpend()

    def _fallback_model(self) -> str:
        pm = self.settings.preferred_model
        return self.settings.default_model or (pm if isinstance(pm, str) else None) or "unknown"

    def _scrub(self, text: str) -> str:
        for secret in secret_params(self.settings.completion_kwargs):
            if len(secret) >= 4:
                text = text.replace(secret, "***")
        return text

    async def choose_model(self, sample: Sample, default_model: str | None = None) -> str:
        """The model for ``sample``: ``preferred_model`` (string or callable), else the built-in policy
        (whose last resort is ``default_model``, else the settings' ``default_model``)."""
        settings = self.settings
        preferred = settings.preferred_model
        if isinstance(preferred, str):
            return preferred
        if preferred is not None:
            chosen = await call_user_code(preferred, sample.model_preferences)
            if chosen:
                return str(chosen)
        allowed = settings.allowed_models
        if allowed is None and settings.router is not None:
            allowed = tuple(router_model_names(settings.router))
        model = _sampling.select_model(sample.model_preferences, allowed_models=allowed,
                                       default_model=default_model or settings.default_model,
                                       metadata=router_metadata(settings.router) if settings.router else model_metadata)
        if model is None:
            raise _sampling.SamplingConversionError(
                f"no model is configured for sampling on client {self.client_name!r}; "
                "set sampling preferred_model, default_model or allowed_models")
        return model

    async def complete(self, sample: Sample, model: str | None = None, overrides: dict[str, Any] | None = None, *,
                       default_model: str | None = None) -> Any:
        """The LiteLLM completion for ``sample`` (LiteLLM's response object) with ``model``, else the
        model :meth:`choose_model` picks."""
        await prepare(router=self.settings.router)  # LiteLLM's first-use work, off the loop
        chosen = model or await self.choose_model(sample, default_model)
        await prepare(chosen, self.settings.router)
        kwargs = _sampling.completion_kwargs(sample.params, model=chosen, max_tokens=sample.max_tokens,
                                             server=self.client_name)
        kwargs.update(self.settings.completion_kwargs)
        kwargs.update(overrides or {})
        logger.debug("sampling for server %r with model %r", self.client_name, chosen)
        response = await acompletion(router=self.settings.router, **kwargs)
        self._count(str(kwargs.get("model") or chosen), response)
        return response

    def _count(self, model: str, response: Any) -> None:
        """Add one completion's tokens and cost to the client's :class:`SamplingSpend` (and the span)."""
        usage = getattr(response, "usage", None)
        prompt = getattr(usage, "prompt_tokens", None) or 0
        completion = getattr(usage, "completion_tokens", None) or 0
        cost = completion_cost(model, response, prompt_tokens=prompt, completion_tokens=completion)
        if cost is None and self.settings.router is not None:  # an alias: the Router priced its deployment
            cost = priced_response_cost(response)
        if cost is None and model not in self.spend.unpriced:
            self.spend.unpriced.add(model)
            if self.settings.max_cost is not None:
                logger.warning("sampling for server %r: LiteLLM has no price for model %r, so its completions "
                               "do not count toward max_cost", self.client_name, model)
        self.spend.add(Usage(int(prompt), int(completion), cost, 1))
        span = telemetry.current_span()
        if span.is_recording():
            span.set_attributes({"gen_ai.request.model": model, "gen_ai.usage.input_tokens": int(prompt),
                                 "gen_ai.usage.output_tokens": int(completion)})
            if cost is not None:
                span.set_attribute("mcp_litellm.usage.cost_usd", cost)

    async def respond(self, params: CreateMessageRequestParams,
                      span_attributes: Mapping[str, object] | None = None) -> Any:
        """The result for the server, or ``ErrorData`` (never raises for handler or LLM failures).

        Runs in a ``sampling/createMessage`` span (kind SERVER) when tracing; ``span_attributes`` add to it.
        """
        attributes = {"mcp.method.name": "sampling/createMessage", **(span_attributes or {})}
        with telemetry.span("sampling/createMessage", attributes, kind="server", meta=params.meta) as span:
            answer = await self._respond(params)
            if isinstance(answer, ErrorData):
                telemetry.fail_answer(span, answer.code, answer.message)
            return answer

    async def _respond(self, params: CreateMessageRequestParams) -> Any:
        cap = self.settings.max_tokens
        sample = Sample(params, self.client_name, min(params.max_tokens, cap) if cap else params.max_tokens)
        try:
            refusal = await self._admit(sample)
            if refusal is not None:
                logger.info("sampling request from server %r refused: %s", self.client_name, refusal)
                return ErrorData(code=REJECTED, message=refusal)
            return await self._answer(sample)
        except Exception as exc:
            logger.warning("sampling for server %r failed: %s", self.client_name, self._scrub(str(exc)),
                           exc_info=logger.isEnabledFor(logging.DEBUG))
            text = self._scrub(str(exc).strip())
            detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
            return ErrorData(code=INTERNAL_ERROR, message=f"sampling failed on the client: {detail}")

    async def _admit(self, sample: Sample) -> str | None:
        """The reason to refuse ``sample``, or ``None``: the guard, then the rate limit (which counts only
        requests the guard let through), the budget (``max_cost``), then the approval step."""
        settings = self.settings
        if settings.guard is not None:
            reason = verdict_reason(await call_user_code(settings.guard, sample), "rejected by the sampling guard")
            if reason is not None:
                return f"Sampling request rejected: {reason}"
        if self.limiter is not None and not self.limiter.allow():
            return (f"sampling rate limit reached: at most {self.limiter.per_minute} requests per minute "
                    f"from server {self.client_name!r}")
        budget, spent = settings.max_cost, self.spend.usage.cost or 0.0
        if budget is not None and spent >= budget:
            return (f"sampling budget reached: completions for server {self.client_name!r} cost ${spent:.6f} "
                    f"of max_cost=${budget:g}")
        if settings.approval is not None:
            verdict = await call_user_code(settings.approval, sample)
            if isinstance(verdict, Decision) and verdict.kind == "defer":
                verdict, _ = await HumanInTheLoopRegistry.wait(sample.id, verdict.timeout or _APPROVAL_TIMEOUT)
            reason = verdict_reason(verdict, "not approved")
            if reason is not None:
                return f"Sampling request was not approved: {reason}"
        return None

    async def _answer(self, sample: Sample) -> Any:
        spec = self.settings.handler
        handler: SamplingHandler | None = None
        if spec is None:
            outcome: Any = True
        elif is_handler_class(spec.handler, SamplingHandler):
            handler = spec.handler(sample, client_name=self.client_name, options=dict(spec.options), runner=self)
            outcome = await handler.run()
        else:
            outcome = await call_user_code(spec.handler, sample)
        with_tools = _sampling.wants_tools(sample.params)
        if isinstance(outcome, Decision):
            if outcome.kind in ("reject", "deny", "decline", "cancel"):
                return ErrorData(code=REJECTED, message=f"Sampling request rejected: {outcome.reason or 'rejected'}")
            outcome = True if outcome.value is None else outcome.value
        if outcome is True:  # the default completion (with the handler's model options)
            outcome = await (handler.adefault_completion() if handler is not None else self.complete(sample))
        elif outcome is False:
            return ErrorData(code=REJECTED, message="Sampling request rejected by the client's sampling handler")
        elif outcome is None:
            raise _sampling.SamplingConversionError("the sampling handler returned no response")
        return _sampling.to_result(outcome, with_tools=with_tools, model=self._fallback_model())
