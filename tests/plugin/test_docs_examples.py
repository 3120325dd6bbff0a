"""The code the pages show runs and does what they say: each marked block (``tests/docs_text.py``)
is written into a copy of the example project, or run against the server the page names."""

from __future__ import annotations

import tomllib
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE, Project, edit_file, example_server, target
from docs_text import assert_says, quoted

from pytest_mcp_contract import McpContract, check_tool


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly", *args)


def test_the_readme_shows_the_example_projects_own_configuration() -> None:
    shown = tomllib.loads(quoted("example-ini"))["tool"]["pytest"]["ini_options"]
    configured = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert shown == {key: configured[key] for key in shown}
    assert "mcp_contract_server" in shown


def test_the_markers_page_tests_pass_then_fail_as_it_says(pytester: pytest.Pytester, in_example: Path) -> None:
    page_tests = in_example / "tests" / "test_markers_page.py"
    page_tests.write_text(quoted("markers-example"), encoding="utf-8")
    _run(pytester, str(page_tests)).assert_outcomes(passed=3)
    # The upstream sends pm25 for Oslo again, and SunTimes gets a __str__: both markers go stale.
    edit_file(
        in_example / "src" / "weather_service" / "upstream.py",
        '"Oslo": {"aqi": 17}',
        '"Oslo": {"aqi": 17, "pm25": 4.0}',
    )
    edit_file(
        in_example / "src" / "weather_service" / "flawed.py",
        "        self.sunset = sunset\n",
        '        self.sunset = sunset\n\n    def __str__(self) -> str:\n        return f"{self.sunrise}-{self.sunset}"\n',
    )
    result = _run(pytester, str(page_tests))
    result.assert_outcomes(passed=1, failed=2)
    assert_says(result.stdout.str(), quoted("unmet-markers"))


def test_the_cases_the_page_shows_pass_against_the_flawed_server(project: Project) -> None:
    project.pytester.makefile(".toml", cases=quoted("cases-example"))
    project.configure(
        "weather_service.flawed:flawed", suite=True, pythonpath=str(EXAMPLE / "src"), mcp_contract_cases="cases.toml"
    )
    result = project.run("-k", "call", "-p", "no:randomly", "-v")
    result.assert_outcomes(passed=4, deselected=1)  # the listing
    result.stdout.fnmatch_lines(
        ["tox.ini::call[[]air_quality-london[]] PASSED*", "tox.ini::call[[]air_quality-missing-pm25[]] PASSED*"]
    )


def test_the_protocol_version_marker_example_passes(pytester: pytest.Pytester, in_example: Path) -> None:
    page_test = in_example / "tests" / "test_versions_page.py"
    page_test.write_text("import pytest\n\n\n" + quoted("protocol-version-example") + "\n", encoding="utf-8")
    _run(pytester, str(page_test)).assert_outcomes(passed=1)


def test_the_callbacks_conftest_answers_every_tool_that_asks(project: Project) -> None:
    project.pytester.makeconftest(quoted("callbacks-conftest"))
    project.configure(target("asks"))
    project.tests(
        """
        def test_book(mcp_contract):
            assert mcp_contract.call_tool("book", {"date": "friday"}).structured_content == {"date": "friday", "guests": 4}

        def test_line(mcp_contract):
            assert mcp_contract.call_tool("line", {"topic": "sea"}).structured_content == {"result": "A quiet harbour at dawn."}

        def test_folders(mcp_contract):
            assert mcp_contract.call_tool("folders").structured_content == {"result": ["file:///srv/data"]}
        """
    )
    project.run().assert_outcomes(passed=3)


def test_the_public_api_example_runs_on_a_result_got_elsewhere() -> None:
    mcp = example_server("weather_service.flawed", "flawed")
    contract = McpContract(mcp)
    try:
        tool = contract.tools["sun_times"]
        result = contract.run(contract.client.call_tool("sun_times", {"city": "Oslo"}))  # the raw SDK client's
    finally:
        contract.close()
    names: dict[str, Any] = {"tool": tool, "result": result, "mcp": mcp}
    exec(quoted("public-api"), names)
    assert [violation.check for violation in names["violations"]] == ["content-mismatch"]


def test_the_advice_for_a_deliberate_opt_out_is_not_flagged_and_the_trap_is() -> None:
    from mcp.server import MCPServer

    advised = quoted("last-sync")
    trap = advised.replace("-> str:  # not -> datetime", "-> datetime:").replace(".isoformat()", "")
    assert trap != advised
    for source, found in [(advised, []), (trap, ["silent-opt-out"])]:
        mcp = MCPServer("clock", log_level="ERROR")
        exec(source, {"mcp": mcp, "last_sync_time": lambda: datetime(2026, 12, 1, 9, 30), "datetime": datetime})
        contract = McpContract(mcp)
        try:
            assert [v.check for v in check_tool(contract.tools["last_sync"], server=mcp)] == found
        finally:
            contract.close()
