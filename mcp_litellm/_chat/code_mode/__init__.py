"""Code mode: the model writes a short Python program over its tools, run in a sandbox (pydantic-monty).

- :mod:`.settings`: :class:`CodeMode`, the limits, and the check that the sandbox is installed;
- :mod:`.stubs`: the typed async stubs of the tools and their Python names;
- :mod:`.sandbox`: running a program in a pydantic-monty worker;
- :mod:`.engine`: :class:`CodeModeToolset`, the wrapper offering ``run_code`` and running its programs.
"""

from mcp_litellm._chat.code_mode.engine import RUN_CODE, CodeModeToolset, RunInner
from mcp_litellm._chat.code_mode.settings import CodeMode, code_mode_settings

__all__ = ["RUN_CODE", "CodeMode", "CodeModeToolset", "RunInner", "code_mode_settings"]
