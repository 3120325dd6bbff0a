"""The mcp_expect_error, mcp_expect_violation and mcp_contract_server markers: met, unmet, malformed."""

from __future__ import annotations

import pytest
from conftest import Project
from contract_servers.sources import WEATHER_WITH_EXAMPLES


@pytest.fixture
def weather(project: Project) -> Project:
    project.pytester.makepyfile(weather=WEATHER_WITH_EXAMPLES)
    project.configure("weather.py:mcp")
    return project


# --- registration ---------------------------------------------------------------------------------


def test_markers_are_registered_with_their_signatures(weather: Project) -> None:
    result = weather.run("--markers")
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.mcp_expect_error(tool=None, match=None): the test must see a call to `tool` (any tool if "
            "None) return a tool error (is_error=True) whose text or server-side cause matches the regex `match`; "
            "such errors do not fail it.",
            "@pytest.mark.mcp_expect_violation(check=None, tool=None, match=None): the test must see a contract "
            "violation *",
            "@pytest.mark.mcp_contract_server(target): this test, class or module uses another MCP server, *",
        ]
    )


# --- mcp_expect_error -----------------------------------------------------------------------------


def test_an_expected_tool_error_passes_and_counts_as_expect_error_does(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_error(tool="get_weather", match="no station")
        def test_atlantis(mcp_contract):
            result = mcp_contract.call_tool("get_weather", {"city": "Atlantis"})
            assert result.is_error

        def test_atlantis_asked(mcp_contract):
            assert mcp_contract.call_tool("get_weather", {"city": "Atlantis"}, expect_error=True).is_error
        """
    )
    result = weather.run("--strict-markers")
    result.assert_outcomes(passed=2)
    # The error each test asked for is its answer, however it asked: a call, neither a violation nor expected.
    result.stdout.fnmatch_lines(["get_weather  —       —           2           0         0        0"])
    result.stdout.fnmatch_lines(["tool calls checked: 2, violations: 0"])


def test_an_expected_error_that_does_not_come_fails_in_the_call_phase(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_error("get_weather")
        def test_london(mcp_contract):
            mcp_contract.call_tool("get_weather", {"city": "London"})
        """
    )
    result = weather.run()
    result.assert_outcomes(failed=1)  # a failure, not a teardown error
    result.stdout.fnmatch_lines(
        [
            "*_ test_london _*",
            "expected a tool error from get_weather, none occurred. Check the call's arguments, or remove "
            "@pytest.mark.mcp_expect_error if the tool should succeed.",
        ]
    )


def test_an_error_that_does_not_match_still_fails(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_error(match="rate limit")
        def test_atlantis(mcp_contract):
            mcp_contract.call_tool("get_weather", {"city": "Atlantis"})
        """
    )
    result = weather.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*[[]tool-error[]]*", "*upstream has no station for Atlantis*"])


def test_an_error_from_another_tool_does_not_meet_the_marker(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_error(tool="forecast")
        def test_atlantis(mcp_contract):
            mcp_contract.call_tool("get_weather", {"city": "Atlantis"}, expect_error=True)
        """
    )
    result = weather.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["expected a tool error from forecast, none occurred.*"])


def test_an_explicit_expect_error_call_also_meets_the_marker(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_error(tool="get_weather")
        def test_atlantis(mcp_contract):
            mcp_contract.call_tool("get_weather", {"city": "Atlantis"}, expect_error=True)
        """
    )
    weather.run().assert_outcomes(passed=1)


# --- mcp_expect_violation -------------------------------------------------------------------------


def test_an_expected_violation_passes_and_others_still_fail(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_violation("content-mismatch", tool="sun_times")
        def test_known_mismatch(mcp_contract):
            mcp_contract.call_tool("sun_times", {"city": "Oslo"})

        @pytest.mark.mcp_expect_violation("content-mismatch")
        def test_another_violation_still_fails(mcp_contract):
            mcp_contract.call_tool("sun_times", {"city": "Oslo"})
            mcp_contract.call_tool("get_weather", {"city": "Atlantis"})
        """
    )
    result = weather.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*_ test_another_violation_still_fails _*", "*[[]tool-error[]]*"])


