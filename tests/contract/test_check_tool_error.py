"""``tool-error``: the call failed and the test did not say it expected that; the message carries the cause."""

from __future__ import annotations

import logging
import re
import sys

import pytest
from conftest import SERVERS, Project, failing_calls, make_result, make_tool, target, violation_lines

from pytest_mcp_contract import ContractViolationError, check_result


def test_crash_shows_the_server_side_cause(project: Project) -> None:
    result = failing_calls(project, "drops_required_field", "crashes", server=target("sdk_broken", "mcp"))
    result.stdout.fnmatch_lines(
        violation_lines(
            "drops_required_field",
            "tool-error",
            "the tool returned is_error=True with this text:",
            "  Error executing tool drops_required_field",
            "server-side cause: ValidationError (Reading): celsius: Field required",
            # The direction that happened, not both.
            next_step="An error the test did not expect: fix the cause shown above, or pass expect_error=True if "
            "the test wants it.",
        )
    )
    result.stdout.fnmatch_lines(
        [
            "E           Error executing tool crashes",
            "E         server-side cause: ValueError: upstream returned 503 (raised at *sdk_broken.py:* in crashes)",
        ]
    )


CRASHING = """
from mcp.server import MCPServer

mcp = MCPServer("crashing")


@mcp.tool()
def crashes() -> int:
    raise ValueError("upstream returned 503")


if __name__ == "__main__":
    mcp.run()
"""


def test_a_crash_over_stdio_points_to_the_servers_log_where_its_cause_is(project: Project) -> None:
    # The wire says only "Error executing tool crashes" (SDK 2.x): the next step must not claim a
    # cause is shown above, and the server's stderr under the failure holds it.
    project.pytester.makepyfile(crashing=CRASHING)
    result = failing_calls(project, "crashes", server=f"stdio:{sys.executable} crashing.py")
    result.stdout.fnmatch_lines(
        [
            "E       [[]tool-error[]]",
            "E         the tool returned is_error=True with this text:",
            "E           Error executing tool crashes",
            "E       Next step:",
            "E       - tool-error: An error the test did not expect, and the answer does not say why: look in the "
            "server's log (a stdio server's stderr is shown below the failure); fix the cause, or pass "
            "expect_error=True if the test wants it.",
            "*- Captured stderr call from the stdio server *",
            "*ValueError: upstream returned 503*",
        ]
    )
    result.stdout.no_fnmatch_line("*cause shown above*")


@pytest.mark.parametrize(
    ("texts", "says_why"),
    [
        (["Error executing tool probe"], False),  # the SDK 2.x's whole answer over the wire
        ([], False),
        (["Error executing tool probe: disk full"], True),  # the SDK 1.x adds the cause
        (["no forecast for Atlantis"], True),  # the tool's own words
    ],
)
def test_the_next_step_of_a_tool_error_points_to_the_log_only_when_the_answer_says_nothing(
    texts: list[str], says_why: bool
) -> None:
    [violation] = check_result(make_tool(None), make_result(None, *texts, is_error=True))
    message = str(ContractViolationError([violation], tool="probe"))
    assert ("fix the cause shown above" in message) is says_why
    assert ("the answer does not say why: look in the server's log" in message) is not says_why


def test_a_crash_while_the_sdk_converts_the_value_is_a_tool_error_with_its_own_cause(project: Project) -> None:
    project.configure(target("fuzz_targets", "mcp"))
    project.tests(
        """
        def test_logo(mcp_contract):
            mcp_contract.call_tool("logo", {"name": "acme"})
        """
    )
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       [[]tool-error[]]",
            "E           Error executing tool logo",
            "E         server-side cause: FileNotFoundError: *no-such-logo-4.png*",
        ]
    )
    result.stdout.no_fnmatch_line("*structured-invalid*")


