"""The fixtures: ``mcp_contract`` (sync), ``mcp_contract_async`` (anyio), ``mcp_contract_server``, and scopes."""

from __future__ import annotations

import textwrap

import pytest
from conftest import Project, target

# A server that logs each session (its lifespan) to a file, so a test can count sessions.
LIFESPAN_SERVER = """
import contextlib, pathlib
from mcp.server import MCPServer

LOG = pathlib.Path(__file__).with_name("sessions.log")

@contextlib.asynccontextmanager
async def lifespan(server):
    with LOG.open("a") as log:
        log.write("open\\n")
    yield {}
    with LOG.open("a") as log:
        log.write("close\\n")

mcp = MCPServer("counted", lifespan=lifespan)

@mcp.tool()
def echo(text: str) -> str:
    return text
"""

TWO_TESTS = """
def test_one(mcp_contract):
    assert mcp_contract.call_tool("echo", {"text": "a"}).structured_content == {"result": "a"}

def test_two(mcp_contract):
    assert mcp_contract.call_tool("echo", {"text": "b"}).structured_content == {"result": "b"}
"""


def _sessions(pytester: pytest.Pytester) -> list[str]:
    return (pytester.path / "sessions.log").read_text().split()


@pytest.mark.parametrize(
    ("scope", "opened"),
    [("session", 1), ("module", 2), ("function", 4)],
)
def test_scope_sets_how_many_sessions_open(
    project: Project, pytester: pytest.Pytester, scope: str, opened: int
) -> None:
    pytester.makepyfile(counted=LIFESPAN_SERVER)
    project.configure("counted.py:mcp", mcp_contract_scope=scope)
    project.tests(TWO_TESTS, name="test_first")
    project.tests(TWO_TESTS, name="test_second")
    project.run().assert_outcomes(passed=4)
    # Every session opened was closed again by the end of the run.
    assert _sessions(pytester) == ["open", "close"] * opened


def test_session_scope_shares_one_client(project: Project) -> None:
    project.configure(target("wire"))
    project.tests(
        """
        seen = []
        def test_one(mcp_contract):
            seen.append(mcp_contract)
        def test_two(mcp_contract):
            assert mcp_contract is seen[0]
        """
    )
    project.run().assert_outcomes(passed=2)


def test_bad_scope_is_a_usage_error(project: Project) -> None:
    project.configure(target("wire"), mcp_contract_scope="class")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_scope = 'class' is not a scope; use one of session, module, function "
            "(session: one MCP session for the whole run, the default)."
        ]
    )


@pytest.mark.parametrize("value", ["soon", "0", "-1", "nan"])
def test_bad_timeout_is_a_usage_error(project: Project, value: str) -> None:
    project.configure(target("wire"), mcp_contract_timeout=value)
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: mcp_contract_timeout = '{value}' is not a timeout; give a positive number of seconds, "
            "e.g. mcp_contract_timeout = 30"
        ]
    )


def test_tools_reads_every_page(project: Project) -> None:
    project.configure(None)
    project.pytester.makeconftest(
        """
        import pytest
        from contract_servers.wire import WireTool, build

        @pytest.fixture(scope="session")
        def mcp_contract_server():
            return build([WireTool(f"tool_{i}") for i in range(5)], page_size=2)
        """
    )
    project.tests(
        """
        def test_all_pages(mcp_contract):
            assert sorted(mcp_contract.tools) == [f"tool_{i}" for i in range(5)]
            assert mcp_contract.tools["tool_4"].name == "tool_4"
        """
    )
    project.run().assert_outcomes(passed=1)


def test_client_run_and_check(project: Project) -> None:
    project.configure(target("wire"))
    project.tests(
        """
        import mcp.types as types
        import pytest
        from pytest_mcp_contract import Violation

        # A raw call is a call all the same: the server's answer is judged as any client's is.
        @pytest.mark.mcp_expect_violation("structured-invalid", tool="bad_type")
        def test_raw_access(mcp_contract):
            listing = mcp_contract.run(mcp_contract.client.list_tools())
            assert "bad_type" in [tool.name for tool in listing.tools]
            request = types.CallToolRequest(params=types.CallToolRequestParams(name="bad_type", arguments={}))
            raw = mcp_contract.run(mcp_contract.client.session.send_request(request, types.CallToolResult))
            assert mcp_contract.check("bad_type", raw) == [
                Violation(
                    "structured-invalid",
                    "bad_type",
                    "'x' is not of type 'integer' (schema keyword 'type' at /properties/n/type)",
                    "/n",
                )
            ]
            assert mcp_contract.check("good", raw) == [
                Violation(
                    "structured-invalid",
                    "good",
                    "'x' is not of type 'integer' (schema keyword 'type' at /properties/n/type)",
                    "/n",
                )
            ]
        """
    )
    project.run().assert_outcomes(passed=1)


