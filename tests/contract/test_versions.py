"""Protocol versions: the rules of one era hold for its versions only, and a test picks the version it offers.

Up to 2025-11-25 an output schema has an object root and structured content is an object; from
2026-07-28 any schema and any JSON value are allowed. A server correct at 2026-07-28 is never
flagged there, and one that breaks the older era's rule is named with that version.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from conftest import SERVERS, Project, make_result, make_tool, target
from contract_servers.wire import CASES as WIRE_TOOLS
from mcp.types import Tool

from pytest_mcp_contract import check_result
from pytest_mcp_contract._contract.versions import only_root_adapted

HANDSHAKE_ONLY = f"stdio:{sys.executable} {SERVERS / 'handshake_only.py'}"


def test_an_array_root_keeps_the_2026_contract_and_breaks_the_2025_listing_in_process(project: Project) -> None:
    project.configure(target("wire"))
    project.tests(
        """
        import pytest

        def test_modern(mcp_contract):
            assert mcp_contract.protocol_version == "2026-07-28"
            assert mcp_contract.call_tool("schema_not_object").structured_content == [1]

        @pytest.mark.mcp_contract_protocol_version("2025-11-25")
        def test_handshake(mcp_contract):
            pass
        """
    )
    result = project.run()
    result.assert_outcomes(passed=1, errors=1)  # the session cannot open: its fixture errors
    # The SDK's low-level server itself refuses to send a listing its 2025-11-25 model rejects.
    result.stdout.fnmatch_lines(["*tools/list failed on *: JSON-RPC error -32603: Handler returned an invalid result*"])


def test_a_handshake_era_server_is_held_to_its_own_era_over_stdio(project: Project) -> None:
    project.configure(HANDSHAKE_ONLY)
    project.tests(
        """
        def test_numbers(mcp_contract):
            assert mcp_contract.protocol_version == "2025-11-25"  # offered 2026-07-28; the server answers older
            mcp_contract.call_tool("numbers")

        def test_point(mcp_contract):
            assert mcp_contract.call_tool("point").structured_content == {"x": 1}

        def test_bare(mcp_contract):
            mcp_contract.call_tool("bare")
        """
    )
    result = project.run()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "E       [[]wire-invalid[]] at /content",
            "E         the stdio server * answered tools/call without /content, which MCP 2025-11-25 requires: a "
            "client that reads it strictly refuses the whole message, a lenient one guesses. Without it the answer "
            "to tools/call cannot be read at all: the plugin has no result to check.",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ContractViolationError: tool 'numbers' called with no arguments broke its "
            "contract (1 violation):",
            "E       [[]structured-invalid @ 2025-11-25[]]",
            "E         the stdio server * answered tools/call 'numbers' with a result that MCP 2025-11-25 does not "
            "allow (structuredContent: Input should be a valid dictionary): a client on 2025-11-25 rejects it. *",
        ]
    )


def test_a_listing_a_2025_client_rejects_is_named_with_the_version(project: Project) -> None:
    project.configure(f"{HANDSHAKE_ONLY} --array-root")
    project.tests("def test_point(mcp_contract):\n    mcp_contract.call_tool('point')\n")
    result = project.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*tools/list on the stdio server * answered with a listing that MCP 2025-11-25 does not allow "
            "(tools.3.outputSchema.type: Input should be 'object'): a client on 2025-11-25 rejects the whole "
            "listing, so no tool can be checked under it.*"
        ]
    )
    result.stdout.no_fnmatch_line("*ValidationError*")


def test_a_version_the_client_cannot_offer_stops_the_run(project: Project) -> None:
    project.configure(target("wire"), mcp_contract_protocol_versions="2025-06-18")
    project.tests("def test_it():\n    pass\n")
    result = project.run()
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_protocol_versions: '2025-06-18' cannot be offered: the client offers 2025-11-25 for "
            "the handshake era; a server that speaks only 2025-06-18 answers so. Give one or both of "
            "2026-07-28 2025-11-25 (the first serves the tests' own calls)."
        ]
    )


def test_a_malformed_version_marker_stops_the_run(project: Project) -> None:
    project.configure(target("wire"))
    project.tests(
        """
        import pytest

        @pytest.mark.mcp_contract_protocol_version("latest")
        def test_it(mcp_contract):
            pass
        """
    )
    result = project.run()
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [
            "ERROR: test_contract.py::test_it: @pytest.mark.mcp_contract_protocol_version takes one of "
            "'2026-07-28', '2025-11-25', e.g. @pytest.mark.mcp_contract_protocol_version('2025-11-25')"
        ]
    )


def test_the_ini_order_decides_the_version_of_a_tests_own_calls(project: Project) -> None:
    project.configure(target("wire"), mcp_contract_protocol_versions="2025-11-25 2026-07-28")
    project.tests("def test_it(mcp_contract):\n    mcp_contract.call_tool('bad_type')\n")
    result = project.run()
    result.assert_outcomes(errors=1)
    # The wire server's array-root tool makes its listing unsendable at 2025-11-25: the session says so.
    result.stdout.fnmatch_lines(["*tools/list failed on *: JSON-RPC error -32603: Handler returned an invalid result*"])


def _record(project: Project, **outcomes: int) -> None:
    """The first run: the listing item writes every tool's snapshot (and runs its checks), so the next run
    collects each tool's own items."""
    project.run("--snapshot-update").assert_outcomes(**outcomes)


