"""A client that answers back: callbacks from a conftest hook, the capabilities they declare,
multi-round trips, and a clear failure when the client cannot answer what a tool asks.
"""

from __future__ import annotations

import sys

import pytest
from conftest import SERVERS, Project, http_server, target

CALLBACKS = """
import mcp.types as t

BY_TYPE = {"integer": 4, "boolean": True}

async def elicit(context, params):  # fills every field of the form: 4, true, or "my-<field>"
    fields = params.requested_schema["properties"].items()
    content = {name: BY_TYPE.get(field.get("type"), f"my-{name}") for name, field in fields}
    return t.ElicitResult(action="accept", content=content)

async def sample(context, params):
    return t.CreateMessageResult(role="assistant", content=t.TextContent(type="text", text="a fine line"), model="fake")

async def roots(context):
    return t.ListRootsResult(roots=[t.Root(uri="file:///work")])

def pytest_mcp_contract_callbacks(server, config):
    return {"elicitation_callback": elicit, "sampling_callback": sample, "list_roots_callback": roots}
"""

REFUSING = """
import mcp.types as t

async def refuse(context, params):
    return t.ErrorData(code=-1, message="not today")

def pytest_mcp_contract_callbacks(server, config):
    return {"elicitation_callback": refuse}
"""
"""A client whose elicitation callback declines every form."""

ASKING_TESTS = """
import pytest


def test_book(mcp_contract):
    assert mcp_contract.call_tool("book", {"date": "friday"}).structured_content == {"date": "friday", "guests": 4}

def test_line(mcp_contract):
    assert mcp_contract.call_tool("line", {"topic": "rain"}).structured_content == {"result": "a fine line"}

def test_folders(mcp_contract):
    assert mcp_contract.call_tool("folders").structured_content == {"result": ["file:///work"]}

@pytest.mark.mcp_contract_protocol_version("2025-11-25")
def test_book_the_older_way(mcp_contract):
    assert mcp_contract.protocol_version == "2025-11-25"  # asked mid-call, not with InputRequiredResult
    assert mcp_contract.call_tool("book", {"date": "friday"}).structured_content == {"date": "friday", "guests": 4}
"""

SERVERS_BY_TRANSPORT = {
    "in process": target("asks"),
    "stdio": f"stdio:{sys.executable} {SERVERS / 'asks.py'}",
}


@pytest.mark.parametrize("transport", list(SERVERS_BY_TRANSPORT))
def test_tools_that_ask_back_pass_with_the_callbacks_a_conftest_gives(project: Project, transport: str) -> None:
    project.pytester.makeconftest(CALLBACKS)
    project.configure(SERVERS_BY_TRANSPORT[transport])
    project.tests(ASKING_TESTS)
    project.run().assert_outcomes(passed=4)


def test_callbacks_and_both_versions_work_over_http(project: Project) -> None:
    project.pytester.makeconftest(CALLBACKS)
    with http_server(str(SERVERS / "asks.py")) as url:
        project.configure(url)
        project.tests(ASKING_TESTS)
        project.run().assert_outcomes(passed=4)


@pytest.mark.parametrize("transport", list(SERVERS_BY_TRANSPORT))
def test_a_capability_the_client_lacks_is_named_with_the_way_to_give_it(project: Project, transport: str) -> None:
    project.configure(SERVERS_BY_TRANSPORT[transport])
    project.tests('def test_book(mcp_contract):\n    mcp_contract.call_tool("book", {"date": "friday"})\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ClientCapabilityError: tool 'book' needs the client capability elicitation, "
            "which the plugin's client does not declare (Client did not declare the form elicitation capability "
            "required by resolver '*ask_party'). Give the client its callback: return "
            '{"elicitation_callback": ...} from the pytest_mcp_contract_callbacks hook in conftest.py '
            "(pytest-mcp-contract's docs/python-api.md, 'A client that answers back')."
        ]
    )
    result.stdout.no_fnmatch_line("*tool-error*")
    result.stdout.no_fnmatch_line("*pytest_mcp_contract/_client/*")


