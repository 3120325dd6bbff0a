"""Under GitHub Actions: an ``::error`` workflow command per failure at its file, and the job summary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import Project, edit_file, target
from contract_servers.annotated import INJECTED, TOKEN_VARIABLE
from docs_text import assert_says, quoted

from pytest_mcp_contract._plugin.github import Annotation, escape_data, escape_property

CASES = """\
# example calls

[[case]]
tool = "good"

[[case]]
tool = "mismatch"
"""

TESTS = """\
def test_good(mcp_contract):
    mcp_contract.call_tool("good")

def test_mismatch(mcp_contract):
    mcp_contract.call_tool("good")
    mcp_contract.call_tool("mismatch")
"""

SNAPSHOT = "mcp_contract_snapshots/annotated/good.json"


@pytest.fixture
def failing(project: Project) -> Project:
    """A project with a failure of each kind that belongs to a file: a schema item (its snapshot edited),
    a checks item, a case in the cases file and a test's own call."""
    project.configure(target("annotated"), suite=True, mcp_contract_cases="cases.toml")
    (project.pytester.path / "cases.toml").write_text(CASES, encoding="utf-8")
    project.tests(TESTS)
    # The first run: the listing item writes the snapshots (and fails on schema_bad_type's tool checks).
    project.run("--snapshot-update").assert_outcomes(passed=2, failed=3)
    edit_file(project.pytester.path / SNAPSHOT, '"integer"', '"string"')
    return project


