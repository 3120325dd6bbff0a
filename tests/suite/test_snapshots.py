"""Schema snapshots through syrupy: created on request, compared, changes classified, unused ones reported."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import HANG, SERVERS, Project
from contract_servers.sources import WEATHER_V1, WEATHER_V2


@pytest.fixture
def weather(project: Project) -> Project:
    project.pytester.makepyfile(weather=WEATHER_V1)
    project.configure("weather.py:mcp", suite=True)
    return project


def _snapshots(project: Project) -> Path:
    return project.pytester.path / "mcp_contract_snapshots" / "weather"


def test_a_missing_snapshot_says_how_to_create_it(weather: Project) -> None:
    # No snapshot yet: collection knows no tool, so the listing item checks them and says how to record them.
    result = weather.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ listing _*",
            "2 tools have no schema snapshot in mcp_contract_snapshots/weather yet: 'get_weather', 'ping' "
            "(their tool checks ran here).",
            "Record them with: pytest --snapshot-update tox.ini::listing; from then on each has items of its own.",
        ]
    )
    result.stdout.fnmatch_lines(["schema snapshots: 2 missing", "tool checks: 2 passed, 0 failed"])
    assert not _snapshots(weather).exists()  # nothing is written without --snapshot-update
    # One tool new since the snapshots: the same, for it alone.
    weather.run("--snapshot-update", "tox.ini::listing").assert_outcomes(passed=1)
    (_snapshots(weather) / "ping.json").unlink()
    result = weather.run()
    result.assert_outcomes(passed=2, failed=1)  # get_weather's items pass; the listing item fails for ping
    result.stdout.fnmatch_lines(
        [
            "*_ listing _*",
            "tool 'ping' has no schema snapshot in mcp_contract_snapshots/weather yet (its tool checks ran here).",
            "Record it with: pytest --snapshot-update tox.ini::listing; from then on it has items of its own.",
        ]
    )
    assert not (_snapshots(weather) / "ping.json").exists()


def test_update_writes_one_sorted_json_file_per_tool(weather: Project) -> None:
    result = weather.run("--snapshot-update")
    result.assert_outcomes(passed=1)  # the first run: the listing item writes every tool's file
    result.stdout.fnmatch_lines(["schema snapshots: 2 created"])
    assert sorted(path.name for path in _snapshots(weather).iterdir()) == ["get_weather.json", "ping.json"]
    text = (_snapshots(weather) / "ping.json").read_text(encoding="utf-8")
    assert text == textwrap.dedent(
        """\
        {
          "output_schema": {
            "properties": {
              "result": {
                "title": "Result",
                "type": "string"
              }
            },
            "required": [
              "result"
            ],
            "title": "pingOutput",
            "type": "object"
          }
        }
        """
    )
    weather.run().assert_outcomes(passed=5)  # the listing, and each tool's schema and checks items


def test_a_changed_schema_fails_with_classified_changes_then_the_diff(weather: Project) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    before = (_snapshots(weather) / "get_weather.json").read_text(encoding="utf-8")
    weather.pytester.makepyfile(weather=WEATHER_V2)
    result = weather.run()
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ schema[[]get_weather[]] _*",
            "the schema of tool 'get_weather' changed (2 breaking, 1 additive):",
            "  get_weather output /properties/humidity: removed (was required) — BREAKING",
            '  get_weather output /properties/temperature: widened from "number" to "number" | "string" — BREAKING',
            "  get_weather output /properties/wind: added (optional) — additive",
            "",
            "Diff of mcp_contract_snapshots/weather/get_weather.json (- snapshot, + server):",
            "--- snapshot/get_weather.json",
            "+++ server/get_weather.json",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            '-      "humidity": {',
            "If the change is intended, accept it with: pytest --snapshot-update -k 'schema[get_weather]' "
            "(then commit the file); otherwise undo the change to the tool.",
        ]
    )
    assert (_snapshots(weather) / "get_weather.json").read_text(encoding="utf-8") == before
    result = weather.run("--snapshot-update")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["1 snapshot passed. 1 snapshot updated."])
    assert '"wind"' in (_snapshots(weather) / "get_weather.json").read_text(encoding="utf-8")
    weather.run().assert_outcomes(passed=5)


def test_snapshots_git_ignores_are_named_with_the_rule_at_update(weather: Project) -> None:
    path = weather.pytester.path
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    (path / ".gitignore").write_text("__pycache__/\n*.json\n")
    result = weather.run("--snapshot-update")
    result.assert_outcomes(passed=1)
    said = (
        "snapshots git ignores: mcp_contract_snapshots/weather/get_weather.json and 1 more (by .gitignore:2:*.json): "
        "no commit holds them, so no review sees a schema change. Add the line !/mcp_contract_snapshots/** to "
        ".gitignore after that rule (or stop ignoring the folder), then git add mcp_contract_snapshots"
    )
    result.stdout.fnmatch_lines([said])
    weather.run("-q", "--snapshot-update").stdout.fnmatch_lines(
        ["mcp contract: 2 tools; schema snapshots 2 matched; *", said]
    )
    assert "git ignores" not in weather.run().stdout.str()  # said where snapshots are written
    (path / ".gitignore").write_text("__pycache__/\n*.json\n!/mcp_contract_snapshots/**\n")  # as it says
    assert "git ignores" not in weather.run("--snapshot-update").stdout.str()


def test_update_new_only_records_missing_snapshots_and_keeps_changed_ones(weather: Project) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    (_snapshots(weather) / "ping.json").unlink()  # ping is new since the snapshots
    before = (_snapshots(weather) / "get_weather.json").read_text(encoding="utf-8")
    weather.pytester.makepyfile(weather=WEATHER_V2)
    result = weather.run("--snapshot-update-new-only")
    result.assert_outcomes(passed=2, failed=1)  # the listing writes ping's; schema[get_weather] fails
    result.stdout.fnmatch_lines(["schema snapshots: 1 changed, 1 created (2 breaking changes)"])
    assert (_snapshots(weather) / "get_weather.json").read_text(encoding="utf-8") == before
    assert (_snapshots(weather) / "ping.json").is_file()


def test_a_removed_tool_leaves_an_unused_snapshot_until_update(weather: Project) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    weather.pytester.makepyfile(weather=WEATHER_V1.replace("@mcp.tool()\ndef ping", "def ping"))
    result = weather.run("--snapshot-details")
    result.assert_outcomes(passed=3, failed=1, skipped=1)  # schema[ping] fails, checks[ping] is skipped
    result.stdout.fnmatch_lines(
        [
            "*_ schema[[]ping[]] _*",
            "tool 'ping' has a snapshot, but the server no longer lists it: every client that calls it breaks. "
            "If it was removed on purpose, delete its snapshot with: pytest --snapshot-update",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "1 snapshot passed. 1 snapshot unused.",
            "Unused ping (mcp_contract_snapshots/weather/ping.json)",
            "Re-run pytest with --snapshot-update to delete unused snapshots.",
        ]
    )
    assert (_snapshots(weather) / "ping.json").exists()
    result = weather.run("--snapshot-update", "-k", "not schema")  # no schema item runs: syrupy deletes nothing
    result.assert_outcomes(passed=2, skipped=1, deselected=2)
    result.stdout.fnmatch_lines(
        [
            "removed tools — BREAKING: ping (no longer listed; its snapshot mcp_contract_snapshots/weather/ping.json "
            "was kept, as this run left tests out (a full pytest --snapshot-update deletes it))"
        ]
    )
    assert (_snapshots(weather) / "ping.json").exists()
    result = weather.run("--snapshot-update")
    result.assert_outcomes(passed=4, skipped=1)  # ping's schema item passes as its file is deleted; its checks skip
    result.stdout.fnmatch_lines(["1 snapshot passed. 1 unused snapshot deleted.", "", "Deleted ping (*ping.json)"])
    assert not (_snapshots(weather) / "ping.json").exists()
    weather.run().assert_outcomes(passed=3)


def test_a_later_run_in_the_same_process_does_not_reuse_the_listing(weather: Project) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    weather.pytester.makepyfile(weather=WEATHER_V1.replace("@mcp.tool()\ndef ping", "def ping"))
    assert "removed tools — BREAKING: ping" in weather.run().stdout.str()
    weather.pytester.makepyfile(weather=WEATHER_V1)  # ping is back; this run lists nothing (suite off)
    result = weather.run("-o", "mcp_contract_suite=false")
    assert "removed tools" not in result.stdout.str()


def test_deselecting_the_suite_keeps_its_snapshots(weather: Project) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    weather.tests("def test_plain(snapshot):\n    assert snapshot == 1\n", name="test_plain")
    result = weather.run("--snapshot-update", "-m", "not mcp_contract")
    result.assert_outcomes(passed=1, deselected=5)
    assert sorted(path.name for path in _snapshots(weather).iterdir()) == ["get_weather.json", "ping.json"]


def test_a_project_snapshot_fixture_of_its_own_leaves_the_tool_snapshots_alone(weather: Project) -> None:
    # A project may override syrupy's snapshot fixture for its own tests (another extension, a matcher):
    # the schema items make syrupy's assertion themselves, so theirs is never asked.
    weather.pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def snapshot():
            raise RuntimeError("the project's own snapshot fixture")
        """
    )
    result = weather.run("--snapshot-update")
    result.assert_outcomes(passed=1)  # the listing item writes both files
    result = weather.run()
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["2 snapshots passed."])
    assert "the project's own snapshot fixture" not in result.stdout.str()
    path = _snapshots(weather) / "ping.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["output_schema"]["title"] = "Pong"
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    result = weather.run()
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["*_ schema[[]ping[]] _*", "1 snapshot failed. 1 snapshot passed."])