def test_the_suite_checks_every_tool_under_every_version(project: Project) -> None:
    project.configure(target("wire"), suite=True)
    _record(project, failed=1)  # the listing: 2025-11-25 cannot list, and some tools' checks fail
    result = project.run("-k", "listing or schema_not_object and checks", "-v")
    result.assert_outcomes(failed=2, deselected=len(WIRE_TOOLS) * 2 - 1)
    result.stdout.fnmatch_lines_random(
        [
            "tox.ini::listing FAILED*",
            "tox.ini::checks[[]schema_not_object[]] FAILED*",
            "offering protocol version 2025-11-25, the tools could not be listed: tools/list failed on *: "
            "JSON-RPC error -32603: Handler returned an invalid result*",
            "[[]output-schema-invalid @ 2025-11-25[]] at (root)",
        ]
    )


def test_offering_one_version_checks_under_it_alone(project: Project) -> None:
    project.configure(target("wire"), suite=True, mcp_contract_protocol_versions="2026-07-28")
    _record(project, failed=1)  # the listing, with the checks of the tools broken under every version
    result = project.run("-k", "listing or schema_not_object and checks")
    result.assert_outcomes(passed=2, deselected=len(WIRE_TOOLS) * 2 - 1)  # the listing, and the array root's checks


LIST_RESULT = """
from mcp_types import ToolAnnotations
from contract_servers.wire import WireTool, build

hints = ToolAnnotations(read_only_hint=READ_ONLY)
server = build([
    WireTool("numbers", None, [1, 2], ["1", "2"], annotations=hints),
    WireTool("point", None, {"x": 1}, ['{"x": 1}'], annotations=hints),
])
"""


@pytest.mark.parametrize(
    ("read_only", "finding"),
    [
        # Read-only: called under each version, and at 2025-11-25 the SDK's server refuses to send a list.
        (
            True,
            [
                "[[]tool-error @ 2025-11-25[]]",
                "  the server answered tools/call with a JSON-RPC error instead of a result: JSON-RPC error -32603: "
                "Handler returned an invalid result. The server's SDK would not send the result the tool built, as "
                "MCP 2025-11-25 does not allow it: *",
            ],
        ),
        # It may write: called once, and its 2026-07-28 answer read under 2025-11-25's rules says the same.
        (
            None,
            [
                "[[]structured-invalid @ 2025-11-25[]] at (root)",
                "  structured_content is [[]1, 2[]], not an object: MCP 2025-11-25 requires an object there *",
            ],
        ),
    ],
    ids=["read-only", "may-write"],
)
def test_an_example_call_that_breaks_only_the_older_era_names_it(
    project: Project, read_only: bool | None, finding: list[str]
) -> None:
    project.pytester.syspathinsert(SERVERS.parent)
    project.pytester.makepyfile(lists=LIST_RESULT.replace("READ_ONLY", repr(read_only)))
    project.pytester.makefile(".toml", cases='[[case]]\ntool = "numbers"\n\n[[case]]\ntool = "point"\n')
    project.configure("lists.py:server", suite=True, mcp_contract_cases="cases.toml")
    result = project.run("-k", "call")
    result.assert_outcomes(passed=1, failed=1, deselected=1)  # the listing
    # At 2026-07-28 a list is any client's to read; at 2025-11-25 it is not.
    result.stdout.fnmatch_lines(["tool 'numbers' called with no arguments broke its contract (1 violation):", *finding])


