"""Run All, save, reopen, export: the deck keeps every widget's frame (issue 27).

The instructor guide's steps, in the course's JupyterLab (``tutorial.jupyter.lab.lab_command`` with
the course's settings, ``tutorial.jupyter.lab_settings``, and the deck signed as ``make slides``
signs it): a copy of ``slides/workshop.ipynb`` as committed, with its stylesheet, is opened
in headless Chromium at a projector's 1280x720, Run All, saved; the kernel is shut down and
the deck reopened, as the next morning: no widget may show "Error displaying widget: model
not found" or its ``VBox(children=...)`` text. Then the deck is presented (RISE), every
demo run on its slide and screenshotted after its run (``artifacts/deck_<name>.png``), its
height and the rendered size of every text it shows measured (``artifacts/deck_saved.json``), and
the deck saved from inside the slideshow (Ctrl+S mid-talk: its frames kept too, and no
"File Changed" dialog, with autosave every 45 s so the talk outlasts several). Finally
that file is exported as ``make slides-html`` does and the page opened with no network:
every saved widget drawn, no ``VBox(children`` text.

Before the fix (JupyterLab's widget manager left ``metadata.widgets`` as loaded), the save
kept the state of the models of the committed run while every output named a model of the
new run: every demo showed "model not found", and the export showed the text forms.
"""

import dataclasses
import json
import shutil
import time

import pytest

from jupyter_browser import (ARTIFACTS, FLAGS, TEXT_FORMS, chromium_executable,
                             chromium_page, jupyterlab, skip_or_fail)
from rise_browser import SLIDE, go_to_slide, present, run_code_on_slide, text_sizes
from tutorial.deck import assets, export
from tutorial.jupyter.lab import SLIDES
from tutorial.jupyter.lab_settings import DOCUMENTS
from tutorial.viz import dashboard_curves
from tutorial.jupyter.widget_frames import shown_models, widget_state

DECK = SLIDES / "workshop.ipynb"
STYLE = SLIDES / "workshop.css"
PROJECTOR = (1280, 720)
SMALLEST_TEXT_PX = 18           # slide text is 24-36 px; a demo's labels at least this
# A bitmap's text, by its class: the size the code that drew it gives its text at natural
# size (the page reports the bitmap's scale on screen).
BITMAP_TEXT_PX = {"dp-dashboard-figure": dashboard_curves.TEXT_PX}
MISSING = "model not found"
# Autosave every 45 s instead of 120, so the presentation below outlasts several autosaves:
# the notebook view's autosave used to write the deck under the slideshow, whose next save
# then asked "File Changed ... overwrite or revert?" mid-talk.
AUTOSAVE = {DOCUMENTS: {"autosaveInterval": 45}}
DIALOGS = "() => [...document.querySelectorAll('.jp-Dialog')].map(d => d.innerText)"
PROMPTS = "[...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.innerText)"
STDERR_OUTPUT = ".jp-OutputArea-output[data-mime-type=\"application/vnd.jupyter.stderr\"]"
# Run All has started: a cell is queued or running ([*]). Waited for first: the committed
# deck's prompts are all numbered, so right after the menu click, before the cells are
# queued, the page looks finished (a save there kept 2 of the 9 demos' outputs).
STARTED = f"() => {PROMPTS}.some(t => t.includes('*'))"
# ... and finished: none queued or running, every code cell numbered unless one failed
# (Run All stops there).
FINISHED = (f"() => {{ const p = {PROMPTS}; return p.length > 0 && !p.some(t => t.includes('*'))"
            f" && (p.every(t => /\\d/.test(t)) || !!document.querySelector('{STDERR_OUTPUT}')); }}")
STDERR = f"() => [...document.querySelectorAll('{STDERR_OUTPUT}')].map(o => o.innerText.slice(-400))"


@dataclasses.dataclass(frozen=True)
class Demo:
    name: str                 # for the screenshot
    title: str                # part of the slide's heading
    ready: str                # CSS selector shown once the demo's widget is drawn
    press: str = ""           # a button to press after the run (Play, Run, Start, Measure)
    done: str = ""            # JS condition (on the slide) that the press has finished


def _text(selector, pattern):
    return (f"(slide) => /{pattern}/.test(document.querySelector(slide + ' {selector}')"
            "?.innerText ?? '')")


DEMOS = (
    Demo("race", "the optimizer race", ".race-play button", ".race-play button"),
    Demo("dashboard", "Data parallelism", ".dp-dashboard-run", ".dp-dashboard-run",
         _text(".dp-dashboard-summary", r"finished")),      # and the last figure drawn
    Demo("allreduce", "Summing gradients", ".allreduce-network-play button",
         ".allreduce-network-play button"),
    Demo("cluster", "a real cluster", ".cluster-start button, button.cluster-start",
         ".cluster-start button, button.cluster-start",
         _text(".cluster-status", "done in|failed after")),
    Demo("sweep", "steps to a target", ".sweep-play button", ".sweep-play button"),
    Demo("straggler", "one straggler", ".straggler-slowdown"),
    Demo("pipeline", "tick by tick", ".pipeline-play button", ".pipeline-play button"),
    Demo("throughput", "images per second", "button.throughput-start",
         "button.throughput-start", _text(".throughput-status", "done in|failed after")),
    Demo("horovod", "Horovod's ring", ".cluster-start button, button.cluster-start",
         ".cluster-start button, button.cluster-start",
         _text(".cluster-status", "done in|failed after")),
    Demo("memory", "what one device holds", "button.memory-run-start",
         "button.memory-run-start", _text(".memory-run-status", "finished|failed")),
    Demo("ring", "around the ring", ".ring-play button", ".ring-play button"),
)


