"""The README's course map: its times parse, and rewriting changes only what it should."""

from pathlib import Path

import pytest

from tutorial.jupyter import course_map

ROOT = Path(__file__).resolve().parent.parent.parent
README = (ROOT / "README.md").read_text()


def test_the_readme_map_has_a_time_for_every_notebook_and_a_paragraph_to_rewrite():
    on_disk = {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert set(course_map.times(README)) == on_disk
    rewritten = course_map.rewrite(README, {}, "MEASURED HERE.")
    assert "MEASURED HERE." in rewritten and '"Full size" is the wall time' not in rewritten


def test_rewrite_changes_the_times_it_is_given_and_nothing_else():
    seconds = {"01_sgd": 75.4, "08_large_batch": 120.0}
    rewritten = course_map.rewrite(README, seconds)
    times = course_map.times(rewritten)
    assert times["01_sgd"] == "1 min 15 s" and times["08_large_batch"] == "2 min"
    before = course_map.times(README)
    assert {k: v for k, v in times.items() if k not in seconds} == \
        {k: v for k, v in before.items() if k not in seconds}
    changed = [(a, b) for a, b in zip(README.splitlines(), rewritten.splitlines()) if a != b]
    assert len(changed) == 2 and all(a.split("|")[:4] == b.split("|")[:4] for a, b in changed)
    assert len(rewritten.splitlines()) == len(README.splitlines())


def test_a_readme_without_the_paragraph_is_refused():
    with pytest.raises(ValueError, match="Full size"):
        course_map.rewrite("| 00 | `00_setup` | x | 6 s | ✅ |\n", {}, "new paragraph")


@pytest.mark.parametrize("seconds, text", [(0.4, "0 s"), (59.6, "1 min"), (61, "1 min 1 s"),
                                           (188.2, "3 min 8 s")])
def test_duration_at_the_minute_boundary(seconds, text):
    assert course_map.duration(seconds) == text


def test_the_paragraph_names_date_machine_and_command():
    text = course_map.measured_paragraph("2026-11-25", "a 2-core CPU with no GPU", "; deck 9 s")
    assert text.startswith('"Full size" is the wall time')
    assert "2026-11-25" in text and "a 2-core CPU" in text and "make test-full" in text
    assert "deck 9 s" in text