def on_github(monkeypatch: pytest.MonkeyPatch, project: Project) -> Path:
    """The variables the runner sets for a step; the job summary file, as the runner leaves it (another
    step wrote to it already)."""
    summary = project.pytester.path / "step_summary.md"
    summary.write_text("# Earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project.pytester.path))
    return summary


def commands(lines: list[str]) -> list[str]:
    """The lines GitHub's runner would read as workflow commands (with commands never stopped)."""
    return [line for line in lines if line.startswith("::")]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist-2"])
def test_each_failure_is_annotated_at_its_file_and_the_report_goes_to_the_job_summary(
    failing: Project, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    summary = on_github(monkeypatch, failing)
    result = failing.run(*workers, "--mcp-contract-report", "report.md")
    result.assert_outcomes(passed=7, failed=4)
    errors = [line for line in result.stdout.lines if line.startswith("::error ")]
    assert len(errors) == 4  # one per failure, printed once by the controller under xdist
    # Each failure's start (its diff and next step are the failure's own, tested with it); the order is
    # the failures' own, which xdist's workers decide.
    assert sorted(errors) == sorted(
        [
            annotation(
                errors,
                f"::error file={SNAPSHOT},title=tox.ini%3A%3Aschema[good]::the schema of tool 'good' changed "
                '(1 breaking):%0A  good output /properties/n/type: changed from "string" to "integer" — BREAKING%0A',
            ),
            annotation(
                errors,
                "::error file=mcp_contract_snapshots/annotated/schema_bad_type.json,"
                "title=tox.ini%3A%3Achecks[schema_bad_type] (output-schema-invalid)::tool 'schema_bad_type' breaks "
                "its contract as listed (1 violation):%0A[output-schema-invalid] at /properties/n/type%0A",
            ),
            # At the case's [[case]] header, line 6 of cases.toml.
            annotation(
                errors,
                "::error file=cases.toml,line=6,title=tox.ini%3A%3Acall[mismatch-case-2] (content-mismatch)::tool "
                "'mismatch' called with no arguments broke its contract (1 violation):%0A[content-mismatch] at /n%0A"
                "  text block 0 (JSON) has 2 at /n where structured_content has 1%0ANext step:%0A",
            ),
            # At the test's line that made the failing call, not its def line.
            annotation(
                errors,
                "::error file=test_contract.py,line=6,title=test_contract.py%3A%3Atest_mismatch (content-mismatch)::"
                "pytest_mcp_contract.ContractViolationError: tool 'mismatch' called with no arguments broke its "
                "contract (1 violation):%0A[content-mismatch] at /n%0A",
            ),
        ]
    )
    assert all("This call is cases.toml, case 2: fix the tool" in line for line in errors if "cases.toml" in line)
    # The job summary is the Markdown report, appended (an earlier step's text stays), once under xdist.
    report = (failing.pytester.path / "report.md").read_text(encoding="utf-8")
    assert summary.read_text(encoding="utf-8") == "# Earlier step\n" + report + "\n"
    assert "| `good` | **BREAKING** changed (1 breaking) | passed | 3 | — |\n" in report


def annotation(errors: list[str], start: str) -> str:
    """The one annotation that begins with ``start``."""
    found = [line for line in errors if line.startswith(start)]
    assert len(found) == 1, (start, errors)
    return found[0]


def test_commands_are_stopped_until_the_annotations(failing: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Everything before the annotations (the header, failures, a server's stderr) is printed with workflow
    commands stopped; the token that resumes them is the run's own, and they resume once, at the end."""
    on_github(monkeypatch, failing)
    lines = failing.run().stdout.lines
    first, *_rest = commands(lines)
    token = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", first)
    assert token is not None, first
    assert lines.index(first) == 0  # before pytest's header
    resume = lines.index(f"::{token.group(1)}::")
    assert [line.split(" ")[0] for line in commands(lines[resume + 1 :])] == ["::error"] * 4
    assert commands(lines[1:resume]) == []
    again = failing.run().stdout.lines
    assert again[0] != first  # a token a server could not have read from an earlier log


def test_a_server_cannot_inject_a_command_or_read_out_a_secret(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool name and text holding a newline and a command of their own stay inside the annotation's line;
    a line a test prints stays in the stopped part of the log; a secret the settings read from the
    environment is masked in the annotations and the job summary."""
    secret = "s3cr3t-value-4242"
    monkeypatch.setenv(TOKEN_VARIABLE, secret)
    project.configure(target("annotated", "hostile"), mcp_contract_server_env=f"TOKEN=${{{TOKEN_VARIABLE}}}")
    project.tests(
        f"""
        def test_name(mcp_contract):
            mcp_contract.call_tool("inject\\n{INJECTED}")

        def test_token(mcp_contract):
            print("{INJECTED}")
            mcp_contract.call_tool("echo_token")
        """
    )
    summary = on_github(monkeypatch, project)
    result = project.run()
    result.assert_outcomes(failed=2)
    lines = result.stdout.lines
    resume = next(index for index, line in enumerate(lines) if re.fullmatch(r"::[0-9a-f]{32}::", line))
    assert INJECTED in lines[:resume]  # the test's output, printed as it came while commands are stopped
    after = lines[resume + 1 :]
    assert INJECTED not in after
    name, token = commands(after)
    assert name.startswith(
        "::error file=test_contract.py,line=2,title=test_contract.py%3A%3Atest_name (content-mismatch)::"
        "pytest_mcp_contract.ContractViolationError: tool 'inject\\n::warning::injected' called with no "
        "arguments broke its contract (1 violation):%0A[content-mismatch] at /n%0A  text block 0 says "
        '"{\\"n\\": 2}\\n::warning::injected" but structured_content /n is 1'
    )
    assert token.startswith(
        "::error file=test_contract.py,line=6,title=test_contract.py%3A%3Atest_token (content-mismatch)::"
    )
    assert secret in result.stdout.str()  # pytest's own output, which the runner masks for registered secrets
    assert secret not in token
    assert 'text block 0 says "{\\"n\\": 2, \\"token\\": \\"***\\"}' in token
    text = summary.read_text(encoding="utf-8")
    assert (
        '`test_contract.py::test_token` called it with `no arguments`:\n  - `content-mismatch` at `/n`: text block 0 says "{\\"n\\": 2, \\"token\\": \\"***\\"}'
        in text
    )
    assert secret not in text


def test_elsewhere_nothing_changes(failing: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without GITHUB_ACTIONS=true (another CI, a laptop), a set GITHUB_STEP_SUMMARY is left alone and no
    line is a workflow command: the output is the one pytest printed before."""
    summary = on_github(monkeypatch, failing)
    before = failing.run().stdout.lines
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    summary.write_text("# Earlier step\n", encoding="utf-8")
    result = failing.run()
    result.assert_outcomes(passed=7, failed=4)
    assert commands(result.stdout.lines) == []
    assert summary.read_text(encoding="utf-8") == "# Earlier step\n"
    shown = [line for line in before if not line.startswith("::")]
    assert [steady(line) for line in shown] == [steady(line) for line in result.stdout.lines]


def steady(line: str) -> str:
    """A line without what differs between two runs of the same tests: the time taken, addresses."""
    return re.sub(r"0x[0-9a-f]+", "0x…", re.sub(r" in [\d.]+s ", " ", line))


@pytest.mark.parametrize(
    ("annotation", "command"),
    [
        (Annotation("t.py::test", "one\ntwo"), "::error title=t.py%3A%3Atest::one%0Atwo"),
        (
            Annotation("t.py::test[a,b]", "100% done\r\n", "dir,x/a:b.py", 3, ("tool-error",)),
            "::error file=dir%2Cx/a%3Ab.py,line=3,title=t.py%3A%3Atest[a%2Cb] (tool-error)::100%25 done%0D%0A",
        ),
        # A line without a file has none either (GitHub would place it nowhere).
        (Annotation("t.py::test", "m", None, 3), "::error title=t.py%3A%3Atest::m"),
    ],
)
def test_workflow_command_escapes(annotation: Annotation, command: str) -> None:
    """GitHub's escapes: ``%``, CR and LF in the message; also ``:`` and ``,`` in a property."""
    assert annotation.command() == command
    assert escape_data("a%0A") == "a%250A"  # an escape in the text stays text
    assert escape_property("a:b,c") == "a%3Ab%2Cc"


def test_breaking_changes_are_annotated_first() -> None:
    """GitHub shows a step's first ten error annotations beside the diff: a failure whose check is
    breaking-change (``--mcp-contract-against``) comes before the rest, whenever that check appears."""
    from pytest_mcp_contract._plugin.github import ordered

    annotations = [
        Annotation("a", "x", checks=("content-mismatch",)),
        Annotation("b", "y", checks=("breaking-change",)),
        Annotation("c", "z"),
    ]
    assert [annotation.test for annotation in ordered(annotations)] == ["b", "a", "c"]


def test_what_a_reviewer_sees_is_what_the_page_quotes(
    pytester: pytest.Pytester, in_example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example project changed as the snapshots page changes it, run as the workflow of the report
    page runs it: the annotation at the snapshot file and the job summary's table the page shows."""
    server = in_example / "src" / "weather_service" / "server.py"
    old = re.search(r"^class WeatherData\(BaseModel\):\n(?:    .*\n)+", server.read_text(), re.MULTILINE)
    assert old is not None
    edit_file(server, old.group(0), quoted("weather-data-changed") + "\n")
    edit_file(server, '("temperature", "humidity", "conditions")', '("temperature", "conditions")')
    summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(in_example))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=38, failed=2)  # get_weather's schema examples are the listing item's calls
    errors = [line for line in result.stdout.lines if line.startswith("::error ")]
    assert len(errors) == 2
    assert_says("\n".join(errors), quoted("github-annotations"))
    assert_says(summary.read_text(encoding="utf-8"), quoted("github-summary"))


def test_a_case_of_a_json_cases_file_is_annotated_at_its_object(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """JSON has no [[case]] headers: the annotation is at the line the case's object opens on (a brace
    inside a string or in the arguments does not count)."""
    project.configure(target("annotated"), suite=True, mcp_contract_cases="cases.json")
    (project.pytester.path / "cases.json").write_text(
        '{"case": [\n  {"tool": "good", "id": "braces", "arguments": {"text": "{ \\" {"}},\n\n'
        '  {\n    "tool": "mismatch"\n  }\n]}\n',
        encoding="utf-8",
    )
    on_github(monkeypatch, project)
    result = project.run("-k", "call")
    result.assert_outcomes(passed=1, failed=1, deselected=1)  # the listing: no snapshot gives a tool items yet
    (error,) = [line for line in result.stdout.lines if line.startswith("::error ")]
    assert error.startswith(
        "::error file=cases.json,line=4,title=tox.ini%3A%3Acall[mismatch-case-2] (content-mismatch)::"
    )


def test_a_long_failure_is_cut_with_a_pointer_to_the_log() -> None:
    command = Annotation("t.py::test", "x" * 10_000).command()
    assert (
        command == "::error title=t.py%3A%3Atest::" + "x" * 4000 + "… (cut here: the job's log has the whole failure)"
    )


def test_a_job_summary_that_cannot_be_written_is_told_and_the_run_keeps_its_verdict(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.configure(target("annotated"))
    project.tests('def test_good(mcp_contract):\n    mcp_contract.call_tool("good")\n')
    on_github(monkeypatch, project)
    folder = project.pytester.path / "summaries"
    folder.mkdir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(folder))  # a folder: no file to append to
    result = project.run()
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            f"mcp-contract: the report could not be appended to GITHUB_STEP_SUMMARY ({folder}): Is a directory; "
            "the runner sets it to a file of its own: unset it, or point it at a file you can write"
        ]
    )
