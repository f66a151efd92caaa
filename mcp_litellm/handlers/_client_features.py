"""Client features (sampling, elicitation, roots, human-in-the-loop) of one ``Client``.

Capabilities are fixed when a session starts: the client advertises sampling, elicitation and
roots only when they are enabled or configured at that moment (sampling and elicitation are off
by default). A server's sampling or elicitation request to a client that did not enable it is
refused with a JSON-RPC error by the SDK.

Registering a handler does no I/O: it records the setting, from any thread or event loop. On a
*running* client whose session did not advertise the capability, the client's next request first
re-initialises the session on the loop that owns it (see ``Client._connected``), so the server
sees the new capability from then on. Requests in flight at that moment fail, and a stdio server
process is restarted, so register handlers before ``start()`` (or pass them to ``ml.client``)
when that matters. Handlers registered while the capability is already advertised take effect
at once, without a restart. Adding the first root (``client.roots.add``, which does talk to the
server) re-initialises at once.

Callbacks run on the background loop: async user handlers run there, sync ones in a worker thread.
Whatever a handler raises becomes an error response to the server; the session survives.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import logging
from typing import TYPE_CHECKING, Any, TypeVar

from mcp_types import INTERNAL_ERROR, ErrorData, SamplingCapability, SamplingToolsCapability

from mcp_litellm._client.features import FeatureHost
from mcp_litellm._client.primitives.handler_specs import ElicitationSettings, HandlerSpec, SamplingSettings
from mcp_litellm._client.primitives.roots import Roots
from mcp_litellm._client.session.call_context import run_in_context
from mcp_litellm._client.session.mcp_session import legacy_call
from mcp_litellm._core import telemetry
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError
from mcp_litellm._core.usage import Usage
from mcp_litellm._core.user_code import call_user_code
from mcp_litellm.handlers import _settings
from mcp_litellm.handlers._approval import decide_tool_call
from mcp_litellm.handlers._elicitation import ElicitationRunner
from mcp_litellm.handlers._registry import ElicitationRegistry
from mcp_litellm.handlers._sampling import REJECTED, SamplingRunner, SamplingSpend

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine, Mapping

    from mcp_types import CreateMessageRequestParams, ListRootsResult

    from mcp_litellm._client.primitives.tool import Tool
    from mcp_litellm._client.primitives.toolset import CallContext
    from mcp_litellm._client.session.mcp_session import SessionOptions

P = TypeVar("P")
R = TypeVar("R")

logger = logging.getLogger("mcp_litellm")


class ClientFeatureSet:
    """The client features of one client: option intake, session callbacks, tool-call approval."""

    def __init__(self, host: FeatureHost, options: dict[str, Any]) -> None:
        """Consume the options this class owns from ``options`` (what is left is reported unknown).

        ``sampling=``, ``elicitation=``, ``roots=``, ``human_in_the_loop=`` (its deprecated
        spelling ``on_human_in_the_loop=``) update the global defaults (``ml.config``) for this client.
        """
        self._host = host
        given = {key: options.pop(key) for key in _settings.OPTION_NAMES if key in options}
        defaults = _settings.config
        self._sampling_settings = _settings.merge_sampling(defaults.sampling, given.get("sampling"))
        self._elicitation_settings = _settings.merge_elicitation(defaults.elicitation, given.get("elicitation"))
        roots = _settings.check_roots(given["roots"]) if "roots" in given else defaults.roots
        self._roots = Roots(roots, on_change=self._roots_changed)
        self._hitl = _settings.approval_option(given, defaults.human_in_the_loop, "ml.client")
        self._advertised: frozenset[str] = frozenset()
        self._tasks: set[asyncio.Task[None]] = set()  # on_complete hooks running
        self._sampling_spend = SamplingSpend()
        self._sampling_runner = SamplingRunner(self._sampling_settings, host.name, self._sampling_spend)
        self._elicitation_runner = ElicitationRunner(self._elicitation_settings, host.name)

    def add_session_callbacks(self, options: SessionOptions) -> None:
        """Add what the next session advertises (capabilities are fixed at initialisation)."""
        advertised = set()
        if self._sampling_settings.enabled:
            options.sampling_callback = self._sampling_callback
            if self._sampling_settings.tools:
                options.sampling_capabilities = SamplingCapability(tools=SamplingToolsCapability())
            advertised.add("sampling")
        if self._elicitation_settings.enabled:
            options.elicitation_callback = self._elicitation_callback
            advertised.add("elicitation")
        if self._roots.configured:
            options.list_roots_callback = self._list_roots_callback
            advertised.add("roots")
        self._advertised = frozenset(advertised)

    @property
    def sampling_settings(self) -> SamplingSettings:
        """This client's sampling settings (global defaults with its own on top)."""
        return self._sampling_settings

    @property
    def elicitation_settings(self) -> ElicitationSettings:
        """This client's elicitation settings (global defaults with its own on top)."""
        return self._elicitation_settings

    @property
    def sampling_usage(self) -> Usage:
        """Tokens and USD of the completions this client ran for its server's sampling requests."""
        return self._sampling_spend.usage

    @property
    def roots(self) -> Roots:
        """The roots this client offers."""
        return self._roots

    # -- registration ------------------------------------------------------------------------------

    def missing_capabilities(self) -> frozenset[str]:
        """The enabled features the current session did not advertise (it must be re-initialised)."""
        wanted = {name for name, on in (("sampling", self._sampling_settings.enabled),
                                        ("elicitation", self._elicitation_settings.enabled),
                                        ("roots", self._roots.configured)) if on}
        return frozenset(wanted - self._advertised)

    def on_sampling(self, handler: object, options: Mapping[str, object]) -> None:
        """Enable sampling, answered by ``handler`` (``None``: the default LiteLLM completion)."""
        spec = _settings.checked(HandlerSpec.of(handler, options), "sampling") if handler is not None else None
        if spec is None and options:
            raise ConfigError("handler options need a handler class")
        self._sampling_settings = dataclasses.replace(self._sampling_settings, enabled=True, handler=spec)
        self._sampling_runner = SamplingRunner(self._sampling_settings, self._host.name, self._sampling_spend)

    def on_elicitation(self, handler: object, options: Mapping[str, object]) -> None:
        """Enable elicitation, answered by ``handler``."""
        spec = _settings.checked(HandlerSpec.of(handler, options), "elicitation")
        self._elicitation_settings = dataclasses.replace(self._elicitation_settings, enabled=True, handler=spec)
        self._elicitation_runner = ElicitationRunner(self._elicitation_settings, self._host.name)

    @property
    def approval_spec(self) -> HandlerSpec | None:
        """The tool-call approval handler, or ``None`` when there is none."""
        return self._hitl

    def on_human_in_the_loop(self, handler: object, options: Mapping[str, object]) -> None:
        """Ask ``handler`` before every tool call (``None`` removes it)."""
        self._hitl = _settings.checked(HandlerSpec.of(handler, options), "human_in_the_loop") if handler else None

    def off_sampling(self) -> None:
        """Turn sampling off: requests are refused now; the next session no longer advertises it."""
        self._sampling_settings = dataclasses.replace(self._sampling_settings, enabled=False, handler=None)
        self._sampling_runner = SamplingRunner(self._sampling_settings, self._host.name, self._sampling_spend)

    def off_elicitation(self) -> None:
        """Turn elicitation off: requests are refused now; the next session no longer advertises it."""
        self._elicitation_settings = dataclasses.replace(self._elicitation_settings, enabled=False, handler=None)
        self._elicitation_runner = ElicitationRunner(self._elicitation_settings, self._host.name)

    # -- callbacks (run on the background loop) -------------------------------------------------------

    def _call_context(self, context: object) -> contextvars.Context | None:
        """The context of the call a server's request belongs to (see ``call_context``), or ``None``."""
        connection = self._host._connection
        return connection.calls.context_for(getattr(context, "meta", None)) if connection is not None else None

    async def _sampling_callback(self, context: object, params: CreateMessageRequestParams) -> Any:
        return await self._answer("sampling", self._sampling_settings.enabled, self._sampling_runner.respond,
                                  context, params)

    async def _elicitation_callback(self, context: object, params: object) -> Any:
        return await self._answer("elicitation", self._elicitation_settings.enabled,
                                  self._elicitation_runner.respond, context, params)

    async def _answer(self, feature: str, enabled: bool,
                      respond: Callable[[P, Mapping[str, object]], Coroutine[object, None, R]],
                      context: object, params: P) -> R | ErrorData:
        """A server's sampling or elicitation request answered by ``respond``, in the context of the call it
        belongs to; refused when the feature was turned off after this session advertised it."""
        if not enabled:
            return ErrorData(code=REJECTED, message=f"{feature} was turned off on client {self._host.name!r}")
        try:
            in_call = self._call_context(context)
            answer = respond(params, self._host._span_attributes() if telemetry.enabled() else {})
            return await (answer if in_call is None else run_in_context(in_call, answer))
        except Exception as exc:  # respond() reports its own failures; this is the last line of defence
            logger.exception("%s callback for server %r failed", feature, self._host.name)
            return ErrorData(code=INTERNAL_ERROR, message=f"{feature} failed on the client: {type(exc).__name__}")

    async def _list_roots_callback(self, context: object) -> ListRootsResult:
        return self._roots.to_sdk()

    async def _roots_changed(self, was_configured: bool) -> None:
        host = self._host
        connection = host._connection
        if connection is None or not connection.alive:
            return
        if "roots" not in self._advertised:
            logger.info("client %r re-initialises its session to advertise roots", host.name)
            await host._restart()
            return
        if connection.modern:
            return  # 2026-07-28 has no roots/list_changed: servers ask for roots with each request
        async def notify(client: Any) -> None:
            await legacy_call(client.session.send_roots_list_changed)

        try:
            await connection.request("notifications/roots/list_changed", notify, host._timeout(None))
        except MCPLiteLLMError as exc:
            logger.warning("could not tell server %r that the roots changed: %s", host.name, exc)

    # -- URL elicitations a server requires (JSON-RPC error -32042) -------------------------------------

    async def elicit_urls(self, requests: list[Any]) -> str | None:
        """Ask the elicitation handler about each URL request; ``None`` when all were accepted, else why not."""
        if not self._elicitation_settings.enabled or self._elicitation_settings.handler is None:
            return "no elicitation handler is registered (client.on_elicitation(...)) to ask the user"
        for request in requests:
            answer = await self._elicitation_runner.respond(request)
            action = getattr(answer, "action", None)
            if action != "accept":
                return f"the elicitation handler answered {action or 'with an error'} for {request.url}"
        return None

    def elicitation_completed(self, elicitation_id: str) -> None:
        """Tell a handler class that defines ``on_complete(elicitation_id)``, then complete the URL
        elicitation the handler deferred. Runs on the loop: the hook runs in a task of its own (a sync one
        on the worker pool), so the session's receive path never waits for it."""
        spec = self._elicitation_settings.handler
        hook = getattr(spec.handler, "on_complete", None) if spec is not None else None
        if not (callable(hook) and isinstance(spec.handler, type)):  # type: ignore[union-attr]
            ElicitationRegistry.complete(elicitation_id)
            return

        async def tell_then_complete() -> None:
            try:
                await call_user_code(hook, elicitation_id)
            except Exception:
                logger.exception("on_complete of the elicitation handler of server %r failed", self._host.name)
            ElicitationRegistry.complete(elicitation_id)

        task = asyncio.get_running_loop().create_task(tell_then_complete())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- tool-call approval ------------------------------------------------------------------------

    async def approve_tool_call(self, tool: Tool, arguments: dict[str, Any], ctx: CallContext) -> str | None:
        """Return a denial reason, or ``None`` to let the call run (``ctx``: the call's context)."""
        spec = self._hitl
        if spec is None:
            return None
        run = ctx.code_run  # code mode may let read-only tools run inside the model's program unasked
        if run is not None and run.read_only_without_approval and tool.annotations.read_only_hint:
            return None
        return await decide_tool_call(spec, tool, arguments, self._host.name, ctx)
