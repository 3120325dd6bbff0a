"""The house rules: plugin.py is hooks and fixtures that delegate, and a run's state lives in its config.

pytester runs pytest inside this very process, so state a module keeps outlives the run that made
it; these tests read the package's source and fail on the shapes that let it (see docs/developing.md).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Final

import pytest

import pytest_mcp_contract

PACKAGE = Path(pytest_mcp_contract.__file__).parent
PLUGIN = PACKAGE / "plugin.py"
KEYS = PACKAGE / "_plugin" / "keys.py"

PROCESS_STATE = {
    "_client/__init__.py": {"_EXIT_STATUS"},  # the last run's exit status, for Python's own exit
    "_client/loop.py": {"_OPEN", "_STUCK"},  # the process's sync sessions, closed when Python exits
    "_servers/reaper.py": {"_live", "_terminated"},  # the process's server processes, ended at its exit
    "_servers/kinds.py": {"_TARGETS", "_REMAKES"},  # weak, per server object
    "_servers/inprocess.py": {"_CACHE"},  # weak, per server object
    "_contract/mirror.py": {"_SETS"},  # a cache of compiled sets, the same for every run
    "_run/records.py": {"_WRITTEN"},  # a cache: records by their text, which reads back to an equal record
}
"""Module-level containers that hold the process's state or a cache, not a run's; each says why."""

_CONTAINERS = frozenset({"dict", "list", "set", "defaultdict", "WeakSet", "WeakKeyDictionary", "WeakValueDictionary"})


def _sources() -> dict[str, str]:
    return {path.relative_to(PACKAGE).as_posix(): path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py")}


def _module_containers(source: str) -> set[str]:
    """Names a module binds, at its top level, to an empty mutable container: one made to fill up as
    code runs (a table written out in full is a constant)."""
    names = set()
    for node in ast.parse(source).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        value = getattr(node, "value", None)
        empty = (isinstance(value, ast.Dict) and not value.keys) or (isinstance(value, ast.List) and not value.elts)
        made = isinstance(value, ast.Call) and ast.unparse(value.func).rsplit(".", 1)[-1] in _CONTAINERS
        names |= {target.id for target in targets if (empty or made) and isinstance(target, ast.Name)}
    return names


def test_plugin_py_is_at_most_250_lines() -> None:
    lines = len(PLUGIN.read_text(encoding="utf-8").splitlines())
    assert lines <= 250, f"plugin.py has {lines} lines: move what is not a hook, an option or a fixture below it"


def test_plugin_py_clears_no_module_state() -> None:
    source = PLUGIN.read_text(encoding="utf-8")
    assert "sys.modules" not in source
    assert "import sys" not in source


def test_no_module_keeps_run_state() -> None:
    found = {name: _module_containers(source) for name, source in _sources().items()}
    kept = {name: names - PROCESS_STATE.get(name, set()) for name, names in found.items()}
    assert {name: sorted(names) for name, names in kept.items() if names} == {}, (
        "module-level state outlives the run (pytester runs pytest in process): keep it in config.stash "
        "(a key in _plugin/keys.py), or say in PROCESS_STATE why it is the process's"
    )
    # And the list above names only what is there: a name gone from the code leaves it too.
    assert {name: sorted(names & found.get(name, set())) for name, names in PROCESS_STATE.items()} == {
        name: sorted(names) for name, names in PROCESS_STATE.items()
    }


def test_the_rule_finds_module_state() -> None:
    source = (
        "import weakref\n_LISTED: dict[str, int] = {}\nUNDELETED = dict()\n_OPEN = weakref.WeakSet()\n_SEEN = []\n"
        "LIMIT = 3\nNAMES = ('a',)\nKINDS = {'a': 1}\nORDER = ['a']\n"
    )
    assert _module_containers(source) == {"_LISTED", "UNDELETED", "_OPEN", "_SEEN"}


_STASH_KEY: Final = re.compile(r"StashKey(\[.*?\])?\(\)")
"""A key made: ``pytest.StashKey()``, ``StashKey[int]()``."""


def test_every_stash_key_is_made_in_keys_py() -> None:
    made = {name: len(_STASH_KEY.findall(source)) for name, source in _sources().items() if _STASH_KEY.search(source)}
    assert list(made) == ["_plugin/keys.py"]
    assert made["_plugin/keys.py"] >= 15  # the rule is not met by a keys.py that lost its keys


def _snapshot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "mcp_contract_snapshots" / "weather"
    folder.mkdir(parents=True)
    for name in ("ping", "get_weather"):
        (folder / f"{name}.json").write_text(json.dumps({"output_schema": None}) + "\n", encoding="utf-8")
    return folder


def test_the_snapshot_extension_deletes_only_what_the_bound_run_found_unused(tmp_path: Path) -> None:
    pytest.importorskip("syrupy")
    from pytest_mcp_contract._suite.snapshots import ToolSnapshotExtension
    from pytest_mcp_contract._suite.unused import UnusedSnapshots, serving

    folder = _snapshot_folder(tmp_path)
    run = UnusedSnapshots()
    run.remember_listing(folder, ["get_weather"])  # ping is no longer listed
    extension = ToolSnapshotExtension()  # as syrupy rebuilds it on the xdist controller: by name, bare
    for path in (folder / "ping.json", folder / "get_weather.json"):
        extension.delete_snapshots(snapshot_location=str(path), snapshot_names={path.stem})
    assert sorted(path.name for path in folder.iterdir()) == ["get_weather.json", "ping.json"]  # no run bound
    with serving(UnusedSnapshots()):  # another run, which listed nothing here
        extension.delete_snapshots(snapshot_location=str(folder / "ping.json"), snapshot_names={"ping"})
    assert (folder / "ping.json").exists()
    with serving(run):
        for path in (folder / "ping.json", folder / "get_weather.json"):
            extension.delete_snapshots(snapshot_location=str(path), snapshot_names={path.stem})
    assert sorted(path.name for path in folder.iterdir()) == ["get_weather.json"]  # the listed tool's stays
    assert run.undeleted == {}


def test_a_run_bound_inside_another_leaves_the_outer_one_bound(tmp_path: Path) -> None:
    from pytest_mcp_contract._suite.unused import UnusedSnapshots, served, serving

    outer, inner = UnusedSnapshots(), UnusedSnapshots()
    outer.remember_listing(_snapshot_folder(tmp_path), ["get_weather"])
    with serving(outer):
        with serving(inner):  # a pytester run inside this one
            assert served() is inner
        assert served() is outer
        assert [path.name for path in served().removed_tools(tmp_path / "mcp_contract_snapshots" / "weather")] == [
            "ping.json"
        ]
    assert served() is not outer
    assert served().removed_tools(tmp_path / "mcp_contract_snapshots" / "weather") == []


MESSAGE_READS: Final = {
    # A finding's words, rendered or handed on as words, never decided on:
    ("_messages.py", "violation_line"): "renders a finding",
    ("_messages.py", "_violations_and_steps"): "renders a finding",
    ("_messages.py", "_breaks_and_others"): "renders a finding",
    ("_plugin/calls.py", "_record_failure"): "copies a finding's first line into the report's record, to show",
    ("_plugin/report.py", "_failure_lines"): "shows that line in the report",
    # The words of what is no finding: an answer, an error of the SDK, pydantic or jsonschema, the server's text.
    ("_client/answering.py", "answer_round"): "the client's own callback's answer",
    ("_client/answering.py", "_recorded.answer"): "the client's own callback's answer",
    ("_client/session.py", "refusal"): "a JSON-RPC error the server sent",
    ("_client/arguments.py", "check_arguments"): "jsonschema's words for arguments refused",
    ("_client/session.py", "client_side"): "a JSON-RPC error the server sent",
    ("_client/session.py", "_wants_initialize"): "a JSON-RPC error the server sent",
    ("_sdk/errors.py", "explain"): "a JSON-RPC error the server sent",
    ("_contract/agreement.py", "_message"): "jsonschema's words",
    ("_contract/checks.py", "_error_answer"): "a JSON-RPC error the server sent",
    ("_contract/checks.py", "check_tool"): "a refused value's words, becoming a finding's",
    ("_contract/checks.py", "_output_schema"): "a schema problem's words, becoming a finding's",
    ("_contract/checks.py", "result_violations"): "jsonschema's words, becoming a finding's",
    ("_contract/checks.py", "_content_mismatch"): "the mirror rule's words, becoming a finding's",
    ("_contract/mirror.py", "_record"): "the mirror rule's words",
    ("_contract/schema.py", "_compile_checked"): "jsonschema's words",
    ("_contract/schema.py", "_short_message"): "jsonschema's words",
    ("_plugin/github.py", "command"): "an annotation's words",
    ("_plugin/github.py", "_failure_text"): "pytest's crash line",
    ("_sdk/messages.py", "_inner"): "a SessionMessage's JSON-RPC message",
    ("_sdk/tap.py", "sent"): "a SessionMessage's JSON-RPC message",
}
"""Every place the package reads an attribute named ``message``, and what it is: nothing decides on a finding's words."""


