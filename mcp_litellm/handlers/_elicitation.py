"""Answering ``elicitation/create``: the request as an :class:`Elicitation`, the user's handler,
deferred completion, and schema validation of accepted content (invalid content is never sent)."""

from __future__ import annotations

import copy
import logging
from collections.abc import Awaitable, Mapping
from typing import Any

from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, ElicitResult, ErrorData

from mcp_litellm._client.primitives.handler_specs import ElicitationSettings
from mcp_litellm._client.primitives.handler_types import Decision, Elicitation, ElicitationOutcome
from mcp_litellm._core import telemetry
from mcp_litellm._core.user_code import call_user_code
from mcp_litellm.handlers._base import Handler, is_handler_class
from mcp_litellm.handlers._registry import ElicitationRegistry

logger = logging.getLogger("mcp_litellm")

__all__ = ["Elicitation", "ElicitationHandler", "ElicitationRunner", "with_defaults"]


def with_defaults(content: Any, schema: dict[str, Any] | None) -> Any:
    """``content`` with the schema's ``default`` for each property it leaves out (SEP-1034): a form the
    user accepted without touching a field keeps the value the form showed. Anything but a dict is
    returned as it is (validation then says what is wrong)."""
    properties = (schema or {}).get("properties")
    if not isinstance(content, dict) or not isinstance(properties, dict):
        return content
    filled = dict(content)
    for name, spec in properties.items():
        if name not in filled and isinstance(spec, dict) and "default" in spec:
            filled[name] = copy.deepcopy(spec["default"])
    return filled


class ElicitationHandler(Handler):
    """Base class for elicitation handlers: implement ``execute`` returning ``self.accept(content)``,
    ``self.decline(reason)``, ``self.cancel(reason)`` or ``self.defer()`` (then complete it with
    ``ElicitationRegistry.complete(self.elicitation.id, response={...})``).

    Option ``timeout``: seconds a deferred elicitation waits (default: the client's setting).
    """

    kind = "elicitation"
    _stop_kind = "decline"

    def __init__(self, elicitation: Elicitation, *, client_name: str, options: dict[str, Any] | None = None) -> None:
        super().__init__(client_name=client_name, options=options)
        self.elicitation = elicitation

    def execute(self) -> ElicitationOutcome | Awaitable[ElicitationOutcome]:
        """Decide (sync or async): ``self.accept(content)``, ``self.decline(reason)``, ``self.cancel(reason)``,
        ``self.defer()``, or a content dict (accept)."""
        raise NotImplementedError(f"{type(self).__name__} must implement execute()")

    def accept(self, content: dict[str, Any] | None = None) -> Decision:
        """Accept with ``content`` (form mode: fields left out take the schema's defaults, then the whole is
        validated against the schema) or nothing (URL mode)."""
        return Decision("accept", value=content)

    def decline(self, reason: str | None = None) -> Decision:
        """The user declined."""
        return Decision("decline", reason=reason)

    def cancel(self, reason: str | None = None) -> Decision:
        """The user dismissed the request."""
        return Decision("cancel", reason=reason)

    def defer(self, timeout: float | None = None) -> Decision:
        """Answer later through ``ElicitationRegistry``; cancelled after ``timeout`` seconds."""
        return Decision("defer", timeout=timeout if timeout is not None else self.options.get("timeout"))


_ACTIONS = ("accept", "decline", "cancel")


def _as_decision(outcome: Any) -> Decision:
    """A handler's return value as a decision. Besides decisions: ``True`` (accept, URL mode), ``False`` or
    a reason string (decline), ``None`` (cancel), a content dict (accept), an SDK ``ElicitResult``, or the
    wire shape ``{"action": "accept" | "decline" | "cancel", "content": {...}}``."""
    if isinstance(outcome, Decision):
        return outcome
    if isinstance(outcome, ElicitResult):
        outcome = {"action": outcome.action, "content": outcome.content}
    if (isinstance(outcome, dict) and outcome.get("action") in _ACTIONS
            and set(outcome) <= {"action", "content"}):  # the wire shape, not form content
        action, content = outcome["action"], outcome.get("content")
        if action == "accept":
            return Decision("accept", value=dict(content) if content is not None else None)
        return Decision(action, reason=f"{action}d by the elicitation handler" if action == "decline" else None)
    if outcome is True:
        return Decision("accept", value=None)
    if outcome is False:
        return Decision("decline", reason="declined by the elicitation handler")
    if outcome is None:
        return Decision("cancel", reason="the elicitation handler returned nothing")
    if isinstance(outcome, dict):
        return Decision("accept", value=outcome)
    if isinstance(outcome, str):
        return Decision("decline", reason=outcome)
    raise TypeError(f"an elicitation handler returned a {type(outcome).__name__}; return accept(dict), "
                    "decline(), cancel() or defer()")


