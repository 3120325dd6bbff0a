"""The public Python API works without a pytest run: plain scripts, CI jobs, other test runners."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from conftest import HANG, SERVERS

import pytest_mcp_contract
from pytest_mcp_contract import McpContract


def test_public_names() -> None:
    assert sorted(pytest_mcp_contract.__all__) == sorted(
        [
            "CHECKS",
            "AsyncMcpContract",
            "CheckId",
            "ClientCapabilityError",
            "ContractViolationError",
            "InvalidArgumentsError",
            "McpContract",
            "McpContractError",
            "McpContractWarning",
            "NoResultError",
            "SessionError",
            "ToolTimeoutError",
            "UnknownToolError",
            "Violation",
            "__version__",
            "check_result",
            "check_tool",
        ]
    )
    for name in pytest_mcp_contract.__all__:
        assert getattr(pytest_mcp_contract, name) is not None


def test_every_exported_class_and_function_is_named_where_users_import_it() -> None:
    names = set(pytest_mcp_contract.__all__) - {"CHECKS", "CheckId", "__version__"}  # values, not definitions
    where = {name: getattr(pytest_mcp_contract, name).__module__ for name in names}
    assert where == dict.fromkeys(names, "pytest_mcp_contract")


@pytest.mark.parametrize(
    ("name", "builtin"),
    [
        ("ClientCapabilityError", RuntimeError),
        ("ContractViolationError", AssertionError),
        ("InvalidArgumentsError", TypeError),
        ("SessionError", RuntimeError),
        ("ToolTimeoutError", TimeoutError),
        ("UnknownToolError", LookupError),
    ],
)
def test_every_public_error_is_an_mcp_contract_error_and_its_builtin_kind(name: str, builtin: type) -> None:
    error = getattr(pytest_mcp_contract, name)
    assert issubclass(error, pytest_mcp_contract.McpContractError)
    assert issubclass(error, builtin)
    assert error.__module__ == "pytest_mcp_contract"


SCRIPT = """
import sys
import anyio
from mcp import Client, types

sys.path.insert(0, {servers!r})
from sdk_broken import mcp

from pytest_mcp_contract import check_result, check_tool


async def main() -> None:
    async with Client(mcp) as client:
        tools = {{tool.name: tool for tool in (await client.list_tools()).tools}}
        print(check_tool(tools["returns_datetime"], server=mcp)[0].check)
        print(check_tool(tools["returns_datetime"]))  # without the server object nothing can tell
        request = types.CallToolRequest(params=types.CallToolRequestParams(name="not_a_number"))
        result = await client.session.send_request(request, types.CallToolResult)
        for violation in check_result(tools["not_a_number"], result, server=mcp):
            print(violation)


anyio.run(main)
"""


def test_checks_run_in_a_plain_script() -> None:
    script = textwrap.dedent(SCRIPT.format(servers=str(SERVERS)))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "silent-opt-out",
        "[]",
        "[structured-invalid] not_a_number at /result: None is not of type 'number' (schema keyword 'type' at "
        "/properties/result/type)",
        "[content-mismatch] not_a_number at /result: text block 0 says NaN but structured_content /result is null: NaN is not JSON (JSON has no NaN or Infinity); a tool that computes it must send a number or null in both",
    ]


FORGOTTEN = """
import sys
sys.path.insert(0, {servers!r})
from sdk_kinds import mcp
from pytest_mcp_contract import McpContract

contract = McpContract(mcp)  # never closed: a sync tool's worker thread must not keep Python alive
print(contract.call_tool("t_int").structured_content)
"""


def test_a_session_nobody_closed_does_not_keep_python_alive() -> None:
    script = textwrap.dedent(FORGOTTEN.format(servers=str(SERVERS)))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{'result': 42}"


def test_the_sync_client_is_a_context_manager() -> None:
    from contract_servers.sdk_kinds import mcp

    with McpContract(mcp) as contract:
        assert contract.call_tool("t_int").structured_content == {"result": 42}
    with pytest.raises(RuntimeError, match="is closed"):
        contract.call_tool("t_int")


def test_importing_the_package_does_not_import_the_sdk_hypothesis_or_syrupy() -> None:
    # Each loads when a run needs it; the plugin module loads at every pytest start of a repo with it installed.
    heavy = ("mcp", "hypothesis", "syrupy", "jsonschema", "regex", "pydantic", "anyio")
    code = f"import sys, pytest_mcp_contract, pytest_mcp_contract.plugin; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG, check=True)
    assert done.stdout.strip() == "[]"


def test_a_run_with_no_server_configured_does_not_import_the_sdk(pytester: pytest.Pytester) -> None:
    # Every pytest start of a repo that installed the plugin pays what its configure imports: the SDK
    # (0.7 s), and the checks' jsonschema and regex engine, only when a server is configured or a fixture
    # asks for one. (anyio and syrupy load their own pytest plugins: switched off here, they load with ours.)
    heavy = ("mcp", "mcp_types", "jsonschema", "regex", "pydantic", "anyio", "syrupy")
    pytester.makepyfile(
        test_start="def test_start():\n    pass\n",
        conftest=f"import sys\n\ndef pytest_sessionfinish():\n    print('LOADED', [m for m in {heavy!r} if m in sys.modules])\n",
    )
    result = pytester.runpytest_subprocess("-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:syrupy", "-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*LOADED []*"])


def test_the_checks_import_without_pytest() -> None:
    # A script or another test runner may judge answers: the pure checks, the errors and the messages
    # must not pull pytest in (pyproject.toml's import contract says the same of every import).
    code = (
        "import sys\n"
        "import pytest_mcp_contract._contract.checks, pytest_mcp_contract._contract.expect\n"
        "import pytest_mcp_contract._errors, pytest_mcp_contract._messages\n"
        "from pytest_mcp_contract import check_result, check_tool\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('pytest', '_pytest')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
