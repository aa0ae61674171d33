"""The repository explains itself: every rules citation and every relative link resolves.

Code and tests cite the rules by section (``docs/RULES.md, "The play"``); a section renamed or
dropped would leave those citations pointing at nothing. The README and the docs link to files
and sections of the repo; a file moved would leave a dead link. Both are checked here against
the files themselves, so a fresh clone needs nothing outside the repo to make sense of them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "docs" / "RULES.md"
THIS_FILE = Path(__file__).resolve()

SKIPPED_DIRS = frozenset({".git", ".venv", ".bench-venv", "node_modules", "instance", "artifacts",
                          "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})
"""Folders that hold no prose of the project's own (tools, installed packages, outputs)."""
SCANNED_SUFFIXES = frozenset({".py", ".md", ".txt", ".html", ".toml", ".cfg", ".ini"})

# `RULES.md "The play"` or `RULES.md, "Skunks"`, with or without the docs/ folder in front.
CITATION = re.compile(r"RULES\.md,?\s*\"([^\"\n]+)\"")
# A Markdown link [text](target), the target without spaces; images are links too.
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)

# Citations known to be in the code today: if the scan stops finding them, the scan is broken.
KNOWN_CITATIONS = {
    ("scorer/pegging.py", "The play"),
    ("scorer/rules.py", "Skunks"),
    ("scorer/discard.py", "The deal"),
}


def prose_files() -> list[Path]:
    """The repo's own text files, skipping tools, installed packages and outputs."""
    found: list[Path] = []
    todo = [REPO]
    while todo:
        folder = todo.pop()
        for path in sorted(folder.iterdir()):
            if path.is_symlink():
                continue  # .venv and node_modules are links to shared installs
            if path.is_dir():
                if path.name not in SKIPPED_DIRS:
                    todo.append(path)
            elif path.suffix in SCANNED_SUFFIXES and path != THIS_FILE:
                found.append(path)  # this file cites missing sections on purpose, to test the check
    return found


def markdown_files() -> list[Path]:
    return [p for p in prose_files() if p.suffix == ".md"]


def headings(path: Path) -> list[str]:
    """The headings of a Markdown file, outside code blocks, as written."""
    return HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8")))


def slug(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a heading: ``"The play"`` -> ``the-play``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def citations(text: str) -> list[str]:
    """The section names cited as ``RULES.md "Section"`` or ``RULES.md, "Section"`` in ``text``."""
    return CITATION.findall(text)


def missing_sections(cited: list[str], known: list[str]) -> list[str]:
    """The cited names that are no heading (exact, case and all)."""
    return [name for name in cited if name not in known]


def dead_links(path: Path) -> list[str]:
    """Relative links in the Markdown file ``path`` whose file (or section anchor) does not exist."""
    text = INLINE_CODE.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))
    dead: list[str] = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # http:, https:, mailto: … are not files of the repo
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            dead.append(f"{target} (no file {resolved})")
        elif anchor and resolved.suffix == ".md" and anchor not in {slug(h) for h in headings(resolved)}:
            dead.append(f"{target} (no heading {anchor!r} in {resolved.name})")
    return dead


def test_every_rules_citation_names_a_section() -> None:
    sections = headings(RULES)
    found: set[tuple[str, str]] = set()
    problems: list[str] = []
    for path in prose_files():
        rel = path.relative_to(REPO).as_posix()
        cited = citations(path.read_text(encoding="utf-8", errors="replace"))
        found.update((rel, name) for name in cited)
        problems += [f"{rel}: cites {name!r}" for name in missing_sections(cited, sections)]
    listed = "\n".join(problems)
    assert not problems, f"sections cited but missing from docs/RULES.md ({sections}):\n{listed}"
    assert found >= KNOWN_CITATIONS, f"the scan missed known citations: {KNOWN_CITATIONS - found}"


@pytest.mark.parametrize(
    ("text", "cited", "missing"),
    [
        ('(docs/RULES.md "The play")', ["The play"], []),
        ('(docs/RULES.md, "Skunks")', ["Skunks"], []),
        ('(RULES.md, "Skunks and game points")', ["Skunks and game points"], ["Skunks and game points"]),
        ('(docs/RULES.md, "the play")', ["the play"], ["the play"]),  # headings are matched exactly
        ("(docs/RULES.md)", [], []),
    ],
)
def test_a_citation_of_a_missing_section_is_caught(text: str, cited: list[str], missing: list[str]) -> None:
    assert citations(text) == cited
    assert missing_sections(citations(text), headings(RULES)) == missing


def test_rules_cover_what_the_code_relies_on() -> None:
    """The sections the code and the issue name, each a heading of its own."""
    wanted = {"Cards and notation", "The deal", "The crib", "The starter and his heels", "The play",
              "The show", "Counting order", "Counting out", "Game targets", "Skunks", "Muggins",
              "Match length", "Sources"}
    assert wanted <= set(headings(RULES))


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_resolve(path: Path) -> None:
    assert dead_links(path) == []


def test_a_dead_link_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# Here\n", encoding="utf-8")
    page.write_text(
        "[ok](there.md) [ok](there.md#here) [web](https://example.org/x) `[code](nowhere.md)`\n"
        "[gone](nowhere.md) [bad anchor](there.md#elsewhere)\n",
        encoding="utf-8",
    )
    assert [d.split(" ")[0] for d in dead_links(page)] == ["nowhere.md", "there.md#elsewhere"]


def test_slugs_match_the_anchors_the_docs_use() -> None:
    assert slug("Cards and notation") == "cards-and-notation"
    assert slug("The starter and his heels") == "the-starter-and-his-heels"
