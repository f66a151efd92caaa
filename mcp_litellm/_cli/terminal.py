"""The chat's terminal: the main thread alone reads the keyboard and writes the screen.

While a question is being answered, the work runs as a task on the sessions' event loop and
everything it wants shown (text, tool lines, progress) or asked (approvals and forms, from handler
threads) comes to the main thread through one queue, in order. So Ctrl-C always lands on the main
thread, which cancels the task and waits for it to finish; questions still waiting are answered
"no answer" (None), which handlers read as cancel or deny.

Answers go to stdout; everything else (tool lines, questions, notices) goes to stdout when it is a
terminal and to stderr when stdout is piped, so a piped stdout holds only the answers. Line editing
and a history of the chat's questions come from ``readline`` where Python has it (stdin and stdout
must be terminals); the history file is ``$XDG_STATE_HOME/mcp-litellm/history`` (default
``~/.local/state``; ``%LOCALAPPDATA%`` on Windows).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any

from mcp_litellm._cli.render import ProgressBar
from mcp_litellm._client.session.loop import get_loop

logger = logging.getLogger(__name__)

HISTORY_LENGTH = 1000
_STOP_WAIT = 30.0
"""Seconds an interrupted question may take to stop (cancelling a tool call is usually immediate)."""


def history_path() -> Path:
    """Where the chat keeps its question history (the user's state directory)."""
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    else:
        state = os.environ.get("XDG_STATE_HOME", "")
        base = state if os.path.isabs(state) else str(Path.home() / ".local" / "state")
    return Path(base) / "mcp-litellm" / "history"


def _load_readline(history: Path, words: Sequence[str]) -> Any:
    """The ``readline`` module set up for the chat (history loaded, slash commands completed), or None."""
    try:
        import readline
    except ImportError:  # Windows without pyreadline, or a Python built without it
        return None
    with contextlib.suppress(AttributeError):
        readline.set_auto_history(False)  # only the chat's questions go to the history, not answers to forms
    readline.set_history_length(HISTORY_LENGTH)
    with contextlib.suppress(OSError, UnicodeDecodeError):  # none yet, or unreadable: start afresh
        readline.read_history_file(history)

    def complete(text: str, state: int) -> str | None:
        found = [w for w in words if w.startswith(text)] if text.startswith("/") else []
        return found[state] if state < len(found) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n")
    libedit = "libedit" in (getattr(readline, "__doc__", "") or "")
    readline.parse_and_bind("bind ^I rl_complete" if libedit else "tab: complete")
    return readline


class _CtrlCWatch:
    """Makes a Ctrl-C end the main thread's wait for a line, even when CPython would sleep through it.

    CPython's C signal handler only notes a Ctrl-C; ``input()`` (readline's or the plain one) acts on it
    when its wait for a key is interrupted. A Ctrl-C that lands just before that wait begins (while the
    last key is being echoed, say) is noted but interrupts nothing, and the prompt waits for the next key.
    So while the watch is on, the signal module's wakeup fd tells a watcher thread of every Ctrl-C, and
    if the main thread is still in the same wait a moment later, the watcher signals it again, which
    does interrupt it. (The upstream fix: readline.c and the plain reader would check for pending
    signals before each wait, or wait with pselect.)
    """

    RECHECK = 0.3
    """Seconds the main thread has to act on a Ctrl-C before it is signalled again."""
    RETRIES = 5

    def __init__(self) -> None:
        self._inside = 0  # odd while the main thread waits in input(); a new value for every wait
        self._pair: tuple[socket.socket, socket.socket] | None = None
        self._previous = -1
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Watch from now on (main thread, POSIX only; otherwise nothing happens)."""
        if (self._pair is not None or not hasattr(signal, "pthread_kill")
                or threading.current_thread() is not threading.main_thread()):
            return
        read, write = socket.socketpair()
        read.setblocking(False)
        write.setblocking(False)
        try:
            previous = signal.set_wakeup_fd(write.fileno(), warn_on_full_buffer=False)
        except (ValueError, OSError):
            read.close()
            write.close()
            return
        if previous != -1:  # someone else (an event loop on this thread) listens already: leave it to them
            signal.set_wakeup_fd(previous)
            read.close()
            write.close()
            return
        self._pair = (read, write)
        self._thread = threading.Thread(target=self._watch, args=(read, threading.main_thread().ident),
                                        name="mcp-litellm-ctrl-c", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop watching and give the wakeup fd back."""
        if self._pair is None:
            return
        read, write = self._pair
        signal.set_wakeup_fd(-1)
        with contextlib.suppress(OSError):
            write.send(b"\0")  # not a signal number: the watcher's cue to end
        if self._thread is not None:
            self._thread.join(5)
        read.close()
        write.close()
        self._pair = self._thread = None

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """Around the main thread's ``input()``."""
        self._inside += 1
        try:
            yield
        finally:
            self._inside += 1

    def _watch(self, read: socket.socket, main: int | None) -> None:
        retries: dict[int, int] = {}
        while True:
            select.select([read], [], [])
            try:
                data = read.recv(256)
            except BlockingIOError:
                continue
            except OSError:
                return
            if not data or 0 in data:
                return
            if signal.SIGINT not in data:
                continue
            wait = self._inside
            if wait % 2 == 0 or retries.get(wait, 0) >= self.RETRIES:
                continue  # not waiting for a line: the main thread runs Python code and sees it soon
            time.sleep(self.RECHECK)
            if self._inside == wait and main is not None:
                retries[wait] = retries.get(wait, 0) + 1
                logger.debug("a Ctrl-C did not end the wait for input; signalling the main thread again")
                signal.pthread_kill(main, signal.SIGINT)


class _Question:
    """A question a handler thread waits on; the main thread answers it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.answer: str | None = None
        self.answered = threading.Event()

    def set(self, answer: str | None) -> None:
        self.answer = answer
        self.answered.set()


class Interrupted(Exception):
    """The user pressed Ctrl-C while a question was being answered (the work has stopped)."""


class Terminal:
    """The chat's screen and keyboard; see the module docstring for the threading rules."""

    def __init__(self, *, words: Sequence[str] = ()) -> None:
        self.interactive = sys.stdin.isatty()
        self.ui = sys.stdout if sys.stdout.isatty() else sys.stderr
        self.progress = ProgressBar(sys.stderr)
        self._main = threading.current_thread()
        self._mid_line = False
        self._lock = threading.Lock()
        self._events: queue.SimpleQueue[tuple[Any, ...]] | None = None
        self._waiting: set[_Question] = set()
        self.history: Path | None = None
        self.readline: Any = None
        self._ctrl_c = _CtrlCWatch()
        if self.interactive and sys.stdout.isatty():
            self.history = history_path()
            self.readline = _load_readline(self.history, words)

    # -- output (main thread, or posted to it) ----------------------------------------------------

    def _post(self, *event: Any) -> bool:
        """Hand an event to the main thread while a question is being answered; False otherwise."""
        with self._lock:
            if self._events is None:
                return False
            self._events.put(event)
            return True

    def _on_main(self) -> bool:
        return threading.current_thread() is self._main

    def text(self, delta: str) -> None:
        """Streamed model text (main thread)."""
        if not delta:
            return
        self.progress.end()
        sys.stdout.write(delta)
        sys.stdout.flush()
        self._mid_line = not delta.endswith("\n")

    def end_text(self) -> None:
        """End a partial line of streamed text."""
        if self._mid_line:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self._mid_line = False

    def line(self, text: str) -> None:
        """A line of its own (a tool being used, a notice), after any partial text line; any thread."""
        if not self._on_main() and self._post("line", text):
            return
        self.progress.end()
        self.end_text()
        print(text, file=self.ui, flush=True)

    def show_progress(self, label: str, value: float, total: float | None, message: str | None) -> None:
        """A tool's progress (any thread); progress arriving between questions is dropped."""
        if self._on_main():
            self.progress.update(label, value, total, message)
        else:
            self._post("progress", label, value, total, message)

    # -- input ------------------------------------------------------------------------------------

    def _input(self, question: str) -> str | None:
        self.progress.end()
        self.end_text()
        try:
            with self._ctrl_c.waiting():
                if self.ui is sys.stdout:
                    answer = input(question)  # readline (when loaded) needs the prompt to redraw the line
                else:
                    self.ui.write(question)
                    self.ui.flush()
                    answer = input()
        except EOFError:
            if question:
                print(file=self.ui, flush=True)  # end the question's line
            return None
        if question and not self.interactive:
            print(file=self.ui, flush=True)  # piped input is not echoed: end the question's line
        return answer

    @contextlib.contextmanager
    def ctrl_c_watch(self) -> Iterator[None]:
        """While inside, a Ctrl-C always ends a wait for a line (see :class:`_CtrlCWatch`); interactive only."""
        if not self.interactive:
            yield
            return
        self._ctrl_c.start()
        try:
            yield
        finally:
            self._ctrl_c.stop()

    def prompt(self, question: str) -> str | None:
        """Ask for the next chat question on the main thread (added to the history); None at end of input.
        Ctrl-C raises ``KeyboardInterrupt`` (the caller clears the line and asks again)."""
        answer = self._input(question)
        if answer and answer.strip() and self.readline is not None:
            length = self.readline.get_current_history_length()
            last = self.readline.get_history_item(length) if length else None
            if answer != last:
                self.readline.add_history(answer)
        return answer

    def ask(self, question: str) -> str | None:
        """Ask on the terminal from any thread; None when the input ended, the question was interrupted,
        or (from a handler thread) no chat question is being answered."""
        if self._on_main():
            return self._input(question)
        waiting = _Question(question)
        with self._lock:
            if self._events is None:
                return None
            self._waiting.add(waiting)
            self._events.put(("ask", waiting))
        waiting.answered.wait()
        return waiting.answer

    # -- running one question -----------------------------------------------------------------------

    def run(self, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``work()`` on the sessions' loop while serving the screen and keyboard on this thread.

        Raises :class:`Interrupted` after Ctrl-C (the work is cancelled and has stopped, or was given up
        on after a while), or the work's own exception.
        """
        events: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        finished = threading.Event()
        failure: list[BaseException] = []
        task: list[asyncio.Task[None]] = []
        loop = get_loop()

        async def wrapped() -> None:
            try:
                await work()
            except asyncio.CancelledError:
                pass  # stopped by Ctrl-C: the caller knows
            except BaseException as exc:
                failure.append(exc)
            finally:
                finished.set()
                events.put(("end",))

        def start() -> None:
            task.append(loop.create_task(wrapped()))

        with self._lock:
            self._events = events
        loop.call_soon_threadsafe(start)  # runs in a copy of this thread's context (contextvars cross over)
        interrupted = False
        try:
            self._serve(events)
        except KeyboardInterrupt:
            interrupted = True
            loop.call_soon_threadsafe(lambda: task[0].cancel())  # after start(): callbacks run in order
        finally:
            self._close(events)
            if not finished.is_set():
                self._wait_stopped(finished)
        if interrupted:
            raise Interrupted
        if failure:
            raise failure[0]

    def _serve(self, events: queue.SimpleQueue[tuple[Any, ...]]) -> None:
        while True:
            try:  # a timeout, so that a Ctrl-C taken by another thread's signal delivery is still seen soon
                kind, *rest = events.get(timeout=0.25)
            except queue.Empty:
                continue
            if kind == "end":
                return
            self._show(kind, rest)

    def _show(self, kind: str, rest: list[Any]) -> None:
        if kind == "text":
            self.text(rest[0])
        elif kind == "line":
            self.line(rest[0])
        elif kind == "progress":
            self.progress.update(*rest)
        elif kind == "ask":
            waiting: _Question = rest[0]
            answer = self._input(waiting.text)
            with self._lock:
                self._waiting.discard(waiting)
            waiting.set(answer)

    def _close(self, events: queue.SimpleQueue[tuple[Any, ...]]) -> None:
        """End the question: later posts are refused, and every question still waiting gets no answer."""
        with self._lock:
            self._events = None
            waiting, self._waiting = self._waiting, set()
        for question in waiting:
            question.set(None)
        while True:  # what was posted but not shown: lines are still worth showing, questions get no answer
            try:
                kind, *rest = events.get_nowait()
            except queue.Empty:
                break
            if kind == "ask":
                rest[0].set(None)
            elif kind == "line":
                self.line(rest[0])

    def _wait_stopped(self, finished: threading.Event) -> None:
        """Wait for the cancelled work to finish; more Ctrl-C presses only say that it is stopping."""
        deadline = time.monotonic() + _STOP_WAIT
        told = False
        while not finished.is_set() and time.monotonic() < deadline:
            try:
                finished.wait(0.1)
            except KeyboardInterrupt:
                if not told:
                    self.line("(stopping...)")
                    told = True
        if not finished.is_set():
            self.line(f"(the interrupted work did not stop within {_STOP_WAIT:g}s; going on)")

    def post_text(self, delta: str) -> None:
        """Streamed model text from the work on the loop."""
        if delta:
            self._post("text", delta)

    # -- history ------------------------------------------------------------------------------------

    def save_history(self) -> None:
        """Write the question history (readable by the user only); failures are only logged."""
        if self.readline is None or self.history is None:
            return
        try:
            self.history.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.close(os.open(self.history, os.O_WRONLY | os.O_CREAT, 0o600))
            self.readline.write_history_file(str(self.history))
        except OSError as exc:
            logger.info("could not save the chat history to %s: %s", self.history, exc)