def test_syrupy_still_finds_the_projects_own_unused_snapshots(weather: Project) -> None:
    # The schema items make syrupy's assertion themselves: syrupy's default extension is registered beside
    # the first one, as its fixture would, so its report still looks beside every collected test file.
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    weather.tests("def test_plain():\n    pass\n", name="test_plain")
    leftover = weather.pytester.path / "__snapshots__" / "test_plain.ambr"
    leftover.parent.mkdir()
    leftover.write_text("# serializer version: 1\n# name: test_gone\n  1\n# ---\n", encoding="utf-8")
    result = weather.run()
    result.stdout.fnmatch_lines(["*1 snapshot unused*"])
    assert result.ret == 1
    # And syrupy's marker picks the items that assert a snapshot.
    result = weather.run("-m", "syrupy_snapshot", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["tox.ini::schema[[]get_weather[]]", "tox.ini::schema[[]ping[]]", "2/* tests collected*"]
    )


def test_pytest_does_not_walk_the_snapshot_folder(weather: Project) -> None:
    # A file per tool, none a test (a snapshot folder that holds code is refused): pytest is not sent through it.
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    weather.pytester.makeconftest(
        """
        def pytest_collect_file(file_path):
            print("offered", file_path.name)
        """
    )
    weather.tests("def test_plain():\n    pass\n", name="test_plain")
    result = weather.run("-s")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["offered test_plain.py"])
    assert "offered get_weather.json" not in result.stdout.str()
    # Given as a path, it is walked like any other (and holds no test).
    result = weather.run("-s", "mcp_contract_snapshots")
    result.stdout.fnmatch_lines(["offered get_weather.json", "offered ping.json"])


