"""The exported deck in a browser with the network cut off, as in a room without one.

The page from `make slides-html` (exported here into a temporary folder) is opened from
disk (``file://``) in Debian's headless Chromium at 1280x720; every request that is not a
local file is aborted and recorded. The test checks that none was made and no local file
was missing, that reveal.js started, that the widget renderer drew every saved widget
(widget DOM, no ``VBox(children`` text), that MathJax typeset the formulas, and that the
straggler slide shows its saved frame; it keeps a screenshot of that slide in artifacts/.
"""

import pytest

from jupyter_browser import ARTIFACTS, FLAGS, chromium_executable
from test_slides_export import _assets_or_skip
from tutorial.deck import export
from tutorial.jupyter.lab import SLIDES

pytestmark = [pytest.mark.slow, pytest.mark.browser]     # a headless Chromium opens the export

DECK = SLIDES / "workshop.ipynb"
SLIDE = "section.present:not(.stack)"
DRAWN = """() => [...document.querySelectorAll(
  'script[type="application/vnd.jupyter.widget-view+json"]')]
  .map(s => !!s.parentElement.querySelector('.lm-Widget'))"""


@pytest.fixture(scope="module")
def offline_page(tmp_path_factory):
    """(page, remote requests, failed requests) of the export opened with no network."""
    executable = chromium_executable()
    _assets_or_skip()
    page_path = export.export(DECK, tmp_path_factory.mktemp("slides"))
    from playwright.sync_api import sync_playwright

    remote, failed = [], []

    def only_local(route):
        if route.request.url.startswith(("file:", "data:")):
            route.continue_()
        else:
            remote.append(route.request.url)
            route.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.route("**/*", only_local)
            page.on("requestfailed", lambda request: failed.append(request.url))
            page.goto(page_path.as_uri())
            page.wait_for_selector(".reveal.ready", timeout=30_000)
            page.wait_for_function(f"() => ({DRAWN})().every(Boolean)", timeout=60_000)
            yield page, remote, failed
        finally:
            browser.close()


def test_nothing_is_fetched_from_the_network_and_nothing_is_missing(offline_page):
    page, remote, failed = offline_page
    page.wait_for_timeout(1000)                       # late loads (fonts) included
    assert remote == [] and failed == []


def test_every_saved_widget_is_drawn_without_a_kernel(offline_page):
    page, _, _ = offline_page
    drawn = page.evaluate(DRAWN)
    assert len(drawn) >= 6 and all(drawn)
    assert "VBox(children" not in page.inner_text("body")
    assert page.locator("svg circle").count() > 50     # the race, the networks, the sweep


def test_formulas_are_typeset(offline_page):
    page, _, _ = offline_page
    page.wait_for_selector("mjx-container svg", state="attached", timeout=30_000)
    assert "$$" not in page.inner_text(".reveal .slides")


def test_the_straggler_slide_shows_its_saved_frame(offline_page):
    page, _, _ = offline_page
    for _ in range(40):
        if "one straggler" in (page.locator(f"{SLIDE} h3").first.inner_text()
                               if page.locator(f"{SLIDE} h3").count() else ""):
            break
        page.keyboard.press("Space")
        page.wait_for_timeout(300)
    readout = page.locator(f"{SLIDE} .widget-html-content").filter(has_text="straggler 4×")
    assert readout.count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "export_straggler.png"))
