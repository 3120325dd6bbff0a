"""Factory targets: ``module:create_server(ARGS…)`` calls the function that builds the server, with
literal arguments; sync, async and lifespan factories; what a bad factory string says; and what a
fixture override of ``mcp_contract_server`` does to the generated suite."""

from __future__ import annotations

import sys

import pytest
from conftest import SERVERS, Project, target
from docs_text import assert_says, quoted

FACTORIES = "contract_servers.factories"

CALL_ZONE = """
def test_zone(mcp_contract):
    assert mcp_contract.call_tool("zone").structured_content == {
        "timezone": "Asia/Tokyo", "label": "times are given in Asia/Tokyo"
    }
"""


def _suite_runs_with_snapshots(project: Project, pytester: pytest.Pytester, folder: str, tools: list[str]) -> None:
    """The first ``--snapshot-update`` run has the listing item and the test: the listing checks each tool
    and writes its snapshot; from then on each tool has items of its own, and a plain run passes them all."""
    created = project.run("--snapshot-update")
    created.assert_outcomes(passed=2)
    created.stdout.fnmatch_lines(
        [f"schema snapshots: {len(tools)} created", f"tool checks: {len(tools)} passed, 0 failed"]
    )
    assert sorted(path.name for path in (pytester.path / "mcp_contract_snapshots" / folder).iterdir()) == [
        f"{tool}.json" for tool in tools
    ]
    again = project.run()
    again.assert_outcomes(passed=2 * len(tools) + 2)
    again.stdout.fnmatch_lines(
        [
            f"schema snapshots: {len(tools)} matched",
            f"tool checks: {len(tools)} passed, 0 failed",
            "tool calls checked: 1, violations: 0",
        ]
    )


def test_a_module_factory_called_with_no_arguments_runs_the_whole_suite(
    project: Project, pytester: pytest.Pytester
) -> None:
    project.configure(f"{FACTORIES}:create_server()", suite=True)
    project.tests(CALL_ZONE.replace("Asia/Tokyo", "UTC"))
    header = (
        f"mcp-contract: server {FACTORIES}:create_server() (mcp_contract_server in tox.ini), scope=session, timeout=30s"
    )
    first = project.run("--collect-only")
    first.stdout.fnmatch_lines([header, "*<ContractItem listing>", "*2 tests collected*"])
    _suite_runs_with_snapshots(project, pytester, "clock", ["shift", "zone"])
    project.run("--collect-only").stdout.fnmatch_lines(
        [
            header,
            "*<ContractItem listing>",
            "*<ContractItem schema[[]shift[]]>",
            "*<ContractItem checks[[]zone[]]>",
            "*6 tests collected*",
        ]
    )


def test_a_factory_with_keyword_arguments_builds_the_server_they_describe(
    project: Project, pytester: pytest.Pytester
) -> None:
    project.configure(f"{FACTORIES}:create_server(local_tz='Asia/Tokyo')", suite=True)
    project.tests(CALL_ZONE)
    _suite_runs_with_snapshots(project, pytester, "clock", ["shift", "zone"])


def test_a_file_factory_with_a_repository_argument(project: Project, pytester: pytest.Pytester) -> None:
    # As mcp-server-git is built: serve(repository). The argument holds a colon and a parenthesis.
    repository = pytester.mkdir("repo (main): checkout")
    (repository / "README.md").write_text("hello\n")
    project.configure(target("factories", "serve(repository='repo (main): checkout')"), suite=True)
    project.tests(
        f"""
        def test_status(mcp_contract):
            assert mcp_contract.call_tool("status").structured_content == {{
                "repository": {str(repository)!r}, "files": ["README.md"]
            }}
        """
    )
    _suite_runs_with_snapshots(project, pytester, "folder", ["status"])


def test_an_app_holding_the_server_is_named_with_its_attribute(project: Project, pytester: pytest.Pytester) -> None:
    project.configure(f"{FACTORIES}:create_app(name='web').mcp", suite=True)
    project.tests(CALL_ZONE)
    _suite_runs_with_snapshots(project, pytester, "clock", ["shift", "zone"])
    project.configure(f"{FACTORIES}:application.mcp")
    project.run().assert_outcomes(passed=1)