def _suggested(result: pytest.RunResult, before: str) -> list[str]:
    """The arguments of the pytest command a failure message suggests after ``before``."""
    [line] = [line for line in result.outlines if before in line]
    command = shlex.split(line.split(before, 1)[1])
    assert command[0] == "pytest", line
    return command[1:]


def test_a_broken_snapshot_file_is_named_and_never_overwritten(weather: Project) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    target = _snapshots(weather) / "ping.json"
    target.write_text('{"output_schema": {"type": "object",}}\n', encoding="utf-8")
    result = weather.run()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "the snapshot file mcp_contract_snapshots/weather/ping.json of tool 'ping' is not valid JSON (line 1, "
            "column 37: Expecting property name enclosed in double quotes).",
            "It was left as it is. Repair it by hand, or rewrite it from the server with: pytest --snapshot-update *",
        ]
    )
    assert target.read_text(encoding="utf-8") == '{"output_schema": {"type": "object",}}\n'
    # The command the message suggests rewrites the file.
    rewritten = weather.run(*_suggested(result, "rewrite it from the server with: "))
    assert rewritten.ret == pytest.ExitCode.OK, rewritten.stdout.str()
    assert json.loads(target.read_text(encoding="utf-8"))["output_schema"]["title"] == "pingOutput"
    weather.run().assert_outcomes(passed=5)


def test_the_suggested_command_records_just_that_tool(weather: Project) -> None:
    # "ping" is a prefix of "ping_twice": the suggested -k must not pick both.
    weather.pytester.makepyfile(
        weather=WEATHER_V1 + "\n@mcp.tool()\ndef ping_twice() -> str:\n    return 'pong pong'\n"
    )
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    before = {path.name: path.read_text() for path in _snapshots(weather).iterdir()}
    # Both change: only ping's file is to be accepted.
    weather.pytester.makepyfile(
        weather=WEATHER_V1.replace("def ping() -> str", "def ping() -> int").replace('"pong"', "1")
        + "\n@mcp.tool()\ndef ping_twice() -> int:\n    return 2\n"
    )
    result = weather.run("-k", "schema")
    result.assert_outcomes(passed=1, failed=2, deselected=4)
    said = "If the change is intended, accept it with: pytest --snapshot-update -k 'schema[[]{}[]]' (then commit*"
    result.stdout.fnmatch_lines([said.format("ping"), said.format("ping_twice")])
    weather.run("--snapshot-update", "-k", "schema[ping]").assert_outcomes(passed=1, deselected=6)
    after = {path.name: path.read_text() for path in _snapshots(weather).iterdir()}
    assert after["ping.json"] != before["ping.json"]
    assert {name: text for name, text in after.items() if name != "ping.json"} == {
        name: text for name, text in before.items() if name != "ping.json"
    }


