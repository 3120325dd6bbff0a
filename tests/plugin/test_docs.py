"""The README and docs/ say what the code does: every option, key and check they name exists and is
documented, the four steps they give work, and every page a message points to is there.
(The outputs they quote are held to the code in test_docs_quotes.py.)"""

from __future__ import annotations

import re
import shutil

import pytest
from conftest import EXAMPLE, Project
from docs_text import PAGES, ROOT

from pytest_mcp_contract import CHECKS
from pytest_mcp_contract._run.settings import INI_KEYS

README = ROOT / "README.md"

# Names of the plugin's that are neither an option nor an ini key, and may be named anywhere.
OTHER_NAMES = {
    "mcp_contract",  # the sync fixture, and the suite's marker
    "mcp_contract_async",
    "mcp_contract_server",  # also the fixture and the marker
    "mcp_contract_protocol_version",  # the marker
    "mcp_contract_snapshots",  # the default snapshot folder
    "mcp_contract_callbacks",  # the hook, pytest_mcp_contract_callbacks
    "mcp_contract_report",  # --mcp-contract-report's dest
    "mcp_contract_sever",  # the configuration page's example of a typo
    "mcp_contract_fuzz_readonly_only",  # a removed key: fuzzing.md says it is now the default
}


def _text() -> str:
    return "\n".join(path.read_text() for path in PAGES)


def _options(pytestconfig: pytest.Config) -> set[str]:
    group = pytestconfig._parser.getgroup("mcp-contract")
    return {name for option in group.options for name in option.names() if name.startswith("--")}


def test_the_readme_fits_on_a_few_screens() -> None:
    assert len(README.read_text().splitlines()) <= 200


def test_every_option_and_ini_key_is_documented(pytestconfig: pytest.Config) -> None:
    configuration = (ROOT / "docs" / "configuration.md").read_text()
    missing = [name for name in [*_options(pytestconfig), *INI_KEYS] if f"`{name}" not in configuration]
    assert missing == []


def test_every_option_and_key_the_docs_name_exists(pytestconfig: pytest.Config) -> None:
    text = _text()
    named_options = set(re.findall(r"--mcp-contract-[a-z-]*[a-z]", text))
    assert named_options - _options(pytestconfig) == set()
    named_keys = set(re.findall(r"(?<![\w-])mcp_contract_[a-z_]*[a-z]", text))
    assert named_keys - set(INI_KEYS) - OTHER_NAMES == set()


def test_every_check_is_in_the_tables_and_every_check_quoted_is_one() -> None:
    for page in (README, ROOT / "docs" / "checks.md"):
        rows = set(re.findall(r"^\| `([a-z-]+)` \|", page.read_text(), re.MULTILINE))
        assert rows == set(CHECKS), page.name
    quoted = set(re.findall(r"\[([a-z]+(?:-[a-z]+)+)(?: @ [\d-]+)?\](?! ?\()", _text()))
    assert quoted - set(CHECKS) == {"dependency-groups"}  # the install section's TOML table


def test_the_four_steps_record_the_snapshots_and_then_pass(project: Project) -> None:
    # A server repo: its package, its tests, and the one ini line the README gives.
    package = project.pytester.mkpydir("weather_service")
    shutil.copy(EXAMPLE / "src" / "weather_service" / "server.py", package / "server.py")
    shutil.copy(EXAMPLE / "src" / "weather_service" / "upstream.py", package / "upstream.py")
    project.pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\nmcp_contract_server = "weather_service.server:mcp"\npythonpath = ["."]\n'
    )
    project.tests('def test_weather(mcp_contract):\n    mcp_contract.call_tool("get_weather", {"city": "London"})\n')
    first = project.run("--snapshot-update")
    # The test, and the listing item, which records every tool and makes get_weather's two schema examples.
    first.assert_outcomes(passed=2)
    snapshots = project.pytester.path / "mcp_contract_snapshots" / "weather"
    assert sorted(path.name for path in snapshots.iterdir())[:2] == ["city_temperatures.json", "daily_forecast.json"]
    # From then on: the test, the listing, and a schema and a checks item for each of 7 tools.
    project.run().assert_outcomes(passed=16)
    project.run("pyproject.toml::schema[get_weather]").assert_outcomes(passed=1)


def test_every_page_a_message_points_to_has_that_heading() -> None:
    source = "\n".join(path.read_text() for path in (ROOT / "pytest_mcp_contract").rglob("*.py"))
    pointers = re.findall(r"\(pytest-mcp-contract's (docs/[a-z-]+\.md), '([^']+)'\)", source)
    assert len(pointers) >= 2
    for page, heading in pointers:
        headings = re.findall(r"^#+ (.+)$", (ROOT / page).read_text(), re.MULTILINE)
        assert heading in [title.replace("`", "") for title in headings], (page, heading)
