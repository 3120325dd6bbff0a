"""The example project, copied and changed the way a pull request would change it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import edit_file


def _run(pytester: pytest.Pytester, example: Path, *args: str) -> pytest.RunResult:
    return pytester.runpytest(str(example), "-p", "no:cacheprovider", *args)


def _counts(result: pytest.RunResult) -> dict[str, int]:
    return {key: value for key, value in result.parseoutcomes().items() if key in ("passed", "failed", "error")}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist-2"])
def test_a_pull_request_that_changes_a_field(pytester: pytest.Pytester, example: Path, workers: list[str]) -> None:
    _run(pytester, example, *workers).assert_outcomes(passed=40)
    server = example / "src" / "weather_service" / "server.py"
    edit_file(
        server,
        '    humidity: int = Field(ge=0, le=100, description="Relative humidity, percent")\n',
        '    humidity: int | None = Field(default=None, ge=0, le=100, description="Relative humidity, percent")\n',
    )
    report = example / "contract-report.md"
    result = _run(pytester, example, *workers, "-m", "mcp_contract", "--mcp-contract-report", str(report))
    assert _counts(result) == {"passed": 21, "failed": 1}  # xdist does not count the deselected
    result.stdout.fnmatch_lines(
        [
            "the schema of tool 'get_weather' changed (2 breaking, 1 cosmetic):",
            '  get_weather output /properties/humidity: widened from "integer" (maximum, minimum) to "integer" '
            '(maximum, minimum) | "null" — BREAKING',
            "  get_weather output /properties/humidity: now optional (was required) — BREAKING",
            "  get_weather output /properties/humidity/default: added: null — cosmetic",
        ]
    )
    row = "| `get_weather` | **BREAKING** changed (2 breaking, 1 cosmetic) | passed | 6 | — |"
    assert row in report.read_text()  # six calls, the errors asked for among them: no violation
    snapshots = example / "mcp_contract_snapshots" / "weather"
    before = {path.name: path.read_text() for path in snapshots.iterdir()}
    assert _counts(_run(pytester, example, *workers, "-m", "mcp_contract", "--snapshot-update")) == {"passed": 22}
    after = {path.name: path.read_text() for path in snapshots.iterdir()}
    assert [name for name in before if before[name] != after[name]] == ["get_weather.json"]  # a one-file diff


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist-2"])
def test_a_pull_request_that_removes_a_tool(pytester: pytest.Pytester, example: Path, workers: list[str]) -> None:
    server = example / "src" / "weather_service" / "server.py"
    edit_file(server, "@mcp.tool(annotations=READ_ONLY)\ndef city_temperatures", "def city_temperatures")
    edit_file(example / "tests" / "test_weather.py", "def test_city_temperatures", "def _city_temperatures")
    cases = example / "contract_cases.toml"
    edit_file(cases, '[[case]]\ntool = "city_temperatures"\narguments = { cities = ["London", "Oslo"] }\n', "")
    report = example / "contract-report.md"
    result = _run(pytester, example, *workers, "--snapshot-details", "--mcp-contract-report", str(report))
    result.assert_outcomes(passed=36, failed=1, skipped=1)  # its schema item fails; its checks item cannot run
    gone = "city_temperatures (no longer listed; its snapshot mcp_contract_snapshots/weather/city_temperatures.json"
    result.stdout.fnmatch_lines(
        [
            f"removed tools — BREAKING: {gone} is unused (pytest --snapshot-update deletes it))",
            "6 snapshots passed. 1 snapshot unused.",
            "Unused city_temperatures (mcp_contract_snapshots/weather/city_temperatures.json)",
        ]
    )
    assert "## Removed tools — **BREAKING**\n\n- `city_temperatures`: no longer listed;" in report.read_text()
    result = _run(pytester, example, *workers, "--snapshot-update")
    result.assert_outcomes(passed=37, skipped=1)  # its schema item passes as its file goes; its checks item skips
    result.stdout.fnmatch_lines(["*1 unused snapshot deleted.*"])
    assert not (example / "mcp_contract_snapshots" / "weather" / "city_temperatures.json").exists()


def test_a_fixed_bug_turns_its_marker_red(pytester: pytest.Pytester, example: Path) -> None:
    flawed = example / "src" / "weather_service" / "flawed.py"
    edit_file(
        flawed,
        "        self.sunset = sunset\n",
        "        self.sunset = sunset\n\n    def __str__(self) -> str:\n"
        '        return f"sunrise {self.sunrise}, sunset {self.sunset}"\n',
    )
    result = _run(pytester, example)
    result.assert_outcomes(passed=39, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_sun_times_text_is_a_memory_address _*",
            "expected a content-mismatch violation from sun_times matching 'default repr', none occurred: the "
            "marker is stale. If the bug is fixed, remove @pytest.mark.mcp_expect_violation from this test.",
        ]
    )


def test_a_removed_tool_still_named_in_the_cases_file_fails_its_case(pytester: pytest.Pytester, example: Path) -> None:
    edit_file(
        example / "src" / "weather_service" / "server.py",
        "@mcp.tool(annotations=READ_ONLY)\ndef daily_forecast",
        "def daily_forecast",
    )
    # Collecting starts no server, so the case's item says it when it runs, with its schema item and its test.
    result = _run(pytester, example, "-p", "no:randomly")
    result.assert_outcomes(passed=36, failed=3, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "mcp_contract_cases contract_cases.toml, case 2: tool 'daily_forecast' is not listed by the server "
            "(it lists city_temperatures, get_weather, hourly, station_reading, temperature, weather_report). "
            "Fix the case's tool, or drop the case.",
        ]
    )
    result.stdout.fnmatch_lines(["FAILED *pyproject.toml::call[[]daily_forecast-lisbon[]]*"])
