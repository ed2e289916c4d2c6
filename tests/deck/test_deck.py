"""The deck's shape: every part of the course has a slide that names its notebook, every
demo is one cell, and the instructor guide times every part the deck has.

Read from the committed files alone (no kernel, no browser)."""

import re

import nbformat

from tutorial.jupyter.lab import NOTEBOOKS, SLIDES

DECK = SLIDES / "workshop.ipynb"
GUIDE = SLIDES / "README.md"
NOTEBOOK = re.compile(r"\b(\d\d_[a-z_]+)\b")
PART = re.compile(r"^## (\d\d) · ", re.MULTILINE)
MOST_LINES = 12           # a demo cell longer than this belongs in the library


def slides():
    """Each presented slide or subslide: its cells (cells of type 'skip' left out)."""
    out = []
    for cell in nbformat.read(DECK, as_version=4).cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type", "-")
        if kind == "skip":
            continue
        if kind in ("slide", "subslide") or not out:
            out.append([])
        out[-1].append(cell)
    return out


def _text(slide):
    return "\n".join(c.source for c in slide if c.cell_type == "markdown")


def test_every_slide_between_title_and_questions_names_an_existing_notebook():
    existing = {p.stem for p in NOTEBOOKS.glob("*.ipynb")}
    for slide in slides()[1:-1]:
        named = set(NOTEBOOK.findall(_text(slide)))
        heading = _text(slide).splitlines()[0]
        assert named, f"slide {heading!r} names no notebook"
        assert named <= existing, f"slide {heading!r} names {named - existing}"


def test_every_part_of_the_course_has_its_slide():
    parts = {p.stem[:2] for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")} - {"00"}   # 00: setup
    shown = {m for slide in slides() for m in PART.findall(_text(slide))}
    assert parts <= shown, f"parts without a slide: {sorted(parts - shown)}"


def test_a_demo_is_one_short_cell_per_slide():
    for slide in slides():
        code = [c for c in slide if c.cell_type == "code"]
        assert len(code) <= 1, f"{_text(slide).splitlines()[0]!r} has {len(code)} code cells"
        for cell in code:
            hidden = cell.metadata.get("jupyter", {}).get("source_hidden", False)
            assert hidden or len(cell.source.splitlines()) <= MOST_LINES, cell.source


def test_the_deck_has_its_stylesheet_where_rise_looks_for_it():
    css = DECK.with_suffix(".css")            # RISE loads <notebook name>.css
    assert css.is_file()
    assert "jp-Notebook-footer" in css.read_text()      # "Click to add a cell." stays out


def _timing_rows():
    """(part, slides, minutes, minutes of the 45-minute plan) per row, and both totals."""
    text = GUIDE.read_text()
    rows = re.findall(r"^\| ([^|]+?) \| (\d+) \| (\d+) \| (\d+) \|", text, re.MULTILINE)
    totals = re.search(r"\*\*total: (\d+) minutes; 45 min: (\d+) minutes\*\*", text)
    return rows, int(totals.group(1)), int(totals.group(2))


def test_the_guide_times_every_part_and_its_slides():
    rows, total, short = _timing_rows()
    assert sum(int(minutes) for _, _, minutes, _ in rows) == total
    assert sum(int(minutes) for *_, minutes in rows) == short == 45
    assert all(int(s) <= int(m) for _, _, m, s in rows)   # a short talk cuts, never adds
    parts = sorted({m for slide in slides() for m in PART.findall(_text(slide))})
    timed = [label.split()[0] for label, *_ in rows]
    assert all(part in timed for part in parts), (parts, timed)
    assert sum(int(n) for _, n, _, _ in rows) == len(slides())


def test_the_parts_table_lists_every_notebook_of_the_course():
    table = _text(slides()[1])
    parts = {p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")} - {"00_setup"}
    assert parts <= set(NOTEBOOK.findall(table)), sorted(parts - set(NOTEBOOK.findall(table)))


def test_only_the_dropout_slide_shows_its_code():
    """Demos and computed tables keep their code collapsed (the notebook view shows it);
    part 04's few lines of dropout are the point of its slide."""
    shown = [_text(slide).splitlines()[0] for slide in slides()[1:]
             if any(c.cell_type == "code" and
                    not c.metadata.get("jupyter", {}).get("source_hidden", False)
                    for c in slide)]
    assert shown == ["## 04 · Capacity control: dropout"]
