"""The instructor's deck, presented: widgets are live inside RISE and their controls move them.

A copy of ``slides/workshop.ipynb`` (outputs and widget state cleared, so what shows comes
from this run) and of its stylesheet is served by a JupyterLab on 127.0.0.1 and opened in
Debian's headless Chromium through Playwright at a projector's 1280x720. The test enters
the presentation (Alt+R, then full screen), and for each slide of :data:`LIVE_SLIDES` goes
to it, runs its demo cell inside the slide, checks the output is widget DOM and not the
widget's text form, and that pressing Play moves the step. Then the straggler slider, the
allreduce's slow node, the memory bars' controls and Run, and the cluster button.
Screenshots go to ``artifacts/`` (git-ignored).

This is what broke when jupyterlab-rise's own JupyterLab core could not load the widget
manager (``Failed to create module: package: @jupyter-widgets/jupyterlab-manager``): every
widget showed as ``VBox(children=...`` text. A new live demo in the deck is one more row
in :data:`LIVE_SLIDES`.
"""

import dataclasses
import json
import re
import shutil

import warnings

import pytest

from jupyter_browser import (ARTIFACTS, chromium_executable, chromium_page, cleared_copy,
                             jupyterlab, widget_problems)
from rise_browser import (SLIDE, go_to_slide, present, run_code_on_slide,
                          wait_for_widget_or_text)
from tutorial.jupyter.lab import SLIDES
from tutorial.parallel.ps.diagnosis import NEVER_STARTED

DECK = SLIDES / "workshop.ipynb"
STYLE = SLIDES / "workshop.css"          # RISE loads it as the deck's own stylesheet
PROJECTOR = (1280, 720)


@dataclasses.dataclass(frozen=True)
class LiveSlide:
    name: str            # for the test id and the screenshot
    title: str           # part of the slide's heading
    play: str            # CSS selector of the Play button
    step: str            # CSS selector of the element showing the step: its text, a number


LIVE_SLIDES = (
    LiveSlide("race", "the optimizer race", ".race-play button", ".race-step .widget-readout"),
    LiveSlide("allreduce", "Summing gradients", ".allreduce-network-play button",
              ".allreduce-network-time .widget-readout"),
    LiveSlide("sweep", "steps to a target", ".sweep-play button", ".sweep-shown .widget-readout"),
    LiveSlide("pipeline", "tick by tick", ".pipeline-play button", ".pipeline-tick .widget-readout"),
    LiveSlide("ring", "around the ring", ".ring-play button", ".ring-step .widget-readout"),
)


@pytest.fixture(scope="module")
def presentation(tmp_path_factory):
    """(page, slideshow frame, console messages) of the deck presented full screen."""
    executable = chromium_executable()
    scratch = tmp_path_factory.mktemp("rise")
    root = scratch / "slides"
    root.mkdir()
    deck = cleared_copy(DECK, root)
    shutil.copy(STYLE, root / STYLE.name)
    console = []
    with jupyterlab(root, scratch, presenting=True) as url:
        with chromium_page(executable, "rise_last_slide.png", PROJECTOR) as page:
            page.on("console", lambda message: console.append(message.text))
            page.goto(url(deck.name), timeout=60_000)
            page.get_by_text("| Idle").first.wait_for(timeout=120_000)     # kernel ready
            yield page, present(page), console


def _run_demo(presentation, title, widget):
    """Go to the slide, run its demo cell, wait for ``widget``; its output locator."""
    page, frame, console = presentation
    go_to_slide(frame, title)
    output = run_code_on_slide(page, frame)
    wait_for_widget_or_text(frame, widget)
    failed = [m for m in console if "Failed to create module" in m]
    assert widget_problems(output) == [], failed
    assert not failed
    return output


def _shown_number(frame, selector):
    return float(frame.locator(f"{SLIDE} {selector}").first.inner_text())


def _result_text(frame):
    """The cluster demo's result lines, once the browser has drawn them: the status line and
    the result are separate widgets, and the status can show "done" a frame earlier."""
    result = f"{SLIDE} .cluster-demo .cluster-result"
    frame.wait_for_function("(sel) => /identical weights|differ/.test("
                            "document.querySelector(sel)?.innerText ?? '')",
                            arg=result, timeout=30_000)
    return frame.locator(result).first.inner_text()


def _screenshot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"rise_{name}.png"))


@pytest.mark.parametrize("live", LIVE_SLIDES, ids=lambda live: live.name)
def test_widget_is_live_in_the_presentation(presentation, live):
    page, frame, _ = presentation
    output = _run_demo(presentation, live.title, live.play)
    before = _shown_number(frame, live.step)
    output.locator(live.play).first.click()   # a real click: Play must lie on the screen
    frame.wait_for_function(
        "([selector, before]) => Number(document.querySelector(selector)?.innerText) !== before",
        arg=[f"{SLIDE} {live.step}", before], timeout=30_000)
    moved = _shown_number(frame, live.step)
    frame.wait_for_function(
        "([selector, moved]) => Number(document.querySelector(selector)?.innerText) > moved",
        arg=[f"{SLIDE} {live.step}", moved], timeout=30_000)      # and it keeps moving
    _screenshot(page, live.name)


def test_a_straggler_shows_in_every_network_panel(presentation):
    page, frame, _ = presentation
    output = _run_demo(presentation, "Summing gradients", ".allreduce-network-play button")
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
    _screenshot(page, "allreduce_straggler")


