"""``StreamWrapper``: the base of the stream wrappers put between a transport and the SDK's session.

A wrapper changes one or two methods (``receive``, ``send``) and passes everything else to the wrapped
anyio memory stream: attributes, ``aclose`` and the async context manager.
"""

from __future__ import annotations

from typing import Any, TypeVar

W = TypeVar("W", bound="StreamWrapper")

__all__ = ["StreamWrapper"]


class StreamWrapper:
    """Delegates to the stream ``inner`` everything a subclass does not define."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self: W) -> W:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        result: bool | None = await self._inner.__aexit__(*exc)
        return result
