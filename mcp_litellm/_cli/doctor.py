"""``mcp-litellm doctor``: each server's protocol, capabilities, auth and offer, and what its tools cost
and risk with one model.

For every selected server: the negotiated protocol version (its era), the capabilities it declared,
its OAuth state, how many tools, resources, templates and prompts it offers, the tokens its tool
definitions take in a request to the model (``litellm.token_counter`` over the definitions
mcp_litellm sends that model), the names the model sees (and why one differs from the server's), and
what the model's provider would reject (``_core/provider_rules.py``; for Gemini checked on the
declarations LiteLLM itself makes). A server that fails to start is reported and the others checked.

Exit codes: 0 healthy; 1 a server failed to start, could not be listed, or needs ``login``;
3 every server ran but the model's provider would reject a tool name or schema (or two servers' tools
would share a name the config forbids prefixing); 2 usage errors.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sized
from typing import Any

from mcp_litellm._cli.commands import EXIT_FAILED, EXIT_OK, not_running_status, select_servers
from mcp_litellm._cli.render import dump_json, first_line
from mcp_litellm._client.client import Client
from mcp_litellm._client.primitives.tool import Tool
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError
from mcp_litellm._core.naming import MAX_NAME, safe_tool_name
from mcp_litellm._core.provider_rules import (
    Finding,
    check_anthropic_schema,
    check_count,
    check_gemini_declaration,
    check_names,
    check_openai_schema,
    dropped_keywords,
    rules_family,
)
from mcp_litellm._llm import llm_provider
from mcp_litellm._llm.doctor import gemini_declarations, gemini_schema_fields, tool_tokens
from mcp_litellm._servers.group import ClientGroup

HELP = "Check each server and what its tools cost and risk with a model."
DESCRIPTION = ("For each server: its protocol era, capabilities, auth state and what it offers; the tokens its "
               "tool definitions cost for MODEL, the names the model sees, and any tool name or schema the "
               "model's provider would reject.")
EPILOG = ("Exit codes: 0 healthy; 1 a server failed to start, could not be listed or needs 'login'; 2 usage error; "
          "3 the model's provider would reject a tool.")
DEFAULT_MODEL = "openai/gpt-4o-mini"
EXIT_REJECTED = 3
MODERN = "2026-07-28"
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``doctor`` (and its longer description)."""
    parser.description, parser.epilog = DESCRIPTION, EPILOG
    parser.add_argument("--model", "-m", metavar="MODEL",
                        help=f"the LiteLLM model to check the tools against (default: {DEFAULT_MODEL})")
    parser.add_argument("--format", choices=["text", "json"], default="text",
                        help="'json' prints one object for programs")


# -- per server -------------------------------------------------------------------------------------


def _era(version: str) -> str:
    """``"2026-07-28"``, or ``"2025"`` for every version negotiated by the older initialize handshake."""
    return MODERN if version >= MODERN else "2025"


_ERA_TEXT = {MODERN: "2026-07-28 era: no server-to-client requests", "2025": "2025 era: initialize handshake"}


def _capabilities(client: Client) -> dict[str, list[str]]:
    """``{capability: [its flags]}`` (``listChanged``, ``subscribe``, ...) for what the server declared."""
    declared = client.capabilities.model_dump(by_alias=True, exclude_none=True)
    found: dict[str, list[str]] = {}
    for key, value in declared.items():
        if value is None:
            continue
        flags = [flag for flag, on in value.items() if on not in (None, False)] if isinstance(value, dict) else []
        found[key] = flags
    return found


def _count(row: dict[str, Any], key: str, offered: bool, listing: Callable[[], Sized]) -> None:
    if not offered:
        row["counts"][key] = 0
        return
    try:
        row["counts"][key] = len(listing())
    except MCPLiteLLMError as exc:
        row["counts"][key] = None
        row.setdefault("list_errors", {})[key] = first_line(str(exc), 300)


def _rename_reason(tool: Tool, clashing_here: set[str], clashing_across: set[str]) -> str | None:
    """Why the model sees ``tool.name`` rather than the server's ``tool.mcp_name`` (``None``: it does not)."""
    if tool.name == tool.mcp_name:
        return None
    reasons = []
    if _UNSAFE.search(tool.mcp_name) or not tool.mcp_name:
        reasons.append("characters outside [a-zA-Z0-9_-] replaced")
    if len(tool.mcp_name) > MAX_NAME:
        reasons.append(f"longer than {MAX_NAME} characters: shortened with a hash")
    safe = safe_tool_name(tool.mcp_name)
    if safe in clashing_here:
        reasons.append("another tool of this server cleans to the same name: given a hash")
    if tool.mcp_name in clashing_across:
        reasons.append("another server offers the same name: prefixed with its server's name")
    elif "__" in tool.name and "__" not in safe:
        reasons.append("prefixed with its server's name (with_prefix)")
    return "; ".join(reasons) or "renamed by the group"


