"""``wire-invalid`` and ``tool-name-invalid``: every message read strictly by its protocol version's own model.

The server is written by hand (``contract_servers/strict_wire.py``), as in a language without an MCP
SDK, over stdio and over HTTP; each run plants one defect. A correct one that looks odd (unknown keys,
vendor ``_meta``, two pages of tools) passes, fuzzing on.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import SERVERS, Project, http_server

from pytest_mcp_contract._contract.wire import ABSENT, name_faults, read_strictly

STRICT = SERVERS / "strict_wire.py"
FOUND = re.compile(r"^(?:E\s+)?\[(wire-invalid|tool-name-invalid)(?: @ [^\]]+)?\] at (\S+)$")

PLANTED = {
    "is-error-string": {("wire-invalid", "/isError")},
    "read-only-string": {("wire-invalid", "/tools/1/annotations/readOnlyHint")},
    "text-number": {("wire-invalid", "/content/0/text")},
    "block-untyped": {("wire-invalid", "/content/1/type")},
    "no-input-schema": {("wire-invalid", "/tools/1/inputSchema")},
    "bad-name": {("tool-name-invalid", "/tools/1/name")},
    "long-name": {("tool-name-invalid", "/tools/1/name")},
    "twice": {("tool-name-invalid", "/tools/1/name")},
    "cursor-loops": {("wire-invalid", "/nextCursor")},
    "handshake-string": {("wire-invalid", "/capabilities/tools/listChanged")},
}
"""Each defect the server can plant, and what it is named (check, pointer), whichever way it is reached."""

TEST_CALLS = "def test_echo(mcp_contract):\n    mcp_contract.call_tool('echo')\n"


@contextmanager
def reached(transport: str, *defects: str, calls: Path | None = None) -> Iterator[str]:
    """The hand-written server, planted with ``defects``, as a target over ``transport``."""
    env = {"STRICT_WIRE_CALLS": str(calls)} if calls is not None else {}
    if transport == "stdio":
        yield f"stdio:{sys.executable} {STRICT} {' '.join(defects)}"
        return
    sse = ("--sse",) if transport == "http-sse" else ()
    with http_server(str(STRICT), *defects, *sse, env=env) as url:
        yield url


def findings(result: pytest.RunResult) -> set[tuple[str, str]]:
    return {(match[1], match[2]) for line in result.stdout.lines if (match := FOUND.match(line))}


def run(project: Project, target: str, *args: str, **ini: str) -> pytest.RunResult:
    """The suite fuzzing, after a first run whose listing item wrote the tools' snapshots (each tool's own
    items, fuzz[TOOL] among them, are collected from those)."""
    project.configure(target, suite=True, **ini)
    project.tests(TEST_CALLS)
    project.run("--snapshot-update")
    assert sorted(path.stem for path in project.pytester.path.glob("mcp_contract_snapshots/*/wipe.json")) == ["wipe"]
    return project.run("--mcp-contract-fuzz", "5", *args)


@pytest.mark.parametrize("transport", ["stdio", "http", "http-sse"])
@pytest.mark.parametrize("defect", list(PLANTED))
def test_each_planted_defect_is_named_with_its_pointer(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, transport: str, defect: str
) -> None:
    calls = tmp_path / "calls.txt"
    monkeypatch.setenv("STRICT_WIRE_CALLS", str(calls))
    with reached(transport, defect, calls=calls) as target:
        result = run(project, target)
    assert findings(result) == PLANTED[defect]
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    counted = Counter(calls.read_text().split()) if calls.exists() else Counter()
    assert counted["wipe"] == 0  # never fuzzed: it does not say readOnlyHint: true (a string says nothing)


@pytest.mark.parametrize("transport", ["stdio", "http", "http-sse"])
def test_a_correct_hand_written_server_that_looks_odd_passes_with_fuzzing(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, transport: str
) -> None:
    calls = tmp_path / "calls.txt"
    monkeypatch.setenv("STRICT_WIRE_CALLS", str(calls))
    with reached(transport, calls=calls) as target:
        result = run(project, target)
    assert findings(result) == set()
    result.assert_outcomes(passed=10, skipped=1)  # wipe may write: not fuzzed
    counted = Counter(calls.read_text().split())
    assert counted["echo"] > 1
    assert counted["status"] > 0
    assert counted["wipe"] == 0


def test_the_string_read_only_hint_keeps_the_wiping_tool_unfuzzed(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls = tmp_path / "calls.txt"
    monkeypatch.setenv("STRICT_WIRE_CALLS", str(calls))
    with reached("stdio", "read-only-string") as target:
        result = run(project, target)
    result.stdout.fnmatch_lines(
        [
            "tool 'wipe' breaks its contract as listed (1 violation):",
            "[[]wire-invalid[]] at /tools/1/annotations/readOnlyHint",
            '  the stdio server * answered tools/list (page 1) with "true" at /tools/1/annotations/readOnlyHint '
            "('wipe'), where MCP 2025-11-25 wants a boolean: a client that reads it strictly refuses the whole "
            "message, a lenient one guesses. The plugin reads it as absent, as MCP asks of a hint it cannot "
            "trust: the tool is not read-only to it.",
            "Next step:",
            "- wire-invalid: Send each field as the protocol version's schema types it: *",
        ]
    )
    result.stdout.fnmatch_lines(["  wipe (says destructiveHint: true): mcp_contract_fuzz_allow = wipe"])
    assert "wipe" not in calls.read_text().split()


def test_a_call_names_each_malformed_place_and_reads_it_as_absent(project: Project) -> None:
    with reached("stdio", "is-error-string", "text-number") as target:
        project.configure(target)
        project.tests(TEST_CALLS)
        result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ContractViolationError: tool 'echo' called with no arguments broke its "
            "contract (3 violations):",
            "E       [[]wire-invalid[]] at /content/0/text",
            "E         the stdio server * answered tools/call with 42 at /content/0/text, where MCP 2025-11-25 "
            "wants a string: * The plugin leaves content block 0 out, as a client that skips what it cannot "
            "read does.",
            "E       [[]wire-invalid[]] at /isError",
            'E         * answered tools/call with "false" at /isError, where MCP 2025-11-25 wants a boolean: * '
            "The plugin reads it as absent.",
            # With its one text block left out, no text tells the data: so a strict reader sees it.
            "E       [[]text-missing[]] at (root)",
            'E         content is empty, but structured_content holds {"items": 3}: the model sees none of the data',
        ]
    )


def listing_run(project: Project, *defects: str, selected: str = "listing", **ini: str) -> pytest.RunResult:
    """The generated suite's listing item (and what ``selected`` adds) on the stdio server planted with ``defects``."""
    with reached("stdio", *defects) as target:
        project.configure(target, suite=True, **ini)
        project.tests("def test_plain():\n    pass\n")
        return project.run("--snapshot-update", "-k", selected)