def test_a_fixture_returning_an_app_names_the_attribute_holding_the_server(project: Project) -> None:
    project.configure(None)
    project.pytester.makeconftest(
        f"""
        import pytest
        from {FACTORIES} import create_app

        @pytest.fixture
        def mcp_contract_server():
            return create_app()
        """
    )
    project.tests(CALL_ZONE)
    result = project.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["the mcp_contract_server fixture returned an App, which holds the server as 'mcp': return its .mcp instead"]
    )


def test_positional_arguments_and_the_marker_form(project: Project) -> None:
    project.configure(f"{FACTORIES}:create_server()")
    project.tests(
        f"""
        import pytest

        @pytest.mark.mcp_contract_server("{FACTORIES}:create_server('Asia/Tokyo')")
        def test_zone(mcp_contract):
            assert mcp_contract.call_tool("zone").structured_content["timezone"] == "Asia/Tokyo"

        def test_configured(mcp_contract):
            assert mcp_contract.call_tool("zone").structured_content["timezone"] == "UTC"
        """
    )
    project.run().assert_outcomes(passed=2)


def test_an_async_factory_is_awaited(project: Project) -> None:
    project.configure(f"{FACTORIES}:create_async_server(name='async-made')", suite=True)
    project.tests(
        """
        def test_made(mcp_contract):
            assert mcp_contract.server.name == "async-made"
            assert mcp_contract.call_tool("made_by").structured_content == {"result": "an async factory"}
        """
    )
    result = project.run("--snapshot-update")
    result.assert_outcomes(passed=2)  # the test and the listing, which made the snapshot of made_by
    result.stdout.fnmatch_lines(["schema snapshots: 1 created"])


LIFESPAN_LEFT = "entered\nleft on the loop and the task that entered it, ticking: True\n"


def test_a_lifespan_is_entered_for_the_run_and_left_at_its_end(project: Project, pytester: pytest.Pytester) -> None:
    project.configure(f"{FACTORIES}:open_server(journal='journal.txt')", suite=True)
    project.tests(
        """
        from pathlib import Path

        import pytest

        def test_open(mcp_contract):
            assert Path("journal.txt").read_text() == "entered\\n"
            assert mcp_contract.call_tool("is_open").structured_content == {"result": True}

        @pytest.fixture
        def anyio_backend():  # asyncio only: anyio at its floor would add trio, which is not installed
            return "asyncio"

        @pytest.mark.anyio
        async def test_open_async(mcp_contract_async):
            assert (await mcp_contract_async.call_tool("is_open")).structured_content == {"result": True}
        """
    )
    result = project.run("--snapshot-update", "-W", "error")
    result.assert_outcomes(passed=3)  # the two tests and the listing, all on the one lifespan
    assert (pytester.path / "journal.txt").read_text() == LIFESPAN_LEFT
    output = result.stdout.str() + result.stderr.str()
    assert "Task was destroyed" not in output
    assert "Warning" not in output


def test_a_marked_lifespan_is_left_at_the_end_too(project: Project, pytester: pytest.Pytester) -> None:
    project.configure(None)
    project.tests(
        f"""
        import pytest

        @pytest.mark.mcp_contract_server("{FACTORIES}:open_server(journal='marked.txt')")
        def test_open(mcp_contract):
            assert mcp_contract.call_tool("is_open").structured_content == {{"result": True}}
        """
    )
    project.run().assert_outcomes(passed=1)
    assert (pytester.path / "marked.txt").read_text() == LIFESPAN_LEFT