def _menu(page, menu, item):
    page.locator(".lm-MenuBar-itemLabel", has_text=menu).first.click()
    page.locator(".lm-Menu-itemLabel", has_text=item).first.click()


def _open(page, url):
    page.goto(url, timeout=60_000)
    page.get_by_text("| Idle").first.wait_for(timeout=120_000)
    page.wait_for_selector(".jp-OutputArea .jupyter-widgets, .jp-OutputArea-output",
                           state="attached", timeout=60_000)
    page.wait_for_timeout(5_000)                 # the widget manager restores the state


def _widget_text_problems(page):
    """What the page shows instead of widgets: "model not found", a text form."""
    text = page.inner_text("body")
    return [shown for shown in (MISSING, *TEXT_FORMS) if shown in text]


def _run_all_and_save(page, deck):
    page.locator(".jp-Notebook").first.click(position={"x": 5, "y": 5})
    _menu(page, "Run", "Run All Cells")
    page.wait_for_function(STARTED, timeout=60_000, polling=100)
    page.wait_for_function(FINISHED, timeout=900_000, polling=1000)
    page.get_by_text("| Idle").first.wait_for(timeout=120_000)
    unrun = [i for i, t in enumerate(page.evaluate(f"() => {PROMPTS}")) if not any(
        ch.isdigit() for ch in t)]
    stderr = page.evaluate(STDERR)
    before = deck.stat().st_mtime_ns
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !document.querySelector('.lm-TabBar-tab.jp-mod-dirty')",
                           timeout=60_000)
    assert deck.stat().st_mtime_ns != before, "the deck was not saved"
    return unrun, stderr


def _on_slide(selector):
    """``selector`` (alternatives joined by commas) inside the slide on screen only."""
    return ", ".join(f"{SLIDE} {part.strip()}" for part in selector.split(","))


def _shown_text_px(sizes):
    """[(px, text)] of one slide's texts as shown (see ``rise_browser.TEXT_SIZES``)."""
    shown = []
    for size in sizes:
        if "scale" not in size:
            shown.append((size["px"], size["text"]))
            continue
        known = [px for name, px in BITMAP_TEXT_PX.items() if name in size["classes"].split()]
        shown.append((round(known[0] * size["scale"], 1) if known else None, size["text"]))
    return shown


def _present_every_demo(page):
    """Present the deck and run each demo on its slide; screenshots after each run.
    Returns each slide's height and the size of every text it shows, then, and the frame."""
    frame = present(page)
    ARTIFACTS.mkdir(exist_ok=True)
    shown, texts = {}, {}
    for demo in DEMOS:
        go_to_slide(frame, demo.title)
        run_code_on_slide(page, frame)
        frame.wait_for_selector(_on_slide(demo.ready), timeout=180_000)
        if demo.press:
            frame.locator(_on_slide(demo.press)).first.click()
        if demo.done:
            frame.wait_for_function(demo.done, arg=SLIDE, timeout=240_000, polling=1000)
        else:
            page.wait_for_timeout(4_000)               # an animation a few steps on
        page.screenshot(path=str(ARTIFACTS / f"deck_{demo.name}.png"))
        shown[demo.name] = frame.evaluate(
            "(slide) => document.querySelector(slide).scrollHeight", SLIDE)
        texts[demo.name] = _shown_text_px(text_sizes(frame))
    return shown, texts, frame


def _save_in_presentation(frame, deck):
    """Ctrl+S inside the slideshow, as an instructor saves mid-talk: the file as saved (None
    if nothing was written within a minute)."""
    before = deck.stat().st_mtime_ns
    frame.locator("body").press("Escape")
    frame.locator("body").press("Control+s")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if deck.stat().st_mtime_ns != before:
            time.sleep(1)                                # the write may still be going on
            return json.loads(deck.read_text())
        time.sleep(0.5)
    return None


@dataclasses.dataclass(frozen=True)
class Saved:
    """What the module's one browser session saw."""
    deck: object              # the deck's path, as last saved
    reopened: list            # what reopening showed instead of widgets
    heights: dict             # each demo slide's height after its run, px
    texts: dict               # each demo slide's [(px, text)] after its run
    executable: str
    unrun: list               # code cells Run All did not run
    stderr: list
    after_run_all: dict       # the file as saved after Run All
    saved_in_rise: object     # the file as saved from inside the slideshow, or None
    dialogs: list             # the dialogs open after that save, in the page and the slideshow
    dirty_on_open: int        # tabs showing the unsaved dot once the committed deck is open