def test_expected_errors_pass_and_unexpected_success_fails(project: Project) -> None:
    project.configure(target("sdk_broken", "mcp"))
    project.tests(
        """
        import pytest
        from pytest_mcp_contract import ContractViolationError

        def test_expected(mcp_contract):
            result = mcp_contract.call_tool("refuses", {"city": "Atlantis"}, expect_error=True)
            assert result.is_error
            assert result.content[0].text == "Error executing tool refuses: unknown city 'Atlantis'"

        def test_expected_but_succeeded(mcp_contract):
            mcp_contract.call_tool("returns_datetime", expect_error=True)
        """
    )
    result = project.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       [tool-error]",
            "E         expect_error=True, but the tool succeeded (is_error is not set)",
            "E       Next step:",
            "E       - tool-error: An expected error that did not come: check the call's arguments, or drop "
            "expect_error.",
        ]
    )


@pytest.mark.parametrize("over", ["in process", "stdio"])
def test_a_json_rpc_error_is_an_input_crash_unless_expected(project: Project, over: str) -> None:
    # The same verdict the fuzzer gives the same answer: arguments the input schema allows got no result.
    server = target("wire") if over == "in process" else f"stdio:{sys.executable} {SERVERS / 'wire.py'}"
    project.configure(server)
    project.tests(
        """
        import pytest
        from mcp.shared.exceptions import MCPError

        def test_unexpected(mcp_contract):
            mcp_contract.call_tool("protocol_error")

        def test_expected(mcp_contract):
            with pytest.raises(MCPError, match="quota exhausted"):
                mcp_contract.call_tool("protocol_error", expect_error=True)

        def test_refused_arguments(mcp_contract):
            mcp_contract.call_tool("refuses_bad_arguments", {"n": "one"}, validate_arguments=False)
        """
    )
    result = project.run()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ test_unexpected _*",
            "E       [[]input-crash[]]",
            "E         the server answered tools/call with a JSON-RPC error instead of a result: JSON-RPC error "
            "-32001: quota exhausted",
            "E       - input-crash: Arguments the input schema allows must get an answer: * a test that wants this "
            "error passes expect_error=True.",
            # Arguments the schema refuses may get a JSON-RPC error: only the test did not expect one.
            "*_ test_refused_arguments _*",
            "E       [[]tool-error[]]",
            "E         the server answered tools/call with a JSON-RPC error instead of a result: JSON-RPC error "
            "-32001: quota exhausted",
        ]
    )
    # The message says it all: no chained traceback through the SDK's frames (12 KB of them, once).
    output = result.stdout.str()
    assert "The above exception was the direct cause" not in output
    assert "mcp/shared/jsonrpc_dispatcher.py" not in output
    assert len(output) < 4000


def test_cause_hidden_by_the_log_level_is_explained(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        quiet="""
from mcp.server import MCPServer
mcp = MCPServer("quiet", log_level="CRITICAL")

@mcp.tool()
def crash() -> int:
    raise RuntimeError("hidden")
"""
    )
    project.configure("quiet.py:mcp")
    project.tests("def test_it(mcp_contract):\n    mcp_contract.call_tool('crash')\n")
    server_logger = logging.getLogger("mcp.server.mcpserver.server")
    was = server_logger.level
    server_logger.setLevel(logging.CRITICAL)
    try:
        result = project.run()
    finally:
        server_logger.setLevel(was)
    result.stdout.fnmatch_lines(
        [
            "E         server-side cause: not recorded: the log level hides the SDK's error log, where the cause is "
            "written (create the MCPServer with log_level='ERROR' or lower to see it here)"
        ]
    )


def test_error_text_is_shown_in_full_lines() -> None:
    result = make_result(None, "Error executing tool x: 1 validation error\ncity\n  Field required", is_error=True)
    [violation] = check_result(make_tool(None, "x"), result)
    assert violation.message == (
        "the tool returned is_error=True with this text:\n"
        "  Error executing tool x: 1 validation error\n"
        "  city\n"
        "    Field required"
    )


def test_error_results_are_not_checked_against_the_schema() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    result = make_result({"n": "not checked"}, "upstream down", is_error=True)
    assert check_result(make_tool(schema), result, expect_error=True) == []


