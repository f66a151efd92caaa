"""Run ``mcp-litellm`` in a real pseudo-terminal: type into it, press Ctrl-C, read what it shows.

The child is a session leader whose controlling terminal is the pty, so Ctrl-C typed into the
terminal reaches it as SIGINT from the line discipline, as it does for a person at a keyboard.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence

CTRL_C = b"\x03"
CTRL_D = b"\x04"
_ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")


def _take_terminal() -> None:
    """In the child (after setsid): make stdin, the pty, the controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """A command running on the slave side of a pty; ``output`` is everything it wrote to the terminal.

    With ``piped_stdout``, its stdout is a pipe instead (read with :meth:`finish`), while stdin and
    stderr stay on the terminal. ``python`` is what runs the command (default ``-m mcp_litellm``).
    """

    def __init__(self, argv: Sequence[str], *, env: dict[str, str], piped_stdout: bool = False,
                 cwd: str | None = None, python: Sequence[str] = ("-m", "mcp_litellm")) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
        self.raw = b""
        self.proc = subprocess.Popen(
            [sys.executable, *python, *argv], stdin=slave,
            stdout=subprocess.PIPE if piped_stdout else slave, stderr=slave, env=env, cwd=cwd,
            start_new_session=True, preexec_fn=_take_terminal, close_fds=True)
        os.close(slave)

    # -- reading ------------------------------------------------------------------------------------

    def _read_some(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        self.raw += data
        return bool(data)

    @property
    def output(self) -> str:
        """What the terminal shows so far, without escape sequences and carriage returns."""
        return _ANSI.sub(b"", self.raw).decode("utf-8", errors="replace")

    def expect(self, text: str, timeout: float = 60.0, *, after: int = 0) -> int:
        """Wait until ``text`` appears (at or after index ``after`` of :attr:`output`); returns where it ends."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.output.find(text, after)
            if found >= 0:
                return found + len(text)
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} did not appear within {timeout}s; the terminal shows:\n{self.output}")
            if not self._read_some(min(left, 0.2)) and self.proc.poll() is not None:
                self._read_some(0.2)
                if self.output.find(text, after) < 0:
                    raise AssertionError(f"{text!r} never appeared; the command exited with {self.proc.returncode}:"
                                         f"\n{self.output}")

    def settle(self, quiet: float = 0.3, timeout: float = 5.0) -> None:
        """Read until the terminal has been quiet for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._read_some(quiet):
            pass

    # -- typing -------------------------------------------------------------------------------------

    def send(self, data: bytes | str) -> None:
        os.write(self.master, data.encode() if isinstance(data, str) else data)

    def line(self, text: str) -> None:
        self.send(text + "\r")

    # -- ending -------------------------------------------------------------------------------------

    def finish(self, timeout: float = 60.0) -> tuple[int, str]:
        """Wait for the command to exit; returns its exit code and its piped stdout (``""`` if not piped)."""
        piped = ""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._read_some(0.1)
        if self.proc.poll() is None:
            self.close()
            raise AssertionError(f"the command did not exit within {timeout}s; the terminal shows:\n{self.output}")
        if self.proc.stdout is not None:
            piped = self.proc.stdout.read().decode("utf-8", errors="replace")
        self.settle(0.1, 2.0)
        return self.proc.returncode, piped

    def close(self) -> None:
        """Kill the command if it still runs and release the terminal."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        if self.master >= 0:
            os.close(self.master)
            self.master = -1
