"""Bad input gets a clear error and nothing hangs: unknown names, odd arguments, failing listings, slow tools."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from conftest import HANG, Project, make_tool, target
from mcp import types

from pytest_mcp_contract import McpContract, McpContractWarning, check_result


def test_unknown_tool_lists_names_and_the_closest(project: Project) -> None:
    project.configure(target("wire"))
    project.tests("def test_it(mcp_contract):\n    mcp_contract.call_tool('bad_typo')\n")
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.UnknownToolError: the server has no tool named 'bad_typo'. Did you mean "
            "'bad_type'? Available tools: bad_type, big, empty_text, errored, good, *"
        ]
    )


SHARED_WORDS = """
from mcp.server import MCPServer

mcp = MCPServer("clock")

@mcp.tool()
def convert_time(source_timezone: str, time: str, target_timezone: str) -> str:
    return time

@mcp.tool()
def calculate(expression: str) -> float:
    return 2.0
"""


def test_did_you_mean_also_matches_on_shared_words(project: Project) -> None:
    # get_time is spelt close to convert_time; time_convert is not, but has its words, and expr begins expression.
    project.pytester.makepyfile(clock=SHARED_WORDS)
    project.configure("clock.py:mcp")
    project.tests(
        """
        def test_tool(mcp_contract):
            mcp_contract.call_tool("get_time", {"time": "12:00"})

        def test_words(mcp_contract):
            mcp_contract.call_tool("time_convert", {"time": "12:00"})

        def test_argument(mcp_contract):
            mcp_contract.call_tool("calculate", {"expr": "1 + 1"})

        def test_nothing_shared(mcp_contract):
            mcp_contract.call_tool("weather", {})
        """
    )
    result = project.run("-p", "no:randomly")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.UnknownToolError: the server has no tool named 'get_time'. Did you mean "
            "'convert_time'? Available tools: calculate, convert_time",
            "E       pytest_mcp_contract.UnknownToolError: the server has no tool named 'time_convert'. Did you mean "
            "'convert_time'? Available tools: calculate, convert_time",
            "E       - at /expr: the input_schema has no 'expr': did you mean 'expression'?",
            "E       pytest_mcp_contract.UnknownToolError: the server has no tool named 'weather'. Available tools: "
            "calculate, convert_time",
        ]
    )


def test_a_tool_added_after_listing_is_found(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        growing="""
from mcp.server import MCPServer
mcp = MCPServer("growing")

@mcp.tool()
def first() -> int:
    return 1
"""
    )
    project.configure("growing.py:mcp")
    project.tests(
        """
        from growing import mcp

        def test_late_tool(mcp_contract):
            @mcp.tool()
            def second() -> int:
                return 2
            assert mcp_contract.call_tool("second").structured_content == {"result": 2}
        """
    )
    project.run().assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [(["London"], "list: ['London']"), ("London", "str: 'London'"), (42, "int: 42")],
)
def test_arguments_must_be_a_dict(wire: McpContract, arguments: Any, shown: str) -> None:
    with pytest.raises(TypeError) as caught:
        wire.call_tool("good", arguments)
    assert str(caught.value) == f"arguments for tool 'good' must be a dict of argument names to values, got {shown}"


def test_a_listing_that_fails_is_reported_at_setup(project: Project) -> None:
    project.configure(None)
    project.pytester.makeconftest(
        """
        import pytest
        from contract_servers.wire import build

        @pytest.fixture(scope="session")
        def mcp_contract_server():
            return build([], list_error=ConnectionError("inventory database is down"))
        """
    )
    project.tests("def test_one(mcp_contract):\n    pass\n\ndef test_two(mcp_contract):\n    pass\n")
    result = project.run()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of test_one _*",
            "tools/list failed on Server 'wire': JSON-RPC error -32603: inventory database is down (cause: "
            "ConnectionError: inventory database is down (raised at *wire.py:* in list_tools)). Fix the server's "
            "tool listing; no tool can be checked without it.",
            "*_ ERROR at setup of test_two _*",
        ]
    )
    result.stdout.no_fnmatch_line("*The above exception*")


SLOW_SERVER = """
import time
import anyio
from mcp.server import MCPServer

mcp = MCPServer("slow")

@mcp.tool()
async def never_returns() -> int:
    await anyio.sleep_forever()
    return 0