def test_concurrent_calls_keep_their_own_causes(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        flaky="""
import anyio
from mcp.server import MCPServer

class BothFinishFirst:
    \"\"\"Holds each tools/call answer until both calls have failed (and logged why).\"\"\"
    def __init__(self):
        self.done = 0
        self.both = anyio.Event()

    async def __call__(self, ctx, call_next):
        result = await call_next(ctx)
        if ctx.method == "tools/call":
            self.done += 1
            if self.done == 2:
                self.both.set()
            await self.both.wait()
        return result

mcp = MCPServer("flaky", log_level="ERROR", middleware=[BothFinishFirst()])

@mcp.tool()
async def divide(a: int, b: int, delay: float) -> float:
    await anyio.sleep(delay)
    if b == 0:
        raise ZeroDivisionError("b is zero")
    raise KeyError(f"no entry {a}")
"""
    )
    project.configure("flaky.py:mcp")
    project.tests(
        """
        import anyio
        import pytest
        from pytest_mcp_contract import ContractViolationError

        @pytest.fixture
        def anyio_backend():
            return "asyncio"

        @pytest.mark.anyio
        async def test_two_at_once(mcp_contract_async):
            messages = {}

            async def call(label, arguments):
                with pytest.raises(ContractViolationError) as caught:
                    await mcp_contract_async.call_tool("divide", arguments)
                messages[label] = str(caught.value)

            async with anyio.create_task_group() as group:
                group.start_soon(call, "zero", {"a": 1, "b": 0, "delay": 0.05})
                group.start_soon(call, "key", {"a": 7, "b": 1, "delay": 0.01})
            assert "server-side cause: ZeroDivisionError: b is zero" in messages["zero"]
            assert "server-side cause: KeyError: 'no entry 7'" in messages["key"]
        """
    )
    project.run().assert_outcomes(passed=1)


def test_the_cause_is_told_once_not_again_as_captured_stderr_and_log(project: Project) -> None:
    project.configure(target("sdk_broken", "mcp"))
    project.tests(
        """
        import logging

        def test_crash(mcp_contract):
            mcp_contract.call_tool("crashes")

        def test_a_log_of_the_tests_own_stays(mcp_contract):
            logging.getLogger("mcp.server.mcpserver.server").error("the test's own line")
            assert False
        """
    )
    result = project.run("-p", "no:randomly")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["E         server-side cause: ValueError: upstream returned 503 (raised at *)"])
    crash = result.stdout.str().split("_ test_crash _")[1].split("_ test_a_log")[0]
    assert "raised an unexpected exception" not in crash
    assert "Traceback" not in crash
    assert "Captured" not in crash
    # Records the plugin did not turn into a cause are logged as ever.
    result.stdout.fnmatch_lines(["*Captured log call*", "ERROR    mcp.server.mcpserver.server:*the test's own line"])


def test_where_a_cause_was_raised_names_the_authors_frame_never_the_plugins() -> None:
    from pytest_mcp_contract._errors import McpContractError
    from pytest_mcp_contract._sdk.errors import describe_cause
    from pytest_mcp_contract._servers.factory import parse

    # Raised in the plugin's own code (as a watch a call passed through may raise): the deepest frame that
    # is not the plugin's is the caller's, here this test.
    with pytest.raises(McpContractError, match="is not a literal") as plugins:
        parse("create", "(zone=z)")
    told = describe_cause(plugins.value)
    assert told.startswith("TargetError: the argument z of 'create(zone=z)' is not a literal")
    assert re.search(r"\(raised at \S*test_check_tool_error\.py:\d+ in test_where_a_cause_was_raised\w*\)$", told)
    assert "pytest_mcp_contract" not in told

    def crashes() -> None:
        raise ValueError("upstream returned 503")

    with pytest.raises(ValueError, match="503") as authors:
        crashes()
    assert re.fullmatch(
        r"ValueError: upstream returned 503 \(raised at \S*test_check_tool_error\.py:\d+ in crashes\)",
        describe_cause(authors.value),
    )
