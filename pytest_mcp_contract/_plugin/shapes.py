"""Observed shapes in a pytest run: noted by the sessions, merged from xdist workers; the report records
them in the snapshots and compares them with the base revision's (``_plugin.report``).

What a shape is, and which answers give one, is ``_contract.shapes``'s; this is when and where.
"""

from __future__ import annotations

import json
from typing import Any, Final

import pytest

from pytest_mcp_contract._contract.shapes import ObservedShapes
from pytest_mcp_contract._plugin.keys import SHAPES

WORKER_OUTPUT: Final = "mcp_contract_shapes"
"""The ``workeroutput`` key under which an xdist worker hands its shapes to the controller."""


def start(config: pytest.Config) -> ObservedShapes:
    """The run's record of observed shapes, and the hooks that bring a worker's to the controller."""
    shapes = config.stash[SHAPES] = ObservedShapes()
    config.pluginmanager.register(ShapesPlugin(shapes), "mcp_contract_shapes")
    return shapes


class ShapesPlugin:
    def __init__(self, shapes: ObservedShapes) -> None:
        self.shapes = shapes

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """On the xdist controller: add what a worker observed."""
        data = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT)
        if data is not None:
            self.shapes.merge(json.loads(data))

    @pytest.hookimpl(trylast=True)  # after the tests' last calls
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[WORKER_OUTPUT] = json.dumps(self.shapes.to_json())