@mcp.tool()
def blocks_a_thread(seconds: float) -> int:
    time.sleep(seconds)
    return 1

@mcp.tool()
def quick() -> int:
    return 2
"""


def test_a_hanging_tool_times_out_and_the_session_goes_on(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(slow=SLOW_SERVER)
    project.configure(
        "slow.py:mcp", mcp_contract_timeout="0.5", filterwarnings="default::pytest_mcp_contract.McpContractWarning"
    )
    project.tests(
        """
        import time

        def test_async_hang(mcp_contract):
            mcp_contract.call_tool("never_returns")

        def test_thread_hang(mcp_contract):
            mcp_contract.call_tool("blocks_a_thread", {"seconds": 2})

        def test_per_call_timeout(mcp_contract):
            mcp_contract.call_tool("blocks_a_thread", {"seconds": 1.0}, timeout=0.1)

        def test_next_call_works(mcp_contract):
            assert mcp_contract.call_tool("quick").structured_content == {"result": 2}
        """
    )
    result = project.run()
    result.assert_outcomes(failed=3, passed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ToolTimeoutError: tool 'never_returns' did not answer within 0.5 s, so the "
            "call was abandoned and the session goes on. If the tool is just slow, raise the limit with "
            "call_tool(..., timeout=...) or the ini option mcp_contract_timeout; otherwise find where it blocks.",
        ]
    )
    result.stdout.fnmatch_lines(
        ["E       pytest_mcp_contract.ToolTimeoutError: tool 'blocks_a_thread' did not answer within 0.1 s*"]
    )
    # A thread blocked for 2 s cannot be interrupted: closing waits one timeout for it, then says so.
    result.stdout.fnmatch_lines(
        [
            "*McpContractWarning: the session to MCPServer 'slow' did not close within 0.5 s: tool "
            "'blocks_a_thread' timed out earlier and is still running (a sync tool blocked "
            "in its worker thread cannot be interrupted); the session closes in the background when that ends"
        ]
    )


def test_a_sync_tool_stuck_for_good_does_not_keep_pytest_from_exiting(project: Project) -> None:
    project.pytester.makepyfile(
        stuck="""
        import time
        from mcp.server import MCPServer

        mcp = MCPServer("stuck")

        @mcp.tool()
        def hang() -> int:
            time.sleep(3600)
            return 1
        """
    )
    project.configure("stuck.py:mcp", mcp_contract_timeout="1")
    project.tests("def test_hang(mcp_contract):\n    mcp_contract.call_tool('hang')\n")
    # Its own process: the interpreter's exit is what is tested. A run that waited for the tool's
    # 3600 s would raise pytester's TimeoutExpired (a hang guard, far above the 1 s + 5 s it takes).
    result = project.pytester.runpytest_subprocess("-W", "ignore::pytest_mcp_contract.McpContractWarning", timeout=HANG)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # pytest's own status
    result.assert_outcomes(failed=1)
    result.stderr.fnmatch_lines(
        [
            "pytest-mcp-contract: tool 'hang' still running in its worker thread after its timeout (a sync tool "
            "cannot be interrupted); ending the process without waiting for it."
        ]
    )


def test_deep_nesting_never_raises_recursion_error() -> None:
    deep: Any = 1
    for _ in range(5000):
        deep = {"a": deep}
    schema = {"type": "object", "properties": {"a": {"$ref": "#"}}}
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text='{"a": ' * 5000 + "1" + "}" * 5000)], structured_content=deep
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        violations = check_result(make_tool(schema), result)
    assert violations == []
    assert [str(w.message) for w in caught if issubclass(w.category, McpContractWarning)] == [
        "the result of tool 'probe' is nested too deeply for Python to check, so its structured_content "
        "and content were not fully checked"
    ]


def test_deep_nesting_through_a_session_is_a_clear_failure(project: Project) -> None:
    project.configure(None)
    project.pytester.makeconftest(
        """
        import pytest
        from contract_servers.wire import WireTool, build

        deep = 1
        for _ in range(3000):
            deep = {"a": deep}

        @pytest.fixture(scope="session")
        def mcp_contract_server():
            return build([WireTool("deep", {"type": "object"}, deep, ["{}"])])
        """
    )
    project.tests("def test_it(mcp_contract):\n    mcp_contract.call_tool('deep')\n")
    result = project.run()
    result.assert_outcomes(failed=1)
    # The server could not write its own answer: arguments its input schema allows got no result.
    result.stdout.fnmatch_lines(
        [
            "E       [[]input-crash[]]",
            "E         the server answered tools/call with a JSON-RPC error instead of a result: JSON-RPC error "
            "-32603: *",
        ]
    )
    result.stdout.no_fnmatch_line("*RecursionError*pytest_mcp_contract*")


def test_a_2000_item_result(wire: McpContract) -> None:
    result = wire.call_tool("big")
    assert result.structured_content is not None
    assert len(result.structured_content["result"]) == 2000
    broken = types.CallToolResult(
        content=[types.TextContent(type="text", text=str(i if i != 1500 else -1)) for i in range(2000)],
        structured_content={"result": list(range(2000))},
    )
    [violation] = wire.check("big", broken)
    assert (violation.check, violation.path) == ("content-mismatch", "/result/1500")
    assert violation.message == 'text block 1500 says "-1" but structured_content /result/1500 is 1500'


def test_a_closed_session_says_so(wire: McpContract) -> None:
    from contract_servers.wire import server

    contract = McpContract(server, timeout=5, check_formats=False)
    contract.close()
    contract.close()  # closing twice is harmless
    with pytest.raises(RuntimeError, match="the MCP session to Server 'wire' is closed"):
        contract.call_tool("good")


def test_pytest_outcomes_raised_inside_the_loop_reach_the_test(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        stubbed="""
import pytest
from mcp.server import MCPServer

