"""The contract report: what each test saw, gathered per server and tool, for the terminal and a Markdown file;
and the lines the plugin adds to pytest's header.

Tests record what they saw in ``item.user_properties`` (which pytest-xdist carries to the
controller, and JUnit XML writes out); the controller reads them from the reports it receives,
so the summary and the file are the same with or without ``-n``.

A violation found in a call of a test that passed was expected by that test (``pytest.raises``,
``.check()``); it is counted apart, so a green run that asserts known defects does not read as
a broken server.
"""

from __future__ import annotations

import keyword
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import unquote

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.expect import allow_entry, allow_reason
from pytest_mcp_contract._json.value import writable
from pytest_mcp_contract._plugin.coverage import markdown_lines, watched
from pytest_mcp_contract._plugin.keys import COVERAGE, POOL, SERVER_NAMES, SETTINGS, SHAPES
from pytest_mcp_contract._run.paths import shown_path
from pytest_mcp_contract._run.records import (
    PROPERTY,
    AgainstSeen,
    CallsSeen,
    CallTally,
    ChangeSeen,
    ChecksSeen,
    FailureSeen,
    Found,
    FuzzSeen,
    FuzzSkipped,
    ListingSeen,
    OnceSeen,
    Restart,
    RestartLimit,
    SchemaSeen,
    SequencesSeen,
    ToolRecord,
    read_record,
)
from pytest_mcp_contract._suite.schemadiff import KINDS

if TYPE_CHECKING:
    from collections.abc import Generator

    from pytest_mcp_contract._run.settings import Settings
    from pytest_mcp_contract._suite.shapes import Settled
    from pytest_mcp_contract._suite.unused import UnusedSnapshots


@dataclass
class ToolReport:
    name: str
    schema: SchemaSeen | None = None
    checks: tuple[Found, ...] | None = None
    tally: CallTally = field(default_factory=CallTally)
    """Every checked call of the tool, by the tests and by the fuzzer."""
    allowed_checks: tuple[str, ...] = ()
    """Tool-check violations carried by ``mcp_contract_allow``."""
    failures: list[FailureSeen] = field(default_factory=list)
    """The broken contracts that failed tests: test, arguments and each violation (``calls._record_failure``)."""

    @property
    def shown(self) -> str:
        """The name as the summary and report print it: a name with a newline, NUL, backtick or pipe
        in it is shown as a JSON string, so it can neither break a table nor pass for another name."""
        return messages.shown_name(self.name)

    fuzzed: bool = False
    fuzz_calls: int = 0
    fuzz_results: int = 0
    """Generated calls answered with a result (not a tool error): the ones whose results were checked."""
    fuzz_distinct: int = 0
    fuzz_found: bool = False
    fuzz_cut_short: bool = False
    once: dict[str, set[str]] = field(default_factory=dict)
    """Cases of a tool that may write, sent under one version (``sent_under``): the versions whose verdict
    was read from that answer (``judged``) and those it tells nothing of (``unjudged``)."""
    fuzz_skipped: bool = False
    """Its fuzz item skipped it: it may write, and the project did not opt it in."""
    fuzz_destructive: bool = False
    """It says ``destructiveHint: true``."""
    against: AgainstSeen | None = None
    """Its changes against the ``--mcp-contract-against`` revision (``_suite.against``)."""
    observed: Settled | None = None
    """Its output schema names no key: what became of the shape its answers had (``_suite.shapes``)."""
    answers: int = 0
    """Its answers this run saw, of a tool whose output schema names no key (tool errors aside)."""
    observed_against: tuple[ChangeSeen, ...] = ()
    """Its observed shape's changes against the base revision."""
    compared: str = ""
    """How it was compared with the base: ``schema``, ``observed``, or why it was not."""
    observed_failing: str = ""
    """The run's failure for a break of its observed shape nobody acknowledged."""
    observed_allowed: bool = False
    """A break of its observed shape, acknowledged in ``mcp_contract_allow``."""


