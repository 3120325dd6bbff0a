"""The package as pytest and pip see it: entry point, options and ini keys in --help, typing marker,
and the README's requirement installing it."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

from conftest import Project
from docs_text import PAGES, ROOT, quoted
from packaging.requirements import Requirement

import pytest_mcp_contract


def test_entry_point_is_named_mcp_contract() -> None:
    [entry] = [ep for ep in entry_points(group="pytest11") if ep.value == "pytest_mcp_contract.plugin"]
    assert entry.name == "mcp_contract"


def test_ships_py_typed() -> None:
    assert (Path(pytest_mcp_contract.__file__).parent / "py.typed").is_file()


def test_help_documents_every_option(project: Project) -> None:
    project.configure(None)
    result = project.run("--help")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "MCP contract testing (pytest-mcp-contract):",
            "  --mcp-contract-server=TARGET",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "  mcp_contract_server (string):",
            "  mcp_contract_scope (string):",
            "  mcp_contract_timeout (string):",
            "  mcp_contract_check_formats (bool):",
        ],
        consecutive=False,
    )


def test_fixtures_are_documented(project: Project) -> None:
    project.configure(None)
    project.tests("def test_nothing():\n    pass\n")
    result = project.run("--fixtures")
    result.stdout.fnmatch_lines(
        [
            "mcp_contract -- *",
            "    A checked MCP client for sync tests: ``mcp_contract.call_tool(name, arguments)``.",
        ]
    )
    result.stdout.fnmatch_lines_random(["mcp_contract_async -- *", "mcp_contract_server -- *"])
    result.stdout.no_fnmatch_line("_mcp_contract_suite_client*")  # internal, hidden without -v


def test_no_header_without_a_server(project: Project) -> None:
    project.configure(None)
    project.tests("def test_nothing():\n    pass\n")
    result = project.run()
    result.stdout.no_fnmatch_line("mcp-contract:*")


def test_the_readmes_requirement_names_this_plugin_at_its_tag_never_the_index() -> None:
    # A direct URL requirement is fetched from that URL: pip and uv never ask PyPI, where the name
    # belongs to another project. (Installing it is not run here: building needs the index.)
    [line] = tomllib.loads(quoted("install"))["dependency-groups"]["dev"]
    requirement = Requirement(line)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert (requirement.name, requirement.extras, requirement.url) == (
        project["name"],
        {"fuzz"},
        f"git+URL@v{project['version']}",  # a new version needs its tag in the README
    )
    assert "fuzz" in project["optional-dependencies"]
    # Every page that names the requirement names this one.
    named = {found for page in PAGES for found in re.findall(r"git\+URL@[\w.]*\w", page.read_text())}
    assert named == {requirement.url}
