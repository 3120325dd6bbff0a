"""The package as pytest and pip see it: entry point, options and ini keys in --help, typing marker,
and the README's install lines installing it from a clone, into a fresh venv, offline."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import sysconfig
import tomllib
import venv
from importlib.metadata import entry_points
from pathlib import Path

import pytest
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


def test_the_pages_name_no_address_the_project_does_not_have_yet() -> None:
    # No public address yet: a [project.urls] entry would point nowhere, and a tag pinned in the README
    # is one a clone may lack ("fatal: couldn't find remote ref refs/tags/v0.1.0").
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "urls" not in project
    [line] = tomllib.loads(quoted("install"))["dependency-groups"]["dev"]
    requirement = Requirement(line)
    # A direct URL requirement is fetched from that URL: pip and uv never ask PyPI, where the name
    # belongs to another project.
    assert (requirement.name, requirement.extras, requirement.url) == (
        project["name"],
        {"fuzz"},
        "git+<url-of-your-clone>@<commit-sha>",
    )
    assert "fuzz" in project["optional-dependencies"]
    for page in PAGES:
        assert re.findall(r"git\+\S*@v?\d[\w.]*", page.read_text()) == [], page.name


def test_the_python_310_line_adds_the_plugin_on_311_and_later_only() -> None:
    [line] = tomllib.loads(quoted("adding-python-310"))["dependency-groups"]["dev"]
    requirement = Requirement(line)
    [install] = tomllib.loads(quoted("install"))["dependency-groups"]["dev"]
    assert str(requirement).startswith(str(Requirement(install)))  # the Install line, with a marker
    assert requirement.marker is not None
    assert not requirement.marker.evaluate({"python_version": "3.10"})
    assert requirement.marker.evaluate({"python_version": "3.11"})
    assert requirement.marker.evaluate({"python_version": "3.13"})
    # And the plugin's own floor is what the marker keeps it from: pip refuses it on 3.10 by this.
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"] == ">=3.11"


UV = Path(sys.executable).parent / "uv"


def _run(*command: str | Path, cwd: Path = ROOT) -> str:
    """A command's stdout; its stderr in the failure if it fails. Without PYTHONPATH: the venv sees
    only what it holds."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, check=False)
    assert done.returncode == 0, f"{command} failed:\n{done.stderr}"
    return done.stdout


def _fresh_venv(where: Path) -> Path:
    """A new venv with this venv's packages but not this plugin: its python, for an install that must
    bring the plugin itself. Offline: the dependencies are linked in, never fetched."""
    venv.create(where / "venv", with_pip=True)  # pip from the interpreter's own bundled wheel: offline
    python = where / "venv" / "bin" / "python"
    deps = where / "deps"
    deps.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        # The plugin's own install (module, metadata, editable hook) stays out: the test installs it.
        if "pytest_mcp_contract" not in entry.name and not entry.name.endswith(".pth"):
            (deps / entry.name).symlink_to(entry)
    site_packages = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    (Path(site_packages) / "deps.pth").write_text(f"{deps}\n")
    assert "--mcp-contract-" not in _pytest_help(python, where)  # not there until the test installs it
    return python


def _install(python: Path, *requirement: str) -> None:
    # --no-deps and --no-index: nothing is fetched; --no-build-isolation builds with the hatchling linked in.
    _run(python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-build-isolation", *requirement)


def _pytest_help(python: Path, where: Path) -> str:
    return _run(python, "-m", "pytest", "--help", "-p", "no:cacheprovider", cwd=where)


def _plugin_file(python: Path, where: Path) -> str:
    """Where that venv imports the plugin from."""
    return _run(python, "-c", "import pytest_mcp_contract; print(pytest_mcp_contract.__file__)", cwd=where).strip()


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="installing from a commit needs a Git checkout")
def test_the_readmes_git_requirement_installs_this_plugin_from_a_commit(tmp_path: Path) -> None:
    python = _fresh_venv(tmp_path)
    [line] = tomllib.loads(quoted("install"))["dependency-groups"]["dev"]
    # The README's string, with the two things a user fills in: the URL of their clone and a commit.
    # (A host in the file URL: pip before 24 refuses git+file:/// as having none.)
    clone = f"file://localhost{ROOT.as_posix()}"
    commit = _run("git", "rev-parse", "HEAD").strip()
    _install(python, line.replace("<url-of-your-clone>", clone).replace("<commit-sha>", commit))
    # The venv's own copy, built from that commit, and pytest finds it.
    assert _plugin_file(python, tmp_path).startswith(str(tmp_path / "venv"))
    help_text = _pytest_help(python, tmp_path)
    assert "--mcp-contract-server=TARGET" in help_text
    assert "mcp_contract_server (string):" in help_text


def test_the_readmes_path_lines_install_this_plugin_from_a_clone(tmp_path: Path) -> None:
    _uv_line, pip_line = (shlex.split(line, comments=True) for line in quoted("install-path").splitlines())
    assert pip_line == ["pip", "install", "-e", "/path/to/clone[fuzz]"]
    python = _fresh_venv(tmp_path)
    _install(python, "-e", pip_line[-1].replace("/path/to/clone", str(ROOT)))
    assert _plugin_file(python, tmp_path) == str(ROOT / "pytest_mcp_contract" / "__init__.py")  # editable
    assert "--mcp-contract-server=TARGET" in _pytest_help(python, tmp_path)


@pytest.mark.skipif(not UV.is_file(), reason="uv comes with the dev extra")
def test_the_readmes_uv_line_adds_this_plugin_from_a_clone(tmp_path: Path) -> None:
    uv_line, _pip_line = (shlex.split(line, comments=True) for line in quoted("install-path").splitlines())
    # Run in a server repo (--frozen: recorded in its pyproject.toml, neither locked nor fetched).
    assert uv_line[:2] == ["uv", "add"]
    server = tmp_path / "server"
    server.mkdir()
    (server / "pyproject.toml").write_text(
        '[project]\nname = "server"\nversion = "0"\nrequires-python = ">=3.11"\ndependencies = []\n'
    )
    _run(UV, "add", "--frozen", *(arg.replace("/path/to/clone", str(ROOT)) for arg in uv_line[2:]), cwd=server)
    written = tomllib.loads((server / "pyproject.toml").read_text())
    assert written["dependency-groups"]["dev"] == ["pytest-mcp-contract[fuzz]"]
    assert written["tool"]["uv"]["sources"]["pytest-mcp-contract"] == {"path": str(ROOT), "editable": True}