@dataclass
class ContractReport:
    """Everything recorded in this run, per server and tool (filled on the controller)."""

    main: str = ""
    versions: tuple[str, ...] = ()
    """The protocol versions offered: a tool broken under each of them is broken, not kept under some."""
    """The configured server's name: it comes first, and the suite's records are about it."""
    renamed: str = ""
    """The name the configured server gives itself, when it changes between processes (``main`` is its target)."""
    main_told: bool = True
    """Whether ``main`` is the name a session was told (a server outside this process: its listing item's
    record, else its first schema or checks item's, which only the suite's server has)."""
    servers: dict[str, dict[str, ToolReport]] = field(default_factory=dict)
    removed: dict[str, str] = field(default_factory=dict)
    """Tools the configured server no longer lists: name -> what became of their snapshot file."""
    allow: dict[tuple[str, str], str] = field(default_factory=dict)
    """The ``mcp_contract_allow`` entries: (tool, check) -> reason."""
    stale_allowed: list[tuple[str, str]] = field(default_factory=list)
    """Allow entries no call or tool check needed in a run that covered the whole project."""
    not_called: list[str] = field(default_factory=list)
    """The configured server's tools no test and no example call called, in such a run (as far as seen)."""
    blind: str = ""
    """Why a call to the configured server may have gone unseen (a client of the tests' own), and how to
    make it seen, if it may."""
    restarts: Counter[tuple[str, str]] = field(default_factory=Counter)
    """Servers had back after they went away under a call: (server, why it went away) -> times."""
    restart_limits: dict[str, int] = field(default_factory=dict)
    """Servers that went away once more after the last restart a run allows, with that limit."""
    sequences: list[SequencesSeen] = field(default_factory=list)
    """Each server's generated sequences (``--mcp-contract-sequences``)."""
    listings: dict[str, ListingSeen] = field(default_factory=dict)
    """What the listing item of a server said (only a listing that broke the contract has one)."""
    folder: str = ""
    """The suite's server's snapshot folder, as its listing item found it ("": the item did not run)."""
    listed: tuple[str, ...] = ()
    """The file stems of the tools that listing item found listed."""
    ignored: str = ""
    """At ``--snapshot-update``: the snapshot files git ignores, with the rules that ignore them."""
    language: str | None = "python"
    """The configured server's language, for advice in its terms (``Target.language``)."""
    _failed: set[str] = field(default_factory=set)

    def add(self, report: pytest.TestReport) -> None:
        if report.failed:
            self._failed.add(report.nodeid)
        if report.when != "teardown":  # the same properties ride on every phase's report
            return
        passed = report.nodeid not in self._failed
        for name, value in report.user_properties:
            seen = read_record(value) if name == PROPERTY else None
            if isinstance(seen, Restart):  # about a server, not a tool
                self.restarts[seen.server, seen.cause] += 1
            elif isinstance(seen, RestartLimit):
                self.restart_limits[seen.server] = seen.limit
            elif isinstance(seen, SequencesSeen):
                self.sequences.append(seen)
            elif isinstance(seen, ListingSeen):
                self._listed(seen)
            elif isinstance(seen, ToolRecord):
                self._add(seen, passed=passed)

    def _listed(self, seen: ListingSeen) -> None:
        if seen.violations or seen.allowed:
            self.listings[seen.server] = seen
        if seen.folder:  # the suite's server, named by its live session (on the xdist controller too)
            self.main, self.renamed, self.main_told = seen.server, seen.renamed, True
            self.folder, self.listed = seen.folder, seen.tools

    def _add(self, seen: ToolRecord, *, passed: bool) -> None:
        if not self.main_told and seen.server and isinstance(seen, SchemaSeen | ChecksSeen):
            self.main, self.main_told = seen.server, True
        tools = self.servers.setdefault(seen.server or self.main, {})
        tool = tools.setdefault(seen.tool, ToolReport(seen.tool))
        if isinstance(seen, SchemaSeen):
            tool.schema = seen
        elif isinstance(seen, ChecksSeen):
            tool.checks = seen.violations
            tool.allowed_checks = seen.allowed
        elif isinstance(seen, FuzzSeen):  # generated calls: checked calls too, their violations failing ones
            tool.tally.calls += seen.calls
            tool.tally.failing.update(Found(check) for check in seen.violations)
            tool.tally.expected.update(seen.expected)
            tool.tally.allowed.update(seen.allowed)
            tool.tally.noted.update(seen.noted)  # told in prose, whoever called
            tool.fuzzed = True
            tool.fuzz_calls += seen.calls
            tool.fuzz_results += seen.results
            tool.fuzz_distinct += seen.distinct
            tool.fuzz_found = tool.fuzz_found or bool(seen.violations)
            tool.fuzz_cut_short = tool.fuzz_cut_short or seen.cut_short
        elif isinstance(seen, AgainstSeen):
            tool.against = seen
        elif isinstance(seen, FuzzSkipped):
            tool.fuzz_skipped = True
            tool.fuzz_destructive = seen.destructive
        elif isinstance(seen, CallsSeen):
            tool.tally.add(seen, passed=passed)
        elif isinstance(seen, FailureSeen):
            tool.failures.append(seen)
        elif isinstance(seen, OnceSeen):
            tool.once.setdefault("sent_under", set()).add(seen.sent_under)
            tool.once.setdefault("judged", set()).update(seen.judged)
            tool.once.setdefault("unjudged", set()).update(seen.unjudged)

    @property
    def failed(self) -> bool:
        return bool(self._failed)

    @property
    def observed_failed(self) -> bool:
        """A tool's observed shape broke against the base, and nobody acknowledged it: the run fails."""
        return any(tool.observed_failing for tool in self._all())

    @property
    def empty(self) -> bool:
        return (
            not self.servers
            and not self.removed
            and not self.stale_allowed
            and not self.restarts
            and not self.listings
            and not self.ignored
        )

    def _all(self) -> list[ToolReport]:
        return [tool for tools in self.servers.values() for tool in tools.values()]

    # --- reading -----------------------------------------------------------------------------

    def terminal_lines(self) -> list[str]:
        """A table per server (one row per tool), then the run's facts, one per line."""
        lines: list[str] = []
        several = len(self.servers) > 1
        for server in self._server_order():
            if several:
                lines.append(f"server {server}" + (" (configured)" if server == self.main else "") + ":")
            lines += messages.aligned(
                [_TERMINAL_HEADER, *(_terminal_row(tool) for tool in self._tools_of(server))], left=3
            )
        if lines:
            lines.append("")
        # A fact's further lines are its items, one per line, indented.
        lines += [f"{label}: {text}".replace("\n", "\n  ") for label, text in self._facts()]
        for tool in sorted(self._all(), key=lambda tool: tool.name):
            if tool.observed_failing:
                lines += ["", f"FAILED {tool.observed_failing}"]
        return lines

    def quiet_lines(self) -> list[str]:
        """The run's result in one line, for ``-q`` on a green run: the tools, their snapshots and checks,
        the calls checked; then what must not wait for a failure (snapshot files git ignores)."""
        wanted = ("schema snapshots", "tool checks", "tool calls checked")
        facts = [f"{label} {text}" for label, text in self._facts(against=False) if label in wanted]
        tools = len(self._all())
        lines = [f"mcp contract: {messages.plural(tools, 'tool')}; " + "; ".join(facts)] if tools and facts else []
        stale = sorted(tool.shown for tool in self._all() if tool.observed and tool.observed.state == "out of date")
        if stale:  # a review would miss it: said under -q too
            lines.append(messages.observed_stale_quiet(stale))
        return lines + ([f"snapshots git ignores: {self.ignored}"] if self.ignored else [])

    def _server_order(self) -> list[str]:
        return sorted(self.servers, key=lambda name: (name != self.main, name))

    def _tools_of(self, server: str) -> list[ToolReport]:
        return sorted(self.servers[server].values(), key=lambda tool: tool.name)

    def _facts(self, *, against: bool = True) -> list[tuple[str, str]]:
        tools = self._all()
        facts = self._against_facts(tools) if against else []  # first: what a reviewer must decide on
        if self.renamed:
            facts.append(
                (
                    "server name",
                    f"{self.renamed!r} changes from one process to the next, so snapshots and fuzz records are "
                    f"filed under its target, {self.main!r}; give the server a fixed name to file them under that",
                )
            )
        facts += self._snapshot_facts(tools)
        facts += _observed_facts(tools)
        facts += [("snapshots git ignores", self.ignored)] if self.ignored else []
        checked = [tool for tool in tools if tool.checks is not None]
        if checked:
            failed = sorted(
                f"{tool.shown} ({', '.join(found.label for found in tool.checks or ())})"
                for tool in checked
                if tool.checks
            )
            text = f"{len(checked) - len(failed)} passed, {len(failed)} failed"
            facts.append(("tool checks", text + (f": {'; '.join(failed)}" if failed else "")))
        if self.removed:
            text = "; ".join(f"{name} ({fate})" for name, fate in sorted(self.removed.items()))
            facts.append(("removed tools — BREAKING", text))
        for server, listing in sorted(self.listings.items()):
            if listing.violations:
                labels = ", ".join(sorted({found.label for found in listing.violations}))
                facts.append(("tools/list", f"{server}'s listing breaks the contract ({labels}): see its listing item"))
        carried = Counter[tuple[str, str]]()
        for tool in tools:
            carried.update({(tool.name, check): count for check, count in tool.tally.allowed.items()})
            carried.update((tool.name, check) for check in tool.allowed_checks)
        for listing in self.listings.values():
            carried.update(listing.allowed)
        if carried:
            text = "; ".join(
                f"{name}:{check} x{count} ({allow_reason(self.allow, name, check) or ''})"
                for (name, check), count in sorted(carried.items())
            )
            facts.append(("allowed violations", text))
        if self.stale_allowed:
            text = ", ".join(f"{name}:{check}" for name, check in self.stale_allowed)
            facts.append(("stale mcp_contract_allow lines (nothing needed them; remove them)", text))
        facts += self._not_called_facts()
        prose = sorted(
            f"{tool.shown} ({messages.plural(tool.tally.noted['content-prose'], 'call')})"
            for tool in tools
            if tool.tally.noted
        )
        if prose:
            facts.append(
                (
                    "text in prose only, no JSON for the model",
                    f"{', '.join(prose)}; the spec recommends a text block with the JSON of structured_content "
                    "(ini mcp_contract_require_json_text = true makes this fail)",
                )
            )
        some = sorted(
            f"{tool.shown} (breaks {', '.join(broken)})"
            for tool in tools
            # A version a call that may write was not judged under (``once``) is not known to keep it.
            if (broken := _broken_under(tool)) and set(self.versions) - set(broken) - tool.once.get("unjudged", set())
        )
        if some:
            facts.append(("kept under some protocol versions only", "; ".join(some)))
        facts += self._once_facts(tools)
        facts += self._fuzz_facts(tools, self.language)
        facts += [("sequences", messages.sequences_fact(seen)) for seen in self.sequences]
        calls = sum(tool.tally.calls for tool in tools)
        if calls:
            expected = sum(sum(tool.tally.expected.values()) for tool in tools)
            allowed = sum(sum(tool.tally.allowed.values()) for tool in tools)
            found = sum(sum(tool.tally.failing.values()) for tool in tools) + expected + allowed
            text = f"{calls}, violations: {found}"
            excused = [f"{count} {how}" for count, how in ((expected, "expected"), (allowed, "allowed")) if count]
            facts.append(("tool calls checked", text + (f" ({', '.join(excused)})" if excused else "")))
        if self.restarts:
            facts.append(("server restarts", self._restart_text()))
        return facts

    def _not_called_facts(self) -> list[tuple[str, str]]:
        """The tools no call of the run reached, as far as it saw: "not seen" is not "not called"."""
        if not self.not_called:
            return []
        text = ", ".join(self.not_called)
        if self.blind:
            return [("tools with no call seen", f"{text} ({self.blind})")]
        return [("tools not called", f"{text} (give them example calls: see mcp_contract_cases)")]

    def _against_facts(self, tools: list[ToolReport]) -> list[tuple[str, str]]:
        """Every change against the base revision, breaking first; then the breaks acknowledged, with why."""
        compared = sorted((tool for tool in tools if tool.against), key=lambda tool: tool.name)
        if not compared:
            return []
        changes = _against_changes(compared, self.allow)
        counts = Counter(kind for kind, _line in changes)
        unknown = [tool for tool in compared if tool.compared not in ("schema", "observed")]
        text = ", ".join(f"{counts[kind]} {kind}" for kind in KINDS if counts[kind]) or (
            messages.NONE_IN_WHAT_WAS_COMPARED if unknown else "none"
        )
        base = compared[0].against.base if compared[0].against is not None else ""
        facts = [(f"changes against {base}", "\n".join([text, *(line for _kind, line in changes)]))]
        if any(tool.compared != "schema" for tool in compared):  # a tool whose schema names no key
            facts.append((f"compared with {base}", _compared_text(compared)))
        acknowledged = [
            f"{tool.shown} ({allow_reason(self.allow, tool.name, 'breaking-change') or ''})"
            for tool in compared
            if tool.observed_allowed or (tool.against is not None and "breaking-change" in tool.against.allowed)
        ]
        if acknowledged:
            facts.append(("breaking changes acknowledged in mcp_contract_allow", "; ".join(acknowledged)))
        return facts

    @staticmethod
    def _snapshot_facts(tools: list[ToolReport]) -> list[tuple[str, str]]:
        facts: list[tuple[str, str]] = []
        states = Counter(tool.schema.state for tool in tools if tool.schema)
        if states:
            text = ", ".join(f"{count} {state}" for state, count in sorted(states.items()))
            breaking = sum(_change_counts(tool)["breaking"] for tool in tools)
            if breaking:
                text += f" ({messages.plural(breaking, 'breaking change')})"
            facts.append(("schema snapshots", text))
        # Said when such a file is written or asked for, not on every run that matches it.
        unschemed = sorted(
            tool.shown
            for tool in tools
            if tool.schema and tool.schema.no_schema and tool.schema.state in ("created", "updated", "missing")
        )
        if unschemed:
            facts.append(("no output_schema", messages.no_output_schema(unschemed)))
        return facts

    def _once_facts(self, tools: list[ToolReport]) -> list[tuple[str, str]]:
        """Cases of tools that may write, sent under one version only (a second call could find the state
        the first one left): which versions' verdicts were read from that one answer, which not judged."""
        once = sorted((tool for tool in tools if tool.once), key=lambda tool: tool.name)
        if not once:
            return []
        order = list(self.versions)

        def shown(versions: set[str]) -> str:
            return ", ".join(sorted(versions, key=lambda v: order.index(v) if v in order else len(order)))

        told: dict[str, list[str]] = {}  # the same story once, for every tool it is about
        for tool in once:
            parts = []
            if tool.once.get("judged"):
                parts.append(f"{shown(tool.once['judged'])} read from the {shown(tool.once['sent_under'])} answer")
            if tool.once.get("unjudged"):
                parts.append(f"not judged under {shown(tool.once['unjudged'])}: the answer tells nothing of it")
            told.setdefault("; ".join(parts), []).append(tool.shown)
        groups = "; ".join(f"{', '.join(names)} ({story})" for story, names in told.items())
        return [
            (
                "called once, as they may write",
                f"{groups}; a tool that only reads (readOnlyHint) or may be called again (idempotentHint) is "
                "called under each version: say so in its annotations",
            )
        ]

    def _restart_text(self) -> str:
        """How often each server was had back, and why it went away each time (each xdist worker has its own)."""
        by_server: dict[str, list[str]] = {}
        for (server, cause), count in sorted(self.restarts.items()):
            by_server.setdefault(server, []).append(cause + (f" x{count}" if count > 1 else ""))
        parts = []
        for server, causes in by_server.items():
            limit = self.restart_limits.get(server)
            reached = f"; the limit of {limit} was reached: later tests that needed it failed at once" if limit else ""
            parts.append(f"{server}: {', '.join(causes)}{reached}")
        return f"{self.restarts.total()} ({'; '.join(parts)})"

    @staticmethod
    def _fuzz_facts(tools: list[ToolReport], language: str | None) -> list[tuple[str, str]]:
        """How far the generated calls reached: a fuzzed tool that only ever answered with tool
        errors had none of its results checked, which a passing item does not show."""
        facts = ContractReport._fuzz_skipped_facts(tools, language)
        fuzzed = sorted((tool for tool in tools if tool.fuzzed), key=lambda tool: tool.name)
        if not fuzzed:
            return facts
        calls = sum(tool.fuzz_calls for tool in fuzzed)
        results = sum(tool.fuzz_results for tool in fuzzed)
        distinct = sum(tool.fuzz_distinct for tool in fuzzed)
        facts.insert(0, ("generated calls", f"{calls} ({distinct} distinct), answered with a result: {results}"))
        # A tool with a finding has its failure to show instead.
        stuck = [
            f"{tool.shown} ({tool.fuzz_calls} calls)" for tool in fuzzed if not (tool.fuzz_results or tool.fuzz_found)
        ]
        if stuck:
            facts.append(
                (
                    "fuzzed tools that never got past their errors",
                    f"{', '.join(stuck)}; give their input schema examples ({messages.EXAMPLES_HOW[language]}) or add "
                    "cases to the mcp_contract_cases file: generated calls draw on both",
                )
            )
        short = [f"{tool.shown} ({tool.fuzz_calls} calls)" for tool in fuzzed if tool.fuzz_cut_short]
        if short:
            facts.append(
                (
                    "fuzzing cut short by mcp_contract_fuzz_deadline",
                    f"{', '.join(short)}; slow calls? Bound the arguments that make a tool slow "
                    "(maximum, maxItems, maxLength), or raise the limit",
                )
            )
        return facts

    @staticmethod
    def _fuzz_skipped_facts(tools: list[ToolReport], language: str | None) -> list[tuple[str, str]]:
        """The tools fuzzing left out as they may write, each with the ini line that opts it in."""
        skipped = sorted((tool for tool in tools if tool.fuzz_skipped), key=lambda tool: tool.name)
        if not skipped:
            return []
        lines = [
            f"{tool.shown}{' (says destructiveHint: true)' if tool.fuzz_destructive else ''}: "
            + messages.fuzz_opt_in(tool.shown)
            for tool in skipped
        ]
        return [
            (messages.FUZZ_SKIPPED, "\n".join([messages.fuzz_skipped(len(skipped)), *lines])),
            ("a tool of these that only reads", messages.READ_ONLY_HINTS[language]),
        ]

    def markdown(self, target: str) -> str:
        # Tools the generated suite snapshotted, i.e. that the server listed (none if it did not run).
        listed = sum(1 for tool in self.servers.get(self.main, {}).values() if tool.schema is not None)
        about = f" (`{self.main}`): {messages.plural(listed, 'tool')}" if listed else ""
        out = ["# MCP contract report", "", f"Configured server `{target}`{about}.", ""]
        compared = sorted((tool for tool in self._all() if tool.against), key=lambda tool: tool.name)
        out += _against_section(compared, self.allow)
        out += [  # keeps JSON, BREAKING; a fact's further lines are its items
            f"- {label[:1].upper()}{label[1:]}: {text}".replace("\n", "\n  - ")
            for label, text in self._facts(against=False)
        ]
        several = len(self.servers) > 1
        for server in self._server_order():
            tools = self._tools_of(server)
            if several:
                out += ["", f"## Server `{server}`" + (" (configured)" if server == self.main else "")]
            out += ["", "| tool | schema snapshot | tool checks | calls | violations in calls |", _RULE]
            for tool in tools:
                out.append(
                    f"| `{tool.shown}` | {_schema_cell(tool)} | {_checks_cell(tool)} | {tool.tally.calls} "
                    f"| {_violations_cell(tool)} |"
                )
            for tool in tools:
                out += _section(tool, "###" if several else "##")
        if self.removed:
            out += ["", "## Removed tools — **BREAKING**", ""]
            out += [f"- `{name}`: {fate}" for name, fate in sorted(self.removed.items())]
        return "\n".join(out).rstrip() + "\n"


