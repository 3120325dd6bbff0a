"""A client that answers back: callbacks from a conftest hook, the capabilities they declare,
multi-round trips, and a clear failure when the client cannot answer what a tool asks.
"""

from __future__ import annotations

import re
import sys

import pytest
from conftest import SERVERS, Project, http_server, target
from docs_text import assert_says, quoted

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._client import CALLBACKS as HOOK_KEYS
from pytest_mcp_contract._sdk.release import SDK_VERSION

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


ACCEPTED = ", ".join(HOOK_KEYS)


def _hook(returned: str, *, imports: str = "") -> str:
    """A conftest whose callbacks hook returns ``returned`` (Python source) for every server."""
    return f"{imports}\n\ndef pytest_mcp_contract_callbacks(server, config):\n    return {returned}\n"


def _stopped(result: pytest.RunResult) -> str:
    """What a run the callbacks stopped printed: a usage error, no test run, no internal error."""
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    printed = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in printed
    assert "Traceback" not in printed
    assert not re.search(r"\d+ (passed|failed|error)", printed)
    return printed


@pytest.mark.parametrize("suite", [False, True], ids=["tests", "generated suite"])
def test_a_callback_key_the_client_does_not_take_is_a_usage_error_naming_the_one_meant(
    project: Project, suite: bool
) -> None:
    project.pytester.makeconftest(_hook('{"sampling_callbak": print}'))
    project.configure(target("asks"), suite=suite)
    project.tests("def test_it(mcp_contract):\n    pass\n")
    result = project.run()
    _stopped(result)
    assert_says(result.stderr.str(), quoted("callbacks-unknown-key"))
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest_mcp_contract_callbacks returned 'sampling_callbak' (did you mean 'sampling_callback'?), "
            f"a key the plugin's client does not take. It takes {ACCEPTED}. Fix the dict the hook returns in "
            "conftest.py (pytest-mcp-contract's docs/python-api.md, 'A client that answers back')."
        ]
    )


def test_keys_far_from_any_are_named_without_a_guess(project: Project) -> None:
    project.pytester.makeconftest(_hook('{"elicit_callback": print, "on_progress": print}'))
    project.configure(target("asks"))
    project.tests("def test_it(mcp_contract):\n    pass\n")
    result = project.run()
    _stopped(result)
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest_mcp_contract_callbacks returned 'elicit_callback' (did you mean 'elicitation_callback'?) "
            f"and 'on_progress', keys the plugin's client does not take. It takes {ACCEPTED}. *"
        ]
    )


@pytest.mark.parametrize(
    ("returned", "told"),
    [
        (
            '{"elicitation_callback": "yes"}',
            "'elicitation_callback': 'yes' (a str), where the plugin's client takes an "
            "async function (mcp.Client documents its arguments).",
        ),
        (
            '{"sampling_capabilities": {"tools": {}}}',
            "'sampling_capabilities': {'tools': {}} (a dict), where the "
            "plugin's client takes an mcp.types.SamplingCapability.",
        ),
        (
            '{"extensions": {"com.example/stamps": {}}}',
            "'extensions': {'com.example/stamps': {}} (a dict), where the "
            'plugin\'s client takes a list of ClientExtension instances, e.g. [advertise("com.example/ext")] with '
            "advertise from mcp.client.",
        ),
        (
            '{"extensions": ["com.example/stamps"]}',
            "'extensions': ['com.example/stamps'] (a list), where the plugin's "
            "client takes a list of ClientExtension instances",
        ),
    ],
    ids=["callback", "sampling capabilities", "extensions as a dict", "extensions as names"],
)
def test_a_callback_value_of_the_wrong_kind_is_a_usage_error_naming_the_key(
    project: Project, returned: str, told: str
) -> None:
    project.pytester.makeconftest(_hook(returned))
    project.configure(target("asks"))
    project.tests("def test_it(mcp_contract):\n    pass\n")
    result = project.run()
    _stopped(result)
    assert f"ERROR: pytest_mcp_contract_callbacks returned {told}" in result.stderr.str()