mcp = MCPServer("stubbed")

@mcp.tool()
async def must_not_be_called() -> int:
    pytest.fail("the stub was called")
    return 0

@mcp.tool()
def fine() -> int:
    return 1
"""
    )
    project.configure("stubbed.py:mcp", mcp_contract_timeout="5")
    project.tests(
        """
        import pytest

        def test_fail_inside_a_tool(mcp_contract):
            mcp_contract.call_tool("must_not_be_called")

        def test_skip_inside_run(mcp_contract):
            async def helper():
                pytest.skip("not today")
            mcp_contract.run(helper())

        def test_session_still_works(mcp_contract):
            assert mcp_contract.call_tool("fine").structured_content == {"result": 1}
        """
    )
    result = project.run()
    result.assert_outcomes(failed=1, skipped=1, passed=1)
    result.stdout.fnmatch_lines(["*Failed: the stub was called*"])


def test_opening_a_sync_session_inside_a_running_loop_says_why() -> None:
    import anyio
    from contract_servers.wire import server

    async def inside() -> None:
        McpContract(server)

    with pytest.raises(RuntimeError, match="in async tests use mcp_contract_async"):
        anyio.run(inside)


RELISTING_HANGS = """
import anyio
from mcp import types
from mcp.server import Server

armed = False


async def list_tools(_ctx, _params):
    global armed
    if armed:  # the listing after a call of `arm` never answers
        armed = False
        await anyio.sleep(3600)
    return types.ListToolsResult(tools=[types.Tool(name="arm", input_schema={"type": "object"})])


async def call_tool(_ctx, params):
    global armed
    armed = True
    return types.CallToolResult(content=[types.TextContent(type="text", text="armed")])


server = Server("relisting", on_list_tools=list_tools, on_call_tool=call_tool)
"""


def test_looking_up_an_unlisted_tool_again_stays_within_the_calls_timeout(project: Project) -> None:
    """A name the first listing lacks makes the client list the tools again: a server that never
    answers that listing is the call timing out, sync or async, not a test that hangs."""
    project.pytester.makepyfile(relisting=RELISTING_HANGS)
    project.configure("relisting.py:server", mcp_contract_scope="function")
    project.tests(
        """
        import pytest

        def test_sync(mcp_contract):
            mcp_contract.call_tool("arm")
            mcp_contract.call_tool("unlisted", timeout=0.5)

        @pytest.mark.anyio
        async def test_async(mcp_contract_async):
            await mcp_contract_async.call_tool("arm")
            await mcp_contract_async.call_tool("unlisted", timeout=0.5)

        @pytest.fixture
        def anyio_backend():
            return "asyncio"
        """
    )
    result = project.run()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        ["E       pytest_mcp_contract.ToolTimeoutError: tool 'unlisted' did not answer within 0.5 s, so the call*"] * 2,
        consecutive=False,
    )
