"""A whole pytest run of a small server, against the SDK alone and against a pytest peer.

Run it with ``python benchmarks/peers.py`` (``--rounds N``). It needs the package index, so
``.ci/run`` does not run it: it builds two throwaway venvs with uv, both pinned to this
environment's ``mcp`` and ``pytest``:

* the plugin from this checkout with its ``fuzz`` extra, as the README installs it (Hypothesis, and
  so Hypothesis's own pytest plugin, included);
* ``pytest-mcptest`` 0.1.1, the quickest pytest peer measured when issue 30 was filed.

It writes a project holding an in-process ``MCPServer`` of 11 tools and times fresh pytest processes,
interleaved round by round, each making the same 11 calls:

* ``ours``: one test per tool calling it through the ``mcp_contract`` fixture (every answer checked)
  plus the generated suite (a snapshot item and a checks item per tool);
* ``ours, no hypothesis plugin``: the same with ``-p no:hypothesispytest``: what Hypothesis's plugin,
  which loads whenever the ``fuzz`` extra is installed, adds to every run;
* ``sdk alone``: the calls through the SDK's ``Client`` in a plain test, in the plugin's venv with the
  plugin switched off (``-p no:mcp_contract``);
* ``pytest-mcptest``: the calls through its ``assert_tool_call``, in its own venv.

The runs write byte code, as on a user's machine, whatever ``PYTHONDONTWRITEBYTECODE`` says here
(pytest would otherwise rewrite every assertion-rewritten module anew in every run). Prints each
median and its ratio to ``pytest-mcptest``.
"""

from __future__ import annotations

import argparse
import functools
import importlib.metadata
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import startup  # beside this file: python puts the script's folder first on the path
from rounds import interleaved, time_pytest  # beside this file, first on the script's path

REPO = Path(__file__).resolve().parent.parent
PEER = "pytest-mcptest==0.1.1"

# The server of benchmarks/startup.py: 11 tools, each returning a model.
SERVER = startup.SERVER + "".join(startup.TOOL.format(index=index) for index in range(11))

OURS = """
import pytest


@pytest.mark.parametrize("index", range(11))
def test_tool(mcp_contract, index):
    result = mcp_contract.call_tool(f"tool_{index}", {"station": "Oslo"})
    assert result.structured_content["station"] == "Oslo"
"""

SDK_ALONE = """
import asyncio

import pytest
from mcp import Client

from server import mcp


async def _call(index):
    async with Client(mcp) as client:
        return await client.call_tool(f"tool_{index}", {"station": "Oslo"})


@pytest.mark.parametrize("index", range(11))
def test_tool(index):
    assert asyncio.run(_call(index)).structured_content["station"] == "Oslo"
"""

MCPTEST = """
import pytest
from pytest_mcp import assert_tool_call

from server import mcp

pytestmark = pytest.mark.mcp_server(mcp)


@pytest.mark.parametrize("index", range(11))
async def test_tool(mcp_client, index):
    result = await assert_tool_call(mcp_client, f"tool_{index}", {"station": "Oslo"})
    assert result.structured_content["station"] == "Oslo"
"""


def _venv(folder: Path, *requirements: str) -> Path:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        raise SystemExit("benchmarks/peers.py needs uv (pip install uv)")
    subprocess.run([uv, "venv", "-q", "-p", sys.executable, str(folder)], check=True)
    pins = [f"{name}=={importlib.metadata.version(name)}" for name in ("mcp", "pytest")]
    environment = {**os.environ, "VIRTUAL_ENV": str(folder)}
    subprocess.run(
        [uv, "pip", "install", "-q", "--compile-bytecode", *requirements, *pins], check=True, env=environment
    )
    return folder / "bin" / "python"


def _project(folder: Path, test: str, ini: str) -> Path:
    folder.mkdir()
    (folder / "server.py").write_text(SERVER, encoding="utf-8")
    (folder / "test_calls.py").write_text(test, encoding="utf-8")
    (folder / "pytest.ini").write_text(f"[pytest]\naddopts = -p no:cacheprovider -q\n{ini}", encoding="utf-8")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="mcp-contract-peers-") as tmp:
        root = Path(tmp)
        ours = _venv(root / "ours", "-e", f"{REPO}[fuzz]")
        peer = _venv(root / "peer", PEER)
        ours_project = _project(root / "ours-project", OURS, "mcp_contract_server = server.py:mcp\n")
        sdk_project = _project(root / "sdk-project", SDK_ALONE, "")
        peer_project = _project(root / "peer-project", MCPTEST, "")
        time_pytest(ours, ours_project, "--snapshot-update")  # the suite's snapshots, once
        sides = {
            "ours": functools.partial(time_pytest, ours, ours_project),
            "ours, no hypothesis plugin": functools.partial(
                time_pytest, ours, ours_project, "-p", "no:hypothesispytest"
            ),
            "sdk alone": functools.partial(time_pytest, ours, sdk_project, "-p", "no:mcp_contract"),
            "pytest-mcptest": functools.partial(time_pytest, peer, peer_project),
        }
        for measure in sides.values():  # byte code and file caches warm for every side
            measure()
        times = interleaved(sides, rounds)
    base = statistics.median(times["pytest-mcptest"])
    print(f"\n11 tools, each called once; {rounds} rounds, median wall time per pytest run")
    print(f"{'run':28} {'seconds':>8} {'vs pytest-mcptest':>18}")
    for side, samples in times.items():
        median = statistics.median(samples)
        print(f"{side:28} {median:8.3f} {median / base:18.3f}")


if __name__ == "__main__":
    main()
