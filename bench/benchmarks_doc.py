"""docs/benchmarks.md's hand-run sections: each bench that is not part of the ladder writes its own
`## …` section into the file, in place, without touching the others."""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
COLUMNS_HEADING = "## What the columns mean"


def replace_section(heading: str, lines: list[str], doc: Path = DOC) -> None:
    """Replaces the section headed `heading` (up to the next `## ` heading) with `lines`; a section
    not there yet goes just before "What the columns mean", or at the end."""
    text = doc.read_text().splitlines() if doc.exists() else ["# Benchmarks", ""]
    out, skipping, placed = [], False, False
    for line in text:
        if line.startswith("## "):
            skipping = False
            if line == heading:
                out += lines
                skipping = placed = True
                continue
            if line == COLUMNS_HEADING and not placed:
                out += lines
                placed = True
        if not skipping:
            out.append(line)
    if not placed:
        out += ["", *lines]
    doc.write_text("\n".join(out).rstrip("\n") + "\n")
