"""The instructor's deck, presented: widgets are live inside RISE and Play moves them.

A copy of ``slides/workshop.ipynb`` (outputs and widget state cleared, so what shows comes
from this run) is served by a JupyterLab on 127.0.0.1 and opened in Debian's headless
Chromium through Playwright at a projector's 1280x720. The test enters the presentation
(Alt+R, then full screen), and for each slide of :data:`LIVE_SLIDES` goes to it, runs
its cell inside the slide, checks the output is widget DOM and not the widget's text
form, and that pressing Play moves the step. Screenshots go to ``artifacts/`` (git-ignored).

This is what broke when jupyterlab-rise's own JupyterLab core could not load the widget
manager (``Failed to create module: package: @jupyter-widgets/jupyterlab-manager``): every
widget showed as ``VBox(children=...`` text. A new live demo in the deck is one more row
in :data:`LIVE_SLIDES`.
"""

import dataclasses

import pytest

from jupyter_browser import (ARTIFACTS, chromium_executable, chromium_page, cleared_copy,
                             jupyterlab, widget_problems)
from rise_browser import (SLIDE, go_to_slide, present, run_code_on_slide,
                          wait_for_widget_or_text)
from tutorial.lab import SLIDES

DECK = SLIDES / "workshop.ipynb"
PROJECTOR = (1280, 720)


@dataclasses.dataclass(frozen=True)
class LiveSlide:
    name: str            # for the test id and the screenshot
    code: str            # text of the cell that draws the widget
    play: str            # CSS selector of the Play button
    step: str            # CSS selector of the element showing the step: its text, a number


LIVE_SLIDES = (
    LiveSlide("race", "race(race_demo)", ".race-play button", ".race-step .widget-readout"),
    LiveSlide("allreduce", "allreduce_views(", ".allreduce-network-play button",
              ".allreduce-network-time .widget-readout"),
)


@pytest.fixture(scope="module")
def presentation(tmp_path_factory):
    """(page, slideshow frame, console messages) of the deck presented full screen."""
    executable = chromium_executable()
    scratch = tmp_path_factory.mktemp("rise")
    root = scratch / "slides"
    root.mkdir()
    deck = cleared_copy(DECK, root)
    console = []
    with jupyterlab(root, scratch) as url:
        with chromium_page(executable, "rise_last_slide.png", PROJECTOR) as page:
            page.on("console", lambda message: console.append(message.text))
            page.goto(url(deck.name), timeout=60_000)
            page.get_by_text("| Idle").first.wait_for(timeout=120_000)     # kernel ready
            yield page, present(page), console


def _shown_step(frame, live):
    return float(frame.locator(f"{SLIDE} {live.step}").first.inner_text())


@pytest.mark.parametrize("live", LIVE_SLIDES, ids=lambda live: live.name)
def test_widget_is_live_in_the_presentation(presentation, live):
    page, frame, console = presentation
    go_to_slide(frame, live.code)
    output = run_code_on_slide(page, frame, live.code)
    wait_for_widget_or_text(frame, live.code, live.play)
    failed = [m for m in console if "Failed to create module" in m]
    assert widget_problems(output) == [], failed
    assert not failed
    play = output.locator(live.play).first
    before = _shown_step(frame, live)
    play.click()                           # a real click: Play must lie on the screen
    frame.wait_for_function(
        "([selector, before]) => Number(document.querySelector(selector)?.innerText) !== before",
        arg=[f"{SLIDE} {live.step}", before], timeout=30_000)
    moved = _shown_step(frame, live)
    frame.wait_for_function(
        "([selector, moved]) => Number(document.querySelector(selector)?.innerText) > moved",
        arg=[f"{SLIDE} {live.step}", moved], timeout=30_000)      # and it keeps moving
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"rise_{live.name}.png"))


def test_a_straggler_shows_in_every_network_panel(presentation):
    page, frame, _ = presentation
    code = "allreduce_views("
    go_to_slide(frame, code)
    output = run_code_on_slide(page, frame, code)
    wait_for_widget_or_text(frame, code, ".allreduce-network-play button")
    assert widget_problems(output) == []
    network = output.locator(".allreduce-network-view")
    network.locator(".widget-dropdown").filter(has_text="slow node").locator("select") \
        .select_option(label="5")
    ringed = "svg circle[stroke='#d62728'][stroke-width='4']"
    frame.wait_for_function(
        "([slide, ringed]) => [...document.querySelectorAll(slide + ' .allreduce-network')]"
        ".filter(p => p.querySelectorAll(ringed).length === 1).length === 4",
        arg=[SLIDE, ringed], timeout=30_000)
    output.locator(".allreduce-network-play button").first.click()
    frame.wait_for_function(
        "(slide) => Number(document.querySelector(slide + ' .allreduce-network-time "
        ".widget-readout')?.innerText) >= 12", arg=SLIDE, timeout=60_000)
    output.locator(".allreduce-network-play button").first.click()     # pause there
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "rise_allreduce_straggler.png"))
