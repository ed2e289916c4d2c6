"""The README's course map marks exactly the notebooks that exist, and shows the two commands."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_course_map_marks_exactly_the_notebooks_that_exist():
    rows = re.findall(r"^\| \d\d \| `(\w+)` \|.*\| (✅|planned) \|$",
                      (ROOT / "README.md").read_text(), re.M)
    assert len(rows) == len({name for name, _ in rows}), "a notebook is listed twice"
    for name, mark in rows:
        exists = (ROOT / "notebooks" / f"{name}.ipynb").exists()
        assert (mark == "✅") == exists, f"{name}: marked {mark}, exists={exists}"
    listed = {name for name, _ in rows}
    on_disk = {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert on_disk == listed, f"course map vs notebooks: {sorted(on_disk ^ listed)}"


def test_readme_shows_the_two_commands():
    text = (ROOT / "README.md").read_text()
    assert "make lab" in text and "make test" in text


def commands_run(text):
    """Scripts and programs the text tells a reader to run: paths in backticks that end in
    .py or .sh, or start with a folder (``/work/x``, ``benchmarks/y``)."""
    quoted = re.findall(r"`([^`]+)`", text)
    words = [w for q in quoted for w in q.split()]
    return sorted({w for w in words if re.fullmatch(r"[\w./-]+\.(py|sh)|/?[\w.-]+/[\w./-]+", w)
                   and not w.startswith(("http", "mx.", "tau_"))})


def test_benchmarks_readme_names_only_scripts_in_the_repository():
    text = (ROOT / "benchmarks" / "README.md").read_text()
    missing = [w for w in commands_run(text)
               if not any((base / w.lstrip("/")).exists() for base in (ROOT, ROOT / "benchmarks"))
               and not w.startswith(".venv/")]
    assert missing == [], f"benchmarks/README.md tells readers to run {missing}, not in the repo"


def test_the_benchmarks_check_can_fail():
    assert commands_run("run `/work/helpers/heavy --alone` then `x.py`") == [
        "/work/helpers/heavy", "x.py"]