class ElicitationRunner:
    """Answers one client's elicitation requests according to its :class:`ElicitationSettings`."""

    def __init__(self, settings: ElicitationSettings, client_name: str) -> None:
        self.settings = settings
        self.client_name = client_name

    async def respond(self, params: Any,
                      span_attributes: Mapping[str, object] | None = None) -> ElicitResult | ErrorData:
        """The user's answer, or ``ErrorData`` (handler failure, or content not matching the schema).

        Runs in an ``elicitation/create`` span (kind SERVER) when tracing; ``span_attributes`` add to it.
        """
        attributes = {"mcp.method.name": "elicitation/create", **(span_attributes or {})}
        meta = getattr(params, "meta", None)
        with telemetry.span("elicitation/create", attributes, kind="server", meta=meta) as span:
            answer = await self._respond(params)
            if isinstance(answer, ErrorData):
                telemetry.fail_answer(span, answer.code, answer.message)
            else:
                span.set_attribute("mcp_litellm.elicitation.action", answer.action)
            return answer

    async def _respond(self, params: Any) -> ElicitResult | ErrorData:
        spec = self.settings.handler
        if spec is None:
            return ErrorData(code=INTERNAL_ERROR,
                             message=f"no elicitation handler is registered on client {self.client_name!r}")
        elicitation = Elicitation.from_params(params, self.client_name)
        try:
            if is_handler_class(spec.handler, ElicitationHandler):
                handler = spec.handler(elicitation, client_name=self.client_name, options=dict(spec.options))
                outcome = await handler.run()
            else:
                outcome = await call_user_code(spec.handler, elicitation)
            decision = _as_decision(outcome)
            if decision.kind == "defer":
                timeout = decision.timeout or self.settings.timeout
                decision, timed_out = await ElicitationRegistry.wait(elicitation.id, timeout)
                if timed_out:
                    logger.info("elicitation %s from server %r timed out after %ss; cancelled", elicitation.id,
                                self.client_name, timeout)
        except Exception as exc:
            logger.warning("elicitation handler for server %r failed: %s: %s", self.client_name,
                           type(exc).__name__, exc)
            return ErrorData(code=INTERNAL_ERROR, message=f"the client's elicitation handler failed: "
                                                          f"{type(exc).__name__}: {exc}")
        return self._result(elicitation, decision)

    def _result(self, elicitation: Elicitation, decision: Decision) -> ElicitResult | ErrorData:
        if decision.kind in ("decline", "deny", "reject"):
            return ElicitResult(action="decline")
        if decision.kind == "cancel":
            return ElicitResult(action="cancel")
        if decision.kind not in ("accept", "approve"):
            return ErrorData(code=INTERNAL_ERROR, message=f"unexpected elicitation decision {decision.kind!r}")
        if elicitation.mode == "url":
            return ElicitResult(action="accept")
        content = with_defaults(decision.value if decision.value is not None else {}, elicitation.requested_schema)
        errors = elicitation.validate(content)
        if not errors:
            try:
                return ElicitResult(action="accept", content=content)
            except ValueError as exc:
                errors = [str(exc)]
        logger.warning("elicitation content for server %r does not match the requested schema: %s",
                       self.client_name, "; ".join(errors))
        return ErrorData(code=INVALID_PARAMS,
                         message="the client's elicitation response does not match the requested schema: "
                                 + "; ".join(errors[:10]))