def test_a_multi_round_trip_is_followed_to_its_final_result(project: Project) -> None:
    project.pytester.makeconftest(CALLBACKS)
    project.configure(target("rounds"))
    project.tests(
        """
        def test_provision(mcp_contract):
            result = mcp_contract.call_tool("provision")
            assert result.structured_content == {"region": "my-region", "label": "my-label"}
        """
    )
    project.run().assert_outcomes(passed=1)


def test_a_tool_that_never_stops_asking_is_the_servers_error_not_the_clients(project: Project) -> None:
    project.pytester.makeconftest(CALLBACKS)
    project.configure(target("rounds"))
    project.tests('def test_endless(mcp_contract):\n    mcp_contract.call_tool("endless")\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ContractViolationError: tool 'endless' called with no arguments broke its "
            "contract (1 violation):",
            "E       [tool-error]",
            "E         tool 'endless' answered with InputRequiredResult 10 times in a row, asking for input without "
            "end; a tool must reach its final result in a bounded number of rounds",
        ]
    )
    result.stdout.no_fnmatch_line("*ClientCapabilityError*")


def _provision_fails(project: Project) -> pytest.RunResult:
    """One test calling the multi-round tool, which must fail."""
    project.configure(target("rounds"))
    project.tests('def test_provision(mcp_contract):\n    mcp_contract.call_tool("provision")\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    return result


def test_a_round_the_client_cannot_answer_names_what_was_asked(project: Project) -> None:
    result = _provision_fails(project)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ClientCapabilityError: tool 'provision' asked the client, in round 1, for "
            "'region' (elicitation 'Which region?'), but the plugin's client does not declare elicitation. Give the "
            'client its callback: return {"elicitation_callback": ...} from the pytest_mcp_contract_callbacks hook '
            "in conftest.py (pytest-mcp-contract's docs/python-api.md, 'A client that answers back')."
        ]
    )
    result.stdout.no_fnmatch_line("*ValidationError*")
    result.stdout.no_fnmatch_line("*pytest_mcp_contract/_client/*")  # the user's frame only


def test_a_callback_that_declines_a_round_says_so(project: Project) -> None:
    project.pytester.makeconftest(REFUSING)
    result = _provision_fails(project)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ClientCapabilityError: tool 'provision' asked the client, in round 1, for "
            "'region' (elicitation 'Which region?'), and the client's elicitation_callback declined: not today"
        ]
    )


def test_a_callback_the_client_cannot_take_is_named(project: Project) -> None:
    project.pytester.makeconftest(
        "def pytest_mcp_contract_callbacks(server, config):\n    return {'elicit_callback': print}\n"
    )
    project.configure(target("asks"))
    project.tests("def test_it(mcp_contract):\n    pass\n")
    result = project.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*TypeError: the client callbacks (pytest_mcp_contract_callbacks) hold 'elicit_callback'; the plugin's "
            "client takes sampling_callback, sampling_capabilities, elicitation_callback, list_roots_callback, "
            "logging_callback"
        ]
    )


def test_fuzzing_skips_a_tool_that_needs_a_capability_the_client_lacks(project: Project) -> None:
    # Its tools say no readOnlyHint; an in-process server of the test's own is a throwaway one.
    project.configure(target("asks"), suite=True, mcp_contract_fuzz_writes="true")
    result = project.run("--mcp-contract-fuzz", "5", "-k", "fuzz", "-rs")
    result.assert_outcomes(skipped=3, deselected=6)
    result.stdout.fnmatch_lines(
        ["SKIPPED [[]1[]] *: not fuzzed: tool 'book' needs the client capability elicitation, which the plugin's *"]
    )


