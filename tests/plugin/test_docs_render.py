"""The pages under docs/ render with the lists they are written with.

``mkdocs build --strict`` passes a page whose lists fall apart: Python-Markdown, which MkDocs renders
with, needs a list item's blocks indented by 4 spaces (CommonMark, and so GitHub and markdownlint,
take the item's own width). A fence indented 3 spaces under ``2.`` leaves the list (1, 2, [code], 1,
2), and a numbered item after a block that left its list is a paragraph's text ("2. Someone drops").
No maintained Markdown linter reads Python-Markdown's rule, so the pages are rendered here, with the
extensions mkdocs.yml names, and the HTML is compared with the source.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from docs_text import ROOT

# MkDocs' renderer and its config reader come with mkdocs-material, in the dev extra (not in the test
# extra, which .ci/run's floors leg installs alone).
markdown = pytest.importorskip("markdown", reason="the docs' renderer (mkdocs-material) is in the dev extra")
yaml = pytest.importorskip("yaml", reason="the docs' renderer (mkdocs-material) is in the dev extra")
pytest.importorskip("pymdownx", reason="the docs' renderer (mkdocs-material) is in the dev extra")

DOCS = sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^( *)(```|~~~)")
ITEM = re.compile(r"^ *(\d+)\. \S")
SHOWN_AS_TEXT = re.compile(r"^\s*(?:\d+\.|[-*+]) \S.*$", re.MULTILINE)
VOID = {"br", "hr", "img", "input", "meta", "link", "col", "wbr"}


def _render(text: str) -> str:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    extensions: list[str] = []
    configs: dict[str, object] = {}
    for entry in config["markdown_extensions"]:
        if isinstance(entry, dict):
            [(name, options)] = entry.items()
            extensions.append(name)
            configs[name] = options or {}
        else:
            extensions.append(entry)
    html: str = markdown.markdown(text, extensions=extensions, extension_configs=configs)
    return html


class _Shape(HTMLParser):
    """What a reader sees of the lists: each ordered item's number, whether each code block sits in a
    list item, and the text of each paragraph."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.counters: list[int] = []  # one per open <ol>
        self.numbers: list[int] = []
        self.blocks_in_items: list[bool] = []
        self.paragraphs: list[str] = []
        self._paragraph: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        if tag == "ol":
            self.counters.append(int(dict(attrs).get("start") or 1) - 1)
        elif tag == "li" and [name for name in self.open if name in ("ol", "ul")][-1:] == ["ol"]:
            self.counters[-1] += 1
            self.numbers.append(self.counters[-1])
        elif tag == "pre":
            self.blocks_in_items.append("li" in self.open)
        elif tag == "p":
            self._paragraph = []
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or tag not in self.open:
            return
        while self.open.pop() != tag:
            pass
        if tag == "ol":
            self.counters.pop()
        elif tag == "p" and self._paragraph is not None:
            self.paragraphs.append("".join(self._paragraph))
            self._paragraph = None

    def handle_data(self, data: str) -> None:
        if self._paragraph is not None and "pre" not in self.open:
            self._paragraph.append(data)


def _source(text: str) -> tuple[list[int], list[bool]]:
    """The numbers the ordered items are written with, and whether each fence is indented (written
    inside a list item), in the order they come, fences' contents aside."""
    numbers, indented, inside = [], [], ""
    for line in text.splitlines():
        fence = FENCE.match(line)
        if inside:
            if fence is not None and line.strip() == inside:
                inside = ""
            continue
        if fence is not None:
            inside = fence.group(2)
            indented.append(bool(fence.group(1)))
            continue
        item = ITEM.match(line)
        if item is not None:
            numbers.append(int(item.group(1)))
    return numbers, indented


def render_problems(text: str) -> list[str]:
    """How the rendered page differs from its source's lists, in words; empty when it does not."""
    numbers, indented = _source(text)
    shape = _Shape()
    shape.feed(_render(text))
    problems = []
    if shape.numbers != numbers:
        problems.append(
            f"the numbered items written {', '.join(map(str, numbers))} render as "
            f"{', '.join(map(str, shape.numbers))}: a block inside a list item (a fence, a paragraph) needs "
            "4 spaces of indent, and a list a blank line before it"
        )
    if len(shape.blocks_in_items) == len(indented):
        for index, (written, rendered) in enumerate(zip(indented, shape.blocks_in_items, strict=True)):
            if written and not rendered:
                problems.append(f"code block {index + 1} is indented into a list item but renders outside it")
    else:
        problems.append(f"{len(indented)} fenced blocks written, {len(shape.blocks_in_items)} rendered")
    for paragraph in shape.paragraphs:
        for shown in SHOWN_AS_TEXT.findall(paragraph):
            problems.append(f"a list item renders as a paragraph's text: {shown.strip()!r}")
    return problems


def test_a_fence_indented_3_spaces_in_a_numbered_list_is_found() -> None:
    broken = "1. one\n2. two:\n\n   ```toml\n   a = 1\n   ```\n\n3. three\n"
    assert render_problems(broken) == [
        "the numbered items written 1, 2, 3 render as 1, 2, 1: a block inside a list item (a fence, a "
        "paragraph) needs 4 spaces of indent, and a list a blank line before it",
        "code block 1 is indented into a list item but renders outside it",
    ]
    assert render_problems(broken.replace("   ", "    ")) == []


def test_a_numbered_story_that_runs_into_its_paragraph_is_found() -> None:
    broken = "The story.\n\n1. First:\n\n    ```\n    out\n    ```\n\n    Then this.\n2. Someone drops it.\n"
    assert render_problems(broken) == [
        "the numbered items written 1, 2 render as 1: a block inside a list item (a fence, a paragraph) needs "
        "4 spaces of indent, and a list a blank line before it",
        "a list item renders as a paragraph's text: '2. Someone drops it.'",
    ]
    assert render_problems(broken.replace("Then this.\n2.", "Then this.\n\n2.")) == []


def test_a_list_with_no_blank_line_before_it_is_found() -> None:
    assert render_problems("Some text:\n- a\n- b\n") == [
        "a list item renders as a paragraph's text: '- a'",
        "a list item renders as a paragraph's text: '- b'",
    ]
    assert render_problems("Some text:\n\n- a\n- b\n") == []


@pytest.mark.parametrize("page", DOCS, ids=[page.name for page in DOCS])
def test_each_page_renders_its_lists_as_written(page: Path) -> None:
    assert render_problems(page.read_text(encoding="utf-8")) == []
