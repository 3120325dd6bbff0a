"""What each server outside this process called itself this run: the record snapshot folders are named from.

A session tells the record the name the server gave at ``initialize``; the record keeps the first
and notes a different one later (two processes, two names: the name says nothing lasting). It is
per run (``config.stash``, handed down through the session pool), never written onto the target,
so the folder a server's snapshots go to does not depend on which hook opened a session first.
Light on purpose: the plugin makes it at start-up, before anything imports the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class _Told:
    server: object
    """Held, so that the ``id`` it is filed under names no other object."""
    first: str
    changes: bool = False


class ServerNames:
    """Per server (by identity): the first name a session was told, and whether another was told since."""

    def __init__(self) -> None:
        self._told: dict[int, _Told] = {}

    def told(self, server: object, name: str) -> None:
        """A session to ``server`` was told ``name`` at ``initialize``."""
        known = self._told.get(id(server))
        if known is None or known.server is not server:
            self._told[id(server)] = _Told(server, name)
        elif not known.first:
            known.first = name
        elif name != known.first:
            known.changes = True

    def name_changes(self, server: object) -> None:
        """File ``server`` under its stable key: an earlier run found its name changing (its folder is there)."""
        known = self._told.get(id(server))
        if known is None or known.server is not server:
            known = self._told[id(server)] = _Told(server, "")
        known.changes = True

    def first(self, server: object) -> str:
        """The first name a session to ``server`` was told this run, or ``""``."""
        known = self._told.get(id(server))
        return known.first if known is not None and known.server is server else ""

    def changes(self, server: object) -> bool:
        """Whether ``server``'s name says nothing lasting: two sessions were told two names, or an
        earlier run found so (:meth:`name_changes`)."""
        known = self._told.get(id(server))
        return known is not None and known.server is server and known.changes
