"""``--mcp-contract-against REF``: every tool against its snapshot committed at a git revision, in real
git repositories made in temp folders (commit on ``main``, branch, change the server, update, commit)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Project, commit_all, git
from contract_servers.sources import WEATHER_V1
from docs_text import assert_says, quoted

# humidity removed from the output model: a client that reads it gets nothing
NO_HUMIDITY = WEATHER_V1.replace('    humidity: int = Field(description="Relative humidity, %")\n', "").replace(
    ", humidity=80", ""
)
# an optional field added: nothing a client relied on changes
WIND_LINE = '    wind: float | None = Field(default=None, description="km/h")\n'
WITH_WIND = WEATHER_V1.replace("    humidity: int", WIND_LINE + "    humidity: int")
ROOT = Path(__file__).parents[2]
NO_PING = WEATHER_V1.replace("@mcp.tool()\ndef ping", "def ping")
WITH_ECHO = WEATHER_V1 + "\n@mcp.tool()\ndef echo(text: str) -> str:\n    return text\n"


@pytest.fixture
def repo(project: Project) -> Project:
    """A server repository: weather.py and its snapshots committed on main, then a branch checked out."""
    project.pytester.makepyfile(weather=WEATHER_V1)
    project.configure("weather.py:mcp", suite=True)
    git(project, "init", "-q", "-b", "main")
    project.run("--snapshot-update").assert_outcomes(passed=1)  # the listing item writes every tool's snapshot
    commit_all(project, "weather server and its snapshots")
    git(project, "checkout", "-q", "-b", "change")
    return project


def update_and_commit(project: Project, source: str) -> None:
    """What a pull request does: change the server, update its snapshots, commit them."""
    project.pytester.makepyfile(weather=source)
    project.run("--snapshot-update")
    commit_all(project, "change the server")


def test_a_removed_field_passes_the_snapshots_but_fails_against_main(repo: Project) -> None:
    update_and_commit(repo, NO_HUMIDITY)
    repo.run().assert_outcomes(passed=5)  # the updated snapshots match: the break went by unseen
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=6, failed=1)
    commit = git(repo, "rev-parse", "main").strip()
    result.stdout.fnmatch_lines([f"mcp-contract: tools compared with the snapshots committed at main, commit {commit}"])
    result.stdout.fnmatch_lines(
        [
            "*_ against[[]get_weather[]] _*",
            "tool 'get_weather' has 1 breaking change against main (???????), from a client's side:",
            "[[]breaking-change[]] at /output_schema/properties/humidity",
            "  removed (was required); a client that reads it, as the output_schema at main promised, can now get "
            "a result without it",
            "Next step: undo the change to the tool, so clients written against the base keep working (the base's "
            "schema: git show main:mcp_contract_snapshots/weather/get_weather.json); or, if the break is intended, "
            "acknowledge it for the reviewers with a line in mcp_contract_allow:",
            "    get_weather:breaking-change  # why clients can take it",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*- mcp contract -*",
            "changes against main (???????): 1 breaking",
            "  get_weather output /properties/humidity: removed (was required) — BREAKING",
            "FAILED tox.ini::against[[]get_weather[]]*",
        ]
    )
    result.stdout.no_fnmatch_line("*against[[]ping[]]*FAILED*")
    assert_says(result.stdout.str(), quoted("against-break"))
    # The checks tables' example is this message too.
    assert_says(
        result.stdout.str(),
        "[breaking-change] at /output_schema/properties/humidity\n"
        "removed (was required); a client that reads it, as the output_schema at main promised, can now get a "
        "result without it",
    )
    for page in ("README.md", "docs/checks.md"):
        row = next(line for line in (ROOT / page).read_text().splitlines() if line.startswith("| `breaking-change`"))
        assert row.endswith(
            "| `[breaking-change] at /output_schema/properties/humidity`<br>`removed (was required); a client that "
            "reads it, as the output_schema at main promised, can now get a result without it` |"
        )


def test_the_summary_lists_every_change_breaking_first(repo: Project) -> None:
    update_and_commit(repo, NO_HUMIDITY.replace("    temperature: float\n", WIND_LINE + "    temperature: float\n"))
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=6, failed=1)
    assert_says(result.stdout.str(), quoted("against-summary"))


def test_an_added_optional_field_passes_and_is_listed(repo: Project) -> None:
    update_and_commit(repo, WITH_WIND)
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(
        [
            "changes against main (???????): 1 additive",
            "  get_weather output /properties/wind: added (optional) — additive",
        ]
    )


def test_a_reworded_description_is_cosmetic_and_passes(repo: Project) -> None:
    update_and_commit(repo, WEATHER_V1.replace("Relative humidity, %", "Relative humidity, percent"))
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(
        [
            "changes against main (???????): 1 cosmetic",
            '  get_weather output /properties/humidity/description: changed from "Relative humidity, %" to '
            '"Relative humidity, percent" — cosmetic',
        ]
    )


def test_an_unchanged_server_passes_and_says_so(repo: Project) -> None:
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(["changes against main (???????): none"])


def test_the_working_tree_is_compared_whatever_is_committed(repo: Project) -> None:
    # Nothing updated nor committed: the live server against main, as a reviewer's checkout would run it.
    repo.pytester.makepyfile(weather=NO_HUMIDITY)
    result = repo.run("--mcp-contract-against", "main", "-k", "against")
    result.assert_outcomes(failed=1, passed=1, deselected=5)
    result.stdout.fnmatch_lines(["FAILED tox.ini::against[[]get_weather[]]*"])


def test_an_acknowledged_break_passes_and_is_reported_with_its_reason(repo: Project, tmp_path: Path) -> None:
    update_and_commit(repo, NO_HUMIDITY)
    repo.configure(
        "weather.py:mcp",
        suite=True,
        mcp_contract_allow="\n    get_weather:breaking-change  # humidity moved to get_air (#12)",
    )
    report = tmp_path / "report.md"
    result = repo.run("--mcp-contract-against", "main", f"--mcp-contract-report={report}")
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(
        [
            "changes against main (???????): 1 breaking",
            "  get_weather output /properties/humidity: removed (was required) — BREAKING, acknowledged: "
            "humidity moved to get_air (#12)",
            "breaking changes acknowledged in mcp_contract_allow: get_weather (humidity moved to get_air (#12))",
        ]
    )
    result.stdout.no_fnmatch_line("stale*")
    assert_says(result.stdout.str(), quoted("against-acknowledged"))
    text = report.read_text(encoding="utf-8")
    section = text.split("\n## ")[1]  # the first section, before the facts and the tables
    assert section.startswith("Breaking changes against `main (")
    assert (
        "**Breaking**\n\n- get_weather output /properties/humidity: removed (was required) — BREAKING, "
        "acknowledged: humidity moved to get_air (#12)\n"
    ) in section


def test_an_acknowledgement_no_break_needs_is_stale(repo: Project) -> None:
    update_and_commit(repo, WITH_WIND)
    repo.configure("weather.py:mcp", suite=True, mcp_contract_allow="\n    get_weather:breaking-change  # wind")
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(
        ["stale mcp_contract_allow lines (nothing needed them; remove them): get_weather:breaking-change"]
    )
    # A run that compares with no base cannot need the line: it is not called stale there.
    result = repo.run()
    result.assert_outcomes(passed=5)
    result.stdout.no_fnmatch_line("stale*")


def test_a_removed_tool_is_breaking_and_a_new_tool_additive(repo: Project) -> None:
    update_and_commit(repo, NO_PING.replace("def ping", "def _ping") + WITH_ECHO[len(WEATHER_V1) :])
    result = repo.run("--mcp-contract-against", "main", "-k", "against")
    result.assert_outcomes(passed=2, failed=1, deselected=5)
    result.stdout.fnmatch_lines(
        [
            "*_ against[[]ping[]] _*",
            "tool 'ping' has 1 breaking change against main (???????), from a client's side:",
            "[[]breaking-change[]]",
            "  removed: the server no longer lists it; a client that calls it now gets an unknown-tool error",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "changes against main (???????): 1 breaking, 1 additive",
            "  ping tool /: removed: the server no longer lists it — BREAKING",
            "  echo tool /: added: the base revision has no snapshot of it — additive",
        ]
    )


def test_input_schemas_are_compared_when_snapshotted(project: Project) -> None:
    project.pytester.makepyfile(weather=WEATHER_V1)
    project.configure("weather.py:mcp", suite=True, mcp_contract_snapshot_fields="input_schema")
    git(project, "init", "-q", "-b", "main")
    project.run("--snapshot-update").assert_outcomes(passed=1)  # the listing item writes the snapshots
    commit_all(project, "snapshots with input schemas")
    # A new required argument: every call a client wrote against main is refused.
    project.pytester.makepyfile(
        weather=WEATHER_V1.replace("def get_weather(city: str)", "def get_weather(city: str, country: str)")
    )
    result = project.run("--mcp-contract-against", "main", "-k", "against")
    result.assert_outcomes(passed=1, failed=1, deselected=5)
    result.stdout.fnmatch_lines(
        [
            "[[]breaking-change[]] at /input_schema/properties/country",
            "  added (required); a client that sends what the input_schema at main accepted can now be refused here",
        ]
    )


def test_the_ini_key_names_the_base_too(repo: Project) -> None:
    update_and_commit(repo, NO_HUMIDITY)
    repo.configure("weather.py:mcp", suite=True, mcp_contract_against="main")
    result = repo.run("-k", "against")
    result.assert_outcomes(passed=1, failed=1, deselected=5)
    result.stdout.fnmatch_lines(["FAILED tox.ini::against[[]get_weather[]]*"])


def test_xdist_gives_the_same_verdict(repo: Project) -> None:
    update_and_commit(repo, NO_HUMIDITY)
    result = repo.run("--mcp-contract-against", "main", "-n", "2")
    result.assert_outcomes(passed=6, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ against[[]get_weather[]] _*",
            "[[]breaking-change[]] at /output_schema/properties/humidity",
            "  removed (was required);*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "changes against main (???????): 1 breaking",
            "  get_weather output /properties/humidity: removed (was required) — BREAKING",
        ]
    )


# --- a base that cannot serve: usage errors at start-up ----------------------------------------------


def test_outside_a_git_work_tree(project: Project) -> None:
    project.pytester.makepyfile(weather=WEATHER_V1)
    project.configure("weather.py:mcp", suite=True)
    result = project.run("--mcp-contract-against", "main")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --mcp-contract-against main compares the tools with the snapshots committed at a git revision, "
            f"but git finds no work tree at {project.pytester.path} (git says: fatal: not a git repository*). "
            "Run pytest in a clone of the repository (in CI, check it out with actions/checkout; for a clone another "
            "user owns, git config --global --add safe.directory PATH), or drop the option."
        ]
    )


def test_an_unknown_ref_says_to_fetch_it(repo: Project) -> None:
    result = repo.run("--mcp-contract-against", "origin/main")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: --mcp-contract-against origin/main: git knows no revision 'origin/main' in {repo.pytester.path}. "
            "Name a branch, tag or commit that exists here, or fetch it first (git fetch origin main); in GitHub "
            "Actions, check out with fetch-depth: 0 so the base branch is there."
        ]
    )


def test_a_ref_without_the_snapshot_folder(project: Project) -> None:
    project.pytester.makepyfile(weather=WEATHER_V1)
    project.configure("weather.py:mcp", suite=True, mcp_contract_against="v1")
    git(project, "init", "-q", "-b", "main")
    commit_all(project, "the server, no snapshots yet")
    git(project, "tag", "v1")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_against = v1: the revision v1 (???????) has no snapshot folder "
            "mcp_contract_snapshots/, so there is nothing to compare with. Name a revision whose snapshots are "
            "committed, or commit them there first (pytest --snapshot-update, then git add and commit the folder); "
            "mcp_contract_snapshot_dir names another folder."
        ]
    )


def test_a_run_without_the_suite_has_nothing_to_compare(repo: Project) -> None:
    repo.configure("weather.py:mcp", suite=False)
    result = repo.run("--mcp-contract-against", "main")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --mcp-contract-against main compares the tools in against[[]TOOL[]] items of the generated "
            "contract suite, which mcp_contract_suite = false switches off. Switch it on for that run: "
            "-o mcp_contract_suite=true"
        ]
    )


def test_a_snapshot_folder_outside_the_repository(repo: Project) -> None:
    repo.configure("weather.py:mcp", suite=True, mcp_contract_snapshot_dir="../elsewhere")
    result = repo.run("--mcp-contract-against", "main")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: --mcp-contract-against main: the snapshot folder {repo.pytester.path.parent / 'elsewhere'} lies "
            f"outside the git work tree {repo.pytester.path}, so no revision holds it. Keep the snapshots in the "
            "repository (mcp_contract_snapshot_dir), or drop the option."
        ]
    )


def test_a_base_file_that_is_not_json_is_named(repo: Project) -> None:
    (repo.pytester.path / "mcp_contract_snapshots" / "weather" / "ping.json").write_text("{\n", encoding="utf-8")
    commit_all(repo, "a broken snapshot")
    result = repo.run("--mcp-contract-against", "HEAD", "-k", "against")
    # ping's unreadable file gives it no items of its own (the listing item names the file): deselected are
    # the listing, schema[get_weather] and checks[get_weather]; against[ping] still compares with the base.
    result.assert_outcomes(passed=1, failed=1, deselected=3)
    result.stdout.fnmatch_lines(
        [
            "the snapshot of tool 'ping' committed at HEAD (???????) is not valid JSON (line 2, column 1: Expecting "
            "property name enclosed in double quotes), so the tool cannot be compared with it (see git show "
            "HEAD:mcp_contract_snapshots/weather/ping.json). Compare against a revision whose file is intact."
        ]
    )


def test_the_documented_workflow_command_fails_a_pull_request_that_breaks_a_client(
    repo: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # What actions/checkout with fetch-depth: 0 leaves: the base branch as origin/<base_ref>.
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    update_and_commit(repo, NO_HUMIDITY)
    workflow = quoted("github-workflow")
    command = next(line.split("run: ", 1)[1] for line in workflow.splitlines() if "run: pytest" in line)
    args = command.replace("${{ github.base_ref }}", "main").split()[1:]
    assert args == ["-n", "2", "--mcp-contract-against", "origin/main"]
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(repo.pytester.path))
    result = repo.run(*args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    errors = [line for line in result.stdout.lines if line.startswith("::error ")]
    assert len(errors) == 1, result.stdout.str()
    assert errors[0].startswith(
        "::error file=mcp_contract_snapshots/weather/get_weather.json,title=tox.ini%3A%3Aagainst[get_weather]"
    ), errors[0]
    assert "breaking-change" in errors[0]
    assert "/output_schema/properties/humidity" in errors[0]
    report = summary.read_text(encoding="utf-8")
    assert report.index("Breaking changes against") < report.index("get_weather")
