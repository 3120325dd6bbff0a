"""A misspelt option of ours stops pytest at start-up naming the one it meant: pytest itself only
warns at the end, after the option was lost (and, for the server, every test failed without one)."""

from __future__ import annotations

import pytest
from conftest import Project, target

from pytest_mcp_contract._run.settings import INI_KEYS

OPTIONS = ", ".join(INI_KEYS)


def test_a_misspelt_ini_key_is_a_usage_error_with_the_key_it_meant(project: Project) -> None:
    project.pytester.makeini(f"[pytest]\nmcp_contract_sever = {target('wire')}\n")
    project.tests("def test_it(mcp_contract):\n    pass\n")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_sever (in tox.ini) is no option of pytest-mcp-contract: did you mean "
            f"mcp_contract_server? Its ini options are {OPTIONS}."
        ]
    )
    assert "no MCP server is configured" not in result.stdout.str() + result.stderr.str()


def test_a_misspelt_key_in_pyproject_names_that_file(project: Project) -> None:
    project.pytester.makepyprojecttoml(
        f'[tool.pytest.ini_options]\nmcp_contract_server = "{target("wire")}"\nmcp_contract_timout = "5"\n'
    )
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_timout (in pyproject.toml) is no option of pytest-mcp-contract: did you mean "
            "mcp_contract_timeout? *"
        ]
    )


def test_a_misspelt_override_is_a_usage_error_too(project: Project) -> None:
    project.configure(target("wire"))
    result = project.run("-o", "mcp_contract_scop=module")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: mcp_contract_scop is no option of pytest-mcp-contract: did you mean mcp_contract_scope? *"]
    )


def test_a_key_with_our_prefix_and_nothing_close_is_named_without_a_guess(project: Project) -> None:
    project.configure(target("wire"), mcp_contract_colour="blue")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: mcp_contract_colour (in tox.ini) is no option of pytest-mcp-contract: Its ini options are {OPTIONS}."]
    )


def test_another_plugins_key_that_looks_like_ours_is_its_own(project: Project) -> None:
    project.pytester.makeconftest(
        "def pytest_addoption(parser):\n    parser.addini('mcp_contract_team', 'a key of the project its own')\n"
    )
    project.configure(target("wire"), mcp_contract_team="payments")
    project.tests("def test_it(request):\n    assert request.config.getini('mcp_contract_team') == 'payments'\n")
    project.run().assert_outcomes(passed=1)


def test_help_still_works_with_a_typo(project: Project) -> None:
    project.configure(target("wire"), mcp_contract_sever="x")
    result = project.run("--help")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*--mcp-contract-server=TARGET*"])


def test_the_list_of_keys_is_every_key_the_plugin_registers(pytestconfig: pytest.Config) -> None:
    registered = {name for name in pytestconfig._parser._inidict if name.startswith("mcp_contract")}
    assert registered == set(INI_KEYS)