def test_a_hook_that_returns_no_dict_is_a_usage_error(project: Project) -> None:
    project.pytester.makeconftest(_hook("[print]"))
    project.configure(target("asks"))
    project.tests("def test_it(mcp_contract):\n    pass\n")
    result = project.run()
    _stopped(result)
    assert (
        "ERROR: pytest_mcp_contract_callbacks returned [<built-in function print>] (a list); it returns a dict "
        "of the client's callbacks by keyword, or None. Fix the hook in conftest.py (pytest-mcp-contract's "
        "docs/python-api.md, 'A client that answers back')."
    ) in result.stderr.str()


CHOSEN_LATER = {
    "by a fixture": """
        import pytest
        from stamps import server as stamps

        @pytest.fixture
        def mcp_contract_server():
            return stamps

        def test_first(mcp_contract):
            pass

        def test_second(mcp_contract):
            pass
        """,
    "by a marker": f"""
        import pytest

        @pytest.mark.mcp_contract_server({target("stamps")!r})
        def test_first(mcp_contract):
            pass

        def test_second(mcp_contract):
            pass
        """,
}


@pytest.mark.parametrize("chosen", list(CHOSEN_LATER))
def test_callbacks_wrong_for_a_server_chosen_later_stop_the_run_as_a_usage_error(
    project: Project, monkeypatch: pytest.MonkeyPatch, chosen: str
) -> None:
    """The hook answers per server: for one a test picks, it is asked only then, and still stops the run."""
    monkeypatch.syspath_prepend(str(SERVERS))
    project.pytester.makeconftest(
        "def pytest_mcp_contract_callbacks(server, config):\n"
        "    return {'sampling_callbak': print} if getattr(server, 'name', '') == 'stamps' else None\n"
    )
    project.configure(target("asks"))
    project.tests(CHOSEN_LATER[chosen])
    result = project.run()
    printed = _stopped(result)
    assert printed.count("pytest_mcp_contract_callbacks returned 'sampling_callbak'") == 1
    assert "did you mean 'sampling_callback'?" in printed
    assert f"It takes {ACCEPTED}." in printed
    assert "test_second" not in printed


def test_fuzzing_skips_a_tool_that_needs_a_capability_the_client_lacks(project: Project) -> None:
    # Its tools say no readOnlyHint; an in-process server of the test's own is a throwaway one.
    project.configure(target("asks"), suite=True, mcp_contract_fuzz_writes="true")
    # The first run: the listing item writes the tools' snapshots, from which the next run collects fuzz[TOOL].
    project.run("--snapshot-update").assert_outcomes(passed=1)
    result = project.run("--mcp-contract-fuzz", "5", "-k", "fuzz", "-rs")
    result.assert_outcomes(skipped=3, deselected=7)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED [[]1[]] tox.ini: not fuzzed: tool 'book' needs the client capability elicitation, which the plugin's *"
        ]
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


STAMPS_BY_TRANSPORT = {
    "in process": target("stamps"),
    "stdio": f"stdio:{sys.executable} {SERVERS / 'stamps.py'}",
}

STAMP_TESTS = """
import pytest

def test_stamp(mcp_contract):
    assert mcp_contract.call_tool("stamp", {"text": "memo"}).structured_content == {"text": "memo", "stamp": "approved"}

@pytest.mark.mcp_contract_protocol_version("2025-11-25")
def test_stamp_the_older_way(mcp_contract):
    assert mcp_contract.call_tool("stamp", {"text": "memo"}).structured_content == {"text": "memo", "stamp": "approved"}
"""

EXTENSION_ADVICE = (
    "tool 'stamp' needs the client extension 'com.example/stamps', which the plugin's client does not declare "
    "(Client did not declare required extension 'com.example/stamps'). Give the client the extension: return "
    '{"extensions": [advertise("com.example/stamps")]} (advertise, from mcp.client, declares an extension; one '
    "with behaviour of its own is given as its ClientExtension instance) from the pytest_mcp_contract_callbacks "
    "hook in conftest.py (pytest-mcp-contract's docs/python-api.md, 'A client that answers back')."
)