def test_a_fixed_bug_makes_the_marker_stale(weather: Project) -> None:
    weather.pytester.makepyfile(weather=WEATHER_WITH_EXAMPLES.replace('"city": "Paris"', '"city": "Oslo"'))
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_violation(check=["content-mismatch", "structured-invalid"], tool="sun_times")
        def test_known_mismatch(mcp_contract):
            mcp_contract.call_tool("sun_times", {"city": "Oslo"})
        """
    )
    result = weather.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "expected a content-mismatch or structured-invalid violation from sun_times, none occurred: the marker "
            "is stale. If the bug is fixed, remove @pytest.mark.mcp_expect_violation from this test."
        ]
    )


def test_match_reads_the_violation_message(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_violation(match="Paris")
        def test_names_the_city(mcp_contract):
            mcp_contract.call_tool("sun_times", {"city": "Oslo"})

        @pytest.mark.mcp_expect_violation(match="Lisbon")
        def test_other_text(mcp_contract):
            mcp_contract.call_tool("sun_times", {"city": "Oslo"})
        """
    )
    result = weather.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*_ test_other_text _*", "*[[]content-mismatch[]]*"])


def test_a_class_marker_applies_to_its_tests(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_violation("content-mismatch")
        class TestSunTimes:
            def test_oslo(self, mcp_contract):
                mcp_contract.call_tool("sun_times", {"city": "Oslo"})

            def test_bergen(self, mcp_contract):
                mcp_contract.call_tool("sun_times", {"city": "Bergen"})
        """
    )
    weather.run().assert_outcomes(passed=2)


# --- malformed markers stop the run -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("marker", "problem"),
    [
        (
            'mcp_expect_violation("content-mismatches")',
            "unknown check id 'content-mismatches'; the check ids are output-schema-invalid, input-schema-invalid, "
            "silent-opt-out, "
            "structured-missing, structured-invalid, content-mismatch, content-prose, text-missing, tool-error, input-crash, stdout-noise, answer-unreadable, "
            "wire-invalid, tool-name-invalid, breaking-change, hint-violated",
        ),
        ('mcp_expect_error(tools="get_weather")', "unknown keyword 'tools'; it takes tool, match"),
        ('mcp_expect_error(match="(unclosed")', "match='(unclosed' is not a valid regular expression: *"),
        ('mcp_expect_error("a", "b", "c")', "takes at most 2 arguments (tool, match), got 3"),
        ("mcp_expect_violation(check=[])", "unknown check id an empty list; the check ids are *"),
    ],
)
def test_a_malformed_marker_is_a_usage_error(weather: Project, marker: str, problem: str) -> None:
    weather.tests(f"import pytest\n\n@pytest.mark.{marker}\ndef test_it():\n    pass\n")
    result = weather.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    name = marker.split("(", maxsplit=1)[0]
    result.stderr.fnmatch_lines([f"ERROR: test_contract.py::test_it: @pytest.mark.{name}: {problem}"])


# --- mcp_contract_server ----------------------------------------------------------------------------

OTHER = """
from mcp.server import MCPServer

gateway = MCPServer("gateway")

@gateway.tool()
def alert_level() -> int:
    return 2
"""


def test_a_module_marker_picks_another_server(weather: Project) -> None:
    weather.pytester.makepyfile(other=OTHER)
    weather.tests(
        """
        import pytest

        pytestmark = pytest.mark.mcp_contract_server("other.py:gateway")

        def test_gateway(mcp_contract):
            assert mcp_contract.call_tool("alert_level").structured_content == {"result": 2}

        @pytest.mark.mcp_contract_server("weather.py:mcp")
        def test_closest_marker_wins(mcp_contract):
            assert "get_weather" in mcp_contract.tools
        """
    )
    weather.pytester.makepyfile(
        test_default="def test_configured(mcp_contract):\n    assert 'get_weather' in mcp_contract.tools\n"
    )
    weather.run("--strict-markers").assert_outcomes(passed=3)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            'mcp_contract_server("missing.py:mcp")',
            "ERROR: pytest-mcp-contract cannot load the MCP server 'missing.py:mcp' (@pytest.mark.mcp_contract_server "
            "on test_contract.py::test_it): *",
        ),
        (
            "mcp_contract_server()",
            "ERROR: test_contract.py::test_it: @pytest.mark.mcp_contract_server takes one target string, "
            "e.g. @pytest.mark.mcp_contract_server('weather_service.gateway:server')",
        ),
    ],
)
def test_a_bad_server_marker_is_a_usage_error(weather: Project, marker: str, message: str) -> None:
    weather.tests(f"import pytest\n\n@pytest.mark.{marker}\ndef test_it(mcp_contract):\n    pass\n")
    result = weather.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


# --- the async fixture, markers added late, markers that meet each other ------------------------------


def test_markers_and_counts_apply_to_the_async_fixture(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.anyio
        @pytest.mark.mcp_expect_error(tool="get_weather", match="no station")
        async def test_atlantis(mcp_contract_async):
            await mcp_contract_async.call_tool("get_weather", {"city": "Atlantis"})

        @pytest.mark.anyio
        @pytest.mark.mcp_expect_violation("content-mismatch", tool="sun_times")
        async def test_known_mismatch(mcp_contract_async):
            await mcp_contract_async.call_tool("sun_times", {"city": "Oslo"})

        @pytest.fixture
        def anyio_backend():
            return "asyncio"
        """
    )
    result = weather.run()
    result.assert_outcomes(passed=2)
    # The known defect is expected; the tool error asked for is an answer.
    result.stdout.fnmatch_lines(["tool calls checked: 2, violations: 1 (1 expected)"])


