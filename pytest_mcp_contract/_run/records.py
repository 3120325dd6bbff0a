"""What a test leaves for the report: records in its ``user_properties``, which survive pytest-xdist."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import pytest

PROPERTY: Final = "mcp_contract"


def record(item: pytest.Item, kind: str, **data: Any) -> None:
    """Note something about a tool on the running test (a snapshot, tool checks, a call)."""
    item.user_properties.append((PROPERTY, json.dumps({"kind": kind, **data}, sort_keys=True)))