@pytest.mark.parametrize("transport", list(STAMPS_BY_TRANSPORT))
def test_following_the_advice_for_a_tool_that_needs_a_client_extension_gets_it_called_and_checked(
    project: Project, transport: str
) -> None:
    project.configure(STAMPS_BY_TRANSPORT[transport], suite=True)
    project.tests(STAMP_TESTS)
    # The first run: the listing item writes the tool's snapshot, from which the next run collects fuzz[stamp].
    project.run("--snapshot-update", "-k", "listing").assert_outcomes(passed=1, deselected=2)
    selected = ("--mcp-contract-fuzz", "3", "-k", "fuzz or test_stamp", "-rs")
    result = project.run(*selected)
    result.assert_outcomes(failed=2, skipped=1, deselected=3)
    printed = result.stdout.str()
    assert f"pytest_mcp_contract.ClientCapabilityError: {EXTENSION_ADVICE}" in printed
    assert f": not fuzzed: {EXTENSION_ADVICE}" in printed
    # Do as it says: return that dict from the hook, advertise imported from where it names.
    advised = re.search(r"Give the client the extension: return (\{.*?\]\}) \(advertise, from (mcp\.client),", printed)
    assert advised is not None
    project.pytester.makeconftest(
        f"from {advised[2]} import advertise\n\n\n"
        f"def pytest_mcp_contract_callbacks(server, config):\n    return {advised[1]}\n"
    )
    result = project.run(*selected)
    result.assert_outcomes(passed=3, deselected=3)  # both tests, and 3 fuzzed calls each checked
    result.stdout.no_fnmatch_line("*ClientCapabilityError*")


def test_the_pages_extension_conftest_gets_the_tool_called(project: Project) -> None:
    project.pytester.makeconftest(quoted("extension-conftest"))
    project.configure(target("stamps"))
    project.tests(STAMP_TESTS)
    project.run().assert_outcomes(passed=2)


def test_the_page_names_every_key_the_hook_takes() -> None:
    page = (SERVERS.parents[1] / "docs" / "python-api.md").read_text(encoding="utf-8")
    section = page.split("## A client that answers back", 1)[1].split("\n## ", 1)[0]
    assert [key for key in HOOK_KEYS if f"`{key}`" not in section] == []


SAMPLE_ONLY = """
import mcp.types as t

async def sample(context, params):
    return t.CreateMessageResult(role="assistant", content=t.TextContent(type="text", text="go north"), model="fake")

def pytest_mcp_contract_callbacks(server, config):
    return {"sampling_callback": sample}
"""

PLAN_TESTS = """
import pytest

def test_plan(mcp_contract):
    assert mcp_contract.call_tool("plan", {"goal": "trip"}).structured_content == {"result": "go north"}

@pytest.mark.mcp_contract_protocol_version("2025-11-25")
def test_plan_the_older_way(mcp_contract):
    assert mcp_contract.call_tool("plan", {"goal": "trip"}).structured_content == {"result": "go north"}
"""


def test_sampling_with_tools_is_advised_the_capabilities_beside_the_callback_given(project: Project) -> None:
    project.pytester.makeconftest(SAMPLE_ONLY)
    project.configure(target("needs_more"))
    project.tests(PLAN_TESTS)
    result = project.run()
    result.assert_outcomes(failed=2)
    printed = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ClientCapabilityError: tool 'plan' needs the client capability sampling.tools, which "
            "the plugin's client does not declare (Client did not declare the sampling.tools capability required by "
            "resolver '*ask_model'). Give the client what it lacks: add \"sampling_capabilities\": "
            "SamplingCapability(tools=SamplingToolsCapability()) (both from mcp.types) to the dict the "
            "pytest_mcp_contract_callbacks hook in conftest.py returns (pytest-mcp-contract's docs/python-api.md, "
            "'A client that answers back')."
        ]
    )
    assert '"sampling_callback"' not in printed  # it was given: the advice is what is missing beside it
    # Do as it says: add that key, its classes imported from where it names.
    advised = re.search(r'add ("sampling_capabilities": (\w+)\((\w+)=(\w+)\(\)\)) \(both from ([\w.]+)\)', printed)
    assert advised is not None
    _, given, outer, _, inner, module = advised.group(0, 1, 2, 3, 4, 5)
    project.pytester.makeconftest(
        f"from {module} import {outer}, {inner}\n"
        + SAMPLE_ONLY.replace('{"sampling_callback": sample}', f'{{"sampling_callback": sample, {given}}}')
    )
    project.run().assert_outcomes(passed=2)


