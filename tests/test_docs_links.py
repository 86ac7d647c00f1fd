"""Relative links in the project's Markdown (README.md and docs/**/*.md) point at files and headings that exist.

Anchors are the heading slugs GitHub generates: lower case, punctuation other than "-" and "_" removed, spaces
replaced by "-", and "-1", "-2", ... appended to repeated slugs. Links with a URL scheme are not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.conftest import REPO_ROOT

MARKDOWN_FILES = sorted([REPO_ROOT / "README.md", *(REPO_ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"!?\[[^\]]*\]\(([^()\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+).*?\1")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose_lines(path: Path) -> list[str]:
    """The lines of a Markdown file outside fenced code blocks."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading text."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file."""
    found: set[str] = set()
    counts: dict[str, int] = {}
    for line in prose_lines(path):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            number = counts.get(base, 0)
            counts[base] = number + 1
            found.add(base if number == 0 else f"{base}-{number}")
    return found


def links(path: Path) -> list[str]:
    """The link targets of a Markdown file (outside code)."""
    return [target for line in prose_lines(path) for target in LINK.findall(CODE_SPAN.sub("", line))]


def broken_links(path: Path) -> list[str]:
    """The relative links of ``path`` whose file or heading does not exist, with the reason."""
    problems = []
    for target in links(path):
        if SCHEME.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            problems.append(f"{target}: no such file {linked}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{target}: no heading #{anchor} in {linked}")
    return problems


def test_docs_exist() -> None:
    assert (REPO_ROOT / "docs" / "README.md") in MARKDOWN_FILES


@pytest.mark.parametrize("path", MARKDOWN_FILES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    assert broken_links(path) == []


def test_checker_finds_broken_links(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("# Some Title, again\n## Some title again\n", encoding="utf-8")
    page = tmp_path / "a.md"
    page.write_text(
        "# Top\n[ok](b.md#some-title-again) [ok](b.md#some-title-again-1) [ok](#top) [web](https://x.org/#y)\n"
        "[bad](b.md#missing) [bad](c.md) `[code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n",
        encoding="utf-8",
    )
    assert [problem.split(":")[0] for problem in broken_links(page)] == ["b.md#missing", "c.md"]