def test_a_lifespan_that_fails_on_leaving_is_told_after_the_tests(project: Project) -> None:
    project.configure(f"{FACTORIES}:fails_on_leaving()")
    project.tests(CALL_ZONE.replace("Asia/Tokyo", "UTC"))
    result = project.run()
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    assert (
        f"pytest-mcp-contract: leaving the lifespan of fails_on_leaving() from {FACTORIES} at the end of the run "
        "raised OSError: the socket /tmp/clock.sock is gone\nThe tests ran; fix the server's clean-up (the code "
        "after its yield)." in result.stderr.str()
    )
    assert "INTERNALERROR" not in result.stderr.str()


HOW = (
    "write it as package.module:create_server(ARG, KEY=VALUE…), with literal arguments (strings, numbers, "
    "True, False, None, and lists, tuples, dicts and sets of them)."
)

BAD_FACTORIES = [
    pytest.param(
        "create_server(local_tz='UTC'",
        f"\"create_server(local_tz='UTC'\" is not a call Python can read ('(' was never closed); {HOW}",
        id="not-closed",
    ),
    pytest.param(
        "create_server(local_tz=zone)",
        "the argument zone of 'create_server(local_tz=zone)' is not a literal: a factory's arguments are read, "
        "never run (strings, numbers, True, False, None, and lists, tuples, dicts and sets of them). Compute the "
        "value inside the factory (or read it there from the environment), or write it out.",
        id="not-a-literal",
    ),
    pytest.param(
        "create_server(*zones)",
        f"'create_server(*zones)' unpacks *zones; {HOW}",
        id="unpacks",
    ),
    pytest.param(
        "create_server().run()",
        f"'create_server().run()' is not one call of a factory, with nothing after it but attributes; {HOW}",
        id="not-one-call",
    ),
    pytest.param(
        "VERSION()",
        f"VERSION in {FACTORIES} is a str, which cannot be called; point the target at the function that makes "
        "the server, or at the server itself.",
        id="not-callable",
    ),
    pytest.param(
        "no_server()",
        f"no_server() from {FACTORIES} returned a dict, not an MCPServer, a low-level mcp.server.Server or a "
        "FastMCP server. Make it return the server object.",
        id="no-server",
    ),
    pytest.param(
        "yields_no_server(journal='left.txt')",
        f"yields_no_server(journal='left.txt') from {FACTORIES} returned an async context manager that gave a "
        "dict, not an MCPServer, a low-level mcp.server.Server or a FastMCP server. Make it yield the server object.",
        id="lifespan-gives-no-server",
    ),
    pytest.param(
        "sync_lifespan()",
        f"sync_lifespan() from {FACTORIES} returned a contextlib._GeneratorContextManager, not an MCPServer, a "
        "low-level mcp.server.Server or a FastMCP server. Make it return the server object (only an async context "
        "manager is entered: make it an @asynccontextmanager).",
        id="sync-lifespan",
    ),
    pytest.param(
        "create_app()",
        f"create_app() from {FACTORIES} returned a contract_servers.factories.App, not an MCPServer, a low-level "
        f"mcp.server.Server or a FastMCP server. Its attribute 'mcp' holds one: name it in the target, "
        f"{FACTORIES}:create_app().mcp",
        id="app-holding-the-server",
    ),
    pytest.param(
        "create_app().server",
        f"create_app().server from {FACTORIES} returned a contract_servers.factories.App, whose .server is "
        "nothing, not an MCPServer, a low-level mcp.server.Server or a FastMCP server. Its attribute 'mcp' holds "
        f"one: name it in the target, {FACTORIES}:create_app().mcp",
        id="attribute-not-a-server",
    ),
    pytest.param(
        "application",
        f"application in {FACTORIES} is a contract_servers.factories.App, not an MCPServer, a low-level "
        "mcp.server.Server, a FastMCP server or a zero-argument callable returning one. Its attribute 'mcp' "
        f"holds one: name it in the target, {FACTORIES}:application.mcp",
        id="object-holding-the-server",
    ),
    pytest.param(
        "LocalRegistry",
        f"LocalRegistry in {FACTORIES} is the class LocalRegistry, not an MCPServer, a low-level mcp.server.Server, a "
        "FastMCP server or a zero-argument callable returning one. Its attribute 'mcp' holds one: name it in the "
        f"target, {FACTORIES}:LocalRegistry.mcp",
        id="class-holding-the-server",
    ),
    pytest.param(
        "create_server(zone='UTC')",
        f"calling create_server(zone='UTC') from {FACTORIES} raised TypeError:\n"
        "TypeError: create_server() got an unexpected keyword argument 'zone'",
        id="wrong-argument",
    ),
]