def test_a_hand_reformatted_snapshot_is_a_layout_only_difference(weather: Project) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    target = _snapshots(weather) / "ping.json"
    target.write_text(json.dumps(json.loads(target.read_text(encoding="utf-8"))) + "\n", encoding="utf-8")
    result = weather.run("-k", "schema[ping]")
    result.stdout.fnmatch_lines(
        ["the snapshot of tool 'ping' differs only in layout (key order, indentation).", "", "Diff of *"]
    )


def test_extra_fields_and_another_folder(weather: Project) -> None:
    weather.configure(
        "weather.py:mcp",
        suite=True,
        mcp_contract_snapshot_dir="contract/schemas",
        mcp_contract_snapshot_fields="input_schema description",
    )
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    saved = json.loads((weather.pytester.path / "contract" / "schemas" / "weather" / "ping.json").read_text("utf-8"))
    assert sorted(saved) == ["description", "input_schema", "output_schema"]
    assert saved["input_schema"] == {"properties": {}, "title": "pingArguments", "type": "object"}
    assert saved["description"] == ""


def test_a_newly_snapshotted_field_is_not_a_breaking_change(weather: Project) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    weather.configure("weather.py:mcp", suite=True, mcp_contract_snapshot_fields="input_schema")
    result = weather.run("-k", "schema[ping]")
    result.assert_outcomes(failed=1, deselected=4)
    result.stdout.fnmatch_lines(
        [
            "the schema of tool 'ping' changed (1 cosmetic):",
            "  ping input /: not recorded in the snapshot yet — cosmetic",
        ]
    )
    weather.run("--snapshot-update").assert_outcomes(passed=5)
    weather.configure("weather.py:mcp", suite=True)
    result = weather.run("-k", "schema[ping]")
    result.stdout.fnmatch_lines(
        ["  ping input /: no longer snapshotted (not in mcp_contract_snapshot_fields) — cosmetic"]
    )


def test_a_tool_hint_turning_unsafe_is_breaking(weather: Project) -> None:
    weather.configure("weather.py:mcp", suite=True, mcp_contract_snapshot_fields="annotations")
    safe = WEATHER_V1.replace(
        "@mcp.tool()\ndef ping", "@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, title='Ping'))\ndef ping"
    )
    weather.pytester.makepyfile(weather="from mcp.types import ToolAnnotations\n" + safe)
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    weather.pytester.makepyfile(
        weather="from mcp.types import ToolAnnotations\n"
        + safe.replace("readOnlyHint=True, title='Ping'", "title='Pong'")
    )
    result = weather.run("-k", "schema[ping]")
    result.stdout.fnmatch_lines(
        [
            "the schema of tool 'ping' changed (1 breaking, 1 cosmetic):",
            "  ping annotations /readOnlyHint: now false (was true): clients may stop running the tool unattended"
            " — BREAKING",
            '  ping annotations /title: changed from "Ping" to "Pong" — cosmetic',
        ]
    )


def test_unknown_snapshot_field_is_a_usage_error(weather: Project) -> None:
    weather.configure("weather.py:mcp", suite=True, mcp_contract_snapshot_fields="input_schema outputs")
    result = weather.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_snapshot_fields names 'outputs', which a tool does not have; choose from "
            "input_schema, title, description, annotations, meta (output_schema is always snapshotted)."
        ]
    )


def test_a_tool_without_schema_is_recorded_as_such(project: Project) -> None:
    project.pytester.makepyfile(
        text_only="""
from mcp.server import MCPServer
mcp = MCPServer("text")

@mcp.tool(structured_output=False)
def say(text: str) -> str:
    return text
"""
    )
    project.configure("text_only.py:mcp", suite=True)
    project.run("--snapshot-update").assert_outcomes(passed=1)
    saved = project.pytester.path / "mcp_contract_snapshots" / "text" / "say.json"
    assert saved.read_text(encoding="utf-8") == '{\n  "output_schema": null\n}\n'
    project.run().assert_outcomes(passed=3)  # the snapshot of null matches


LOW_LEVEL = """
from mcp import types
from mcp.server import Server

TOOLS = [
    types.Tool(name="echo", input_schema={"type": "object"}),
    types.Tool(name="measure", input_schema={"type": "object"}, output_schema={"type": "object"}),
]

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)

async def call_tool(ctx, params):
    return types.CallToolResult(content=[])

server = Server("gateway", on_list_tools=list_tools, on_call_tool=call_tool)
"""


