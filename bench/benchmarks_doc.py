"""The one way a bench writes docs/benchmarks.md: by `## ` section, in place. A bench replaces the
sections it measured and no others, so every bench's figures stay until that bench runs again."""

from __future__ import annotations

from pathlib import Path

from . import ROOT

DOC = ROOT / "docs" / "benchmarks.md"
COLUMNS_HEADING = "## What the columns mean"


def split(text: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The lines before the first `## ` heading, and each section as (heading, its lines from the
    heading up to the next `## ` heading)."""
    preamble: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            sections.append((line, []))
        (sections[-1][1] if sections else preamble).append(line)
    return preamble, sections


def replace_sections(sections: list[tuple[str, list[str]]], doc: Path = DOC, preamble: list[str] | None = None) -> None:
    """Writes each (heading, lines) in place of the section with that heading; `lines` starts
    with the heading, and an empty `lines` removes the section (a figure this run did not
    measure must not stand beside the ones it did). A section not there yet goes after the one
    given before it in `sections`, the first before "What the columns mean", or at the end.
    `preamble`, if given, replaces what comes before the first section."""
    old_preamble, current = split(doc.read_text()) if doc.exists() else (["# Benchmarks", ""], [])
    headings = [heading for heading, _ in current]
    previous = None
    for heading, lines in sections:
        if lines and lines[0] != heading:
            raise ValueError(f"the lines of section {heading!r} must start with its heading, not {lines[0]!r}")
        if heading in headings:
            current[headings.index(heading)] = (heading, lines)
        else:
            if previous in headings:
                at = headings.index(previous) + 1
            elif COLUMNS_HEADING in headings:
                at = headings.index(COLUMNS_HEADING)
            else:
                at = len(headings)
            current.insert(at, (heading, lines))
            headings.insert(at, heading)
        previous = heading
    out = list(old_preamble if preamble is None else preamble)
    for _, lines in current:
        if lines:
            if out and out[-1] != "":
                out.append("")
            out += lines
    doc.write_text("\n".join(out).rstrip("\n") + "\n")


def replace_section(heading: str, lines: list[str], doc: Path = DOC) -> None:
    """Writes one section in place (see replace_sections)."""
    replace_sections([(heading, lines)], doc)