@pytest.mark.parametrize(("call", "says"), BAD_FACTORIES)
def test_a_bad_factory_is_a_usage_error_saying_how_to_write_it(
    project: Project, pytester: pytest.Pytester, call: str, says: str
) -> None:
    project.configure(f"{FACTORIES}:{call}")
    project.tests("def test_nothing():\n    pass\n")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stderr.str()
    assert (
        f"ERROR: pytest-mcp-contract cannot load the MCP server {f'{FACTORIES}:{call}'!r} (mcp_contract_server in "
        f"tox.ini): {says}\nFix the target; a server that a function builds is named by calling it, with literal "
        "arguments: package.module:create_server(ARGS…)." in text
    )
    assert "INTERNALERROR" not in text
    assert "pytest_mcp_contract" not in text
    if "yields_no_server" in call:  # left at once, not at the end of a run that never began
        assert (pytester.path / "left.txt").read_text() == "left\n"


@pytest.mark.parametrize(
    ("call", "step", "raised", "frame"),
    [
        ("broken_server()", "calling", "RuntimeError: no database at /nowhere/db.sqlite", "broken_server"),
        (
            "broken_async_server()",
            "awaiting",
            "ConnectionRefusedError: nothing listens at 127.0.0.1:5432",
            "broken_async_server",
        ),
    ],
)
def test_a_factory_that_raises_shows_its_own_traceback(
    project: Project, call: str, step: str, raised: str, frame: str
) -> None:
    project.configure(f"{FACTORIES}:{call}")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stderr.str()
    error = raised.partition(":")[0]
    assert f"(mcp_contract_server in tox.ini): {step} {call} from {FACTORIES} raised {error}:\n" in text
    assert 'factories.py", line ' in text
    assert f"in {frame}\n" in text
    assert f"{raised}\n" in text
    # Only the server's own frames: not the plugin's, nor the event loop the async one ran on.
    assert "pytest_mcp_contract" not in text
    assert "anyio" not in text
    assert "asyncio" not in text


def test_a_bad_factory_in_a_marker_is_a_usage_error(project: Project) -> None:
    project.configure(None)
    project.tests(
        f"""
        import pytest

        @pytest.mark.mcp_contract_server("{FACTORIES}:create_server(local_tz=zone)")
        def test_it(mcp_contract):
            pass
        """
    )
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"cannot load the MCP server '{FACTORIES}:create_server(local_tz=zone)' (@pytest.mark.mcp_contract_server "
        "on test_contract.py::test_it): the argument zone of 'create_server(local_tz=zone)' is not a literal"
        in result.stderr.str()
    )


def test_a_stdio_command_with_parentheses_is_still_a_command(project: Project) -> None:
    # The table of kinds tries stdio: first; its arguments are never read as a factory call.
    project.configure(f"stdio:{sys.executable} {SERVERS / 'factories.py'} 'Etc/GMT(-9):x'", suite=True)
    project.tests(CALL_ZONE.replace("Asia/Tokyo", "Etc/GMT(-9):x"))
    result = project.run("--snapshot-update")
    result.assert_outcomes(passed=2)  # the test and the listing, which made the snapshots of both tools
    result.stdout.fnmatch_lines(["schema snapshots: 2 created"])


OVERRIDE = f"""
import pytest
from {FACTORIES} import create_server

@pytest.fixture(scope="session")
def mcp_contract_server():
    return create_server("Asia/Tokyo")
"""

FIXTURE_SERVER = (
    "mcp-contract: server from the mcp_contract_server fixture in {where} (the contract suite's items get it there "
    "too, when they run)"
)