def test_the_summary_names_the_tools_kept_under_some_versions_only(project: Project) -> None:
    project.configure(target("wire"), suite=True)
    _record(project, failed=1)
    result = project.run("-k", "checks and (schema_not_object or schema_bad_type)")
    result.assert_outcomes(failed=2, deselected=len(WIRE_TOOLS) * 2 - 1)
    result.stdout.fnmatch_lines(
        [
            "tool checks: 0 passed, 2 failed: schema_bad_type (output-schema-invalid); "
            "schema_not_object (output-schema-invalid @ 2025-11-25)",
            "kept under some protocol versions only: schema_not_object (breaks 2025-11-25)",
        ]
    )


def test_the_header_names_the_versions_offered(project: Project) -> None:
    project.configure(target("sdk_kinds", "mcp"), mcp_contract_protocol_versions="2025-11-25")
    project.tests('def test_it(mcp_contract):\n    assert mcp_contract.protocol_version == "2025-11-25"\n')
    result = project.run()
    result.assert_outcomes(passed=1)  # and the sessions offer what the header says
    result.stdout.fnmatch_lines(["mcp-contract: protocol versions offered: 2025-11-25 (a test's own calls: the first)"])


def test_a_server_that_claims_2026_and_then_wants_initialize_is_named(project: Project) -> None:
    project.configure(f"{HANDSHAKE_ONLY} --claims-modern")
    project.tests(
        """
        import pytest

        def test_modern(mcp_contract):
            pass

        @pytest.mark.mcp_contract_protocol_version("2025-11-25")
        def test_handshake(mcp_contract):
            assert mcp_contract.call_tool("point").structured_content == {"x": 1}
        """
    )
    result = project.run()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "the stdio server * answered server/discover as a 2026-07-28 server, then refused tools/list: "
            "JSON-RPC error -32600: Server not initialized: send initialize first. It negotiates a version it does "
            "not keep (a 2026-07-28 server needs no initialize). *"
        ]
    )


BY_VERSION = """
from mcp.server import Server
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool

async def list_tools(ctx, params):
    number = "integer" if ctx.protocol_version == "2025-11-25" else "number"
    schema = {"type": "object", "properties": {"n": {"type": number}}, "required": ["n"]}
    return ListToolsResult(tools=[Tool(name="count", input_schema={"type": "object"}, output_schema=schema)])

async def call_tool(ctx, params):
    return CallToolResult(content=[TextContent(type="text", text='{"n": 1}')], structured_content={"n": 1})

server = Server("by-version", on_list_tools=list_tools, on_call_tool=call_tool)
"""


def test_a_listing_that_differs_between_versions_is_shown_as_a_diff(project: Project) -> None:
    project.pytester.makepyfile(by_version=BY_VERSION)
    project.configure("by_version.py:server", suite=True)
    # The listing writes the new tool's file, and fails as the versions list it differently; later, its schema item.
    first = project.run("--snapshot-update")
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(["tool 'count' is listed differently under 2025-11-25 than under 2026-07-28*"])
    # The snapshot holds the first version's listing.
    assert '"number"' in (project.pytester.path / "mcp_contract_snapshots" / "by-version" / "count.json").read_text()
    result = project.run("-k", "schema")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(
        [
            "tool 'count' is listed differently under 2025-11-25 than under 2026-07-28: a client's protocol version "
            "changes the contract it sees.",
            "",
            "Diff (- 2026-07-28, + 2025-11-25):",
            "--- 2026-07-28",
            "+++ 2025-11-25",
            "*",
            '-        "type": "number"',
            '+        "type": "integer"',
        ]
    )
    # One version alone is one contract.
    project.run("-k", "schema", "-o", "mcp_contract_protocol_versions=2026-07-28").assert_outcomes(
        passed=1, deselected=2
    )


SOME_VERSIONS = """
from mcp.server import Server
from mcp.types import ListToolsResult, Tool, ToolAnnotations

async def list_tools(ctx, params):
    # It only reads: its call is sent under each version, and each finds the same defect.
    tools = [Tool(name="bare", input_schema={"type": "object"}, annotations=ToolAnnotations(read_only_hint=True))]
    if ctx.protocol_version != "2025-11-25":
        tools.append(Tool(name="extra", input_schema={"type": "object"}))
    return ListToolsResult(tools=tools)

async def call_tool(ctx, params):
    return {"structuredContent": {"x": 1}}  # no content: no version allows that

server = Server("some-versions", on_list_tools=list_tools, on_call_tool=call_tool)
"""


