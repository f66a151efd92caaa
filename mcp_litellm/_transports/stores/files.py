"""A document in memory or in a file (mode 0600, written atomically), with a lock.

The file's lock is ``fcntl.flock`` on a ``.lock`` file beside it: it serves every process of the machine
and every store of this one (without ``fcntl``, as on Windows, there is no cross-process lock). Reads and
writes run on a worker thread, never on the calling loop.

A *private* file (OAuth tokens) is opened without following symlinks and must belong to the user running
the program and be writable by nobody else, in a directory of the user's own (mode 0700); a file that is
not so is refused, on read as on write. A file that is not private (tool pins, which may sit beside a
project's config file) is written with mode 0600 too, but its directory is left as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from mcp_litellm._core.documents import Wording

__all__ = ["LOCK_TIMEOUT", "FileDocument", "MemoryDocument"]

LOCK_TIMEOUT = 30.0
"""Seconds a writer may hold a lock (Redis expires it then), and the longest wait for one."""


class MemoryDocument:
    """The document in memory, for this process only."""

    where = "in memory"
    path: Path | None = None

    def __init__(self) -> None:
        self._text: str | None = None
        self._lock = asyncio.Lock()

    async def read(self) -> str | None:
        return self._text

    async def write(self, text: str) -> None:
        self._text = text

    async def delete(self) -> bool:
        had, self._text = self._text is not None, None
        return had

    @contextlib.asynccontextmanager
    async def lock(self) -> AsyncIterator[None]:
        async with self._lock:
            yield


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


class FileDocument:
    """The document in a file (see the module docstring); ``private``: refuse an unsafe file."""

    def __init__(self, path: Path, wording: Wording, *, private: bool = True) -> None:
        self.path = path
        self.where = f"in {path}"
        self.wording = wording
        self.private = private

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    def _refuse(self, path: Path, why: str) -> Exception:
        w = self.wording
        return w.fail(f"refusing {w.file} {path} ({w.what}): {why}; {w.refused}")

    def _check_directory(self, directory: Path) -> None:
        info = directory.stat()
        if not stat.S_ISDIR(info.st_mode):
            raise self._refuse(directory, "its directory is not a directory")
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise self._refuse(directory, "its directory belongs to another user")

    def read_sync(self) -> str | None:
        """:meth:`read` for synchronous callers (it blocks)."""
        flags = os.O_RDONLY | (getattr(os, "O_NOFOLLOW", 0) if self.private else 0)
        try:
            if self.private and self.path.parent.exists():
                self._check_directory(self.path.parent)
            fd = os.open(self.path, flags)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            if self.private and self.path.is_symlink():
                raise self._refuse(self.path, "it is a symbolic link") from None
            raise self.wording.fail(f"cannot read {self.wording.what} from {self.path} ({_reason(exc)}); "
                                    f"{self.wording.fix}") from None
        with os.fdopen(fd, "r", encoding="utf-8") as handle:
            if self.private:
                info = os.fstat(handle.fileno())
                if hasattr(os, "getuid") and info.st_uid != os.getuid():
                    raise self._refuse(self.path, "it belongs to another user")
                if info.st_mode & 0o022:
                    raise self._refuse(self.path, "others may write to it")
            try:
                return handle.read()
            except OSError as exc:
                raise self.wording.fail(f"cannot read {self.wording.what} from {self.path} ({_reason(exc)}); "
                                        f"{self.wording.fix}") from None

    def write_sync(self, text: str) -> None:
        """:meth:`write` for synchronous callers (it blocks)."""
        directory = self.path.parent
        try:
            if self.private or not directory.exists():
                directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            if self.private:
                self._check_directory(directory)
                if (directory.stat().st_mode & 0o077) != 0:
                    directory.chmod(0o700)
                if self.path.is_symlink():
                    raise self._refuse(self.path, "it is a symbolic link")
            fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=directory)
            try:
                if hasattr(os, "fchmod"):  # mkstemp already creates the file 0600; say it anyway
                    os.fchmod(fd, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        except OSError as exc:
            raise self.wording.fail(f"cannot store {self.wording.what} in {directory} ({_reason(exc)}); "
                                    f"{self.wording.fix}") from None

    def delete_sync(self) -> bool:
        """:meth:`delete` for synchronous callers (it blocks)."""
        with contextlib.suppress(OSError):
            self.path.with_name(self.path.name + ".lock").unlink()
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise self.wording.fail(f"cannot delete {self.wording.what} at {self.path} ({_reason(exc)}); "
                                    "delete the file by hand") from None
        return True

    async def read(self) -> str | None:
        return await asyncio.to_thread(self.read_sync)

    async def write(self, text: str) -> None:
        await asyncio.to_thread(self.write_sync, text)

    async def delete(self) -> bool:
        return await asyncio.to_thread(self.delete_sync)

    @contextlib.asynccontextmanager
    async def lock(self) -> AsyncIterator[None]:
        try:
            import fcntl
        except ImportError:  # no cross-process file lock here
            yield
            return
        lock_path = self.path.with_name(self.path.name + ".lock")
        w = self.wording
        try:
            if not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as exc:
            raise w.fail(f"cannot lock {w.what} ({lock_path}: {_reason(exc)}); {w.fix}") from None
        try:
            deadline = time.monotonic() + LOCK_TIMEOUT
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise w.fail(f"another process has held the lock on {w.what} ({lock_path}) for "
                                     f"{LOCK_TIMEOUT:g}s; if none is writing them, delete the lock file") from None
                    await asyncio.sleep(0.02)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
