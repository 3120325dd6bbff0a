"""Contract coverage in a pytest run: counted by the sessions, merged from xdist workers, shown after the
summary, written as JSON, and a bar the run must clear (``--mcp-contract-coverage-fail-under``).

What a promise is, and how an answer keeps one, is ``_contract.coverage``'s; this is when and where.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.coverage import (
    ANSWERED,
    MAX_PLACES,
    MAX_PROMISES,
    Coverage,
    ToolCoverage,
    percent,
    shown_arguments,
    shown_percent,
    sibling,
)
from pytest_mcp_contract._json.value import writable
from pytest_mcp_contract._plugin.keys import COVERAGE, POOL, SERVER_NAMES, SETTINGS
from pytest_mcp_contract._run.paths import file_stem, snapshot_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from pytest_mcp_contract._run.settings import Settings

WORKER_OUTPUT: Final = "mcp_contract_coverage"
"""The ``workeroutput`` key under which an xdist worker hands its count to the controller."""
MAX_UNSEEN_LINES: Final = 30
"""Unseen promises printed in the terminal, over all tools: a screenful; the rest are counted."""
JSON_FORMAT: Final = 1


def start(config: pytest.Config, settings: Settings) -> Coverage | None:
    """The run's coverage record, if any coverage option asks for one, and the hooks that report it."""
    if not settings.counting:
        return None
    coverage = config.stash[COVERAGE] = Coverage(recorded=_recorded_shapes(settings))
    config.pluginmanager.register(CoveragePlugin(settings, coverage), "mcp_contract_coverage")
    return coverage


def _recorded_shapes(settings: Settings) -> Callable[[str, str], dict[str, Any] | None]:
    """What reads the observed shape a tool's snapshot records, by the server's and the tool's names."""

    read: dict[tuple[str, str], dict[str, Any] | None] = {}  # each file once a run: every session lists again

    def recorded(server: str, tool: str) -> dict[str, Any] | None:
        from pytest_mcp_contract._suite.shapes import recorded as shape_of

        if (server, tool) not in read:
            path = snapshot_path(settings.snapshot_dir / file_stem(server), tool)
            try:
                read[server, tool] = shape_of(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError, ValueError):
                read[server, tool] = None
        return read[server, tool]

    return recorded


