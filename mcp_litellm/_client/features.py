"""The seam between a client and its client features (sampling, elicitation, roots, tool-call approval).

The features themselves live a layer up, in :mod:`mcp_litellm.handlers`, because they run the user's
handler classes and LiteLLM. A :class:`Client` holds one :class:`ClientFeatures` object, built by the
factory the package root (``mcp_litellm/__init__.py``, the one place that sees every layer) installs
explicitly with :func:`install_features`; importing a module here or in ``handlers`` installs nothing.
The client asks its features for the session callbacks and for each tool call's approval. The client
core never imports the handlers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mcp_litellm._client.primitives.handler_specs import ElicitationSettings, SamplingSettings
    from mcp_litellm._client.primitives.roots import Roots
    from mcp_litellm._client.primitives.tool import Tool
    from mcp_litellm._client.primitives.toolset import CallContext
    from mcp_litellm._client.session.connection import Connection
    from mcp_litellm._client.session.mcp_session import SessionOptions
    from mcp_litellm._core.usage import Usage


class FeatureHost(Protocol):
    """What client features see of their client."""

    name: str

    @property
    def _connection(self) -> Connection | None: ...

    def is_alive(self) -> bool: ...
    async def _restart(self) -> None: ...
    def _timeout(self, timeout: float | None) -> float: ...
    def _span_attributes(self) -> dict[str, object]: ...


class ClientFeatures(Protocol):
    """The client features of one client, as its core uses them."""

    @property
    def roots(self) -> Roots: ...

    @property
    def sampling_settings(self) -> SamplingSettings: ...

    @property
    def elicitation_settings(self) -> ElicitationSettings: ...

    @property
    def sampling_usage(self) -> Usage: ...

    @property
    def approval_spec(self) -> Any:
        """The tool-call approval handler (a ``HandlerSpec``), or ``None`` when there is none."""

    def on_sampling(self, handler: Any, options: dict[str, object]) -> None:
        """Enable sampling with ``handler`` (``None``: the default completion); records it, no I/O."""

    def on_elicitation(self, handler: Any, options: dict[str, object]) -> None:
        """Enable elicitation with ``handler``; records it, no I/O."""

    def on_human_in_the_loop(self, handler: Any, options: dict[str, object]) -> None:
        """Approve tool calls with ``handler`` (``None``: none)."""

    def off_sampling(self) -> None:
        """Refuse sampling requests from now on."""

    def off_elicitation(self) -> None:
        """Refuse elicitation requests from now on."""

    def add_session_callbacks(self, options: SessionOptions) -> None:
        """Add the callbacks (and so the capabilities) of the enabled features to ``options``."""

    def missing_capabilities(self) -> frozenset[str]:
        """Features enabled since the session started that it did not advertise (registration does no
        I/O: the client's next request re-initialises the session when this is not empty)."""

    async def approve_tool_call(self, tool: Tool, arguments: dict[str, object], ctx: CallContext) -> str | None:
        """A denial reason, or ``None`` to let the call run (``ctx``: the call's context, for the handler)."""

    async def elicit_urls(self, requests: list[Any]) -> str | None:
        """Ask the user through the elicitation handler to open each URL a server requires (error -32042);
        ``None`` when every one was accepted, else why not."""

    def elicitation_completed(self, elicitation_id: str) -> None:
        """The server says an out-of-band (URL) elicitation completed (``notifications/elicitation/complete``)."""


FeatureFactory = Callable[[FeatureHost, "dict[str, object]"], ClientFeatures]
"""``factory(client, options)``: consumes the feature options it knows from ``options``."""

_factory: FeatureFactory | None = None


def install_features(factory: FeatureFactory) -> None:
    """Set the factory every new client builds its features with (called once by the package root)."""
    global _factory
    _factory = factory


def build_features(host: FeatureHost, options: dict[str, object]) -> ClientFeatures:
    """The features of a new client, from the installed factory."""
    if _factory is None:  # only if the package root was bypassed, which Python's import system prevents
        raise RuntimeError("no client features are installed; import mcp_litellm first")
    return _factory(host, options)