def test_the_listing_item_names_names_cursor_and_tools_left_out(project: Project) -> None:
    result = listing_run(project, "bad-name", "long-name", "twice", "no-input-schema", "cursor-loops")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "the tools/list answers of the stdio server * break the contract (5 violations):",
            "[[]wire-invalid[]] at /tools/1/inputSchema",
            "  * answered tools/list (page 2) without /tools/1/inputSchema ('lost'), which MCP 2025-11-25 "
            "requires: * The plugin leaves the tool 'lost' (/tools/1) out, as a client that skips what it "
            "cannot read does.",
            "[[]wire-invalid[]] at /nextCursor",
            '  * answered tools/list (page 2) with the nextCursor "page-2" that page 1 gave: a client that '
            "follows it lists the same pages for ever. The plugin stops there, with the tools listed so far.",
            "[[]tool-name-invalid[]] at /tools/2/name",
            "  the tool name 'get weather!' (page 2 of tools/list) has characters outside A-Z a-z 0-9 _ - . "
            "(' ', '!'): MCP 2025-11-25 (SEP-986) says a name SHOULD be 1 to 128 characters of A-Z a-z 0-9 _ - . "
            "and unique in the server, and a client may refuse or rename a tool whose name is not",
            "[[]tool-name-invalid[]] at /tools/3/name",
            f"  the tool name '{'n' * 59}…' (129 characters) (page 2 of tools/list) is 129 characters long; a name "
            "has at most 128: *",
            "[[]tool-name-invalid[]] at /tools/4/name",
            "  the tool name 'echo' (page 2 of tools/list) is listed twice (first at /tools/0 on page 1): a client "
            "keeps one of the two, and which one a call reaches is the server's",
            "Next step:",
            "- wire-invalid: *",
            "- tool-name-invalid: Rename the tool: 1 to 128 characters of A-Z a-z 0-9 _ - . *",
        ]
    )