def test_a_marker_a_fixture_adds_is_honoured(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.fixture
        def known_mismatch(request):
            request.node.add_marker(pytest.mark.mcp_expect_violation("content-mismatch"))

        def test_known_mismatch(known_mismatch, mcp_contract):
            mcp_contract.call_tool("sun_times", {"city": "Oslo"})
        """
    )
    weather.run().assert_outcomes(passed=1)


def test_an_expected_error_and_an_expected_tool_error_violation_are_both_met(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_error(tool="get_weather")
        @pytest.mark.mcp_expect_violation("tool-error", tool="get_weather")
        def test_atlantis(mcp_contract):
            mcp_contract.call_tool("get_weather", {"city": "Atlantis"})
        """
    )
    weather.run().assert_outcomes(passed=1)


def test_an_error_with_other_text_is_named_when_the_marker_is_unmet(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_error(tool="get_weather", match="rate limit")
        def test_atlantis(mcp_contract):
            mcp_contract.call_tool("get_weather", {"city": "Atlantis"}, expect_error=True)
        """
    )
    result = weather.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "expected a tool error from get_weather matching 'rate limit'; one came, but it did not match: "
            "'Error executing tool get_weather*upstream has no station for Atlantis*'. Fix the pattern or the call."
        ]
    )


# --- a tool name no tool has ----------------------------------------------------------------------


def test_a_marker_naming_an_unlisted_tool_says_which_one_was_meant(weather: Project) -> None:
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_violation("structured-invalid", tool="get_wether")
        def test_unmet(mcp_contract):
            mcp_contract.call_tool("forecast", {"city": "Oslo"})

        @pytest.mark.mcp_expect_error(tool="get_wether")
        def test_failed(mcp_contract):
            mcp_contract.call_tool("get_weather", {"city": "Atlantis"})
        """
    )
    result = weather.run("-p", "no:randomly")
    result.assert_outcomes(failed=2)
    told = (
        "names tool 'get_wether', which the server does not list (did you mean 'get_weather'?); it lists "
        "forecast, get_weather, sun_times. Fix the tool name there."
    )
    result.stdout.fnmatch_lines(
        [
            # No call could meet it: the failure says why, instead of calling the marker stale.
            f"@pytest.mark.mcp_expect_violation {told}",
            # The call it was meant to accept failed the test: the note says why it was not accepted.
            "E       - tool-error: *",
            f"E       @pytest.mark.mcp_expect_error {told}",
        ]
    )
    assert "the marker is stale" not in result.stdout.str()
