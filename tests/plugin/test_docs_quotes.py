"""Every output the README and docs/ quote is what the code prints.

Every output block of the pages is marked ``<!-- quoted: NAME -->`` (``tests/docs_text.py``), and
every marked quote is taken by a test that makes that output the way the page says: here (the
example project, changed as the page says, or the test server the page names) or in the test of
that behaviour (the failures tables of targets.md). In a quote, ``…`` (or ``...``) stands for any
text and whitespace is not compared, so a page may shorten and wrap; every other character must be
printed. The checks tables' examples are held to the messages the same way.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from conftest import (
    EXAMPLE,
    SERVERS,
    Project,
    edit_file,
    example_server,
    make_result,
    target,
)
from docs_text import FENCE, MARKER, OUTPUT, PAGES, ROOT, assert_says, marked, quoted, quoted_rows

from pytest_mcp_contract import CHECKS, ContractViolationError, McpContract, check_result
from pytest_mcp_contract._contract.violations import Violation

TAKEN = re.compile(r'quoted(_rows)?\("([a-z0-9-]+)"\)(?:\["([^"]+)"\])?')


def _printed(result: pytest.RunResult) -> str:
    """pytest's output, with the ``E       `` before each line of an exception's message taken off."""
    return re.sub(r"^E {7}", "", result.stdout.str(), flags=re.MULTILINE)


def _run_example(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", *args)


# --- the pages and their markers ------------------------------------------------------------------


def test_every_output_the_pages_quote_is_marked() -> None:
    unmarked = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        starts = {marker.end() for marker in MARKER.finditer(text)}
        for fence in FENCE.finditer(text):
            if fence.group(2).split(" ")[0] in OUTPUT and fence.start() not in starts:
                unmarked.append(f"{page.name}:{text[: fence.start()].count(chr(10)) + 1}")
    assert unmarked == []  # an output with no "quoted" marker would be checked by nothing


def test_every_quote_is_taken_by_a_test() -> None:
    sources = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "tests").rglob("test_*.py"))
    taken = {(name, row) for _, name, row in TAKEN.findall(sources)}
    names = {name for name, _ in taken}
    assert set(marked()) - names == set()  # a marker no test takes
    assert names - set(marked()) == set()  # a test takes a quote no page has
    for name, row in taken:
        if row:
            assert row in quoted_rows(name), (name, row)
    for name in marked():
        if "|" in quoted(name).split("\n", 1)[0]:  # a table: every row taken, and every row quotes
            rows = quoted_rows(name)
            assert {row for taken_name, row in taken if taken_name == name} == set(rows), name
            assert [row for row, reads in rows.items() if not reads] == [], name


def test_a_quote_may_shorten_and_wrap_but_not_change_a_word() -> None:
    printed = "tool 'x' called with {} broke its contract (2 violations):\n[structured-invalid] at /a\n  bad"
    assert_says(printed, "tool 'x' called … (2 violations): [structured-invalid]\nat /a")
    with pytest.raises(AssertionError, match=re.escape("but the code printed no '(3 violations):' there")):
        assert_says(printed, "tool 'x' called … (3 violations):")
    with pytest.raises(AssertionError, match="says nothing to look for"):
        assert_says(printed, " … ")


# --- the quoted outputs ---------------------------------------------------------------------------


def test_the_failure_of_the_readme_and_the_index_is_what_the_example_prints(project: Project) -> None:
    project.configure("weather_service.flawed:flawed", pythonpath=str(EXAMPLE / "src"))
    project.tests('def test_air(mcp_contract):\n    mcp_contract.call_tool("air_quality", {"city": "Oslo"})\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    quote = quoted("air-quality-failure")
    assert quote.startswith("E   pytest_mcp_contract.ContractViolationError:")
    assert_says(_printed(result), re.sub(r"^E {3}", "", quote, flags=re.MULTILINE))


def test_the_arguments_error_is_what_a_call_raises() -> None:
    from mcp.server import MCPServer

    from pytest_mcp_contract import InvalidArgumentsError

    server = MCPServer("shop", log_level="ERROR")

    @server.tool()
    def get_item(sku: str) -> dict[str, int]:
        return {sku: 1}

    contract = McpContract(server)
    try:
        with pytest.raises(InvalidArgumentsError) as caught:
            contract.call_tool("get_item", {"skus": "A1"})
    finally:
        contract.close()
    assert_says(str(caught.value), quoted("arguments-error"))


def test_a_violation_of_one_version_names_it(project: Project) -> None:
    project.configure(f"stdio:{sys.executable} {SERVERS / 'handshake_only.py'}")
    project.tests('def test_numbers(mcp_contract):\n    mcp_contract.call_tool("numbers")\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    assert_says(_printed(result), quoted("version-violation"))


def test_a_fuzz_failure_and_the_fuzz_summary(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FUZZ_FIXED", raising=False)
    project.configure(target("fuzz_targets", "mcp"), suite=True)
    project.run("--snapshot-update", "-k", "listing").assert_outcomes(passed=1)  # fuzz items come with snapshots
    result = project.run(
        "--mcp-contract-fuzz", "100", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and (average or forecast)"
    )
    result.assert_outcomes(passed=1, failed=1)
    assert_says(result.stdout.str(), quoted("fuzz-failure"))
    assert_says(result.stdout.str(), quoted("fuzz-summary"))


def test_a_capability_the_client_lacks(project: Project) -> None:
    project.configure(target("asks"))
    project.tests('def test_book(mcp_contract):\n    mcp_contract.call_tool("book", {"date": "friday"})\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    assert_says(_printed(result), quoted("client-capability"))


def test_the_summary_is_the_example_projects(pytester: pytest.Pytester, in_example: Path) -> None:
    result = _run_example(pytester)
    result.assert_outcomes(passed=40)
    assert_says(result.stdout.str(), quoted("summary"))


def test_the_coverage_is_the_example_projects(pytester: pytest.Pytester, in_example: Path) -> None:
    result = _run_example(pytester, "--mcp-contract-coverage")
    result.assert_outcomes(passed=40)
    assert_says(result.stdout.str(), quoted("coverage"))


def test_the_suite_items_are_the_example_projects(pytester: pytest.Pytester, in_example: Path) -> None:
    collected = set(_run_example(pytester, "--collect-only", "-q").stdout.lines)
    listed = [line.split()[0] for line in quoted("suite-items").splitlines()]
    expected = ["pyproject.toml::listing", "pyproject.toml::schema[get_weather]", "pyproject.toml::checks[get_weather]"]
    assert listed == expected
    assert set(listed) <= collected


def test_a_tool_without_a_snapshot(pytester: pytest.Pytester, in_example: Path) -> None:
    (in_example / "mcp_contract_snapshots" / "weather" / "get_weather.json").unlink()
    result = _run_example(pytester, "-m", "mcp_contract", "-k", "listing")
    result.assert_outcomes(failed=1, deselected=37)
    assert_says(result.stdout.str(), quoted("no-snapshot"))
    assert not (in_example / "mcp_contract_snapshots" / "weather" / "get_weather.json").exists()


def test_a_schema_change_the_way_the_snapshots_page_makes_it(pytester: pytest.Pytester, in_example: Path) -> None:
    # The model as the page rewrites it, and get_weather no longer passing humidity.
    server = in_example / "src" / "weather_service" / "server.py"
    old = re.search(r"^class WeatherData\(BaseModel\):\n(?:    .*\n)+", server.read_text(), re.MULTILINE)
    assert old is not None
    edit_file(server, old.group(0), quoted("weather-data-changed") + "\n")
    edit_file(server, '("temperature", "humidity", "conditions")', '("temperature", "conditions")')
    result = _run_example(pytester, "-m", "mcp_contract", "-k", "schema and get_weather")
    result.assert_outcomes(failed=1, deselected=39)
    assert_says(result.stdout.str(), quoted("schema-diff"))


def test_a_removed_tool(pytester: pytest.Pytester, in_example: Path) -> None:
    edit_file(
        in_example / "src" / "weather_service" / "server.py",
        "@mcp.tool(annotations=READ_ONLY)\ndef city_temperatures",
        "def city_temperatures",
    )
    edit_file(in_example / "tests" / "test_weather.py", "def test_city_temperatures", "def _city_temperatures")
    case = '[[case]]\ntool = "city_temperatures"\narguments = { cities = ["London", "Oslo"] }\n'
    edit_file(in_example / "contract_cases.toml", case, "")
    result = _run_example(pytester)
    # Its schema item fails, as its file is out of date; its checks item cannot run.
    result.assert_outcomes(passed=36, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["tool 'city_temperatures' has a snapshot, but the server no longer lists it*"])
    assert_says(result.stdout.str(), quoted("removed-tool"))


# --- the checks tables ----------------------------------------------------------------------------


def _examples(page: Path) -> dict[str, str]:
    """Each check's example cell, its ``<br>`` as line ends."""
    rows = re.findall(r"^\| `([a-z-]+)` \|.*\| (`\[.*`) \|$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return {check: "\n".join(part.strip("`") for part in cell.split("<br>")) for check, cell in rows}


EXAMPLES = _examples(ROOT / "docs" / "checks.md")


def test_both_checks_tables_give_the_same_examples() -> None:
    assert set(EXAMPLES) == set(CHECKS)
    assert _examples(ROOT / "README.md") == EXAMPLES


@pytest.fixture(scope="module")
def example_messages() -> str:
    """What the example project's broken tools raise, in process (its flawed server and its gateway)."""
    flawed = example_server("weather_service.flawed", "flawed")
    gateway = example_server("weather_service.gateway", "gateway")
    calls = {
        flawed: [("station_info", {"station": "EGLL"}), ("wind", {"city": "London"})]
        + [(tool, {"city": "Oslo"}) for tool in ("air_quality", "uv_index", "sun_times")],
        gateway: [(tool, {"city": "Oslo"}) for tool in ("alert_text", "alert_level", "alert_summary")],
    }
    raised = []
    for server, made in calls.items():
        contract = McpContract(server)
        try:
            for tool, arguments in made:
                with pytest.raises(ContractViolationError) as caught:
                    contract.call_tool(tool, arguments)
                raised.append(str(caught.value))
        finally:
            contract.close()
    return "\n".join(raised)


IN_THE_EXAMPLE = [
    "output-schema-invalid",
    "silent-opt-out",
    "structured-missing",
    "structured-invalid",
    "content-mismatch",
    "tool-error",
]


@pytest.mark.parametrize("check", IN_THE_EXAMPLE)
def test_the_example_of_a_check_is_what_the_example_project_raises(example_messages: str, check: str) -> None:
    assert_says(example_messages, EXAMPLES[check])


def test_the_example_of_content_prose_is_what_the_check_says() -> None:
    from mcp.types import Tool

    schema = {"type": "object", "properties": {"route": {"type": "string"}, "flights": {"type": "integer"}}}
    probe = Tool(name="flights", input_schema={"type": "object"}, output_schema=schema)
    result = make_result({"route": "LYS-CDG", "flights": 3}, "3 flights on LYS-CDG")
    found: list[Violation] = check_result(probe, result, require_json_text=True)
    assert_says(str(ContractViolationError(found, tool="flights")), EXAMPLES["content-prose"])


def test_the_example_of_input_schema_invalid_is_what_a_none_default_gets() -> None:
    from mcp.server import MCPServer

    server = MCPServer("weather")

    @server.tool()
    def forecast(city: str = None) -> str:  # type: ignore[assignment]  # noqa: RUF013 (the defect itself)
        return f"sunny in {city}"

    contract = McpContract(server)
    try:
        with pytest.raises(ContractViolationError) as caught:
            contract.call_tool("forecast", {"city": "Oslo"})
    finally:
        contract.close()
    assert_says(str(caught.value), EXAMPLES["input-schema-invalid"])


def test_the_example_of_input_crash_is_what_fuzzing_finds(project: Project) -> None:
    project.configure(target("fuzz_targets", "mcp"), suite=True)
    project.run("--snapshot-update", "-k", "listing").assert_outcomes(passed=1)  # fuzz items come with snapshots
    result = project.run("--mcp-contract-fuzz", "50", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and strict_echo")
    result.assert_outcomes(failed=1)
    assert_says(result.stdout.str(), EXAMPLES["input-crash"])


def test_the_example_of_answer_unreadable_is_what_a_garbled_server_gets(project: Project) -> None:
    project.configure(f"stdio:{sys.executable} {SERVERS / 'garbled.py'}")
    project.tests('def test_menu(mcp_contract):\n    mcp_contract.call_tool("bad_utf8")\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    assert_says(_printed(result), EXAMPLES["answer-unreadable"])


def test_the_example_of_stdout_noise_is_what_a_node_server_gets(
    project: Project, node: str, node_servers: Path
) -> None:
    project.configure(f"stdio:{node} {node_servers / 'noisy.mjs'}")
    project.tests('def test_lookup(mcp_contract):\n    mcp_contract.call_tool("lookup", {"city": "Oslo"})\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    assert_says(_printed(result), EXAMPLES["stdout-noise"])


def test_the_example_of_wire_invalid_is_what_a_hand_written_server_gets(project: Project) -> None:
    project.configure(f"stdio:{sys.executable} {SERVERS / 'strict_wire.py'} is-error-string")
    project.tests('def test_echo(mcp_contract):\n    mcp_contract.call_tool("echo")\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    assert_says(_printed(result), EXAMPLES["wire-invalid"])


def test_the_example_of_tool_name_invalid_is_what_a_hand_written_listing_gets(project: Project) -> None:
    project.configure(f"stdio:{sys.executable} {SERVERS / 'strict_wire.py'} bad-name", suite=True)
    project.tests("def test_plain():\n    pass\n")
    result = project.run("--snapshot-update", "-k", "listing")
    result.assert_outcomes(failed=1)
    assert_says(_printed(result), EXAMPLES["tool-name-invalid"])


def test_the_example_of_hint_violated_is_what_a_sequence_finds_in_the_notebook(project: Project) -> None:
    project.configure(f"{SERVERS / 'notebook.py'}:build()", suite=True, mcp_contract_sandbox="true")
    project.tests("def test_plain():\n    pass\n")
    sequences = ("--mcp-contract-sequences", "40", "--mcp-contract-fuzz-seed", "1", "-p", "no:randomly")
    result = project.run("tox.ini::sequences", *sequences)
    result.assert_outcomes(failed=1)
    assert_says(_printed(result), EXAMPLES["hint-violated"])


def test_the_example_of_text_missing_is_what_the_check_says() -> None:
    from mcp.types import Tool

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    probe = Tool(name="count", input_schema={"type": "object"}, output_schema=schema)
    found: list[Violation] = check_result(probe, make_result({"n": 1}, ""))
    assert_says(str(ContractViolationError(found, tool="count")), EXAMPLES["text-missing"])