def test_a_snapshot_of_null_says_why_when_it_is_written_or_missing(project: Project) -> None:
    project.pytester.makepyfile(gateway=LOW_LEVEL)
    project.configure("gateway.py:server", suite=True)
    why = [
        'no output_schema: echo: their snapshots hold "output_schema": null, as the server lists them without one, '
        "so clients get no structured_content from them. A low-level Server publishes a schema only where the Tool "
        "it lists carries one; MCPServer and FastMCP derive it from the return annotation (silent-opt-out says "
        "when they could not)"
    ]
    missing = project.run()
    missing.assert_outcomes(failed=1)  # the listing item: no snapshot yet
    missing.stdout.fnmatch_lines(why)
    written = project.run("--snapshot-update")
    written.assert_outcomes(passed=1)
    written.stdout.fnmatch_lines(why)
    saved = project.pytester.path / "mcp_contract_snapshots" / "gateway"
    assert (saved / "echo.json").read_text(encoding="utf-8") == '{\n  "output_schema": null\n}\n'
    # Once recorded, a run that matches it says nothing more of it.
    matched = project.run()
    matched.assert_outcomes(passed=5)
    matched.stdout.no_fnmatch_line("no output_schema:*")


AWKWARD = """
from mcp import types
from mcp.server import Server

NAMES = ["weather/today", "Wetter: heute", ".hidden", "con", "a" * 150 + "ü" * 40, "näme"]

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name=name, input_schema={"type": "object"}) for name in NAMES])

async def call_tool(ctx, params):
    return types.CallToolResult(content=[])

server = Server("awkward", on_list_tools=list_tools, on_call_tool=call_tool)
"""


def test_awkward_tool_names_get_distinct_safe_file_names(project: Project) -> None:
    project.pytester.makepyfile(awkward=AWKWARD)
    # Names SEP-986 rules out (tool-name-invalid, in process as over any transport), carried on purpose.
    odd = ["weather/today", "Wetter: heute", "a" * 150 + "ü" * 40, "näme"]
    allow = "".join(f"\n    {name}:tool-name-invalid  # the file names are what is tested" for name in odd)
    project.configure("awkward.py:server", suite=True, mcp_contract_allow=allow)
    result = project.run("--snapshot-update")
    result.assert_outcomes(passed=1)  # the first run: the listing item checks and records every tool
    result.stdout.fnmatch_lines(["allowed violations: *näme:tool-name-invalid x1 (the file names are what is tested)*"])
    result.stdout.no_fnmatch_line("*stale mcp_contract_allow lines*")
    names = sorted(path.name for path in (project.pytester.path / "mcp_contract_snapshots" / "awkward").iterdir())
    assert len(names) == 6
    assert "weather%2Ftoday.json" in names
    assert "Wetter%3A%20heute.json" in names
    assert "%2Ehidden.json" in names
    assert "%63on.json" in names
    assert "n%C3%A4me.json" in names
    assert all(len(name) <= 205 for name in names)
    # Each tool's schema and checks items, and the listing item, but for the long name: its file's name is
    # cut and hashed, so collection cannot tell the tool from it, and the listing item compares and checks it.
    project.run().assert_outcomes(passed=11)


def test_two_servers_in_one_repository_keep_separate_folders(pytester: pytest.Pytester) -> None:
    for name in ("alpha", "beta"):
        folder = pytester.mkdir(name)
        (folder / "pytest.ini").write_text(
            f"[pytest]\nmcp_contract_server = server.py:{name}\naddopts = -p no:cacheprovider\n"
        )
        (folder / "server.py").write_text(
            f"from mcp.server import MCPServer\n{name} = MCPServer({name!r})\n"
            f"@{name}.tool()\ndef {name}_tool() -> int:\n    return 1\n"
        )
        (folder / "test_it.py").write_text("def test_it():\n    pass\n")
    for name in ("alpha", "beta"):
        result = pytester.runpytest(
            str(pytester.path / name), "--snapshot-update", "--rootdir", str(pytester.path / name)
        )
        result.assert_outcomes(passed=2)  # test_it and the listing item, which records the tool
    for name in ("alpha", "beta"):
        result = pytester.runpytest(str(pytester.path / name), "--rootdir", str(pytester.path / name))
        result.assert_outcomes(passed=4)  # test_it, the listing, and the tool's schema and checks items
        assert result.ret == 0  # no folder sees the other server's snapshots as unused
        assert [path.name for path in (pytester.path / name / "mcp_contract_snapshots" / name).iterdir()] == [
            f"{name}_tool.json"
        ]


def test_key_order_does_not_depend_on_the_protocol_version() -> None:
    import anyio
    from contract_servers.sdk_kinds import mcp
    from mcp import Client

    from pytest_mcp_contract._suite.snapshots import document, serialize

    async def listed(mode: str) -> dict[str, str]:
        async with Client(mcp, mode=mode) as client:
            tools = (await client.list_tools()).tools
        return {tool.name: serialize(document(tool, ("input_schema",))) for tool in tools}

    assert anyio.run(listed, "auto") == anyio.run(listed, "legacy")


