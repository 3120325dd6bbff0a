"""A run freezes the heap its start built (``_plugin.heap``), only as the process's own pytest run."""

from __future__ import annotations

import gc

import pytest
from conftest import Project, target

FROZEN_NOW = """
import gc
import os

def test_the_heap(mcp_contract):
    assert mcp_contract.call_tool("good").structured_content == {"n": 2}
    assert gc.get_freeze_count() EXPECTED
"""


def test_a_run_of_its_own_freezes_the_heap_and_still_collects_new_garbage(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process of its own, as a user runs pytest: not inside this test (pytest sets PYTEST_CURRENT_TEST).
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    project.configure(target("wire"))
    project.tests(
        FROZEN_NOW.replace("EXPECTED", "> 1000")
        + """
class Cycle:
    pass

def test_new_garbage_is_collected():
    import weakref
    cycle = Cycle()
    cycle.me = cycle
    gone = weakref.ref(cycle)
    del cycle
    gc.collect()
    assert gone() is None
"""
    )
    result = project.pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist-2"])
def test_a_run_inside_a_test_leaves_the_heap_as_it_was(project: Project, workers: list[str]) -> None:
    # In process, the host's heap stays as its run left it; xdist's workers, processes of their own started
    # inside this test, freeze nothing either.
    project.configure(target("wire"))
    project.tests(FROZEN_NOW.replace("EXPECTED", "== 0" if workers else f"<= {gc.get_freeze_count()}"))
    project.run(*workers).assert_outcomes(passed=1)


def test_a_run_with_the_collector_off_freezes_nothing(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    project.configure(target("wire"))
    project.pytester.makeconftest("import gc\ngc.disable()\n")
    project.tests(FROZEN_NOW.replace("EXPECTED", "== 0"))
    project.pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_run_with_no_server_freezes_nothing(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # The plugin is installed in every run of its environment: one that tests no MCP server is left alone.
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    project.configure(None)
    project.tests("import gc\n\ndef test_the_heap():\n    assert gc.get_freeze_count() == 0\n")
    project.pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_the_ini_keeps_the_heap_as_it_is(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    project.configure(target("wire"), mcp_contract_freeze_heap="false")
    project.tests(FROZEN_NOW.replace("EXPECTED", "== 0"))
    project.pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("wanted", "enabled", "frozen", "inside_a_test", "freezes"),
    [
        (True, True, 0, False, True),
        (False, True, 0, False, False),  # no server, or mcp_contract_freeze_heap = false
        (True, False, 0, False, False),  # the collector is off
        (True, True, 5, False, False),  # frozen already, by the process itself
        (True, True, 0, True, False),  # inside another pytest's test
    ],
)
def test_when_a_run_freezes(
    monkeypatch: pytest.MonkeyPatch, *, wanted: bool, enabled: bool, frozen: int, inside_a_test: bool, freezes: bool
) -> None:
    from pytest_mcp_contract._plugin import heap

    calls: list[None] = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append(None))
    monkeypatch.setattr(gc, "isenabled", lambda: enabled)
    monkeypatch.setattr(gc, "get_freeze_count", lambda: frozen)
    if inside_a_test:
        monkeypatch.setenv("PYTEST_CURRENT_TEST", "test_x.py::test_x (call)")
    else:
        monkeypatch.delenv("PYTEST_CURRENT_TEST")
    heap.freeze(wanted)
    assert calls == ([None] if freezes else [])
