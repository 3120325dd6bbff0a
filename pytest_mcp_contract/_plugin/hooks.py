"""The plugin's own hooks, for a project's ``conftest.py``."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contract._client import CALLBACKS


@pytest.hookspec(firstresult=True)
def pytest_mcp_contract_callbacks(server: object, config: pytest.Config) -> dict[str, Any] | None:
    """The callbacks the plugin's client answers a server's requests with, for ``server``."""


# The keys come from the one list the client checks against.
pytest_mcp_contract_callbacks.__doc__ = f"""{pytest_mcp_contract_callbacks.__doc__}

    Return a dict of the SDK client's keywords: {", ".join(f"``{key}``" for key in CALLBACKS)}
    (``mcp.Client`` documents each; ``extensions`` is a list of ``ClientExtension`` instances, such as
    ``mcp.client.advertise(identifier)``, and needs mcp 2.x). The client declares exactly the
    capabilities and extensions it is given, and answers both a server's own requests (up to 2025-11-25)
    and the input an ``InputRequiredResult`` asks for (2026-07-28). Return ``None`` for a server that
    needs none. Another key, or a value of the wrong kind, stops the run with a usage error.
    """
