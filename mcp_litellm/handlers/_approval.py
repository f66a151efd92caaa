"""Human in the loop: approving each tool call of a client before it reaches the server."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Mapping
from typing import Any, ClassVar, Protocol

from mcp_types import ToolAnnotations

from mcp_litellm._client.primitives.handler_specs import HandlerSpec
from mcp_litellm._client.primitives.handler_types import ApprovalOutcome, Decision
from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._core.code_run import CodeRun
from mcp_litellm._core.user_code import call_user_code
from mcp_litellm.handlers._base import Handler, is_handler_class
from mcp_litellm.handlers._registry import HumanInTheLoopRegistry

logger = logging.getLogger("mcp_litellm")

__all__ = ["HumanInTheLoopHandler", "decide_tool_call"]

_BY_THE_USER = "denied by the user"  # the reason of a denial that gives none


class ApprovalTarget(Protocol):
    """What an approval needs of the tool called: the server's name for it and its annotations (a
    :class:`~mcp_litellm.Tool`, or a hosted server's tool known only by name)."""

    @property
    def mcp_name(self) -> str: ...
    @property
    def annotations(self) -> ToolAnnotations | None: ...


class HumanInTheLoopHandler(Handler):
    """Base class for tool-call approval: implement ``execute`` returning ``self.approve()``,
    ``self.deny(reason)`` or ``self.defer(timeout)`` (then decide with
    ``HumanInTheLoopRegistry.approve(self.approval_id)`` / ``.deny(self.approval_id, reason=...)``).

    Attributes: ``tool_name`` (the server's name for the tool), ``parameters``, ``annotations``
    (``ToolAnnotations`` with the spec's defaults filled in), ``approval_id``, ``tool`` (the
    :class:`~mcp_litellm.Tool`), ``options``, ``client_name``, ``context`` (the call's
    :class:`~mcp_litellm.CallContext`: who made it, its tool call id, its code run), ``code_run``
    (``context.code_run``: the :class:`~mcp_litellm.CodeRun` a call made by the model's program in code mode
    comes from; ``None`` for a direct call).
    Option ``timeout`` (default 300): seconds a deferred decision waits before the call is denied.
    """

    default_options: ClassVar[Mapping[str, Any]] = {"timeout": 300.0}
    kind = "human_in_the_loop"
    _stop_kind = "deny"

    def __init__(self, *, tool_name: str, parameters: dict[str, Any], annotations: ToolAnnotations | None,
                 approval_id: str, client_name: str, options: dict[str, Any] | None = None,
                 tool: ApprovalTarget | None = None, context: CallContext | None = None) -> None:
        super().__init__(client_name=client_name, options=options)
        self.tool_name = tool_name
        self.parameters = parameters
        self.annotations = annotations
        self.approval_id = approval_id
        self.tool = tool
        self.context = context if context is not None else CallContext()
        """The call's context (a handler made without one, outside a call: a user call's)."""
        self.code_run: CodeRun | None = self.context.code_run

    def execute(self) -> ApprovalOutcome | Awaitable[ApprovalOutcome]:
        """Decide (sync or async): ``self.approve()``, ``self.deny(reason)``, ``self.defer(timeout)``, ``True``,
        ``False`` or a denial reason."""
        raise NotImplementedError(f"{type(self).__name__} must implement execute()")

    def approve(self) -> Decision:
        """Let the call run."""
        return Decision("approve")

    def deny(self, reason: str = _BY_THE_USER) -> Decision:
        """Refuse; the caller gets the error result "Tool call was denied: <reason>"."""
        return Decision("deny", reason=reason)

    def defer(self, timeout: float | None = None) -> Decision:
        """Decide later through ``HumanInTheLoopRegistry``; denied after ``timeout`` seconds."""
        return Decision("defer", timeout=timeout if timeout is not None else self.options.get("timeout"))


def _reason(outcome: Any) -> str | None:
    """The denial reason for a handler's outcome (``None``: approved). A denial without a reason
    (``False``, ``""``, ``deny()``) was the user's, and says so."""
    if outcome is True:
        return None
    if outcome is False:
        return _BY_THE_USER
    if outcome is None:
        return "the approval handler returned no decision"
    if isinstance(outcome, str):
        return outcome or _BY_THE_USER
    if isinstance(outcome, Decision):
        if outcome.kind in ("approve", "accept"):
            return None
        return outcome.reason or _BY_THE_USER
    return f"the approval handler returned an unexpected {type(outcome).__name__}"


async def decide_tool_call(spec: HandlerSpec, tool: ApprovalTarget, arguments: dict[str, Any], client_name: str,
                           ctx: CallContext | None = None) -> str | None:
    """Run the approval handler for one tool call made as ``ctx`` says; the denial reason, or ``None`` to run it.

    A handler class receives ``ctx`` as ``self.context``. While the handler runs (and only then) the
    deprecated ``CodeRun.current()`` answers ``ctx.code_run``.

    Fails closed: a handler that raises, returns nothing or times out denies the call.
    """
    ctx = ctx if ctx is not None else CallContext()
    approval_id = uuid.uuid4().hex
    default_timeout = float(HumanInTheLoopHandler.default_options["timeout"])
    try:
        if is_handler_class(spec.handler, HumanInTheLoopHandler):
            handler = spec.handler(tool_name=tool.mcp_name, parameters=dict(arguments), annotations=tool.annotations,
                                   approval_id=approval_id, client_name=client_name, options=dict(spec.options),
                                   tool=tool, context=ctx)
            default_timeout = float(handler.options.get("timeout") or default_timeout)
            with CodeRun.serving(ctx.code_run):
                outcome = await handler.run()
        else:
            with CodeRun.serving(ctx.code_run):
                outcome = await call_user_code(spec.handler, tool.mcp_name, dict(arguments))
        if isinstance(outcome, Decision) and outcome.kind == "defer":
            timeout = outcome.timeout or default_timeout
            logger.info("tool call %s on server %r waits for approval %s (up to %ss)", tool.mcp_name, client_name,
                        approval_id, timeout)
            outcome, timed_out = await HumanInTheLoopRegistry.wait(approval_id, timeout)
            if timed_out:
                return f"no decision was made within {timeout:g}s"
    except Exception as exc:
        logger.warning("approval handler for %s on server %r failed: %s: %s", tool.mcp_name, client_name,
                       type(exc).__name__, exc)
        return f"the approval handler failed ({type(exc).__name__}: {exc})"
    return _reason(outcome)
