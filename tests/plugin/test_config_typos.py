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


def test_a_value_copied_from_toml_into_an_ini_file_is_told_to_lose_its_quotes(project: Project) -> None:
    # The README's line, as pyproject.toml writes it, pasted into pytest.ini: the quotes stay in the value.
    project.pytester.makefile(".ini", pytest='[pytest]\nmcp_contract_server = "stdio:{python} -m weather.server"\n')
    project.tests("def test_it(mcp_contract):\n    pass\n")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            'ERROR: mcp_contract_server (in pytest.ini) is "stdio:{python} -m weather.server", quotes and all: an '
            "ini file keeps the quotes that TOML (pyproject.toml) strips, so the plugin would read them as part of "
            "the value. Remove the quotes: mcp_contract_server = stdio:{python} -m weather.server"
        ]
    )
    assert "no module named" not in result.stdout.str() + result.stderr.str()


def test_a_quoted_line_of_a_list_in_an_ini_file_is_told_too(project: Project) -> None:
    project.configure(target("wire"), mcp_contract_allow="\n    'good:content-prose  # told in words',")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_allow (in tox.ini) is 'good:content-prose  # told in words',, quotes and all: *"
            "Remove the quotes: mcp_contract_allow = good:content-prose  # told in words"
        ]
    )


def test_the_same_value_in_pyproject_toml_is_read_without_its_quotes(project: Project) -> None:
    server = target("sdk_kinds", "mcp")
    project.pytester.makepyprojecttoml(
        f'[tool.pytest.ini_options]\nmcp_contract_server = "{server}"\nmcp_contract_suite = false\n'
    )
    project.tests("def test_it(mcp_contract):\n    assert mcp_contract.call_tool('t_int').structured_content\n")
    project.run().assert_outcomes(passed=1)