MIDCALL_TESTS = """
import pytest

@pytest.mark.mcp_contract_protocol_version("2025-11-25")
def test_older(mcp_contract):
    assert mcp_contract.call_tool("confirm").structured_content == {"result": "going on"}

def test_newer(mcp_contract):
    mcp_contract.call_tool("confirm")
"""


def test_a_request_sent_mid_call_is_answered_up_to_2025_and_has_no_way_back_at_2026(project: Project) -> None:
    project.pytester.makeconftest(CALLBACKS)
    project.configure(target("asks_midcall"))
    project.tests(MIDCALL_TESTS)
    result = project.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       [[]tool-error @ 2026-07-28[]]",
            "E         the server answered tools/call with a JSON-RPC error instead of a result: JSON-RPC error -32600: "
            "Cannot send 'elicitation/create': this transport context has no back-channel for server-initiated "
            "requests. The tool sent the client a request of its own in the middle of the call, which MCP "
            "2026-07-28 has no way back for: *",
        ]
    )


def test_a_request_sent_mid_call_without_a_callback_names_the_capability(project: Project) -> None:
    project.configure(target("asks_midcall"))
    project.tests(MIDCALL_TESTS.split("def test_newer", maxsplit=1)[0])
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ClientCapabilityError: tool 'confirm' needs the client capability elicitation, "
            "which the plugin's client does not declare (the client answered its request with 'Elicitation not "
            "supported'). Give the client its callback: *"
        ]
    )


def test_a_callback_that_declines_a_mid_call_request_is_the_tests_not_the_servers(project: Project) -> None:
    project.pytester.makeconftest(REFUSING)
    project.configure(target("asks"))
    project.tests(
        """
        import pytest

        @pytest.mark.mcp_contract_protocol_version("2025-11-25")
        def test_book(mcp_contract):
            mcp_contract.call_tool("book", {"date": "friday"})
        """
    )
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ClientCapabilityError: tool 'book' asked the client for elicitation, and the "
            "client's elicitation_callback declined: not today; the tool failed on that answer. *"
        ]
    )
    result.stdout.no_fnmatch_line("*tool-error*")


def test_a_declined_callback_is_blamed_on_its_own_call_only(project: Project) -> None:
    project.pytester.makeconftest(REFUSING)
    project.configure(target("asks"))
    project.tests(
        """
        import pytest
        from pytest_mcp_contract import ClientCapabilityError, ContractViolationError

        @pytest.mark.mcp_contract_protocol_version("2025-11-25")
        def test_book(mcp_contract):
            with pytest.raises(ClientCapabilityError):
                mcp_contract.call_tool("book", {"date": "friday"})  # the callback declines
            with pytest.raises(ContractViolationError, match=r"\\[tool-error\\]"):
                # Fails on its own: no date, no question asked.
                mcp_contract.call_tool("book", {}, validate_arguments=False)
        """
    )
    project.run().assert_outcomes(passed=1)


@pytest.mark.parametrize("transport", ["in process", "stdio"])
def test_a_tool_error_that_reads_like_the_clients_refusal_is_the_tools(project: Project, transport: str) -> None:
    """No request reached the client: words of the tool's own are its error, expected or not."""
    stdio = f"stdio:{sys.executable} {SERVERS / 'asks_midcall.py'} stdio"
    project.configure(target("asks_midcall") if transport == "in process" else stdio)
    project.tests(
        """
        import pytest

        @pytest.mark.mcp_contract_protocol_version("2025-11-25")
        def test_unexpected(mcp_contract):
            mcp_contract.call_tool("summarize", {"text": "long"})

        @pytest.mark.mcp_contract_protocol_version("2025-11-25")
        @pytest.mark.mcp_expect_error(tool="summarize", match="free tier")
        def test_expected(mcp_contract):
            mcp_contract.call_tool("summarize", {"text": "long"})
        """
    )
    result = project.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["E       [[]tool-error[]]", "*Sampling not supported on the free tier*"])
    result.stdout.no_fnmatch_line("*ClientCapabilityError*")