def test_a_fixture_override_without_a_target_gives_the_suite_its_server(
    project: Project, pytester: pytest.Pytester
) -> None:
    project.configure(None, suite=True)
    pytester.makeconftest(OVERRIDE)
    project.tests(CALL_ZONE)
    first = project.run()
    first.assert_outcomes(passed=1, failed=1)  # the listing: the fixture's server has no snapshots yet
    first.stdout.fnmatch_lines([FIXTURE_SERVER.format(where="conftest.py")])
    assert_says(first.stdout.str(), quoted("fixture-override"))
    assert (
        "2 tools have no schema snapshot in mcp_contract_snapshots/clock yet: 'shift', 'zone' (their tool checks "
        "ran here)." in first.stdout.str()
    )
    assert "not generated" not in first.stdout.str()
    _suite_runs_with_snapshots(project, pytester, "clock", ["shift", "zone"])


def test_an_override_in_a_sub_folder_gives_the_suite_its_server(project: Project, pytester: pytest.Pytester) -> None:
    # Read while pytest collects, after the header; the suite's items still see that folder's fixtures.
    project.configure(None, suite=True)
    sub = pytester.mkdir("sub")
    (sub / "conftest.py").write_text(OVERRIDE)
    (sub / "test_zone.py").write_text(CALL_ZONE)
    first = project.run()
    first.assert_outcomes(passed=1, failed=1)
    first.stdout.fnmatch_lines(["*2 tools have no schema snapshot in mcp_contract_snapshots/clock yet*"])
    _suite_runs_with_snapshots(project, pytester, "clock", ["shift", "zone"])


def test_no_word_without_an_override_or_with_the_suite_switched_off(
    project: Project, pytester: pytest.Pytester
) -> None:
    project.configure(None, suite=False)
    pytester.makeconftest(OVERRIDE)
    project.tests(CALL_ZONE)
    result = project.run()
    result.assert_outcomes(passed=1)
    assert "contract suite" not in result.stdout.str()


def test_an_override_beside_a_target_gives_the_suite_the_overrides_server(
    project: Project, pytester: pytest.Pytester
) -> None:
    # The tests' calls and the suite's items go to the fixture's server (clock), not the configured one (folder).
    project.configure(target("factories", "serve(repository='.')"), suite=True)
    pytester.makeconftest(OVERRIDE)
    project.tests(CALL_ZONE)
    _suite_runs_with_snapshots(project, pytester, "clock", ["shift", "zone"])
    assert not (pytester.path / "mcp_contract_snapshots" / "folder").exists()


def test_the_documented_factory_and_lifespan_servers(project: Project, pytester: pytest.Pytester) -> None:
    package = pytester.mkdir("src") / "clock_server"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "server.py").write_text(quoted("factory-server"))
    (package / "notes.py").write_text(quoted("factory-lifespan"))
    pytester.makepyprojecttoml(quoted("factory-target") + '\naddopts = "-p no:cacheprovider"\n')
    project.tests(
        """
        def test_zone(mcp_contract):
            assert mcp_contract.call_tool("zone").structured_content == {"timezone": "Europe/Paris"}

        def test_notes(mcp_contract):
            assert mcp_contract.call_tool("count_notes").structured_content == {"result": 0}
        """
    )
    created = project.run("--snapshot-update", "-k", "not notes")
    created.assert_outcomes(passed=2, deselected=1)  # test_zone and the listing, which made zone's snapshot
    created.stdout.fnmatch_lines(["schema snapshots: 1 created"])
    project.run("-k", "not notes").assert_outcomes(passed=4, deselected=1)
    notes = project.run(
        "--mcp-contract-server",
        "clock_server.notes:open_server(db_path='notes.db')",
        "-k",
        "not zone",
        "--snapshot-update",
    )
    notes.assert_outcomes(passed=2, deselected=1)  # test_notes and the listing, which made count_notes' snapshot
    notes.stdout.fnmatch_lines(["count_notes  created  passed  *", "schema snapshots: 1 created"])
    assert (pytester.path / "notes.db").is_file()