def _exported_page_problems(executable, page_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": PROJECTOR[0], "height": PROJECTOR[1]})
            page.route("**/*", lambda route: route.abort() if not route.request.url.startswith(
                ("file:", "data:")) else route.continue_())
            page.goto(page_path.as_uri())
            page.wait_for_selector(".reveal.ready", timeout=30_000)
            page.wait_for_timeout(5_000)
            drawn = page.evaluate(
                "() => [...document.querySelectorAll("
                "'script[type=\"application/vnd.jupyter.widget-view+json\"]')]"
                ".map(s => !!s.parentElement.querySelector('.lm-Widget'))")
            return drawn, _widget_text_problems(page)
        finally:
            browser.close()


@pytest.fixture(scope="module")
def saved_deck(tmp_path_factory):
    """(the deck as saved after Run All, problems seen on reopening, slide heights)."""
    executable = chromium_executable()
    scratch = tmp_path_factory.mktemp("saved-deck")
    root = scratch / "slides"
    root.mkdir()
    deck = root / DECK.name
    shutil.copy(DECK, deck)
    shutil.copy(STYLE, root / STYLE.name)
    with jupyterlab(root, scratch, trust=True, presenting=True, settings=AUTOSAVE) as url:
        with chromium_page(executable, "deck_reopened.png", PROJECTOR) as page:
            _open(page, url(deck.name))
            dirty_on_open = page.locator(".lm-TabBar-tab.jp-mod-dirty").count()
            unrun, stderr = _run_all_and_save(page, deck)
            _menu(page, "Kernel", "Shut Down Kernel")
            page.wait_for_timeout(3_000)
            after_run_all = json.loads(deck.read_text())
            _open(page, url(deck.name))                 # the next morning
            reopened = _widget_text_problems(page)
            heights, texts, frame = _present_every_demo(page)
            saved_in_rise = _save_in_presentation(frame, deck)
            dialogs = page.evaluate(DIALOGS) + frame.evaluate(DIALOGS)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "deck_saved.json").write_text(json.dumps(
        {"dirty_on_open": dirty_on_open, "reopened": reopened, "heights": heights,
         "smallest_text": {name: min((px for px, _ in shown if px is not None), default=None)
                           for name, shown in texts.items()},
         "unrun": unrun, "stderr": stderr, "dialogs": dialogs}))
    return Saved(deck, reopened, heights, texts, executable, unrun, stderr, after_run_all,
                 saved_in_rise, dialogs, dirty_on_open)


def test_the_deck_opens_without_the_unsaved_dot(saved_deck):
    assert saved_deck.dirty_on_open == 0


def test_run_all_ran_every_code_cell(saved_deck):
    assert saved_deck.unrun == [], (f"code cells (0-based among code cells) not run: "
                                    f"{saved_deck.unrun}; stderr: {saved_deck.stderr}")


def test_every_output_names_a_model_the_saved_deck_holds(saved_deck):
    nb = saved_deck.after_run_all
    shown = shown_models(nb)
    assert len(shown) >= 9 and shown - set(widget_state(nb)) == set()


def test_saving_inside_the_presentation_keeps_every_frame(saved_deck):
    nb = saved_deck.saved_in_rise
    assert nb is not None, f"Ctrl+S in the slideshow wrote nothing; dialogs: {saved_deck.dialogs}"
    shown = shown_models(nb)
    assert len(shown) >= 9 and shown - set(widget_state(nb)) == set()


def test_no_dialog_interrupts_the_talk(saved_deck):
    assert saved_deck.dialogs == []


def test_the_reopened_deck_shows_widgets_not_model_not_found(saved_deck):
    assert saved_deck.reopened == []


def test_every_demo_slide_fits_the_projector_after_its_run(saved_deck):
    assert {name: h for name, h in saved_deck.heights.items() if h > PROJECTOR[1]} == {}


def test_every_demo_text_reads_from_the_back_of_the_room(saved_deck):
    """Every text a demo shows after its run, as rendered (CSS zoom and SVG scale
    included), is SMALLEST_TEXT_PX high or more; a bitmap of unknown text size fails."""
    assert all(len(shown) >= 5 for shown in saved_deck.texts.values()), saved_deck.texts
    small = {name: sorted({(px, text) for px, text in shown
                           if px is None or px < SMALLEST_TEXT_PX}, key=str)
             for name, shown in saved_deck.texts.items()}
    assert {name: found for name, found in small.items() if found} == {}


def test_slides_html_from_the_saved_deck_draws_every_widget(saved_deck, tmp_path):
    if assets.missing():
        skip_or_fail(f"the offline deck's assets are not in {assets.ASSET_DIR}: run `make slides-html` once")
    page_path = export.export(saved_deck.deck, tmp_path)
    drawn, problems = _exported_page_problems(saved_deck.executable, page_path)
    assert len(drawn) >= 9 and all(drawn) and problems == []
    # the slides not on screen are hidden, so the page's own text too: before the fix it
    # held nine widget text forms and no widget view
    assert [form for form in TEXT_FORMS if form in page_path.read_text()] == []