_RULE: Final = "|---|---|---|---|---|"
_TERMINAL_HEADER: Final = ("tool", "schema", "checks", "calls", "violations", "expected", "allowed")


def _against_changes(tools: list[ToolReport], allow: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    """(kind, line) for each change against the base, breaking first; an acknowledged break says why."""
    changes = []
    for tool in tools:
        against = tool.against
        if against is None:
            continue
        acknowledged = "breaking-change" in against.allowed or tool.observed_allowed
        why = allow_reason(allow, tool.name, "breaking-change") if acknowledged else None
        for change in (*against.changes, *tool.observed_against):
            kind = change.kind
            tail = "BREAKING" if kind == "breaking" else kind
            if kind == "breaking" and why is not None:
                tail += f", acknowledged: {why}"
            changes.append((kind, f"{tool.shown} {change.field} {change.path or '/'}: {change.what} — {tail}"))
    return sorted(changes, key=lambda change: KINDS.index(change[0]))


_NOTHING_SEEN: Final = ("no answer seen", "no JSON in its answers")
_STATES: Final = ("recorded", "updated", "matched", "out of date", "not recorded", "not written", *_NOTHING_SEEN)


def _state_order(item: tuple[str, int]) -> int:
    return _STATES.index(item[0]) if item[0] in _STATES else len(_STATES)


def _observed_facts(tools: list[ToolReport]) -> list[tuple[str, str]]:
    """What became of the observed shapes of the tools whose output schema names no key."""
    observed = sorted((tool for tool in tools if tool.observed is not None), key=lambda tool: tool.name)
    if all(tool.observed is None or tool.observed.state in _NOTHING_SEEN for tool in observed):
        return []  # nothing recorded and nothing to record: a text-only tool says so in no fact
    states = Counter(tool.observed.state for tool in observed if tool.observed is not None)
    items = []
    for tool in observed:
        settled = tool.observed
        if settled is None:
            continue
        if settled.state == "out of date":
            items.append(messages.observed_out_of_date(tool.shown))
            items += [f"  {change.line(tool.shown)}" for change in settled.changes]
        elif settled.state == "not written":
            items.append(f"{tool.shown}: not written ({settled.why})")
    unrecorded = [
        tool.shown for tool in observed if tool.observed is not None and tool.observed.state == "not recorded"
    ]
    if unrecorded:
        items.append(messages.observed_not_recorded(unrecorded))
    if any(tool.observed and tool.observed.shape for tool in observed):
        items.append(messages.SUGGEST_HOW)
    text = ", ".join(f"{count} {state}" for state, count in sorted(states.items(), key=_state_order))
    return [("observed shapes (no output schema names their keys)", "\n".join([text, *items]))]


def _compared_text(tools: list[ToolReport]) -> str:
    """How many tools were compared by their output schema, by the shape their answers had, and not at
    all (each with why): "not compared" is never folded into "no change"."""
    by = Counter(tool.compared for tool in tools)
    text = messages.compared_with(by["schema"], by["observed"], len(tools) - by["schema"] - by["observed"])
    unknown = [f"{tool.shown} ({tool.compared})" for tool in tools if tool.compared not in ("schema", "observed")]
    return "\n".join([text, *unknown])


def _against_section(tools: list[ToolReport], allow: dict[tuple[str, str], str]) -> list[str]:
    """The report's first section: every change against the base revision, by kind, breaking first."""
    if not tools:
        return []
    changes = _against_changes(tools, allow)
    base = tools[0].against.base if tools[0].against is not None else ""
    title = "Breaking changes" if any(kind == "breaking" for kind, _line in changes) else "Changes"
    out = [f"## {title} against `{base}`", ""]
    for kind in KINDS:
        listed = [line for each, line in changes if each == kind]
        if listed:
            out += [f"**{kind.capitalize()}**", "", *(f"- {line}" for line in listed), ""]
    if not changes:
        unknown = any(tool.compared not in ("schema", "observed") for tool in tools)
        out += ["No change in what was compared." if unknown else "No tool changed.", ""]
    if any(tool.compared != "schema" for tool in tools):
        out += [f"Compared: {_compared_text(tools)}".replace("\n", "\n- "), ""]
    return out


def _broken_under(tool: ToolReport) -> list[str]:
    """The protocol versions a tool breaks its contract under, when it keeps it under others (else none)."""
    held = [found.versions for found in (*(tool.checks or ()), *tool.tally.failing)]
    if not held or any(not versions for versions in held):  # broken under every version, or not at all
        return []
    return sorted({version for versions in held for version in versions})


def _terminal_row(tool: ToolReport) -> tuple[str, ...]:
    schema = "—"
    if tool.schema is not None:
        breaking = _change_counts(tool)["breaking"]
        schema = tool.schema.state + (f" ({breaking} breaking)" if breaking else "")
    checks = "—" if tool.checks is None else "failed" if tool.checks else "passed"
    allowed = sum(tool.tally.allowed.values()) + len(tool.allowed_checks)
    counts = (tool.tally.calls, sum(tool.tally.failing.values()), sum(tool.tally.expected.values()), allowed)
    return (tool.shown, schema, checks, *(str(count) for count in counts))


def _change_counts(tool: ToolReport) -> Counter[str]:
    return Counter(change.kind for change in (tool.schema.changes if tool.schema is not None else ()))


def _schema_cell(tool: ToolReport) -> str:
    if tool.schema is None:
        return "—"
    counts = _change_counts(tool)
    detail = ", ".join(f"{counts[kind]} {kind}" for kind in KINDS if counts[kind])
    state = tool.schema.state
    mark = "**BREAKING** " if counts["breaking"] and state in ("changed", "updated") else ""
    return f"{mark}{state}" + (f" ({detail})" if detail else "")


def _checks_cell(tool: ToolReport) -> str:
    if tool.checks is None:
        return "—"
    carried = " (allowed: " + ", ".join(f"`{check}`" for check in tool.allowed_checks) + ")"
    cell = "passed" if not tool.checks else "failed: " + ", ".join(f"`{found.label}`" for found in tool.checks)
    return cell + (carried if tool.allowed_checks else "")


def _violations_cell(tool: ToolReport) -> str:
    cells = [f"`{found.label}` x{count}" for found, count in _by_label(tool.tally.failing)]
    cells += [f"`{check}` x{count} (expected)" for check, count in sorted(tool.tally.expected.items())]
    cells += [f"`{check}` x{count} (allowed)" for check, count in sorted(tool.tally.allowed.items())]
    return ", ".join(cells) or "—"


def _by_label(found: Counter[Found]) -> list[tuple[Found, int]]:
    return sorted(found.items(), key=lambda pair: pair[0].label)


def _section(tool: ToolReport, heading: str) -> list[str]:
    """A paragraph per tool with something to review; expected violations stay in the table."""
    schema = tool.schema
    changes = schema.changes if schema is not None else ()
    if (
        not changes
        and not tool.checks
        and not tool.tally.failing
        and not tool.failures
        and (schema is None or schema.state != "missing")
    ):
        return []
    blocks = [f"{heading} `{tool.shown}`"]  # paragraphs, joined by blank lines below
    if schema is not None:
        blocks.append(f"Schema snapshot `{schema.file}`: {schema.state}.")
    for kind in KINDS:
        listed = [change for change in changes if change.kind == kind]
        if listed:
            blocks.append(f"**{kind.capitalize()}**")
            blocks.append("\n".join(f"- `{c.field} {c.path or '/'}`: {c.what}" for c in listed))
    if schema is not None and schema.diff:
        blocks.append("<details><summary>Snapshot diff</summary>")
        blocks.append("```diff\n" + schema.diff.rstrip("\n") + "\n```")
        blocks.append("</details>")
    if tool.checks:
        blocks.append("Tool checks failed: " + ", ".join(f"`{found.label}`" for found in tool.checks) + ".")
    if tool.failures:
        blocks.append("Failing tests:")
        blocks.append("\n".join(_failure_lines(tool.failures)))
    elif tool.tally.failing:  # failing calls whose test did not fail on them (it caught a test error)
        found = ", ".join(f"`{seen.label}` x{count}" for seen, count in _by_label(tool.tally.failing))
        blocks.append(f"Violations in calls of failing tests: {found}.")
    return ["", "\n\n".join(blocks)]


_FAILURES_SHOWN: Final = 20


def _failure_lines(failures: list[FailureSeen]) -> list[str]:
    """A line per failing call: the test, the arguments, then each violation with its place and message."""
    lines = []
    for failure in failures[:_FAILURES_SHOWN]:
        lines.append(f"- `{failure.test}` called it with `{failure.arguments}`:")
        for violation in failure.violations:
            at = f" at `{violation.path or '/'}`" if violation.path is not None else ""
            message = violation.message.replace("|", "\\|")
            lines.append(f"  - `{violation.found.label}`{at}: {message}")
    if len(failures) > _FAILURES_SHOWN:
        lines.append(f"- and {len(failures) - _FAILURES_SHOWN} more failing calls")
    return lines


def header(config: pytest.Config) -> list[str] | None:
    """The lines under pytest's own header: the server, the versions offered, fuzzing, a suite left out."""
    from pytest_mcp_contract._suite.items import covers_project

    settings = config.stash.get(SETTINGS, None)
    if settings is None:
        return None
    if settings.target is None:
        from pytest_mcp_contract._suite.known import server_fixtures

        # the conftest.py files read so far, when their override gives the suite its server
        places = [shown_path(path, config) for path in server_fixtures(config)] if settings.suite else []
        return [messages.header_fixture_server(places)] if places else None
    lines = [
        messages.header_server(settings.target, settings.target_source, settings.scope, settings.timeout),
        messages.header_versions(settings.protocol_versions),
    ]
    if settings.against is not None:
        lines.append(messages.header_against(settings.against.ref, settings.against.commit))
    if settings.fuzz:
        lines.append(messages.header_fuzz_seed(settings.fuzz, settings.fuzz_seed, chosen=settings.fuzz_seed_chosen))
        lines.append(messages.fuzz_header(writes=settings.fuzz_writes))
    if settings.sequences:
        lines.append(
            messages.header_sequences(
                settings.sequences,
                settings.sequence_length,
                settings.fuzz_seed,
                sandbox=settings.sandbox,
                seed_shown=bool(settings.fuzz),
            )
        )
    if settings.suite and not covers_project(config):
        lines.append(messages.SUITE_NOT_COLLECTED)
    return lines


class ReportPlugin:
    """The hooks that gather records and write the summary and the report (controller side)."""

    def __init__(self, settings: Settings, unused: UnusedSnapshots) -> None:
        self.settings = settings
        self.unused = unused
        """Told which tools the listing item found listed: syrupy decides here which files are unused (also
        on the xdist controller, which runs no test)."""
        # The language is the server's, once it is known (know_server); a run with none reads Python's advice.
        self.report = ContractReport(allow=dict(settings.allow), versions=settings.protocol_versions)
        self.removed: list[Path] = []
        self.partial = False  # some items deselected: an allow line not needed may just not have run
        self.ran: set[str] = set()
        self.collect_errors = False
        self.session: pytest.Session | None = None
        self.undeleted = False
        """A snapshot file ``--snapshot-update`` had to delete could not be."""

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session
        self.know_server(session.config)

    def know_server(self, config: pytest.Config) -> None:
        """The configured server's language, and its name as far as it is known before a session (the listing
        item's record, if it runs, names it as its live session did); nothing until it is loaded."""
        if self.settings.server is not None:  # the module imports the SDK: not at every pytest start
            from pytest_mcp_contract._servers.kinds import as_target, own_name, server_name

            names = config.stash[SERVER_NAMES]
            target = as_target(self.settings.server)
            self.report.language = target.language
            self.report.main = server_name(self.settings.server, names)
            self.report.main_told = not target.external
            if self.report.main != own_name(self.settings.server, names):
                self.report.renamed = own_name(self.settings.server, names)

    def _note_ignored(self, config: pytest.Config) -> None:
        """At ``--snapshot-update``, the snapshot files git would keep out of the repository (``*.json`` in
        ``.gitignore``), each with the rule that ignores it: a snapshot nobody commits guards nothing."""
        from pytest_mcp_contract._run.settings import writes_snapshots

        if not writes_snapshots(config):
            return
        from pytest_mcp_contract._run.gitbase import ignored, unignoring

        files = {config.rootpath / tool.schema.file for tool in self.report._all() if tool.schema and tool.schema.file}
        rules = ignored(sorted(path for path in files if path.exists()), config.rootpath)
        if rules:
            folder = shown_path(self.settings.snapshot_dir, config)
            shown = {rule: [shown_path(path, config) for path in paths] for rule, paths in rules.items()}
            negation = unignoring(min(rules), self.settings.snapshot_dir, config.rootpath)
            self.report.ignored = messages.ignored_snapshots(shown, folder, negation)

    def _note_removed(self, config: pytest.Config) -> None:
        # Read at the end: syrupy has deleted the files by then if --snapshot-update was given (the
        # run's UnusedSnapshots keeps what it found before), and the listing item has named the folder.
        if not self.report.folder:
            return
        self.removed = self.unused.removed_tools(Path(self.report.folder))
        undeleted = self.unused.undeleted
        for path in self.removed:
            shown = shown_path(path, config)
            if path in undeleted:
                fate = f"could not be deleted: {undeleted[path]}; delete it by hand"
                self.undeleted = True
            elif not path.exists():
                fate = "was deleted"
            elif config.getoption("update_snapshots", False):
                fate = "was kept, as this run left tests out (a full pytest --snapshot-update deletes it)"
            else:
                fate = "is unused (pytest --snapshot-update deletes it)"
            self.report.removed[unquote(path.stem)] = f"no longer listed; its snapshot {shown} {fate}"

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """A generated item's skip is told at its node, the ini file (``SKIPPED [1] pyproject.toml: ...``),
        not at the frame of pytest's that ran it: the plugin's own frames are hidden."""
        report = yield
        from pytest_mcp_contract._suite.items import ContractItem

        if report.skipped and isinstance(item, ContractItem) and isinstance(report.longrepr, tuple):
            # No line: pytest's summary then prints the file alone, as it does for a module's skip mark.
            where = str(item.parent.path if item.parent else item.path)
            report.longrepr = (where, None, report.longrepr[2])  # type: ignore[assignment]
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        told = self.report.folder, self.report.listed
        self.report.add(report)
        if report.when == "teardown":
            self.ran.add(report.nodeid)
            if self.report.folder and (self.report.folder, self.report.listed) != told:
                self.unused.remember_listing(Path(self.report.folder), self.report.listed)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self.collect_errors = self.collect_errors or report.failed

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.partial = self.partial or bool(items)

    def _whole_run(self, config: pytest.Config) -> bool:
        """Whether the run covered the whole project: no selection, early stop or collection error."""
        from pytest_mcp_contract._suite.items import covers_project

        # Any selection or early stop, seen here or (under xdist) only in the options.
        narrowed = any(
            config.getoption(name, None)
            for name in ("keyword", "markexpr", "deselect", "lf", "stepwise", "maxfail", "collectonly")
        )
        collected = self.session.testscollected if self.session is not None else 0
        return not (
            narrowed or self.partial or self.collect_errors or len(self.ran) < collected or not covers_project(config)
        )

    def _note_shapes(self, config: pytest.Config, *, whole: bool) -> None:
        """The shape each schema-less tool's answers had this run: recorded in its snapshot (on an update),
        compared with the recorded one, and, with a base revision, with the base's."""
        shapes = config.stash.get(SHAPES, None)
        if shapes is None:
            return
        from pytest_mcp_contract._suite.shapes import settle

        main = self.report.main
        option = config.option
        updating = bool(getattr(option, "update_snapshots", False))
        new_only = bool(getattr(option, "update_new_snapshots_only", False))
        for tool in self.report.servers.get(main, {}).values():
            observed = shapes.schema(main, tool.name)
            entry = shapes.tools.get((main, tool.name))
            tool.answers = entry.answers if entry is not None else 0
            if tool.schema is not None and tool.schema.file and tool.schema.open_file:
                path = config.rootpath / tool.schema.file
                settled = settle(path, observed, updating=updating, new_only=new_only, whole=whole)
                if settled is not None and settled.state == "no answer seen" and tool.answers:
                    settled = replace(settled, state="no JSON in its answers")  # prose: no shape to see
                tool.observed = settled
            self._compare_shape(tool, observed, config.rootpath)

    def _compare_shape(self, tool: ToolReport, observed: dict[str, Any] | None, root: Path) -> None:
        """A tool's observed shape against the base's, judged as a published schema's change is."""
        against = tool.against
        if against is None:
            return
        if not against.open or any(change.field == "tool" for change in against.changes):  # or added, removed
            tool.compared = "schema"
            return
        base = self.settings.against
        label = against.base
        if observed is None:
            tool.compared = "no answers with JSON in this run" if tool.answers else "no answers seen in this run"
            return
        if against.observed is None:
            tool.compared = f"no observed shape recorded at {label}"
            return
        from pytest_mcp_contract._contract.checks import breaking_changes
        from pytest_mcp_contract._contract.expect import Judge
        from pytest_mcp_contract._suite.shapes import changes

        tool.compared = "observed"
        found = changes(against.observed, observed)
        tool.observed_against = tuple(ChangeSeen(each.kind, each.field, each.path, each.what) for each in found)
        breaking = [(change.field, change.path, change.what) for change in found if change.kind == "breaking"]
        violations = breaking_changes(tool.name, breaking, base.ref if base is not None else label)
        verdict = Judge([], self.settings.allow, self.settings.noted).judge(tool.name, None, violations)
        tool.observed_allowed = bool(verdict.allowed)
        if verdict.failing:
            others = [change.line(tool.name) for change in found if change.kind != "breaking"]
            file = root / tool.schema.file if tool.schema is not None else root
            shown = f"{base.ref}:{base.git_path(file)}" if base is not None else str(file)
            tool.observed_failing = messages.observed_breaking(tool.name, label, verdict.failing, others, shown)

    def _note_whole_run(self, config: pytest.Config) -> None:
        """What only a run of the whole project can tell: allow lines nothing needed, tools never called."""
        if not self._whole_run(config):
            return
        carried = {
            (tool.name, check)
            for tool in self.report._all()
            for check in [*tool.tally.allowed, *tool.allowed_checks, *(tool.against.allowed if tool.against else ())]
        } | {(tool.name, "breaking-change") for tool in self.report._all() if tool.observed_allowed}
        carried |= {entry for listing in self.report.listings.values() for entry in listing.allowed}
        # Each carried finding used the line that carried it: its tool's own, else the one for every tool.
        seen = {allow_entry(self.settings.allow, name, check) for name, check in carried}
        # A break is acknowledged for the runs that compare with a base: the others cannot need the line.
        unjudged = set() if self.settings.against is not None else {"breaking-change"}
        self.report.stale_allowed = sorted(
            entry for entry in set(self.settings.allow) - seen if entry[1] not in unjudged
        )
        listed = self.report.servers.get(self.report.main, {}).values()
        server = self.settings.server
        why = config.stash[POOL].observed.blind(server) if server is not None else None
        if why is not None:
            from pytest_mcp_contract._servers.kinds import as_target

            # Naming it in process helps a Python server started as a command, not one in process already.
            python = self.report.language == "python" and as_target(server).external
            self.report.blind = messages.no_call_seen(why, python=python)
        self.report.not_called = sorted(
            tool.name for tool in listed if tool.schema is not None and not tool.tally.calls
        )

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
        if hasattr(config, "workerinput"):
            return
        self._summary(terminalreporter, config)
        suggested = self._suggestions() if self.settings.suggest_schemas else []
        if suggested:  # asked for: printed under -q too
            terminalreporter.write_sep("-", "mcp contract: output schemas to publish")
            for line in suggested:
                terminalreporter.write_line(writable(line))

    def _summary(self, terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
        if config.get_verbosity() < 0 and not (self.report.failed or self.undeleted or self.report.observed_failed):
            # One line under -q, as syrupy and pytest-cov print theirs; nothing under -qq.
            for line in self.report.quiet_lines() if config.get_verbosity() == -1 else []:
                terminalreporter.write_line(writable(line))
            return
        lines = self.report.terminal_lines()
        if self.settings.report is not None and not self.report.empty:
            lines.append(f"report written to {self.settings.report}")
        if lines:
            terminalreporter.write_sep("-", "mcp contract")
            for line in lines:
                terminalreporter.write_line(writable(line))

    def _suggestions(self) -> list[str]:
        """For each tool whose output schema names no key, the schema its observed shape suggests."""
        from pytest_mcp_contract._suite.suggest import json_schema, python_types

        lines: list[str] = []
        unseen = []
        for tool in self.report._tools_of(self.report.main) if self.report.main in self.report.servers else []:
            if tool.observed is None:
                continue
            shape = tool.observed.shape
            if shape is None:
                unseen.append(tool.shown)
                continue
            python = python_types(tool.name, shape) if self.report.language == "python" else None
            function = tool.name if tool.name.isidentifier() and not keyword.iskeyword(tool.name) else "tool"
            told = messages.suggested_schema(tool.shown, json_schema(shape), python, function=function)
            lines += [*([""] if lines else []), *told]
        if unseen:
            lines += [*([""] if lines else []), messages.no_shape_seen(unseen)]
        return lines

    @pytest.hookimpl(trylast=True)  # after syrupy has deleted unused files; before the terminal summary
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return
        self._note_removed(session.config)
        self._note_ignored(session.config)
        self._note_shapes(session.config, whole=self._whole_run(session.config))
        failing = self.undeleted or self.report.observed_failed  # a deletion that did not happen, an observed break
        if failing and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        self._note_whole_run(session.config)
        path = self.settings.report
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.markdown(), encoding="utf-8")

    def markdown(self) -> str:
        """The Markdown report of this run (the file, and the job summary under GitHub Actions)."""
        text = self.report.markdown(self.settings.target or "(set by a fixture)")
        coverage = self.session.config.stash.get(COVERAGE, None) if self.session is not None else None
        if coverage is not None:
            seen_all = watched(self.session.config, self.report.main) if self.session is not None else frozenset()
            text += "\n" + "\n".join(markdown_lines(coverage, self.settings, self.report.main, seen_all)) + "\n"
        # The records hold servers' words as they came (JSON reads a lone surrogate back): escape them.
        return writable(text)
