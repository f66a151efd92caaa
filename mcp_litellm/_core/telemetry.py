"""OpenTelemetry spans for chat turns, tool calls and the requests a server makes of the client.

This is the one module that imports OpenTelemetry, lazily and optionally (the ``otel`` extra installs
``opentelemetry-api``; the MCP SDK brings it too). Without the API, or while no tracer provider is set,
:func:`span` yields a do-nothing span at the cost of one function call, and nothing else changes.

Spans follow the OpenTelemetry semantic conventions for GenAI and MCP (both in development):

- a chat turn (``ask``/``stream``, the whole tool loop): ``invoke_agent``, kind INTERNAL, with
  ``gen_ai.operation.name = "invoke_agent"``, ``gen_ai.request.model`` and the turn's token usage;
  LiteLLM's own spans for each model request (its ``otel`` callback) nest under it;
- a call of an MCP tool: ``tools/call {tool}``, kind CLIENT, with ``mcp.method.name``,
  ``gen_ai.operation.name = "execute_tool"``, ``gen_ai.tool.name`` (the server's name of the tool),
  ``gen_ai.tool.call.id`` (in a chat), ``mcp.protocol.version``, ``network.transport``,
  ``server.address``/``server.port`` (HTTP), ``mcp_litellm.server`` (the client's name);
- a local Python tool of a chat: ``execute_tool {tool}``, kind INTERNAL, ``gen_ai.tool.type = "function"``;
- a server's ``sampling/createMessage`` / ``elicitation/create`` request, as the client handles it:
  ``{method}``, kind SERVER (the peer initiated it), parented on the trace context in the request's
  ``_meta`` when the server sent one, else on the tool call that was running.

A failure sets the span status to ERROR and ``error.type``: the JSON-RPC error code for a server's
error, ``tool_error`` for a tool result with ``isError``, ``timeout``, ``cancelled``, or the exception's
class name. What a failure records (status description, exception event) has known secrets masked
(``_core.redact``); tool arguments, results and messages are never recorded.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

from mcp_litellm._core.redact import redact_text
from mcp_litellm._core.version import VERSION

T = TypeVar("T")

_SCOPE = "mcp_litellm"
_KEYS = ("traceparent", "tracestate")

_api: Any = None
"""``None`` until first use, then the ``opentelemetry.trace`` module or ``False`` (not installed)."""
_tracer: Any = None


def _trace() -> Any:
    global _api
    if _api is None:
        try:
            from opentelemetry import trace
        except ImportError:  # the otel extra is not installed
            _api = False
        else:
            _api = trace
    return _api or None


def _set_api(module: object) -> None:
    """Replace the OpenTelemetry API (``False``: behave as if it were not installed); for tests."""
    global _api, _tracer
    _api, _tracer = module, None


def enabled() -> bool:
    """Whether spans are recorded: the API is installed and a tracer provider was set (an SDK's)."""
    trace = _trace()
    if trace is None:
        return False
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _get_tracer(trace: Any) -> Any:
    global _tracer
    if _tracer is None:
        _tracer = trace.get_tracer(_SCOPE, VERSION)
    return _tracer


class _NoSpan:
    """What :func:`span` yields when nothing is recorded: every method does nothing."""

    def is_recording(self) -> bool:
        return False

    def set_attribute(self, key: str, value: object) -> None:
        pass

    def set_attributes(self, attributes: Mapping[str, object]) -> None:
        pass

    def end(self) -> None:
        pass


NO_SPAN: Any = _NoSpan()


def error_type(exc: BaseException) -> str:
    """The ``error.type`` of a failure: a JSON-RPC code, ``timeout``, ``cancelled`` or the class name."""
    import asyncio
    import builtins

    from mcp_litellm._core.errors import RequestTimeoutError, ServerError

    if isinstance(exc, ServerError):
        return str(exc.code)
    if isinstance(exc, RequestTimeoutError | builtins.TimeoutError):
        return "timeout"
    if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt):
        return "cancelled"
    return type(exc).__qualname__


def fail(span: Any, kind: str, description: str | None = None, secrets: tuple[str, ...] = ()) -> None:
    """Mark ``span`` failed with ``error.type = kind`` (and status ERROR); known secrets (and ``secrets``)
    are masked in ``description``."""
    if not span.is_recording():
        return
    trace = _trace()
    span.set_attribute("error.type", kind)
    span.set_status(trace.Status(trace.StatusCode.ERROR, redact_text(description, secrets) if description else None))


def fail_answer(span: Any, code: int, message: str | None) -> None:
    """Mark ``span`` (a server's request the client answered) failed with the JSON-RPC error it answered."""
    fail(span, str(code), message)
    span.set_attribute("rpc.response.status_code", str(code))


def _record(span: Any, exc: BaseException, secrets: tuple[str, ...] = ()) -> None:
    """Record ``exc`` on ``span`` as an exception event (message and stack trace with secrets masked) and
    mark the span failed."""
    if isinstance(exc, Exception) and span.is_recording():
        import traceback

        stack = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        span.record_exception(exc, attributes={"exception.message": redact_text(str(exc), secrets),
                                               "exception.stacktrace": redact_text(stack, secrets)})
    fail(span, error_type(exc), str(exc) or None, secrets)


def _remote_parent(meta: Mapping[str, object] | None) -> Any:
    """The context carried in a request's ``_meta`` (W3C trace context), or ``None`` when there is none."""
    if not meta or not isinstance(meta.get("traceparent"), str):
        return None
    from opentelemetry import propagate

    trace = _trace()
    try:
        context = propagate.extract({key: meta[key] for key in _KEYS if isinstance(meta.get(key), str)})
    except (ValueError, TypeError):
        return None
    return context if trace.get_current_span(context).get_span_context().is_valid else None