def _names(tools: list[Tool], clashing_across: set[str]) -> tuple[list[dict[str, Any]], list[Finding]]:
    cleaned: dict[str, list[str]] = {}
    for tool in tools:
        cleaned.setdefault(safe_tool_name(tool.mcp_name), []).append(tool.mcp_name)
    clashing_here = {safe for safe, originals in cleaned.items() if len(originals) > 1}
    rows, notes = [], []
    for tool in tools:
        reason = _rename_reason(tool, clashing_here, clashing_across)
        rows.append({"server_name": tool.mcp_name, "name": tool.name, "changed": reason is not None,
                     "reason": reason})
        if reason is not None:
            notes.append(Finding("note", f"sent as {tool.name!r}: {reason}", tool.mcp_name))
    for safe in sorted(clashing_here):
        notes.append(Finding("warning", f"collision: {', '.join(map(repr, cleaned[safe]))} all clean to {safe!r}; "
                                        "each got a distinct name"))
    return rows, notes


def _provider_findings(family: str | None, tools: list[Tool], definitions: list[dict[str, Any]],
                       declarations: list[dict[str, Any] | str] | None) -> list[Finding]:
    """What ``family``'s provider would reject in these definitions (and what they lose on the way)."""
    if family is None or not tools:
        return []
    found: list[Finding] = []
    names = [d["function"]["name"] for d in definitions]
    found += check_names(family, names)
    for tool, definition in zip(tools, definitions, strict=True):
        parameters = definition["function"]["parameters"]
        if family == "openai":
            found += check_openai_schema(tool.name, parameters)
        elif family == "anthropic":  # bedrock: the names only (its schema rules depend on the model behind it)
            found += check_anthropic_schema(tool.name, parameters)
            found += dropped_keywords(tool.name, family, tool.input_schema, parameters)
    if family == "gemini":
        shape = gemini_schema_fields()
        if declarations is None or shape is None:
            found.append(Finding("warning", "this LiteLLM version has no Gemini conversion helper to check against; "
                                            "checked the names only"))
        else:
            fields, types = shape
            for tool, declaration in zip(tools, declarations, strict=True):
                if isinstance(declaration, str):
                    found.append(Finding("error", f"LiteLLM cannot convert this schema for gemini: "
                                                  f"{first_line(declaration, 300)}", tool.name))
                    continue
                found += check_gemini_declaration(declaration, fields, types)
                found += dropped_keywords(tool.name, family, tool.input_schema, declaration.get("parameters"))
    return found


def _finding(f: Finding) -> dict[str, Any]:
    return {"level": f.level, "tool": f.tool, "message": f.message}


# -- the command ------------------------------------------------------------------------------------


def _model_info(model: str) -> dict[str, Any]:
    bare, provider = llm_provider(model)
    return {"model": model, "counted_as": bare if provider else model, "provider": provider,
            "rules": rules_family(provider, model)}


def _check_server(client: Client, tools: list[Tool], info: dict[str, Any],
                  clashing_across: set[str]) -> dict[str, Any]:
    server = client.server_info
    caps = _capabilities(client)
    row: dict[str, Any] = {"status": "ok", "server": server.name if server else None,
                           "version": server.version if server else None,
                           "protocol": client.protocol_version, "era": _era(client.protocol_version),
                           "capabilities": caps, "counts": {}}
    _count(row, "tools", "tools" in caps, client.tools)  # cached by the group's listing; records its failure
    _count(row, "resources", "resources" in caps, client.resources)
    _count(row, "resource_templates", "resources" in caps, client.resource_templates)
    _count(row, "prompts", "prompts" in caps, client.prompts)
    definitions = [tool.to_litellm(info["model"]) for tool in tools]
    tokens, tokenizer, exact, estimated = tool_tokens(info["counted_as"], definitions, provider=info["provider"])
    row["tool_tokens"] = tokens if tools else 0
    row["tool_tokens_estimated"] = estimated
    info.setdefault("tokenizer", tokenizer)
    info.setdefault("exact", exact)
    row["tools"], notes = _names(tools, clashing_across)
    declarations = gemini_declarations(definitions) if info["rules"] == "gemini" and tools else None
    findings = notes + _provider_findings(info["rules"], tools, definitions, declarations)
    row["findings"] = [_finding(f) for f in findings]
    return row


def run(args: argparse.Namespace) -> int:
    """``mcp-litellm doctor [-m MODEL]``."""
    selected, auth, startable = select_servers(args)
    if not selected:
        raise ConfigError("no servers in the config" + (f" {args.config}" if args.config else ""))
    info = _model_info(args.model or DEFAULT_MODEL)
    info["default"] = args.model is None
    options = {"request_timeout": args.timeout} if args.timeout is not None else {}
    rows: list[dict[str, Any]] = []
    all_tools: list[Tool] = []
    overall: list[Finding] = []
    with ClientGroup(startable, strict=False, **options) as group:
        try:
            listed = group.tools() if len(group) else []
        except ConfigError as exc:  # with_prefix: false and two servers offer one name: each server on its own
            overall.append(Finding("error", first_line(str(exc), 400)))
            listed = [tool for client in group for tool in _own_tools(client)]
        by_server: dict[str, list[Tool]] = {}
        for tool in listed:
            by_server.setdefault(tool.client.name, []).append(tool)
        servers_of: dict[str, set[str]] = {}
        for tool in listed:
            servers_of.setdefault(tool.mcp_name, set()).add(tool.client.name)
        clashing_across = {name for name, owners in servers_of.items() if len(owners) > 1}
        for name, server_config in selected.items():
            row: dict[str, Any] = {"name": name, "transport": server_config.transport_type,
                                   "auth": auth[name] or "none"}
            stopped = not_running_status(name, server_config, group, startable)
            if stopped is not None:
                row.update(stopped)
            else:
                row.update(_check_server(group[name], by_server.get(name, []), info, clashing_across))
                all_tools += by_server.get(name, [])
            rows.append(row)
    return _report(args, info, rows, all_tools, overall)


