"""The judgement lives in one room: every violation of the plugin is made by ``_contract.checks``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest_mcp_contract

PACKAGE = Path(pytest_mcp_contract.__file__).parent
JUDGE = PACKAGE / "_contract" / "checks.py"


def test_only_the_judge_makes_violations() -> None:
    minted = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if re.search(r"(?<![\w.])Violation\(", path.read_text(encoding="utf-8"))
    }
    assert minted == {str(JUDGE.relative_to(PACKAGE))}