class _MessageReads(ast.NodeVisitor):
    """Where a module reads an attribute named ``message``: (module, enclosing functions)."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.stack: list[str] = []
        self.found: set[tuple[str, str]] = set()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # the name ast's visitor calls

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "message" and isinstance(node.ctx, ast.Load):
            self.found.add((self.module, ".".join(self.stack) or "<module>"))
        self.generic_visit(node)


def _message_reads() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for name, source in _sources().items():
        reads = _MessageReads(name)
        reads.visit(ast.parse(source))
        found |= reads.found
    return found


def test_no_decision_reads_a_findings_words() -> None:
    # A new read of a `.message` must say here what it reads; one of a finding's may only show it.
    assert _message_reads() == set(MESSAGE_READS)


def test_findings_that_differ_only_in_words_get_the_same_decisions() -> None:
    from pytest_mcp_contract._contract.expect import Judge
    from pytest_mcp_contract._contract.versions import merge
    from pytest_mcp_contract._contract.violations import ERROR_MISSING, Violation, next_step

    def found(words: str) -> list[Violation]:
        return [
            Violation("tool-error", "t", f"{words} 1", rule=ERROR_MISSING),
            Violation("wire-invalid", "t", f"{words} 2", "/isError", rule="a boolean"),
            Violation(
                "structured-invalid", "t", f"{words} 3 at 2025-11-25", "", versions=("2025-11-25",), rule="object-rule"
            ),
            Violation("structured-invalid", "t", f"{words} 4", "/a", rule="schema"),
            Violation("structured-invalid", "t", f"{words} 5", "/a", rule="schema"),
        ]

    Decided = tuple[list[tuple[object, ...]], list[str], list[str], list[str]]

    def decided(one: list[Violation], other: list[Violation]) -> Decided:
        merged = merge({"2026-07-28": one, "2025-11-25": other})
        verdict = Judge([], {("t", "wire-invalid"): "why"}, frozenset()).judge("t", None, one)
        fields: list[tuple[object, ...]] = [(v.check, v.path, v.rule, v.versions) for v in merged]
        return (
            fields,
            [next_step(v) for v in one],
            [v.check for v in verdict.failing],
            [v.check for v in verdict.allowed],
        )

    plain, garbled = found("the words"), found("Error executing tool t: expect_error=True, but 2026-07-28")
    assert decided(plain, plain) == decided(garbled, plain) == decided(plain, garbled)
    fields, steps, failing, allowed = decided(plain, plain)
    assert len(fields) == 5  # two schema findings at one place stay two
    assert steps[0].startswith("An expected error that did not come")
    assert (failing, allowed) == (
        ["tool-error", "structured-invalid", "structured-invalid", "structured-invalid"],
        ["wire-invalid"],
    )
