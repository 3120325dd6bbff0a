"""Choosing the server: the option, the ini key, the target grammar, and what a bad target says."""

from __future__ import annotations

import textwrap

import pytest
from conftest import Project, target

CALL_GOOD = """
def test_call(mcp_contract):
    assert mcp_contract.call_tool("good").structured_content == {"n": 2}
"""


def test_ini_target_as_file_path(project: Project) -> None:
    project.configure(target("wire"))
    project.tests(CALL_GOOD)
    result = project.run()
    result.assert_outcomes(passed=1)


def test_file_path_is_relative_to_the_ini_file(project: Project, pytester: pytest.Pytester) -> None:
    pytester.mkpydir("srv")
    (pytester.path / "srv" / "app.py").write_text(
        "from mcp.server import MCPServer\nmcp = MCPServer('app')\n@mcp.tool()\ndef ping() -> str:\n    return 'pong'\n"
    )
    project.configure("srv/app.py:mcp")
    project.tests(
        "def test_ping(mcp_contract):\n    assert mcp_contract.call_tool('ping').structured_content == {'result': 'pong'}\n"
    )
    pytester.mkdir("elsewhere")
    result = pytester.runpytest(str(pytester.path), "--rootdir", str(pytester.path))
    result.assert_outcomes(passed=1)


def test_module_target_and_factory(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        weather_app=textwrap.dedent(
            """
            from mcp.server import MCPServer
            made = []
            def create():
                made.append(1)
                server = MCPServer("factory-made")
                @server.tool()
                def count() -> int:
                    return len(made)
                return server
            """
        )
    )
    project.configure("weather_app:create", pythonpath=".")
    project.tests(
        """
        def test_factory_called_once(mcp_contract):
            assert mcp_contract.server.name == "factory-made"
            assert mcp_contract.call_tool("count").structured_content == {"result": 1}
        """
    )
    project.run().assert_outcomes(passed=1)


def test_option_wins_over_ini(project: Project) -> None:
    project.configure("no_such_module:server")
    project.tests(CALL_GOOD)
    result = project.run(f"--mcp-contract-server={target('wire')}")
    result.assert_outcomes(passed=1)


def test_header_names_the_server(project: Project) -> None:
    project.configure(target("wire"))
    project.tests(CALL_GOOD)
    result = project.run()
    result.stdout.re_match_lines(
        [r"^mcp-contract: server .*wire\.py:server \(mcp_contract_server in tox\.ini\), scope=session, timeout=30s$"]
    )


def _usage_error(result: pytest.RunResult) -> str:
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stderr.str()
    # One clear paragraph from us; never a traceback through the plugin's own code.
    assert "pytest_mcp_contract" not in text
    assert "_target.py" not in text
    return text


def test_not_a_target(project: Project) -> None:
    project.configure("weather.server")
    result = project.run()
    text = _usage_error(result)
    assert (
        "ERROR: pytest-mcp-contract cannot load the MCP server 'weather.server' (mcp_contract_server in tox.ini): "
        in text
    )
    assert (
        "'weather.server' is not a target; write it as 'package.module:attr', 'path/to/file.py:attr', "
        "a factory call 'package.module:create_server(ARGS…)', 'stdio:COMMAND ARGS…' or 'http://HOST:PORT/PATH'."
        in text
    )
    assert "Fix the target; a server that a function builds is named by calling it" in text


def test_module_not_found_suggests_pythonpath(project: Project) -> None:
    project.configure("weather_nowhere.server:mcp")
    text = _usage_error(project.run())
    assert (
        "no module named 'weather_nowhere'. If the server lives in this repository, add its folder to sys.path" in text
    )
    assert 'pythonpath = ["src"]' in text


def test_a_misspelt_module_of_a_package_that_imports_names_the_module_meant(
    project: Project, pytester: pytest.Pytester
) -> None:
    shop = pytester.mkpydir("shop")
    (shop / "server.py").write_text("from mcp.server import MCPServer\n\nmcp = MCPServer('shop')\n")
    project.configure("shop.sever:mcp", pythonpath=".")
    text = _usage_error(project.run())
    assert f"no module named 'shop.sever': did you mean 'shop.server' (in {shop})? If the server lives" in text
    assert 'pythonpath = ["src"]' in text  # the hint stays: a copy installed elsewhere may shadow this one


