"""Deprecated call forms that keep working for a while, each with a ``DeprecationWarning`` saying what to write."""

from __future__ import annotations

import functools
import inspect
import os
import sys
import warnings
from collections.abc import Callable
from types import FrameType
from typing import TypeVar, cast

__all__ = ["deprecated_form", "keyword_only"]

F = TypeVar("F", bound=Callable[..., object])


def keyword_only(*names: str) -> Callable[[F], F]:
    """Make ``names`` keyword-only in the signature type checkers and readers see, while calls that still
    pass them positionally (after the function's positional parameters) keep working, with a
    ``DeprecationWarning``. Works on plain and ``async def`` functions and methods."""

    def decorate(fn: F) -> F:
        parameters = inspect.signature(fn).parameters.values()
        positional = sum(1 for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        method = next(iter(inspect.signature(fn).parameters), None) == "self"

        def moved(args: tuple[object, ...], kwargs: dict[str, object]) -> tuple[tuple[object, ...], dict[str, object]]:
            extra = args[positional:]
            if not extra:
                return args, kwargs
            what = f"{type(args[0]).__name__}.{fn.__name__}" if method and args else fn.__qualname__
            if len(extra) > len(names):
                raise TypeError(f"{what}() takes at most {positional + len(names)} positional arguments, "
                                f"{len(args)} were given")
            for name, value in zip(names, extra, strict=False):
                if name in kwargs:
                    raise TypeError(f"{what}() got multiple values for argument {name!r}")
                kwargs[name] = value
            given = ", ".join(f"{name}=..." for name in names[:len(extra)])
            warnings.warn(f"passing {given.replace('=...', '')} positionally to {what}() is deprecated; "
                          f"pass it by name: {what}(..., {given})", DeprecationWarning, stacklevel=3)
            return args[:positional], kwargs

        if inspect.iscoroutinefunction(fn):
            async def call_async(*args: object, **kwargs: object) -> object:
                args, kwargs = moved(args, kwargs)
                return await fn(*args, **kwargs)

            return cast(F, functools.wraps(fn)(call_async))

        def call(*args: object, **kwargs: object) -> object:
            args, kwargs = moved(args, kwargs)
            return fn(*args, **kwargs)

        return cast(F, functools.wraps(fn)(call))

    return decorate


def deprecated_form(message: str, *, stacklevel: int | None = 3) -> None:
    """Warn (``DeprecationWarning``) that a call form still works but is deprecated; ``message`` says what
    to write instead. ``stacklevel`` 3: the caller of the function that calls this; ``None``: the first frame
    outside this package (for forms reached through several of the library's own calls)."""
    warnings.warn(message, DeprecationWarning, stacklevel=_outside_package() if stacklevel is None else stacklevel)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _outside_package() -> int:
    """The ``stacklevel`` of the nearest frame whose code is not in this package, seen from ``warnings.warn``'s
    caller's caller (``deprecated_form``'s caller)."""
    frame: FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