def test_no_server_configured(project: Project) -> None:
    project.configure(None)
    project.tests("def test_it(mcp_contract):\n    pass\n")
    result = project.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "no MCP server is configured for pytest-mcp-contract. Set it in one line, e.g. in pyproject.toml:",
            "    [tool.pytest.ini_options]",
            '    mcp_contract_server = "your_package.server:mcp"',
            "or pass --mcp-contract-server TARGET, or override the mcp_contract_server fixture in conftest.py.",
        ]
    )


def test_server_fixture_override_and_per_folder_servers(project: Project, pytester: pytest.Pytester) -> None:
    """A folder with its own server gets its own session, never the one cached for another folder."""
    project.configure(None)
    pytester.makeconftest(
        """
        import pytest
        from mcp.server import MCPServer

        @pytest.fixture(scope="session")
        def mcp_contract_server():
            server = MCPServer("top")
            @server.tool()
            def where() -> str:
                return "top"
            return server
        """
    )
    sub = pytester.mkdir("sub")
    (sub / "conftest.py").write_text(
        textwrap.dedent(
            """
            import pytest
            from mcp.server import MCPServer

            @pytest.fixture
            def mcp_contract_server():
                server = MCPServer("sub")
                @server.tool()
                def where() -> str:
                    return "sub"
                return server
            """
        )
    )
    (sub / "test_sub.py").write_text(
        "def test_sub(mcp_contract):\n    assert mcp_contract.call_tool('where').structured_content == {'result': 'sub'}\n"
    )
    project.tests(
        "def test_top(mcp_contract):\n    assert mcp_contract.call_tool('where').structured_content == {'result': 'top'}\n",
        name="test_top",
    )
    project.run().assert_outcomes(passed=2)


def test_server_fixture_returning_the_wrong_thing(project: Project) -> None:
    project.configure(None)
    project.pytester.makeconftest(
        "import pytest\n@pytest.fixture\ndef mcp_contract_server():\n    return 'weather.server:mcp'\n"
    )
    project.tests("def test_it(mcp_contract):\n    pass\n")
    result = project.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*the mcp_contract_server fixture returned a str; it must return an MCPServer, a low-level mcp.server.Server or a FastMCP server object (a server started as a command or behind a URL is set with ini mcp_contract_server or the mcp_contract_server marker)*"
        ]
    )


def test_async_fixture(project: Project) -> None:
    project.configure(target("wire"))
    project.tests(
        """
        import pytest
        from pytest_mcp_contract import ContractViolationError

        pytestmark = pytest.mark.anyio

        @pytest.fixture
        def anyio_backend():
            return "asyncio"

        async def test_good(mcp_contract_async):
            assert "good" in mcp_contract_async.tools
            result = await mcp_contract_async.call_tool("good")
            assert result.structured_content == {"n": 2}

        async def test_violation(mcp_contract_async):
            with pytest.raises(ContractViolationError) as caught:
                await mcp_contract_async.call_tool("mismatch")
            assert [v.check for v in caught.value.violations] == ["content-mismatch"]
        """
    )
    project.run().assert_outcomes(passed=2)


def test_sync_fixture_in_an_async_test_says_which_to_use(project: Project) -> None:
    project.configure(target("wire"))
    project.tests(
        """
        import pytest

        @pytest.fixture
        def anyio_backend():
            return "asyncio"

        @pytest.mark.anyio
        async def test_wrong_fixture(mcp_contract):
            mcp_contract.call_tool("good")
        """
    )
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       RuntimeError: mcp_contract is the sync fixture and cannot be used while an event loop runs "
            "in this thread; in async tests use mcp_contract_async"
        ]
    )


def test_plugin_can_be_switched_off(project: Project) -> None:
    project.configure(target("wire"))
    project.tests("def test_it(mcp_contract):\n    pass\n")
    result = project.run("-p", "no:mcp_contract")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'mcp_contract' not found*"])


def test_a_cancelled_error_from_the_awaited_code_is_its_own_outcome(project: Project) -> None:
    project.configure(target("sdk_kinds", "mcp"))
    project.tests(
        """
        import asyncio
        import pytest

        async def gives_up():
            raise asyncio.CancelledError("the code gave up by itself")

        def test_run(mcp_contract):
            with pytest.raises(asyncio.CancelledError, match="gave up by itself"):
                mcp_contract.run(gives_up())
            assert mcp_contract.call_tool("t_int").structured_content == {"result": 42}

        def test_next(mcp_contract):
            assert mcp_contract.call_tool("t_int").structured_content == {"result": 42}
        """
    )
    project.run().assert_outcomes(passed=2)
