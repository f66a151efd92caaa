"""Client features (sampling, elicitation, roots, human-in-the-loop) as part of ``Client``.

Capabilities are fixed when a session starts: the client advertises sampling, elicitation and
roots only when they are enabled or configured at that moment (sampling and elicitation are off
by default). A server's sampling or elicitation request to a client that did not enable it is
refused with a JSON-RPC error by the SDK.

Registering a handler (or adding the first root) on a *running* client whose session did not
advertise the capability re-initialises the session transparently (``restart()``): the server
sees the new capability from then on. Requests in flight at that moment fail, and a stdio server
process is restarted, so register handlers before ``start()`` (or pass them to ``ml.client``)
when that matters. Handlers registered while the capability is already advertised take effect
at once, without a restart.

Callbacks run on the background loop: async user handlers run there, sync ones in a worker thread.
Whatever a handler raises becomes an error response to the server; the session survives.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING, Any

from mcp_types import INTERNAL_ERROR, ErrorData, SamplingCapability, SamplingToolsCapability

from mcp_litellm import _config
from mcp_litellm._config import ElicitationSettings, HandlerSpec, SamplingSettings
from mcp_litellm._connection import legacy_call
from mcp_litellm._errors import ConfigError, MCPLiteLLMError
from mcp_litellm._roots import Roots
from mcp_litellm.handlers._approval import decide_tool_call
from mcp_litellm.handlers._elicitation import ElicitationRunner
from mcp_litellm.handlers._sampling import SamplingRunner

if TYPE_CHECKING:
    from mcp_litellm._connection import SessionOptions
    from mcp_litellm._tool import Tool

logger = logging.getLogger("mcp_litellm")


class FeaturesMixin:
    """Hooks the client core calls: option intake, session callbacks, tool-call approval."""

    name: str
    _connection: Any

    if TYPE_CHECKING:  # provided by the client core
        def _base_session_options(self) -> SessionOptions: ...
        def is_alive(self) -> bool: ...
        def restart(self) -> Any: ...
        async def _restart(self) -> None: ...
        def _timeout(self, timeout: float | None) -> float: ...

    # -- options -------------------------------------------------------------------------------------

    def _init_features(self, options: dict[str, Any]) -> None:
        """Consume the options this mixin owns from ``options`` (what is left is reported unknown).

        ``sampling=``, ``elicitation=``, ``roots=``, ``human_in_the_loop=`` (or
        ``on_human_in_the_loop=``) update the global defaults (``ml.config``) for this client.
        """
        given = {key: options.pop(key) for key in _config.OPTION_NAMES if key in options}
        if "human_in_the_loop" in given and "on_human_in_the_loop" in given:
            raise ConfigError("give human_in_the_loop or on_human_in_the_loop, not both")
        defaults = _config.config
        self._sampling_settings = _config.merge_sampling(defaults.sampling, given.get("sampling"))
        self._elicitation_settings = _config.merge_elicitation(defaults.elicitation, given.get("elicitation"))
        roots = _config.check_roots(given["roots"]) if "roots" in given else defaults.roots
        self._roots = Roots(roots, on_change=self._roots_changed)
        hitl: HandlerSpec | None = defaults.human_in_the_loop
        for key in ("human_in_the_loop", "on_human_in_the_loop"):
            if key in given:
                value = given[key]
                hitl = _config.checked(HandlerSpec.of(value), "human_in_the_loop") if value is not None else None
        self._hitl = hitl
        self._advertised: frozenset[str] = frozenset()
        self._sampling_runner = SamplingRunner(self._sampling_settings, self.name)
        self._elicitation_runner = ElicitationRunner(self._elicitation_settings, self.name)

    def _session_options(self) -> SessionOptions:
        """What the next session is built with (capabilities are fixed at initialisation)."""
        options = self._base_session_options()
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
        return options

    @property
    def sampling_settings(self) -> SamplingSettings:
        """This client's sampling settings (global defaults with its own on top)."""
        return self._sampling_settings

    @property
    def elicitation_settings(self) -> ElicitationSettings:
        """This client's elicitation settings (global defaults with its own on top)."""
        return self._elicitation_settings

    @property
    def roots(self) -> Roots:
        """The roots this client offers: ``client.roots.paths``, ``.add(path)``, ``.remove(path)``."""
        return self._roots

    # -- registration ------------------------------------------------------------------------------

    def _ensure_advertised(self, capability: str) -> None:
        if self.is_alive() and capability not in self._advertised:
            logger.info("client %r re-initialises its session to advertise %s", self.name, capability)
            self.restart()

    def on_sampling(self, handler: Any = None, **options: Any) -> Any:
        """Enable sampling, answered by ``handler`` (a ``SamplingHandler`` class with option
        overrides, or a function ``fn(sample)``; ``None``: the default LiteLLM completion).

        On a running client that did not advertise sampling, the session is re-initialised.
        Returns the client.
        """
        spec = _config.checked(HandlerSpec.of(handler, options), "sampling") if handler is not None else None
        if spec is None and options:
            raise ConfigError("handler options need a handler class")
        self._sampling_settings = dataclasses.replace(self._sampling_settings, enabled=True, handler=spec)
        self._sampling_runner = SamplingRunner(self._sampling_settings, self.name)
        self._ensure_advertised("sampling")
        return self

    def on_elicitation(self, handler: Any, **options: Any) -> Any:
        """Enable elicitation, answered by ``handler`` (an ``ElicitationHandler`` class with option
        overrides, or a function ``fn(elicitation)``). Re-initialises a running session that did not
        advertise elicitation. Returns the client."""
        spec = _config.checked(HandlerSpec.of(handler, options), "elicitation")
        self._elicitation_settings = dataclasses.replace(self._elicitation_settings, enabled=True, handler=spec)
        self._elicitation_runner = ElicitationRunner(self._elicitation_settings, self.name)
        self._ensure_advertised("elicitation")
        return self

    def on_human_in_the_loop(self, handler: Any, **options: Any) -> Any:
        """Ask ``handler`` before every tool call of this client (``None`` removes it).

        ``handler`` is a ``HumanInTheLoopHandler`` class (with option overrides) or a function
        ``fn(tool_name, parameters)`` returning ``True`` (run), ``False`` or a reason string (deny).
        A denied call returns the error result "Tool call was denied: <reason>" without contacting
        the server (the reason is "denied by the user" when the handler gave none). Returns the client.
        """
        self._hitl = _config.checked(HandlerSpec.of(handler, options), "human_in_the_loop") if handler else None
        return self

    # -- callbacks (run on the background loop) -------------------------------------------------------

    async def _sampling_callback(self, context: Any, params: Any) -> Any:
        try:
            return await self._sampling_runner.respond(params)
        except Exception as exc:  # respond() reports its own failures; this is the last line of defence
            logger.exception("sampling callback for server %r failed", self.name)
            return ErrorData(code=INTERNAL_ERROR, message=f"sampling failed on the client: {type(exc).__name__}")

    async def _elicitation_callback(self, context: Any, params: Any) -> Any:
        try:
            return await self._elicitation_runner.respond(params)
        except Exception as exc:
            logger.exception("elicitation callback for server %r failed", self.name)
            return ErrorData(code=INTERNAL_ERROR, message=f"elicitation failed on the client: {type(exc).__name__}")

    async def _list_roots_callback(self, context: Any) -> Any:
        return self._roots.to_sdk()

    async def _roots_changed(self, was_configured: bool) -> None:
        connection = self._connection
        if connection is None or not connection.alive:
            return
        if "roots" not in self._advertised:
            logger.info("client %r re-initialises its session to advertise roots", self.name)
            await self._restart()
            return
        version = connection.client.protocol_version or ""
        if not version.startswith(("2024", "2025")):
            return  # 2026-07-28 has no roots/list_changed: servers ask for roots with each request
        async def notify(client: Any) -> None:
            await legacy_call(client.session.send_roots_list_changed)

        try:
            await connection.request("notifications/roots/list_changed", notify, self._timeout(None))
        except MCPLiteLLMError as exc:
            logger.warning("could not tell server %r that the roots changed: %s", self.name, exc)

    # -- tool-call approval ------------------------------------------------------------------------

    async def _approve_tool_call(self, tool: Tool, arguments: dict[str, Any]) -> str | None:
        """Return a denial reason, or ``None`` to let the call run."""
        spec = self._hitl
        if spec is None:
            return None
        return await decide_tool_call(spec, tool, arguments, self.name)

    def _request_meta(self) -> dict[str, Any] | None:
        """``_meta`` to stamp on requests (e.g. the log level on 2026-07-28 connections)."""
        return None