def test_import_error_shows_the_users_own_traceback(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        broken_app=textwrap.dedent(
            """
            import json

            def load_settings():
                return json.loads("{not json")

            SETTINGS = load_settings()
            """
        )
    )
    project.configure("broken_app.py:mcp")
    text = _usage_error(project.run())
    assert "importing broken_app raised JSONDecodeError:" in text
    assert 'broken_app.py", line 6, in <module>' in text
    assert 'broken_app.py", line 4, in load_settings' in text
    assert "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes" in text
    assert "<frozen importlib" not in text
    assert "importlib/__init__.py" not in text


def test_missing_module_inside_the_users_code_is_not_blamed_on_the_target(
    project: Project, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(needs_dep="import some_missing_dependency\n")
    project.configure("needs_dep.py:mcp")
    text = _usage_error(project.run())
    assert "importing needs_dep failed:" in text
    assert "ModuleNotFoundError: No module named 'some_missing_dependency'" in text


def test_missing_attribute_lists_the_servers_found(project: Project) -> None:
    project.configure(target("wire", "srv"))
    text = _usage_error(project.run())
    assert f"(mcp_contract_server in tox.ini): {target('wire', 'srv')[:-4]} has no attribute 'srv'." in text
    assert "Servers found in it: server. Point the target at the server object" in text


def test_wrong_type(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(not_a_server="server = {'name': 'weather'}\n")
    project.configure("not_a_server.py:server")
    text = _usage_error(project.run())
    assert (
        "server in not_a_server.py is a dict, not an MCPServer, a low-level mcp.server.Server, a FastMCP "
        "server or a zero-argument callable returning one." in text
    )


def test_a_class_is_not_taken_for_a_factory(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        models="""
from pydantic import BaseModel
from mcp.server import MCPServer

class Weather(BaseModel):
    city: str

mcp = MCPServer("weather")
"""
    )
    project.configure("models.py:Weather")
    text = _usage_error(project.run())
    assert (
        "Weather in models.py is the class Weather, not an MCPServer, a low-level mcp.server.Server, a "
        "FastMCP server or a zero-argument callable returning one. Servers found in it: mcp." in text
    )


def test_a_server_class_is_a_factory(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        own_server="""
from mcp.server import MCPServer

class WeatherServer(MCPServer):
    def __init__(self):
        super().__init__("subclassed")
        self.add_tool(self.ping)

    @staticmethod
    def ping() -> str:
        return "pong"
"""
    )
    project.configure("own_server.py:WeatherServer")
    project.tests("def test_it(mcp_contract):\n    assert mcp_contract.server.name == 'subclassed'\n")
    project.run().assert_outcomes(passed=1)


def test_factory_that_raises(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bad_factory="def make():\n    raise RuntimeError('no API key')\n")
    project.configure("bad_factory.py:make")
    text = _usage_error(project.run())
    assert "calling make() from bad_factory.py raised RuntimeError:" in text
    assert 'bad_factory.py", line 2, in make' in text
    assert "RuntimeError: no API key" in text


def test_factory_returning_the_wrong_thing(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(odd_factory="def make():\n    return 42\n")
    project.configure("odd_factory.py:make")
    text = _usage_error(project.run())
    assert (
        "make() from odd_factory.py returned an int, not an MCPServer, a low-level mcp.server.Server or a "
        "FastMCP server." in text
    )


def test_missing_file(project: Project) -> None:
    project.configure("servers/absent.py:mcp")
    text = _usage_error(project.run())
    assert "the file 'servers/absent.py' does not exist" in text


def test_help_does_not_import_the_server(project: Project, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(loud="raise SystemExit('imported during --help')\n")
    project.configure("loud.py:mcp")
    result = project.run("--help")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*--mcp-contract-server=TARGET*", "*mcp_contract_server (string):*"])