def test_the_whole_story_under_xdist(weather: Project) -> None:
    """Create, change, accept, remove: the same outcomes and files with two workers."""
    xdist = ("-n", "2")
    result = weather.run(*xdist, "--snapshot-update")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["schema snapshots: 2 created"])
    weather.pytester.makepyfile(weather=WEATHER_V2)
    result = weather.run(*xdist)
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["  get_weather output /properties/humidity: removed (was required) — BREAKING"])
    weather.run(*xdist, "--snapshot-update").assert_outcomes(passed=5)
    weather.run(*xdist).assert_outcomes(passed=5)
    weather.pytester.makepyfile(weather=WEATHER_V2.replace("@mcp.tool()\ndef ping", "def ping"))
    result = weather.run(*xdist)
    result.assert_outcomes(passed=3, failed=1, skipped=1)  # schema[ping] fails, checks[ping] is skipped
    result.stdout.fnmatch_lines(["1 snapshot passed. 1 snapshot unused."])
    result = weather.run(*xdist, "--snapshot-update")
    result.assert_outcomes(passed=4, skipped=1)
    result.stdout.fnmatch_lines(["1 snapshot passed. 1 unused snapshot deleted.", "", "Deleted ping (*ping.json)"])
    assert [path.name for path in _snapshots(weather).iterdir()] == ["get_weather.json"]


# --- nothing is lost ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "problem"),
    [
        (".", "it holds the project itself"),
        ("tests", "it holds the test folder 'tests'"),
        (
            "__snapshots__/tools",
            "syrupy's own extensions scan __snapshots__ folders and would take the files for theirs",
        ),
    ],
)
def test_a_snapshot_folder_that_could_lose_files_is_refused(weather: Project, folder: str, problem: str) -> None:
    weather.configure("weather.py:mcp", suite=True, mcp_contract_snapshot_dir=folder, testpaths="tests")
    result = weather.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: mcp_contract_snapshot_dir = '{folder}' cannot hold the tool snapshots: {problem}. Give the "
            "snapshots a folder of their own, e.g. mcp_contract_snapshot_dir = mcp_contract_snapshots"
        ]
    )


def _recorded(weather: Project) -> dict[str, str]:
    weather.run("--snapshot-update", "-m", "mcp_contract").assert_outcomes(passed=1)
    (_snapshots(weather) / "README.md").write_text("Reviewed by the API team.\n")
    return {path.name: path.read_text() for path in _snapshots(weather).iterdir()}


def _kept(weather: Project, before: dict[str, str]) -> None:
    assert {path.name: path.read_text() for path in _snapshots(weather).iterdir()} == before


def test_other_files_in_the_folder_are_never_touched(weather: Project) -> None:
    _recorded(weather)
    (_snapshots(weather) / "london_expected.json").write_text('{"city": "London"}\n')
    (_snapshots(weather) / "broken.json").write_text("{not json\n")
    before = {path.name: path.read_text() for path in _snapshots(weather).iterdir()}
    result = weather.run()
    assert result.ret == 0  # neither README.md nor JSON that is not a tool snapshot is an unused snapshot
    weather.pytester.makepyfile(weather=WEATHER_V1.replace("@mcp.tool()\ndef ping", "def ping"))
    result = weather.run("--snapshot-update")
    result.stdout.fnmatch_lines(["Deleted ping (*ping.json)"])
    del before["ping.json"]
    _kept(weather, before)  # only the removed tool's snapshot went


def test_a_snapshot_folder_with_python_code_is_refused(weather: Project) -> None:
    weather.configure("weather.py:mcp", suite=True, mcp_contract_snapshot_dir="tests")  # no testpaths
    weather.pytester.mkdir("tests")
    (weather.pytester.path / "tests" / "test_it.py").write_text("def test_it():\n    pass\n")
    result = weather.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_snapshot_dir = 'tests' cannot hold the tool snapshots: it holds Python code "
            "(test_it.py), so it is not a folder of snapshots alone. Give the snapshots a folder of their own, "
            "e.g. mcp_contract_snapshot_dir = mcp_contract_snapshots"
        ]
    )


