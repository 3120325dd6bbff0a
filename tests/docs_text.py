"""What the README and docs/ quote, for the tests that hold it to the code.

A quote is marked ``<!-- quoted: NAME -->`` on the line before it: before a fenced block (an output,
or a command a test runs), or before a table whose second column says what the user reads. A test
that makes that output takes the quote with :func:`quoted` or :func:`quoted_rows` and checks it with
:func:`assert_says`; ``tests/plugin/test_docs_quotes.py`` fails for a marked quote no test takes.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

MARKER = re.compile(r"^( *)<!-- quoted: ([a-z0-9-]+) -->\n\n?", re.MULTILINE)
FENCE = re.compile(r"^( *)```([^\n`]*)\n(.*?)\n\1```", re.MULTILINE | re.DOTALL)
OUTPUT = {"", "text", "console", "shell-session", "output"}  # the languages of a block that shows output
ROW = re.compile(r"\| (.+?) \| (.+) \|")
TABLE = re.compile(r"(?:\|.*\n)*")


@functools.cache  # the pages do not change during a run
def marked() -> dict[str, list[str]]:
    """Each marker's name, with the text after it on every page that has it (a block or a table)."""
    found: dict[str, list[str]] = defaultdict(list)
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for marker in MARKER.finditer(text):
            indent, rest = marker.group(1), text[marker.end() :]
            fence = FENCE.match(rest)
            if fence is not None:
                body = "\n".join(line.removeprefix(indent) for line in fence.group(3).splitlines())
            else:  # a table: up to its first line that is no row
                table = TABLE.match(rest + "\n")
                assert table is not None  # "*": it matches, if only nothing
                body = table.group(0).rstrip("\n")
            found[marker.group(2)].append(body)
    return found


def quoted(name: str) -> str:
    """The block the pages quote under ``name``; a quote on two pages must be the same on both."""
    blocks = marked()[name]
    assert blocks, f"no page quotes {name!r}"
    assert all(block == blocks[0] for block in blocks), f"the pages quote {name!r} differently"
    return blocks[0]


def quoted_rows(name: str) -> dict[str, str]:
    """A quoted table's rows: what happened (its first cell) → what the user reads, backticks off,
    each backticked part of the cell on a line of its own (its words between them are the page's)."""
    rows = {}
    for line in quoted(name).splitlines()[2:]:  # after the header and its rule
        row = ROW.fullmatch(line)
        assert row is not None, line
        happened, reads = row.groups()
        rows[happened.replace("`", "")] = "\n…\n".join(re.findall(r"`([^`]+)`", reads))
    return rows


def assert_says(printed: str, quote: str) -> None:
    """``printed`` holds ``quote``, whitespace aside, each ``…`` or ``...`` in it standing for any text."""
    text, at = " ".join(printed.split()), 0
    pieces = re.split(r" ?(?:…|\.\.\.) ?", " ".join(quote.split()))
    assert any(pieces), f"the quote {quote!r} says nothing to look for"
    for piece in pieces:
        found = text.find(piece, at)
        assert found >= 0, f"the docs quote:\n{quote}\n\nbut the code printed no {piece!r} there:\n{printed}"
        at = found + len(piece)