@contextlib.contextmanager
def span(name: str, attributes: Mapping[str, object] | None = None, *, kind: str = "internal",
         meta: Mapping[str, object] | None = None) -> Iterator[Any]:
    """A span named ``name``, current inside the block; an exception from the block marks it failed
    (see :func:`error_type`) and is re-raised. ``kind``: ``internal``, ``client`` or ``server``.
    ``meta``: a received request's ``_meta``, whose trace context becomes the parent."""
    if not enabled():
        yield NO_SPAN
        return
    trace = _trace()
    parent = _remote_parent(meta)
    links = None
    if parent is not None:  # the peer's trace context is the parent; the ambient span is linked
        ambient = trace.get_current_span().get_span_context()
        links = [trace.Link(ambient)] if ambient.is_valid else None
    tracer = _get_tracer(trace)
    with tracer.start_as_current_span(name, context=parent, kind=getattr(trace.SpanKind, kind.upper()),
                                      attributes=dict(attributes or {}), links=links, record_exception=False,
                                      set_status_on_exception=False) as current:
        try:
            yield current
        except GeneratorExit:  # a stream the caller left: not a failure
            raise
        except BaseException as exc:
            _record(current, exc)
            raise


def start(name: str, attributes: Mapping[str, object] | None = None) -> Any:
    """A started INTERNAL span that is not made current (end it with ``.end()``); see :func:`using`."""
    if not enabled():
        return NO_SPAN
    trace = _trace()
    return _get_tracer(trace).start_span(name, attributes=dict(attributes or {}))


@contextlib.contextmanager
def using(started: Any) -> Iterator[None]:
    """Make ``started`` (from :func:`start`) the current span inside the block, without ending it."""
    if started is NO_SPAN:
        yield
        return
    with _trace().use_span(started, end_on_exit=False, record_exception=False, set_status_on_exception=False):
        yield


def finish(started: Any, exc: BaseException | None = None, secrets: tuple[str, ...] = ()) -> None:
    """End ``started``, marked failed by ``exc`` when given (``secrets`` masked in what it records)."""
    if started is NO_SPAN:
        return
    if exc is not None and not isinstance(exc, GeneratorExit):
        _record(started, exc, secrets)
    started.end()


async def steps(started: Any, items: AsyncIterator[T], finish_with: Callable[[Any], None] | None = None,
                secrets: tuple[str, ...] = ()) -> AsyncGenerator[T, None]:
    """Yield from ``items`` with ``started`` (from :func:`start`) current while each item is made, never
    while the consumer holds one (a span attached across a ``yield`` would leak into the consumer's code
    and could not be detached when the generator is closed from another task). Ends the span with the
    outcome (``secrets`` masked in a failure's text); ``finish_with(span)`` adds attributes first when all
    went well."""
    failure: BaseException | None = None
    try:
        while True:
            with using(started):
                try:
                    item = await items.__anext__()
                except StopAsyncIteration:
                    break
            yield item
        if finish_with is not None and started is not NO_SPAN:
            finish_with(started)
    except BaseException as exc:
        failure = exc
        raise
    finally:
        close = getattr(items, "aclose", None)
        try:
            if close is not None:
                with using(started):
                    await close()
        finally:
            finish(started, failure, secrets)


def current_span() -> Any:
    """The current span when it records, else a do-nothing one."""
    if not enabled():
        return NO_SPAN
    current = _trace().get_current_span()
    return current if current.is_recording() else NO_SPAN


def trace_context() -> dict[str, str]:
    """``{"traceparent": ..., "tracestate": ...}`` of the current span, or ``{}`` when there is none
    (W3C trace context, for a request's ``_meta``)."""
    trace = _trace()
    if trace is None or not trace.get_current_span().get_span_context().is_valid:
        return {}
    from opentelemetry import propagate

    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return {key: carrier[key] for key in _KEYS if key in carrier}


def trace_id_in(context: contextvars.Context) -> int | None:
    """The trace id of the span current in ``context`` (a ``contextvars.Context``), or ``None``."""
    trace = _trace()
    if trace is None:
        return None
    found = context.run(trace.get_current_span).get_span_context()
    return found.trace_id if found.is_valid else None


def trace_id_of(meta: Mapping[str, object] | None) -> int | None:
    """The trace id of the W3C trace context in a request's ``_meta``, or ``None``."""
    traceparent = meta.get("traceparent") if meta else None
    if not isinstance(traceparent, str):
        return None
    parts = traceparent.split("-")
    try:
        trace_id = int(parts[1], 16) if len(parts) >= 4 and len(parts[1]) == 32 else 0
    except ValueError:
        return None
    return trace_id or None  # all zeros: invalid


def transport_attributes(transport_type: str, config: Mapping[str, object]) -> dict[str, str | int]:
    """``network.transport`` (``pipe`` for stdio, ``tcp`` for HTTP) and ``server.address``/``server.port``."""
    if transport_type == "stdio":
        return {"network.transport": "pipe"}
    url = config.get("url")
    if transport_type not in ("streamable", "sse") or not isinstance(url, str):
        return {}
    attributes: dict[str, str | int] = {"network.transport": "tcp"}
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return attributes
    if parts.hostname:
        attributes.update({"server.address": parts.hostname, "server.port": port})
    return attributes
