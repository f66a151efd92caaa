"""The filters mcp_litellm puts on loggers, installed when a client makes its transport (never at import):

- :class:`~mcp_litellm._core.redact.MaskingFilter` on the ``mcp*``, ``httpx*`` and ``httpcore*`` loggers, so
  known secrets are masked in their records before any handler sees them;
- two of the MCP SDK's warnings that mcp_litellm answers itself are kept for DEBUG: the failed DELETE of a
  session the server already forgot (:class:`~mcp_litellm._transports.http.ExpiredSessionDeleteFilter`) and the
  failed OAuth flow raised as ``AuthError`` (:class:`FlowErrorToDebug`, here).

Installing is idempotent: each filter goes on a logger once.
"""

from __future__ import annotations

import logging

from mcp_litellm._core.redact import install_log_masking
from mcp_litellm._core.sdk_compat import OAUTH_FLOW_ERROR_LOG
from mcp_litellm._transports.http import ExpiredSessionDeleteFilter

__all__ = ["FlowErrorToDebug", "install_log_filters"]


class FlowErrorToDebug(logging.Filter):
    """The SDK logs every failed flow at ERROR with a traceback; mcp_litellm raises it as ``AuthError``
    with a fix, so the SDK's record is kept for DEBUG only."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and record.msg == OAUTH_FLOW_ERROR_LOG:
            if not logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
                return False
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True


_SDK_FILTERS: tuple[tuple[str, type[logging.Filter]], ...] = (
    ("mcp.client.streamable_http", ExpiredSessionDeleteFilter),
    ("mcp.client.auth.oauth2", FlowErrorToDebug),
)


def install_log_filters() -> None:
    """Put mcp_litellm's filters on the loggers they belong to (once each)."""
    install_log_masking()
    for name, kind in _SDK_FILTERS:
        logger = logging.getLogger(name)
        if not any(isinstance(existing, kind) for existing in logger.filters):
            logger.addFilter(kind())
