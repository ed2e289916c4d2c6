"""The exported deck's Start/Stop demos show the end of a real run, not a widget waiting for
its click: ``make execute-notebooks`` presses each one's Start and stores the frame after the
run (``tutorial.jupyter.notebooks``, the cells' ``"tutorial": {"press": true}``).

Same page as ``test_slides_export_browser.py`` (exported, opened from disk with the
network cut off); a screenshot of each slide goes to ``artifacts/export_<name>.png``."""

import re

import pytest

from jupyter_browser import ARTIFACTS
from test_slides_export_browser import SLIDE
from test_slides_export_browser import offline_page  # noqa: F401  (the fixture, shared)

pytestmark = pytest.mark.slow

# slide (part of its heading) -> what its stored frame says once the run has ended
RUN_FRAMES = {
    "dashboard": ("Data parallelism", r"finished"),
    "cluster": ("a real cluster", r"done in [\d.]+ s"),
    "throughput": ("images per second", r"done in [\d.]+ s"),
    "horovod": ("Horovod's ring", r"done in [\d.]+ s"),
    "memory": ("what one device holds", r"finished"),
}


def _go_to(page, title):
    page.keyboard.press("Home")
    for _ in range(80):
        heading = page.locator(f"{SLIDE} h1, {SLIDE} h2, {SLIDE} h3")
        if heading.count() and title in " ".join(heading.all_inner_texts()):
            return
        page.keyboard.press("Space")
        page.wait_for_timeout(200)
    raise AssertionError(f"no slide titled {title!r}")


@pytest.mark.parametrize("name", RUN_FRAMES)
def test_a_start_stop_demo_is_shown_after_its_run(offline_page, name):  # noqa: F811
    page, _, _ = offline_page
    title, ended = RUN_FRAMES[name]
    _go_to(page, title)
    shown = page.locator(f"{SLIDE} .jp-OutputArea, {SLIDE} .output_area, {SLIDE} .lm-Widget") \
        .first.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"export_{name}.png"))
    assert re.search(ended, page.locator(SLIDE).inner_text()), shown[:400]
