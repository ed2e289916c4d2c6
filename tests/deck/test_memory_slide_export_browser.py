"""The exported deck's memory slide shows the frame saved with the deck: the four bars of
the committed run (K = 4, no tensor parallelism, float32), drawn without a kernel.

Same page as ``test_slides_export_browser.py`` (exported, opened from disk with the
network cut off); a screenshot of the slide goes to artifacts/."""

import pytest

from jupyter_browser import ARTIFACTS
from test_slides_export_browser import SLIDE
from test_slides_export_browser import offline_page  # noqa: F401  (the fixture, shared)

pytestmark = pytest.mark.slow


def test_the_memory_slide_shows_its_saved_bars(offline_page):  # noqa: F811
    page, _, _ = offline_page
    for _ in range(60):
        heading = page.locator(f"{SLIDE} h3")
        if heading.count() and "what one device holds" in heading.first.inner_text():
            break
        page.keyboard.press("Space")
        page.wait_for_timeout(300)
    chart = page.locator(f"{SLIDE} .widget-html-content svg").filter(has_text="ZeRO-3")
    assert chart.count() == 1
    assert chart.locator("rect").count() >= 4 * 4               # four stacked bars
    readout = page.locator(f"{SLIDE} .widget-html-content").filter(has_text="4 × 1 = 4 devices")
    assert readout.count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "export_memory.png"))
