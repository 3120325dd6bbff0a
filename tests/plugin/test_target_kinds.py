"""Above ``_servers/`` no code asks which kind a server is, decides a target string's kind, or writes
onto a target: it asks the ``Target`` Protocol (``_servers.kinds.as_target``), the table of kinds
(``_servers.target.KINDS``) and the run's record of names (``_servers.names``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_mcp_contract

PACKAGE = Path(pytest_mcp_contract.__file__).parent
SERVERS = PACKAGE / "_servers"
KIND_CLASSES = {"EXTERNAL", "StdioTarget", "HttpTarget", "ExternalTarget", "InProcess"}
"""What an isinstance about a target's kind would name."""
TRANSPORT_PARTS = {"PREFIX", "PREFIXES", "recognises", "stdio_target", "http_target"}
"""What a second dispatch on a target string would use: only the transport's module and the table may."""
KIND_NAMES = {"stdio", "http", "in process"}
TABLE = {SERVERS / "target.py", SERVERS / "stdio.py", SERVERS / "http.py"}


def _modules(where: Path) -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(where.rglob("*.py"))]


def _names(node: ast.AST) -> set[str]:
    """Every name and attribute named inside ``node``."""
    found = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            found.add(inner.id)
        elif isinstance(inner, ast.Attribute):
            found.add(inner.attr)
        elif isinstance(inner, ast.alias):
            found.add(inner.name)
    return found


def _where(path: Path, node: ast.stmt | ast.expr | ast.alias) -> str:
    return f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"


def test_no_isinstance_about_a_targets_kind_outside_servers() -> None:
    asked = [
        _where(path, node)
        for path, tree in _modules(PACKAGE)
        if not path.is_relative_to(SERVERS)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"isinstance", "issubclass"}
        and len(node.args) == 2
        and _names(node.args[1]) & KIND_CLASSES
    ]
    assert asked == [], "ask the Target Protocol (as_target(server).external, .started_here) instead"
    imported = [
        _where(path, node)
        for path, tree in _modules(PACKAGE)
        if not path.is_relative_to(SERVERS)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and _names(node) & KIND_CLASSES
    ]
    assert imported == []


def test_a_target_strings_kind_is_decided_by_the_table_alone() -> None:
    dispatching = [
        _where(path, node)
        for path, tree in _modules(PACKAGE)
        if path not in TABLE
        for node in ast.walk(tree)
        if isinstance(node, ast.Name | ast.Attribute | ast.alias) and _names(node) & TRANSPORT_PARTS
    ]
    assert dispatching == [], "a target string is parsed by _servers.target.KINDS only"
    # Nor a second dispatch on the table's answer (settings once read `if target_kind(spec) == "stdio"`).
    branching = [
        _where(path, node)
        for path, tree in _modules(PACKAGE)
        if path not in TABLE
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(isinstance(side, ast.Constant) and side.value in KIND_NAMES for side in [node.left, *node.comparators])
    ]
    assert branching == [], "a kind's own settings are read by its row's loader (TargetSettings), not by branches"


def test_nothing_is_written_onto_a_server_or_target() -> None:
    # The learned name once went onto the target (server.reported_name = …), so the folder depended on
    # which hook opened a session first; what a run learns goes in its record.
    written = [
        _where(path, node)
        for path, tree in _modules(PACKAGE)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
        for aim in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(aim, ast.Attribute)
        and isinstance(aim.value, ast.Name | ast.Attribute)
        and (aim.value.id if isinstance(aim.value, ast.Name) else aim.value.attr) in {"server", "target"}
    ]
    assert written == []