def test_a_defect_under_every_version_is_told_once_and_a_tool_missing_under_one_is_named(project: Project) -> None:
    project.pytester.makepyfile(some_versions=SOME_VERSIONS)
    project.pytester.makefile(".toml", cases='[[case]]\ntool = "bare"\n')
    project.configure("some_versions.py:server", suite=True, mcp_contract_cases="cases.toml")
    first = project.run("--snapshot-update")
    first.assert_outcomes(failed=2)  # the listing names the tool missing under one version; the case's call fails
    first.stdout.fnmatch_lines(["*tool 'extra' is listed under 2026-07-28 but not under 2025-11-25*"])
    result = project.run("-k", "call or schema[extra]")
    result.assert_outcomes(failed=2, deselected=4)
    result.stdout.fnmatch_lines(
        [
            "*tool 'extra' is listed under 2026-07-28 but not under 2025-11-25: a client on 2025-11-25 cannot call it.*",
            # The cases file's calls come after every tool's own items.
            "tool 'bare' called with no arguments broke its contract (1 violation):",
            "[[]tool-error[]]",
        ]
    )
    result.stdout.no_fnmatch_line("*kept under some protocol versions only*")


@pytest.mark.parametrize(
    ("fastmcp", "first", "second", "adapted"),
    [
        (
            True,
            {"properties": {"n": {"type": "integer"}}},
            {"properties": {"n": {"type": "integer"}}, "type": "object"},
            True,
        ),
        (True, {"type": "object"}, {"type": "object"}, True),
        (
            True,
            {"properties": {"n": {"type": "number"}}},
            {"properties": {"n": {"type": "integer"}}, "type": "object"},
            False,
        ),
        (True, {"type": "array"}, {"type": "object"}, False),
        (
            False,
            {"properties": {"n": {"type": "integer"}}},
            {"properties": {"n": {"type": "integer"}}, "type": "object"},
            False,
        ),
    ],
    ids=["root-added", "same", "property-changed", "array-root", "not-fastmcp"],
)
def test_only_fastmcps_object_root_is_excused_between_versions(
    fastmcp: bool, first: dict[str, Any], second: dict[str, Any], adapted: bool
) -> None:
    meta: dict[str, Any] | None = {"fastmcp": {"tags": []}} if fastmcp else None
    one, other = (
        Tool.model_validate({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema, "_meta": meta})
        for schema in (first, second)
    )
    assert only_root_adapted(one, other) is adapted


def test_the_plugins_version_names_are_the_wire_types_own() -> None:
    """Written out so that start-up does not import every wire type; they must not drift from mcp_types."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION

    from pytest_mcp_contract._contract.versions import HANDSHAKE_ERA
    from pytest_mcp_contract._sdk.release import HANDSHAKE, MODERN

    assert (MODERN, HANDSHAKE) == (LATEST_MODERN_VERSION, LATEST_HANDSHAKE_VERSION)
    assert frozenset(HANDSHAKE_PROTOCOL_VERSIONS) == HANDSHAKE_ERA


def test_structured_content_must_be_an_object_up_to_2025_11_25_only() -> None:
    """The check itself (in a session, the SDK's own models catch such an answer first)."""
    result = make_result([1, 2], "[1, 2]")
    [violation] = check_result(make_tool(None), result, version="2025-11-25")
    assert (violation.check, violation.path, violation.versions) == ("structured-invalid", "", ("2025-11-25",))
    assert violation.message.startswith("structured_content is [1, 2], not an object: MCP 2025-11-25 requires")
    assert check_result(make_tool(None), result, version="2026-07-28") == []


def test_a_root_the_schema_already_refuses_is_told_once() -> None:
    result = make_result([1], "[1]")
    found = check_result(make_tool({"type": "object"}), result, version="2025-11-25")
    assert [(violation.check, violation.path) for violation in found] == [("structured-invalid", "")]
    assert found[0].message == "[1] is not of type 'object' (schema keyword 'type' at /type)"


def test_a_server_that_answers_both_offers_with_one_version_starts_once(project: Project) -> None:
    """Offered 2026-07-28, a handshake-era server answers 2025-11-25: the second offer would only ask it
    again, so the suite's listing and its items keep to the one session."""
    starts = project.pytester.path / "starts.txt"
    counted = project.pytester.makepyfile(
        counted=f"import runpy\nopen({str(starts)!r}, 'a').write('started\\n')\n"
        f"runpy.run_path({str(SERVERS / 'handshake_only.py')!r}, run_name='__main__')\n"
    )
    project.configure(f"stdio:{sys.executable} {counted.name}", suite=True)
    _record(project, passed=1)  # the listing (a run that writes a new folder starts it twice, to see its name last)
    starts.unlink()
    project.run("-k", "listing or checks[point]").assert_outcomes(passed=2, deselected=5)
    assert starts.read_text() == "started\n"