def test_the_handshake_answer_is_read_strictly_too(project: Project) -> None:
    result = listing_run(project, "handshake-string", "bad-name")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "the handshake and tools/list answers of the stdio server * break the contract (2 violations):",
            "[[]wire-invalid[]] at /capabilities/tools/listChanged",
            '  the stdio server * answered initialize with "false" at /capabilities/tools/listChanged, where MCP '
            "2025-11-25 wants a boolean: a client that reads it strictly refuses the whole message, a lenient one "
            "guesses. Nothing the plugin decides reads it.",
            "[[]tool-name-invalid[]] at /tools/1/name",
        ]
    )
    # The summary says so too: the listing is about no one tool, so no tool's row tells it.
    result.stdout.fnmatch_lines(
        [
            "tools/list: strict-wire's listing breaks the contract (tool-name-invalid, wire-invalid): see its listing item"
        ]
    )


def test_the_allow_list_carries_a_name_and_an_entry(project: Project) -> None:
    allow = (
        "\n    get weather!:tool-name-invalid  # the client of record keeps it\n    wipe:wire-invalid  # fixed in 2.0"
    )
    result = listing_run(project, "bad-name", "read-only-string", mcp_contract_allow=allow)
    result.assert_outcomes(passed=1, deselected=1)  # the listing, which wrote the tools' snapshots and ran their checks
    result = project.run("-k", "listing or checks")
    result.assert_outcomes(passed=5, deselected=5)  # the listing and four tool checks, now items of their own
    result.stdout.fnmatch_lines(
        [
            "allowed violations: get weather!:tool-name-invalid x1 (the client of record keeps it); "
            "wipe:wire-invalid x1 (fixed in 2.0)"
        ]
    )


def test_the_clients_profile_refuses_a_dot_and_a_long_name(project: Project) -> None:
    pages = [[{"name": "notes.search"}, {"name": "x" * 65}, {"name": "plain_name"}]]
    assert name_faults(pages) == []
    refused = name_faults(pages, clients=True)
    assert [(fault.name[:12], fault.path, fault.why.split(",")[0]) for fault in refused] == [
        ("notes.search", ("tools", 0, "name"), "has a dot"),
        ("x" * 12, ("tools", 1, "name"), "is 65 characters long"),
    ]


def test_a_profile_that_is_none_stops_the_run(project: Project) -> None:
    project.configure(None, mcp_contract_tool_names="strict")
    project.tests("def test_plain():\n    pass\n")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: mcp_contract_tool_names = 'strict' is not a profile; use spec *"])


# --- the strict reading itself, as a pure function ---------------------------------------------------


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_a_string_boolean_is_a_fault_and_absent(version: str) -> None:
    era = {"resultType": "complete"} if version == "2026-07-28" else {}
    reading = read_strictly("tools/call", version, {"content": [], "isError": "false", **era})
    assert [(fault.path, fault.wants, fault.found) for fault in reading.faults] == [
        (("isError",), "a boolean", "false")
    ]
    assert reading.kept == {"content": [], **era}


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_unknown_keys_and_vendor_meta_are_no_fault(version: str) -> None:
    era = {"resultType": "complete"} if version == "2026-07-28" else {}
    raw = {
        "content": [{"type": "text", "text": "a", "_meta": {"x.y/z": 1}, "vendor": [1]}],
        "structuredContent": {"n": 1.0},
        "_meta": {"com.example/trace": "t"},
        "extra": None,
        **era,
    }
    assert read_strictly("tools/call", version, raw).faults == ()


def test_a_block_is_read_by_its_type() -> None:
    # An image block without data is about its data, not about being a text block.
    reading = read_strictly("tools/call", "2025-11-25", {"content": [{"type": "image", "text": "a"}]})
    assert [(fault.path, fault.found) for fault in reading.faults] == [
        (("content", 0, "data"), ABSENT),
        (("content", 0, "mimeType"), ABSENT),
    ]
    assert reading.kept == {"content": []}
    assert reading.dropped == (("content", 0),)