def test_the_straggler_slider_redraws_the_schedules(presentation):
    page, frame, _ = presentation
    output = _run_demo(presentation, "one straggler", ".straggler-slowdown")
    readout = output.locator(".straggler-readout")
    assert "straggler 4× slower" in readout.inner_text()
    schedules_before = output.locator("svg").first.inner_html()
    track = output.locator(".straggler-slowdown .noUi-target").first.bounding_box()
    page.mouse.click(track["x"] + track["width"] - 2, track["y"] + track["height"] / 2)
    frame.wait_for_function(                            # a click at the track's end: 8x
        "(slide) => document.querySelector(slide + ' .straggler-readout')?.innerText"
        ".includes('straggler 8× slower')", arg=SLIDE, timeout=30_000)
    assert output.locator("svg").first.inner_html() != schedules_before
    _screenshot(page, "straggler")


def _memory_shown(frame):
    """The totals above the memory bars and the sentence beside them, as drawn."""
    return frame.evaluate(
        "(slide) => [[...document.querySelectorAll(slide + ' .memory-chart .memory-total')]"
        ".map(t => t.textContent), document.querySelector(slide + ' .memory-readout')"
        "?.innerText ?? '']", SLIDE)


# Each click, and what the sentence beside the bars says once the kernel has redrawn them.
MEMORY_CLICKS = (("devices", "8", "8 × 1 = 8 devices"), ("tensor", "2", "8 × 2 = 16 devices"),
                 ("recompute", "on", "recomputed segments"), ("precision", "mixed", "Mixed:"))


def test_the_memory_bars_follow_their_controls_and_the_run_measures_the_count(presentation):
    page, frame, _ = presentation
    output = _run_demo(presentation, "what one device holds", ".memory-devices")
    _screenshot(page, "memory_before")
    seen = [_memory_shown(frame)]
    assert len(seen[0][0]) == 4, seen              # data parallel, ZeRO-1, 2, 3
    for control, label, says in MEMORY_CLICKS:
        output.locator(f".memory-{control}").get_by_role("button", name=label, exact=True) \
            .click()                               # a real click: it lies on the screen
        try:                                       # the bars and the sentence both redrawn
            frame.wait_for_function(
                "([slide, totals, says]) => JSON.stringify([...document.querySelectorAll("
                "slide + ' .memory-chart .memory-total')].map(t => t.textContent)) !== totals"
                " && (document.querySelector(slide + ' .memory-readout')?.innerText ?? '')"
                ".includes(says)", arg=[SLIDE, json.dumps(seen[-1][0]), says], timeout=30_000)
        finally:
            seen.append(_memory_shown(frame))
            _screenshot(page, f"memory_{control}")
    assert all(says in seen[-1][1] for _, _, says in MEMORY_CLICKS[1:]), seen   # all at once
    _screenshot(page, "memory_after")
    output.get_by_role("button", name=re.compile("ZeRO-1 steps")).click()
    frame.wait_for_function(
        "(slide) => /finished|failed/.test(document.querySelector(slide + "
        "' .memory-run-status')?.innerText ?? '')", arg=SLIDE, timeout=120_000)
    assert "finished" in output.locator(".memory-run-status").inner_text()
    assert "ledger = count on every device (kB): True" in \
        output.locator(".memory-run-table").inner_text()
    _screenshot(page, "memory_run")


# Two start-up failures happen now and then on a busy machine, and the message says to run
# again (tutorial.parallel.ps.diagnosis): Horovod 0.28 with MXNet 1.9 crashes a rank before
# its first step (a segfault: seen once in this deck's demo and in CI's whole-suite runs,
# never in 52 runs alone); ps-lite's processes never get past their rendezvous, so no worker
# does a step before the deadline (three times in whole-suite runs beside other heavy jobs:
# CI rehearsals and Debian testing). Pressed again once, as the message says; any other
# failure fails at once.
START_UP_FAILURES = ("crashed (segmentation fault, then aborted) before finishing its first step",
                     NEVER_STARTED)
START_ATTEMPTS = 2


@pytest.mark.parametrize("slide_text, identical, shot", [
    ("a real cluster", "identical weights on both workers (each pulled the same sum): True",
     "cluster"),
    ("Horovod's ring, from a button",
     "identical weights on both ranks (each applied the same allreduced average): True",
     "horovod"),
])
def test_the_cluster_button_trains_real_processes_in_the_slide(presentation, slide_text,
                                                               identical, shot):
    if shot == "horovod":
        from horovod_needed import require_horovod
        require_horovod()
    page, frame, _ = presentation
    output = _run_demo(presentation, slide_text, ".cluster-start button, button.cluster-start")
    ended = ("(slide) => /done in|failed after/.test(document.querySelector(slide + "
             "' .cluster-status')?.innerText ?? '')")
    for attempt in range(START_ATTEMPTS):
        output.locator("button", has_text="Start cluster").click()
        frame.wait_for_function(f"(slide) => !({ended})(slide)", arg=SLIDE, timeout=30_000)
        frame.wait_for_function(ended, arg=SLIDE, timeout=150_000)
        status = output.locator(".cluster-status").inner_text()
        if not any(failure in status for failure in START_UP_FAILURES):
            break
        # what the message tells the instructor to do, and what they would do
        warnings.warn(f"attempt {attempt + 1}: {status}")
    assert "done in" in status, status
    assert identical in _result_text(frame)
    _screenshot(page, shot)


def test_the_throughput_button_measures_the_resnet_in_the_slide(presentation):
    page, frame, _ = presentation
    output = _run_demo(presentation, "images per second", "button.throughput-start")
    output.locator("button", has_text="Measure").click()
    frame.wait_for_function(
        "(slide) => /done in|failed after/.test(document.querySelector(slide + "
        "' .throughput-status')?.innerText ?? '')", arg=SLIDE, timeout=150_000)
    assert "done in" in output.locator(".throughput-status").inner_text()
    rows = output.locator(".throughput-table").inner_text()
    assert all(f"K = {k}: " in rows for k in (1, 2, 4)), rows
    _screenshot(page, "throughput")
