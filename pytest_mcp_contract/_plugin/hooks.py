"""The plugin's own hooks, for a project's ``conftest.py``."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_mcp_contract_callbacks(server: object, config: pytest.Config) -> dict[str, Any] | None:
    """The callbacks the plugin's client answers a server's requests with, for ``server``.

    Return a dict of the SDK client's keywords: ``sampling_callback``, ``sampling_capabilities``,
    ``elicitation_callback``, ``list_roots_callback``, ``logging_callback`` (``mcp.Client`` documents
    each). The client declares exactly the capabilities whose callbacks it is given, and answers
    both a server's own requests (up to 2025-11-25) and the input an ``InputRequiredResult`` asks
    for (2026-07-28). Return ``None`` for a server that needs none.
    """
