"""The base of ``--mcp-contract-against REF``: the snapshot files committed at a git revision.

Read from git's object store with the ``git`` command (``rev-parse``, ``ls-tree``, ``cat-file``):
no checkout, no network, nothing in the work tree touched. A revision that cannot serve as a base
(no git, no work tree, an unknown name, no snapshot folder) is a ``pytest.UsageError`` at start-up.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._run.paths import SUFFIX


@dataclass(frozen=True)
class GitBase:
    """A revision's committed snapshots: ``ref`` as the user named it, ``commit`` what it named at start-up."""

    ref: str
    commit: str
    root: Path
    """The work tree's top folder: git paths are relative to it."""
    source: str
    """Where the ref was given, for messages: the option or the ini key."""
    _files: dict[str, dict[str, str]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def short(self) -> str:
        return self.commit[:7]

    @property
    def label(self) -> str:
        """``main (1a2b3c4)``: what the summary and messages call the base."""
        return self.ref if self.ref == self.commit else f"{self.ref} ({self.short})"

    def git_path(self, path: Path) -> str:
        """``path`` (in the work tree) as git names it at the revision."""
        return PurePosixPath(*path.resolve().relative_to(self.root).parts).as_posix()

    def snapshots(self, folder: Path) -> dict[str, str]:
        """The snapshot files in a server's ``folder`` at the revision: file stem -> text (read once a run)."""
        key = self.git_path(folder)
        if key not in self._files:
            self._files[key] = _read_folder(self.root, self.commit, key)
        return self._files[key]


def read_base(ref: str, source: str, project: Path, snapshot_dir: Path) -> GitBase:
    """The revision ``ref`` names, checked to hold ``snapshot_dir``; else a ``pytest.UsageError`` saying what to do."""
    if shutil.which("git") is None:
        raise pytest.UsageError(messages.against_no_git(ref, source))
    top = _git(project, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise pytest.UsageError(messages.against_not_in_git(ref, source, str(project), _first_line(top.stderr)))
    root = Path(top.stdout.strip()).resolve()
    # ^{commit}: a tag names its commit; --end-of-options: a ref that starts with "-" is not an option.
    found = _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if found.returncode != 0 or not ref.strip():
        raise pytest.UsageError(messages.against_unknown_ref(ref, source, str(root)))
    commit = found.stdout.strip()
    base = GitBase(ref=ref, commit=commit, root=root, source=source)
    folder = snapshot_dir.resolve()
    if not folder.is_relative_to(root):
        raise pytest.UsageError(messages.against_outside(ref, source, str(snapshot_dir), str(root)))
    held = _git(root, "ls-tree", "-d", "--name-only", commit, "--", base.git_path(folder))
    if held.returncode != 0 or not held.stdout.strip():
        raise pytest.UsageError(messages.against_no_snapshots(ref, source, base.short, base.git_path(folder)))
    return base


def _read_folder(root: Path, commit: str, folder: str) -> dict[str, str]:
    """The ``.json`` files directly in ``folder`` at ``commit``, by stem; one ``cat-file --batch`` reads them all."""
    listed = _git(root, "ls-tree", "-z", commit, "--", f"{folder}/")
    blobs: dict[str, str] = {}
    for entry in listed.stdout.split("\0"):
        meta, _tab, path = entry.partition("\t")
        parts = meta.split()
        name = PurePosixPath(path).name
        if len(parts) == 3 and parts[1] == "blob" and name.endswith(SUFFIX):
            blobs[name[: -len(SUFFIX)]] = parts[2]
    if not blobs:
        return {}
    batch = subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=root,
        input="".join(f"{sha}\n" for sha in blobs.values()).encode(),
        capture_output=True,
        check=True,
    )
    texts: dict[str, str] = {}
    out = batch.stdout
    for stem in blobs:  # git answers in the order asked: "<sha> blob <size>\n<content>\n"
        header, _newline, out = out.partition(b"\n")
        size = int(header.split()[2])
        texts[stem] = out[:size].decode("utf-8", errors="replace")
        out = out[size + 1 :]
    return texts


def ignored(paths: list[Path], cwd: Path) -> dict[str, list[Path]]:
    """Which of ``paths`` git ignores (untracked, matched by a rule), by the rule: ``.gitignore:3:*.json``.
    Nothing where there is no git or no work tree: then no rule can keep a file out."""
    if not paths or shutil.which("git") is None:
        return {}
    found = subprocess.run(
        ["git", "check-ignore", "--verbose", "-z", "--stdin"],
        cwd=cwd,
        input="\0".join(str(path) for path in paths),
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode != 0:  # 1: none ignored; 128: not a work tree
        return {}
    fields = found.stdout.split("\0")
    rules: dict[str, list[Path]] = {}
    # -z: source, line number, pattern and path, each ended by NUL.
    for start in range(0, len(fields) - 3, 4):
        source, line, pattern, path = fields[start : start + 4]
        if pattern.startswith("!"):  # --verbose also names the rule that un-ignores a file
            continue
        rules.setdefault(f"{source}:{line}:{pattern}", []).append(Path(path))
    return rules


def unignoring(rule: str, folder: Path, cwd: Path) -> tuple[str, str] | None:
    """The line that un-ignores ``folder``'s files after ``rule`` (as :func:`ignored` names it), and the file it
    goes in: a ``.gitignore``'s patterns are relative to its own folder. ``None`` for a rule from elsewhere
    (``.git/info/exclude``, a global file), or one whose folder does not hold ``folder``."""
    source = Path(rule.split(":", 1)[0])
    home = (cwd / source).parent.resolve()
    if source.name != ".gitignore" or not folder.resolve().is_relative_to(home):
        return None
    return f"!/{folder.resolve().relative_to(home).as_posix()}/**", str(source)


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "no reason given")