def test_an_answer_without_content_is_left_with_nothing() -> None:
    reading = read_strictly("tools/call", "2025-11-25", {"structuredContent": {"x": 1}})
    assert [fault.path for fault in reading.faults] == [("content",)]
    assert reading.kept is None


def test_entries_left_out_keep_the_others_in_place() -> None:
    raw = {
        "content": [
            {"type": "text", "text": "a"},
            {"text": "b"},
            {"type": "text", "text": 5},
            {"type": "text", "text": "c"},
        ]
    }
    reading = read_strictly("tools/call", "2025-11-25", raw)
    assert [fault.path for fault in reading.faults] == [("content", 1, "type"), ("content", 2, "text")]
    assert reading.kept == {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "c"}]}
    assert raw["content"][2] == {"type": "text", "text": 5}  # the message as it came is left alone


def test_a_version_the_types_do_not_know_reads_nothing() -> None:
    assert read_strictly("tools/call", "2099-01-01", {"isError": "false"}).faults == ()
    assert read_strictly("tools/call", None, {"isError": "false"}).faults == ()


def test_structured_content_and_output_schemas_are_their_own_checks_business() -> None:
    reading = read_strictly("tools/call", "2025-11-25", {"content": [], "structuredContent": [1, 2]})
    assert reading.faults == ()
    listed = {"tools": [{"name": "m", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}]}
    assert read_strictly("tools/list", "2025-11-25", listed).faults == ()


NAMED = """
from mcp.server import MCPServer

mcp = MCPServer("named", log_level="ERROR")


@mcp.tool(name="get weather!")
def weather() -> str:
    return "sunny"


if __name__ == "__main__":
    mcp.run()
"""


@pytest.mark.parametrize("transport", ["in process", "stdio"])
def test_a_name_is_judged_the_same_in_process_and_over_stdio(project: Project, transport: str) -> None:
    # The names are read from the listing whatever carried it: a stream as it came, or the SDK's models.
    project.pytester.makepyfile(named=NAMED)
    target = "named.py:mcp" if transport == "in process" else f"stdio:{sys.executable} named.py"
    project.configure(target, suite=True)
    project.tests("def test_plain():\n    pass\n")
    result = project.run("--snapshot-update", "-k", "listing")
    result.assert_outcomes(failed=1)
    assert findings(result) == {("tool-name-invalid", "/tools/0/name")}
    result.stdout.fnmatch_lines(["  the tool name 'get weather!' has characters outside A-Z a-z 0-9 _ - . *"])


def test_an_entry_that_is_no_object_is_left_out_and_the_others_keep_their_places() -> None:
    raw = {"content": ["x", {"type": "text", "text": "a"}, {"text": "b"}, {"type": "text", "text": "c"}]}
    reading = read_strictly("tools/call", "2025-11-25", raw)
    assert [(fault.path, fault.wants) for fault in reading.faults] == [
        (("content", 0), "an object"),
        (("content", 2, "type"), "present"),
    ]
    assert reading.kept == {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "c"}]}
    assert reading.dropped == (("content", 0), ("content", 2))


def test_the_tap_forgets_a_request_an_error_answered() -> None:
    # A request the server answered with a JSON-RPC error is no longer awaited: nothing of it is kept.
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp.types import ErrorData, JSONRPCError, JSONRPCRequest, JSONRPCResponse

    from pytest_mcp_contract._sdk.tap import WireTap

    async def exchange() -> WireTap:
        tap = WireTap()
        for request in (1, 2):
            tap.sent(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=request, method="tools/call", params={})))
        error = ErrorData(code=-32603, message="boom")
        tap.received(SessionMessage(JSONRPCError(jsonrpc="2.0", id=1, error=error)))
        tap.received(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=2, result={"content": []})))
        assert tap.last_sent() == "2"
        return tap

    tap = anyio.run(exchange)
    assert tap.take("1") is None
    assert tap.take("2") == {"content": []}
    assert tap._methods == {}
