"""A sandbox the plugin owns: a fresh server whose ``HOME``, ``TMPDIR`` and XDG folders are private
folders of its own, removed afterwards.

A command is started anew with those variables in its environment; a factory target
(``module:build()``) is called anew with them set in ``os.environ`` (and ``tempfile``'s folder moved)
while the server lives, then put back. A server the plugin cannot make again (a module-level object,
a URL, an object a conftest built) has no sandbox: :func:`fresh` says why in one line.

What a private ``HOME`` cannot hold back: a server that writes to a database, a bucket or an API named
in its environment or its code writes there still.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pytest_mcp_contract._errors import McpContractError
from pytest_mcp_contract._servers.kinds import as_target, remade
from pytest_mcp_contract._servers.lifespans import Lifespans

FOLDERS: Final[Mapping[str, tuple[str, ...]]] = {
    "home": ("HOME", "USERPROFILE"),
    "tmp": ("TMPDIR", "TMP", "TEMP"),
    "config": ("XDG_CONFIG_HOME", "APPDATA"),
    "data": ("XDG_DATA_HOME", "LOCALAPPDATA"),
    "cache": ("XDG_CACHE_HOME",),
    "state": ("XDG_STATE_HOME",),
}
"""Each private folder, and the variables that point a program at it (POSIX and Windows alike)."""
FOLDER_PREFIX: Final = "mcp-contract-sandbox-"


@dataclass(frozen=True)
class Sandbox:
    """Private folders for one fresh server, and the variables that point at them."""

    folder: Path
    env: Mapping[str, str]


@contextlib.contextmanager
def sandbox() -> Iterator[Sandbox]:
    """New private folders, removed when the block ends (whatever the server left in them)."""
    folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
    try:
        env: dict[str, str] = {}
        for name, variables in FOLDERS.items():
            (folder / name).mkdir(mode=0o700)
            env.update(dict.fromkeys(variables, str(folder / name)))
        yield Sandbox(folder, env)
    finally:
        _remove(folder)


def _remove(folder: Path) -> None:
    """Remove the sandbox, also what a server left read-only in it (a module cache)."""

    def writable_then_again(function: Callable[[str], object], path: str, _error: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700)
            function(path)

    handler = {"onexc" if sys.version_info >= (3, 12) else "onerror": writable_then_again}
    with contextlib.suppress(OSError):
        shutil.rmtree(folder, **handler)  # type: ignore[arg-type]  # (the keyword Python 3.12 renamed)


@dataclass(frozen=True)
class Fresh:
    """Makes a fresh server inside a sandbox, for as long as the block lasts."""

    make: Callable[[Sandbox], contextlib.AbstractContextManager[object]]
    apart: bool
    """Each server is a process of its own: one may start while another runs (a factory's server
    lives in this process, under variables set in ``os.environ``: one at a time)."""

    def __call__(self, box: Sandbox) -> contextlib.AbstractContextManager[object]:
        return self.make(box)


def fresh(server: object) -> Fresh | str:
    """How to have ``server`` anew inside a sandbox, or why it cannot be had (one clause, for a line
    that says the run goes on without the sandbox)."""
    target = as_target(server)
    remake = remade(server)
    if remake is not None:
        made = _Made(server)
        return Fresh(lambda box: _made_again(remake, box, made), apart=False)
    if target.started_here:  # each session starts it: a copy with the sandbox's variables starts it fresh
        return Fresh(lambda box: contextlib.nullcontext(target.started_with(box.env)), apart=True)
    if target.external:
        return f"{target.label} runs elsewhere, and a new session reaches the same server"
    return (
        f"{target.label} is one object for the whole run (a module-level server, or one a conftest built); "
        "point the target at the function that builds it (module:build()), so a fresh one can be made"
    )


class SandboxError(McpContractError):
    """No fresh server can be had; the message says why, for the user."""


class _Made:
    """The servers a factory made so far (weakly): a factory that hands one out again makes nothing fresh."""

    def __init__(self, first: object) -> None:
        self._seen: weakref.WeakSet[object] = weakref.WeakSet()
        self._first = first
        self.add(first)

    def add(self, server: object) -> None:
        with contextlib.suppress(TypeError):  # no weak reference: only the first is compared
            self._seen.add(server)

    def before(self, server: object) -> bool:
        try:
            return server is self._first or server in self._seen
        except TypeError:
            return server is self._first


@contextlib.contextmanager
def _made_again(remake: Callable[[Lifespans], object], box: Sandbox, made: _Made) -> Iterator[object]:
    lifespans = Lifespans()
    with environment(box.env):
        try:
            server = remake(lifespans)
            if made.before(server):  # a cached or module-level server, handed out again: not fresh
                raise SandboxError(
                    f"the factory returned the same {type(server).__name__} object again (a module-level server, or "
                    "one it caches), so no fresh server can be had; make it build a new server at each call"
                )
            made.add(server)
            yield server
        finally:
            lifespans.close()


@contextlib.contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` in ``os.environ`` (and ``tempfile``'s folder at the sandbox's), put back after."""
    before = {name: os.environ.get(name) for name in values}
    folder = tempfile.tempdir
    os.environ.update(values)
    tempfile.tempdir = values.get("TMPDIR", folder)
    try:
        yield
    finally:
        tempfile.tempdir = folder
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