class CoveragePlugin:
    def __init__(self, settings: Settings, coverage: Coverage) -> None:
        self.settings = settings
        self.coverage = coverage
        self.below = False
        self.unwritten = ""
        """Why the JSON file could not be written, if it could not."""
        self.main = ""
        """The configured server's name: its tools come first."""
        self.watched: frozenset[str] = frozenset()
        """The servers whose every call is seen (see :func:`watched`): only their tools are "never called"."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """On the xdist controller: add what a worker counted."""
        data = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT)
        if data is not None:
            self.coverage.merge(json.loads(data))

    def pytest_runtest_logfinish(self) -> None:
        """A test's answers are walked when it ends: a run does not hold every large answer until its end
        (the last stays, in case another version's session still reads it)."""
        self.coverage.settle(keep_last=True)

    @pytest.hookimpl(trylast=True)  # after the tests' last calls; before the terminal summary
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        config = session.config
        workeroutput = getattr(config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[WORKER_OUTPUT] = json.dumps(self.coverage.to_json())
            return
        if self.settings.server is not None:
            from pytest_mcp_contract._servers.kinds import server_name  # the SDK: only when a run counts

            self.main = server_name(self.settings.server, config.stash[SERVER_NAMES])
        self.watched = watched(config, self.main)
        seen, total = self.coverage.totals()
        path = self.settings.coverage_json
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(as_json(self.coverage, self.settings), indent=2) + "\n", encoding="utf-8")
            except OSError as error:  # made unwritable during the run (checked at start-up): said, and failed
                self.unwritten = messages.coverage_json_failed(str(path), error)
                if session.exitstatus == pytest.ExitCode.OK:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED
        least = self.settings.coverage_fail_under
        if least is not None and percent(seen, total) < least:
            self.below = True
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(trylast=True)  # after the contract summary
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
        if hasattr(config, "workerinput"):
            return
        shown = self.settings.coverage
        lines = terminal_lines(self.coverage, self.settings, self.main, self.watched) if shown else []
        if self.below:
            lines += ["", fail_under_text(self.coverage, self.settings, listed=bool(lines))]
        if self.unwritten:
            lines += ["", self.unwritten]
        if lines:
            terminalreporter.write_sep("-", "mcp contract coverage")
            for line in lines:
                terminalreporter.write_line(writable(line))


def _tools(coverage: Coverage, main: str) -> list[ToolCoverage]:
    """Every tool counted, the configured server's first (``main``: its name), settled."""
    coverage.totals()
    return sorted(coverage.tools.values(), key=lambda tool: (tool.server != main, tool.server, tool.tool))


def _name(tool: ToolCoverage, several: bool) -> str:
    name = messages.shown_name(tool.tool) + (messages.OBSERVED_LABEL if tool.observed else "")
    return f"{name} ({tool.server})" if several else name


def total_text(coverage: Coverage) -> str:
    seen, total = coverage.totals()
    calls = sum(tool.calls for tool in coverage.tools.values())
    return f"{shown_percent(seen, total)} ({seen} of {_promises(total)} seen, {messages.plural(calls, 'call')})"


def watched(config: pytest.Config, main: str) -> frozenset[str]:
    """The configured server's name, if every call to it is seen (in process, watched): of another
    server, or one outside this process, a tool with no call seen may still have been called."""
    server = config.stash[SETTINGS].server
    return (
        frozenset({main}) if server is not None and config.stash[POOL].observed.blind(server) is None else frozenset()
    )


def terminal_lines(
    coverage: Coverage, settings: Settings, main: str = "", watched: frozenset[str] = frozenset()
) -> list[str]:
    """A table per server (a row per tool: promises, unseen, percent, calls), the total, then each
    tool's unseen promises."""
    tools = _tools(coverage, main)
    if not tools:
        return ["no MCP session listed any tool this run: nothing to count"]
    servers = list(dict.fromkeys(tool.server for tool in tools))
    lines: list[str] = []
    for server in servers:
        if len(servers) > 1:
            lines.append(f"server {server}" + (" (configured)" if server == main else "") + ":")
        rows = [("tool", "promises", "unseen", "cover", "calls")]
        for tool in tools:
            if tool.server == server:
                counted = tool.counted
                rows.append(
                    (
                        _name(tool, False),
                        str(len(tool.promises)),
                        str(len(tool.promises) - counted),
                        shown_percent(counted, len(tool.promises)),
                        str(tool.calls),
                    )
                )
        lines += messages.aligned(rows, left=1)
    lines.append(f"total: {total_text(coverage)}")
    details = unseen_lines(tools, settings, len(servers) > 1, watched)
    return lines + (["", *details] if details else [])


def unseen_lines(
    tools: list[ToolCoverage],
    settings: Settings,
    several: bool,
    watched: frozenset[str] = frozenset(),
    limit: int = MAX_UNSEEN_LINES,
) -> list[str]:
    """Each tool whose schema was counted only in part; then for each tool below 100 % (the weakest first):
    the promises never seen, and how to reach them."""
    lines = [
        messages.coverage_truncated(_name(tool, several), MAX_PROMISES, MAX_PLACES) for tool in tools if tool.truncated
    ]
    shown = hidden = 0
    weakest = sorted(tools, key=lambda tool: (percent(tool.counted, len(tool.promises)), tool.server, tool.tool))
    for tool in weakest:
        unseen = tool.unseen
        if not unseen:
            continue
        name = _name(tool, several)
        if not tool.calls and tool.server in watched:
            lines.append(
                f"{name}: never called ({_promises(len(unseen))} unseen); give it a case in mcp_contract_cases"
            )
            continue
        if not tool.calls:  # a client of the tests' own may have called it: "not seen" is not "not called"
            lines.append(
                f"{name}: no call seen ({_promises(len(unseen))} unseen); call it through the mcp_contract "
                "fixture, or give it a case in mcp_contract_cases"
            )
            continue
        if ANSWERED in {promise.id for promise in unseen}:
            lines.append(
                f"{name}: no answer kept its contract ({messages.plural(tool.calls, 'call')}, {_promises(len(unseen))} "
                "unseen): each ended in a tool error or broke the contract (the summary above names those)"
            )
            continue
        lines.append(f"{name}: {len(unseen)} unseen")
        for promise in unseen:
            if shown >= limit:
                hidden += 1
                continue
            shown += 1
            near = sibling(tool, promise)
            came = f" (seen: {near[0].shown}, from {shown_arguments(near[1])})" if near is not None else ""
            lines.append(f"  {promise.unseen}{came}")
        lines.append(f"  next: {_next_step(tool, settings)}")
    if hidden:
        lines.append(f"… and {hidden} more unseen (--mcp-contract-coverage-json PATH writes them all)")
    return lines


def _promises(count: int) -> str:
    return messages.plural(count, "promise")


def _next_step(tool: ToolCoverage, settings: Settings) -> str:
    # Why the fuzzer would call it: the reason it is safe to, as the fuzzer decides it.
    if tool.read_only:
        why = "the tool says readOnlyHint: true"
    elif tool.tool in settings.fuzz_allow:
        why = "mcp_contract_fuzz_allow names it"
    else:
        why = "mcp_contract_fuzz_writes is on" if settings.fuzz_writes else ""
    step = "a case in mcp_contract_cases (or a test) with arguments that make the server answer so"
    if why and not settings.fuzz:
        step += f"; or --mcp-contract-fuzz N, which calls it with generated arguments ({why})"
    return step


def fail_under_text(coverage: Coverage, settings: Settings, *, listed: bool = True) -> str:
    """The failure of a run below the bar; ``listed``: the unseen promises are printed above it."""
    seen, total = coverage.totals()
    tools = sorted(
        (tool for tool in coverage.tools.values() if tool.unseen),
        key=lambda tool: (percent(tool.counted, len(tool.promises)), tool.tool),
    )
    several = len({tool.server for tool in coverage.tools.values()}) > 1
    weakest = [
        f"{_name(tool, several)} {shown_percent(tool.counted, len(tool.promises))} ({len(tool.unseen)} unseen)"
        for tool in tools[:3]
    ]
    least = settings.coverage_fail_under
    assert least is not None
    return messages.coverage_below(shown_percent(seen, total), least, weakest, listed=listed)


def markdown_lines(
    coverage: Coverage, settings: Settings, main: str = "", watched: frozenset[str] = frozenset()
) -> list[str]:
    """The coverage as a Markdown section: a table per tool, then the unseen promises."""
    tools = _tools(coverage, main)
    if not tools:
        return []
    several = len({tool.server for tool in tools}) > 1
    lines = [
        "## Contract coverage",
        "",
        f"Promises of the output schemas seen kept: {total_text(coverage)}.",
        "",
        "| tool | promises | unseen | cover | calls |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for tool in tools:
        counted = tool.counted
        name = _cell(_name(tool, several))
        lines.append(
            f"| {name} | {len(tool.promises)} | {len(tool.promises) - counted} | "
            f"{shown_percent(counted, len(tool.promises))} | {tool.calls} |"
        )
    details = unseen_lines(tools, settings, several, watched, limit=200)
    if details:
        # A server's words (an enum value, a title) must not close the fence: no backtick gets in raw.
        lines += ["", "```text", *(line.replace("`", "\\u0060") for line in details), "```"]
    return lines


def _cell(text: str) -> str:
    # The tool's name is shown_name's already; the server's name beside it (several servers) may hold either.
    return "`" + text.replace("`", "\\u0060").replace("|", "\\u007c") + "`"


def as_json(coverage: Coverage, settings: Settings) -> dict[str, Any]:
    """Every promise of every tool, seen or not, for a file."""
    seen, total = coverage.totals()
    tools = []
    for tool in _tools(coverage, ""):
        counted = tool.counted
        tools.append(
            {
                "server": tool.server,
                "tool": tool.tool,
                "observed": tool.observed,
                "calls": tool.calls,
                "kept": tool.kept,
                "promises": len(tool.promises),
                "seen": counted,
                "percent": round(percent(counted, len(tool.promises)), 2),
                "truncated": tool.truncated,
                "unseen": [
                    {"pointer": promise.pointer, "kind": promise.kind, "detail": promise.detail, "text": promise.unseen}
                    for promise in tool.unseen
                ],
                "kept_promises": [
                    {
                        "pointer": promise.pointer,
                        "kind": promise.kind,
                        "detail": promise.detail,
                        "arguments": tool.seen[promise.id],
                    }
                    for promise in tool.promises
                    if promise.id in tool.seen
                ],
            }
        )
    return {
        "format": JSON_FORMAT,
        "total": {"promises": total, "seen": seen, "percent": round(percent(seen, total), 2)},
        "fail_under": settings.coverage_fail_under,
        "tools": tools,
    }