@pytest.mark.parametrize(
    "args",
    [
        ("-k", "not mcp_contract"),
        ("-k", "not schema"),
        ("-m", "not mcp_contract"),
        ("-p", "no:mcp_contract"),
        ("-o", "mcp_contract_suite=false"),
        ("-x", "-k", "not get_weather and not checks[ping]"),
    ],
    ids=["-k not suite", "-k not schema", "-m not suite", "plugin off", "suite off", "-x"],
)
def test_partial_runs_with_update_keep_every_listed_tools_snapshot(weather: Project, args: tuple[str, ...]) -> None:
    weather.tests(  # syrupy tests beside the ini file: syrupy scans their __snapshots__ folder
        """
        from syrupy.extensions.json import JSONSnapshotExtension

        def test_amber(snapshot):
            assert snapshot == {"a": 1}

        def test_json(snapshot):
            assert snapshot.use_extension(JSONSnapshotExtension) == {"b": 2}

        def test_fails_first():
            assert False
        """,
        name="test_root",
    )
    before = _recorded(weather)
    weather.run(*args, "--snapshot-update")
    _kept(weather, before)


def test_a_failing_listing_with_update_keeps_the_snapshots(weather: Project) -> None:
    before = _recorded(weather)
    weather.pytester.makepyfile(weather="raise RuntimeError('refactoring')\n")
    weather.pytester.makepyfile(
        broken="from contract_servers.wire import build\nserver = build([], list_error=RuntimeError('down'))\n"
    )
    weather.configure("broken.py:server", suite=True)
    weather.run("--snapshot-update")
    _kept(weather, before)


def test_another_server_gets_its_own_folder(weather: Project) -> None:
    before = _recorded(weather)
    weather.pytester.makepyfile(
        other="from mcp.server import MCPServer\nother = MCPServer('other')\n@other.tool()\ndef hello() -> str:\n    return 'hi'\n"
    )
    result = weather.run("--mcp-contract-server", "other.py:other", "--snapshot-update")
    result.assert_outcomes(passed=1)  # its first run: the listing item records hello
    _kept(weather, before)
    assert [path.name for path in (weather.pytester.path / "mcp_contract_snapshots" / "other").iterdir()] == [
        "hello.json"
    ]


def test_stopping_early_keeps_the_snapshots_of_tools_that_did_not_run(project: Project) -> None:
    server = (
        WEATHER_V1
        + "\nimport datetime\n\n@mcp.tool()\ndef a_when() -> datetime.datetime:\n    return datetime.datetime.now()\n"
    )
    project.pytester.makepyfile(weather=server)
    project.configure("weather.py:mcp", suite=True)
    first = project.run("--snapshot-update")  # a_when's checks fail it (silent-opt-out); every schema is recorded
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(["*silent-opt-out*"])
    folder = project.pytester.path / "mcp_contract_snapshots" / "weather"
    assert sorted(path.name for path in folder.iterdir()) == ["a_when.json", "get_weather.json", "ping.json"]
    result = project.run("-x", "--snapshot-update")  # stops at checks[a_when], before the other tools run
    result.assert_outcomes(passed=2, failed=1)  # the listing and schema[a_when] ran before it
    assert sorted(path.name for path in folder.iterdir()) == ["a_when.json", "get_weather.json", "ping.json"]


@pytest.mark.parametrize(
    ("target", "folder"),
    [
        pytest.param(f"{SERVERS / 'unnamed.py'}:fastmcp", "unnamed", id="FastMCP, unnamed, in process"),
        pytest.param(
            f"stdio:{sys.executable} {SERVERS / 'unnamed.py'}",
            "unnamed",
            id="a random name over stdio",
        ),
    ],
)
def test_a_name_new_in_every_process_keeps_one_snapshot_folder(project: Project, target: str, folder: str) -> None:
    project.configure(target, suite=True)
    project.tests("def test_nothing():\n    pass\n")
    # Each run its own process, as in real life: the server's made-up name differs between them.
    updated = project.pytester.runpytest_subprocess("--snapshot-update")
    updated.assert_outcomes(passed=2)  # test_nothing and the listing item, which records the tool
    updated.stdout.fnmatch_lines(
        [
            "server name: '*' changes from one process to the next, so snapshots and fuzz records are filed under "
            f"its target, {folder!r}; give the server a fixed name to file them under that"
        ]
    )
    project.pytester.runpytest_subprocess().assert_outcomes(passed=4)  # and now the tool's schema and checks
    snapshots = project.pytester.path / "mcp_contract_snapshots"
    assert [path.name for path in snapshots.iterdir()] == [folder]


def test_a_snapshot_file_that_is_not_utf8_is_named_and_rewritten_on_update(weather: Project) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    target = _snapshots(weather) / "ping.json"
    target.write_bytes(b'{"output_schema": "\xff\xfe"}\n')
    result = weather.run()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "the snapshot file mcp_contract_snapshots/weather/ping.json of tool 'ping' is not UTF-8 text (byte 0xff "
            "at offset 19).",
            "It was left as it is. Repair it by hand, or rewrite it from the server with: pytest --snapshot-update *",
        ]
    )
    result.stdout.no_fnmatch_line("*UnicodeDecodeError*")
    assert target.read_bytes() == b'{"output_schema": "\xff\xfe"}\n'
    # The command the message suggests rewrites the file.
    rewritten = weather.run(*_suggested(result, "rewrite it from the server with: "))
    assert rewritten.ret == pytest.ExitCode.OK, rewritten.stdout.str()
    assert json.loads(target.read_text(encoding="utf-8"))["output_schema"]["title"] == "pingOutput"
    weather.run().assert_outcomes(passed=5)


