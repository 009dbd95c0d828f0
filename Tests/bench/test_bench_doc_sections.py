"""bench.benchmarks_doc: the one way a bench writes its sections of docs/benchmarks.md."""

from __future__ import annotations

import pytest
import repo_on_path  # noqa: F401

from bench.benchmarks_doc import replace_section, replace_sections, split

DOC = """# Benchmarks

Intro.

## Ladder

old ladder figures

### A subsection stays inside its section

## Cluster (make bench-cluster)

cluster figures

## What the columns mean

columns
"""


@pytest.fixture
def doc(tmp_path):
    path = tmp_path / "benchmarks.md"
    path.write_text(DOC)
    return path


def headings(path):
    return [heading for heading, _ in split(path.read_text())[1]]


def test_a_section_is_replaced_in_place_and_every_other_line_is_kept(doc):
    replace_section("## Ladder", ["## Ladder", "", "new ladder figures"], doc)
    text = doc.read_text()
    assert "new ladder figures" in text and "old ladder figures" not in text
    assert "### A subsection" not in text, "a ### heading belongs to its section"
    assert text.replace("## Ladder\n\nnew ladder figures\n\n", "") == DOC.replace(
        "## Ladder\n\nold ladder figures\n\n### A subsection stays inside its section\n\n", "")


def test_a_new_section_goes_before_what_the_columns_mean(doc):
    replace_section("## Links (make bench-links)", ["## Links (make bench-links)", "", "links"], doc)
    assert headings(doc) == ["## Ladder", "## Cluster (make bench-cluster)", "## Links (make bench-links)",
                             "## What the columns mean"]


def test_new_sections_follow_the_one_given_before_them_and_an_empty_one_is_removed(doc):
    replace_sections([("## Ladder", ["## Ladder", "", "ladder"]), ("## Capacity check", ["## Capacity check", "", "held"]),
                      ("## Cluster (make bench-cluster)", []), ("## What the columns mean", ["## What the columns mean"]),
                      ("## scrollcast-load", ["## scrollcast-load", "", "options"])], doc, preamble=["# Benchmarks", "", "New intro."])
    assert headings(doc) == ["## Ladder", "## Capacity check", "## What the columns mean", "## scrollcast-load"]
    text = doc.read_text()
    assert text.startswith("# Benchmarks\n\nNew intro.\n\n## Ladder\n") and "cluster figures" not in text
    assert text.endswith("## scrollcast-load\n\noptions\n")


def test_a_missing_document_is_started(tmp_path):
    path = tmp_path / "benchmarks.md"
    replace_section("## Links (make bench-links)", ["## Links (make bench-links)", "", "links"], path)
    assert path.read_text() == "# Benchmarks\n\n## Links (make bench-links)\n\nlinks\n"


def test_lines_that_do_not_start_with_their_heading_are_refused(doc):
    with pytest.raises(ValueError, match="must start with its heading"):
        replace_section("## Ladder", ["## Ladders", "x"], doc)
    assert doc.read_text() == DOC


def test_the_real_document_splits_into_its_sections_and_back():
    from bench.benchmarks_doc import DOC as REAL
    preamble, sections = split(REAL.read_text())
    assert preamble[0] == "# Benchmarks" and len(sections) >= 10
    assert "\n".join(preamble + [line for _, lines in sections for line in lines]) == REAL.read_text().rstrip("\n")


def test_the_hand_written_notes_are_in_the_document_as_they_are():
    """`make bench` writes bench/where-the-time-goes.md into docs/benchmarks.md (ladder_report):
    a part written into the document alone would be lost at the next run (§15 and §16 once were)."""
    from bench.benchmarks_doc import DOC as REAL
    from bench.ladder_settings import NOTES
    assert NOTES.read_text().rstrip() in REAL.read_text()