def test_a_capability_no_client_of_the_sdk_declares_is_said_so_without_a_key_to_give(project: Project) -> None:
    project.configure(target("needs_more"))
    project.tests('def test_track(mcp_contract):\n    mcp_contract.call_tool("track", {"job": "nightly"})\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ClientCapabilityError: tool 'track' needs the client capability tasks, which "
            "the plugin's client does not declare (Client did not declare the tasks capability). The installed "
            f"SDK's client (mcp {SDK_VERSION}) cannot declare the capability tasks, so the plugin's client cannot "
            "either: leave this tool out of the tests (fuzzing skips it)."
        ]
    )
    result.stdout.no_fnmatch_line("*Give the client*")


def test_an_sdk_without_client_extensions_is_said_to_lack_them_not_advised_a_key() -> None:
    """mcp 1.x's client has no extensions: the message says so (the 1.x legs run tests/sdk only)."""
    told = messages.capability_missing(
        "stamp",
        ["extensions"],
        "Client did not declare required extension 'com.example/stamps'",
        extensions=["com.example/stamps"],
        give=[],
        cannot=["extensions"],
        sdk="1.27.0",
        adding=False,
    )
    assert told == (
        "tool 'stamp' needs the client extension 'com.example/stamps', which the plugin's client does not declare "
        "(Client did not declare required extension 'com.example/stamps'). The installed SDK (mcp 1.27.0) cannot "
        "declare client extensions: a newer mcp's Client does (mcp 2.3's does), through the hook's \"extensions\" "
        "key. Upgrade mcp to call this tool, or leave it out of the tests (fuzzing skips it)."
    )


TICKETS_BY_TRANSPORT = {
    "in process": target("tickets"),
    "stdio": f"stdio:{sys.executable} {SERVERS / 'tickets.py'}",
}

ADVERTISE = "from mcp.client import advertise"

REPORT_TEST = """
def test_report(mcp_contract):
    assert mcp_contract.call_tool("report").structured_content == {"rows": 3}
"""


@pytest.mark.parametrize("transport", list(TICKETS_BY_TRANSPORT))
def test_a_result_type_a_client_extension_claims_is_judged_as_the_sdks_client_receives_it(
    project: Project, transport: str
) -> None:
    # report answers with a ticket, an extension's result type; the extension's claim finishes it with a
    # request of its own. Declared with advertise() alone, the client cannot finish it: the message says so,
    # and what to give instead.
    project.pytester.syspathinsert(SERVERS.parent)
    project.configure(TICKETS_BY_TRANSPORT[transport])
    project.tests(REPORT_TEST)
    project.pytester.makeconftest(_hook('{"extensions": [advertise("com.example/tickets")]}', imports=ADVERTISE))
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ClientCapabilityError: tool 'report' answered with a result of type "
            "'com.example/ticket', an extension's, which the client cannot finish: it declares the extension "
            "(advertise(...) declares it, no more) but has no claim that resolves that result. Give the extension's "
            "own ClientExtension instance, whose claims() resolve 'com.example/ticket', under \"extensions\" in the "
            "dict the pytest_mcp_contract_callbacks hook in conftest.py returns (pytest-mcp-contract's "
            "docs/python-api.md, 'A client that answers back')."
        ]
    )
    result.stdout.no_fnmatch_line("*answer-unreadable*")
    # As it says: the extension's own instance. Its claim's result is what the SDK's client returns, judged.
    project.pytester.makeconftest(
        _hook('{"extensions": [ClientTickets()]}', imports="from contract_servers.tickets import ClientTickets")
    )
    result = project.run()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["report  —       —           1           0         0        0"])


def test_a_claimed_results_finished_answer_is_held_to_the_tools_contract(project: Project) -> None:
    project.pytester.syspathinsert(SERVERS.parent)
    project.configure(f"stdio:{sys.executable} {SERVERS / 'tickets.py'} wrong")
    project.tests(REPORT_TEST)
    project.pytester.makeconftest(
        _hook('{"extensions": [ClientTickets()]}', imports="from contract_servers.tickets import ClientTickets")
    )
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       [[]structured-invalid[]] at /rows",
            "E         'three' is not of type 'integer' (schema keyword 'type' at /properties/rows/type)",
        ]
    )