@pytest.fixture
def unwritable() -> Iterator[list[Path]]:
    """Files made immutable (chattr +i: even root cannot write them), made writable again afterwards."""
    paths: list[Path] = []
    yield paths
    for path in paths:
        subprocess.run(["chattr", "-i", str(path)], check=False, capture_output=True)
        path.parent.chmod(0o755)


def _make_unwritable(path: Path, unwritable: list[Path]) -> None:
    made = subprocess.run(["chattr", "+i", str(path)], check=False, capture_output=True)
    if made.returncode != 0:  # chattr needs a file system and rights that have it; modes do for others
        assert os.geteuid() != 0, made.stderr
        path.chmod(0o444)
        path.parent.chmod(0o555)
    unwritable.append(path)


def test_an_update_that_cannot_be_written_fails_the_run(weather: Project, unwritable: list[Path]) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    target = _snapshots(weather) / "ping.json"
    before = target.read_bytes()
    _make_unwritable(target, unwritable)
    weather.pytester.makepyfile(
        weather=WEATHER_V1.replace("def ping() -> str", "def ping() -> int").replace('"pong"', "1")
    )
    result = weather.run("--snapshot-update")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ schema[[]ping[]] _*",
            "the snapshot of tool 'ping' could not be written to mcp_contract_snapshots/weather/ping.json: *"
            "(PermissionError). Nothing was updated; make the file writable (ls -l, lsattr), then rerun pytest "
            "--snapshot-update -k 'schema[[]ping[]]'",
            "ping         not written (1 breaking)*",
        ]
    )
    assert target.read_bytes() == before


def test_a_deletion_that_fails_fails_the_run(weather: Project, unwritable: list[Path]) -> None:
    weather.run("--snapshot-update").assert_outcomes(passed=1)
    target = _snapshots(weather) / "ping.json"
    _make_unwritable(target, unwritable)
    weather.pytester.makepyfile(weather=WEATHER_V1.replace("@mcp.tool()\ndef ping", "def ping"))
    result = weather.run("--snapshot-update", "-q")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "removed tools — BREAKING: ping (no longer listed; its snapshot mcp_contract_snapshots/weather/ping.json "
            "could not be deleted: * (PermissionError); delete it by hand)"
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    assert target.exists()


@pytest.mark.parametrize(
    ("in_process", "command", "key"),
    [
        (f"{SERVERS / 'unnamed.py'}:fastmcp", f"stdio:{sys.executable} {SERVERS / 'unnamed.py'}", "unnamed"),
        (
            "contract_servers.unnamed:fastmcp",
            f"stdio:{sys.executable} -m contract_servers.unnamed",
            "contract_servers.unnamed",
        ),
    ],
    ids=["a file", "a module"],
)
def test_the_stable_key_is_the_same_in_process_and_over_stdio(in_process: str, command: str, key: str) -> None:
    # A server moved from one transport to the other keeps its snapshot folder.
    from pytest_mcp_contract._servers.kinds import stable_key
    from pytest_mcp_contract._servers.target import load_target

    base = SERVERS.parent
    assert stable_key(load_target(in_process, base)) == stable_key(load_target(command, base)) == key


def test_a_schema_holding_a_lone_surrogate_and_a_nul_is_written_escaped_and_then_matches(project: Project) -> None:
    from contract_servers.hostile import ODD_TEXT

    project.configure(f"{SERVERS / 'hostile.py'}:described", suite=True)
    project.tests("def test_nothing():\n    pass\n")
    result = project.pytester.runpytest_subprocess("-p", "no:randomly", "--snapshot-update", timeout=HANG)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["schema snapshots: 1 created"])
    assert not [line for line in result.outlines + result.errlines if "INTERNALERROR" in line]
    path = project.pytester.path / "mcp_contract_snapshots" / "described" / "odd_schema.json"
    text = path.read_bytes().decode("utf-8")  # strict: valid UTF-8
    assert '"description": "odd \\udfff and \\u0000 text"' in text
    assert json.loads(text)["output_schema"]["title"] == ODD_TEXT  # the escapes read back as what was sent
    project.pytester.runpytest_subprocess("-p", "no:randomly", timeout=HANG).assert_outcomes(passed=4)