def _own_tools(client: Client) -> list[Tool]:
    try:
        return list(client.tools())
    except MCPLiteLLMError:
        return []  # recorded per server by _check_server


def _report(args: argparse.Namespace, info: dict[str, Any], rows: list[dict[str, Any]], tools: list[Tool],
            overall: list[Finding]) -> int:
    definitions = [tool.to_litellm(info["model"]) for tool in tools]
    total, tokenizer, exact, _ = tool_tokens(info["counted_as"], definitions, provider=info["provider"])
    info.setdefault("tokenizer", tokenizer)
    info.setdefault("exact", exact)
    overall = overall + (check_count(info["rules"], len(tools)) if info["rules"] else [])
    broken = [r for r in rows if r["status"] in ("failed", "login") or r.get("list_errors")]
    rejected = any(f["level"] == "error" for r in rows for f in r.get("findings", [])) or any(
        f.level == "error" for f in overall)
    code = EXIT_FAILED if broken else EXIT_REJECTED if rejected else EXIT_OK
    report = {**info, "tool_tokens": total if tools else 0, "tool_count": len(tools), "servers": rows,
              "findings": [_finding(f) for f in overall], "exit_code": code}
    if args.format == "json":
        dump_json(report)
    else:
        _print_text(report)
    return code


# -- text -------------------------------------------------------------------------------------------


def _plural(count: int | None, word: str) -> str:
    if count is None:
        return f"? {word}s"
    return f"{count} {word}{'' if count == 1 else 's'}"


def _print_text(report: dict[str, Any]) -> None:
    model = report["model"] + (" (the default; choose one with -m)" if report["default"] else "")
    provider = report["provider"] or "unknown to LiteLLM"
    rules = report["rules"] or "none known (names and schemas not checked)"
    accuracy = "exact" if report["exact"] else "approximate"
    print(f"model: {model}\n  provider {provider}; rules checked: {rules}; tokens by {report['tokenizer']} "
          f"({accuracy})")
    for row in report["servers"]:
        print()
        head = f"{row['name']}: {row['status']} ({row['transport']})"
        if row.get("server"):
            head += f" - {row['server']} {row.get('version') or ''}".rstrip()
        print(head)
        if row["status"] != "ok":
            if row.get("error"):
                print(f"  error         {first_line(row['error'], 300)}")
            if row["auth"] != "none":
                print(f"  auth          oauth: {row['auth']}")
            continue
        caps = ", ".join(f"{key} ({', '.join(flags)})" if flags else key for key, flags in row["capabilities"].items())
        counts = row["counts"]
        print(f"  protocol      {row['protocol']} ({_ERA_TEXT[row['era']]})")
        print(f"  capabilities  {caps or 'none'}")
        print(f"  auth          {'none' if row['auth'] == 'none' else 'oauth: ' + row['auth']}")
        print(f"  offers        {_plural(counts['tools'], 'tool')}, {_plural(counts['resources'], 'resource')}, "
              f"{_plural(counts['resource_templates'], 'resource template')}, {_plural(counts['prompts'], 'prompt')}")
        for what, error in row.get("list_errors", {}).items():
            print(f"  error         listing {what} failed: {error}")
        estimated = row["tool_tokens_estimated"]
        note = f" ({estimated} estimated at characters / 4: LiteLLM cannot count their definitions)"
        print(f"  tool tokens   {row['tool_tokens']}" + (note if estimated else ""))
        renamed = [t for t in row["tools"] if t["changed"]]
        print(f"  names         {len(renamed)} of {len(row['tools'])} renamed for the model" if renamed
              else "  names         sent as the server names them")
        findings = row["findings"]
        for f in findings:
            print(f"  {f['level']:<12}  " + (f"{f['tool']}: " if f["tool"] else "") + f["message"])
        if not any(f["level"] == "error" for f in findings) and report["rules"]:
            print(f"  ok            {report['rules']} accepts every tool name and schema")
    print()
    for f in report["findings"]:
        print(f"{f['level']}: {f['message']}")
    servers = report["servers"]
    failed = sum(1 for r in servers if r["status"] in ("failed", "login"))
    errors = sum(1 for r in servers for f in r.get("findings", []) if f["level"] == "error") + sum(
        1 for f in report["findings"] if f["level"] == "error")
    print(f"{_plural(len(servers), 'server')}, {failed} not running; {_plural(report['tool_count'], 'tool')} "
          f"cost {report['tool_tokens']} tokens together; {errors} rejected")
