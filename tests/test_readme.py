"""The README's course map marks exactly the notebooks that exist, and shows the two commands."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_course_map_marks_exactly_the_notebooks_that_exist():
    rows = re.findall(r"^\| \d\d \| `(\w+)` \|.*\| (✅|planned) \|$",
                      (ROOT / "README.md").read_text(), re.M)
    assert len(rows) == 12
    for name, mark in rows:
        exists = (ROOT / "notebooks" / f"{name}.ipynb").exists()
        assert (mark == "✅") == exists, f"{name}: marked {mark}, exists={exists}"
    listed = {name for name, _ in rows}
    on_disk = {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert on_disk <= listed, f"not in the course map: {sorted(on_disk - listed)}"


def test_readme_shows_the_two_commands():
    text = (ROOT / "README.md").read_text()
    assert "make lab" in text and "make test" in text
