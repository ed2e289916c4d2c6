"""Presenting with jupyterlab-rise in a browser test, the way an instructor does.

From a notebook open in JupyterLab: ``Alt+R`` opens RISE's slideshow (its own JupyterLab
core in an iframe, on the same kernel), its full-screen button fills the screen as on a
projector. Slides are found by their heading, not by their number, so a deck can grow
without breaking the tests; a demo is the one code cell of its slide (its code may be
collapsed, so it is selected by a click on the cell's edge, as an instructor clicks the
slide, and run with ``Ctrl+Enter``). Every function takes Playwright objects.
"""

import time

from jupyter_browser import TEXT_FORMS

SLIDE = "section.present:not(.stack)"       # the slide on screen (a stack holds subslides)
FULL_SCREEN = "Open the slideshow in full screen"
ENTER_TIMEOUT_MS = 90_000
HEADINGS = "h1, h2, h3"


def present(page):
    """Enter the presentation of the notebook open in ``page``; returns the slideshow's frame."""
    page.locator(".jp-Notebook").first.focus()        # command mode: where Alt+R is bound
    page.keyboard.press("Alt+r")
    iframe = page.wait_for_selector("iframe[src*='/rise/']", state="attached",
                                    timeout=ENTER_TIMEOUT_MS)
    frame = iframe.content_frame()
    frame.wait_for_selector(SLIDE, timeout=ENTER_TIMEOUT_MS)
    page.get_by_title(FULL_SCREEN).first.click()
    page.wait_for_function("() => document.fullscreenElement !== null", timeout=30_000)
    return frame


def _heading(frame):
    return frame.evaluate(
        "([slide, headings]) => [...(document.querySelector(slide)?.querySelectorAll(headings)"
        " ?? [])].map(h => h.innerText).join(' | ')", [SLIDE, HEADINGS])


def go_to_slide(frame, title, most=80):
    """Move to the first slide whose heading contains ``title``: forward by Space, then, if
    the deck ends first, back by Shift+Space (a previous test may have left the
    presentation anywhere, and Home does not always reach the first slide)."""
    frame.locator("body").press("Escape")                 # command mode: keys navigate
    frame.locator("body").press("Home")
    for key in ("Space", "Shift+Space"):
        for _ in range(most):
            if title in _heading(frame):
                return
            if not _moved(frame, key):
                break                                     # the last (or first) slide
    raise AssertionError(f"no slide has a heading containing {title!r}")


def _moved(frame, key, timeout_s=10):
    """Press ``key``; True once the slide on screen changes, False if it does not."""
    before = frame.evaluate(f"() => document.querySelector('{SLIDE}')?.innerText")
    frame.locator("body").press(key)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if frame.evaluate(f"() => document.querySelector('{SLIDE}')?.innerText") != before:
            return True
        time.sleep(0.1)
    return False


def demo_cell(frame):
    """The code cell of the slide on screen (a demo slide has one)."""
    return frame.locator(f"{SLIDE} .jp-CodeCell").first


def run_code_on_slide(page, frame):
    """Run the slide's code cell (a click on its edge, then Ctrl+Enter, as an instructor
    does); returns the locator of its output area."""
    cell = demo_cell(frame)
    cell.click(position={"x": 3, "y": 3})
    page.keyboard.press("Control+Enter")
    page.keyboard.press("Escape")
    return cell.locator(".jp-OutputArea")


SHOWN = """([slide, widget, texts]) => {
  const out = document.querySelector(slide + ' .jp-CodeCell .jp-OutputArea');
  return !!out && (!!out.querySelector(widget) || texts.some(t => out.innerText.includes(t)));
}"""


def wait_for_widget_or_text(frame, widget, timeout_ms=180_000):
    """Wait until the output of the slide's code cell shows ``widget`` (a CSS selector) or
    a widget's text form, so a widget that cannot render fails at once."""
    frame.wait_for_function(SHOWN, arg=[SLIDE, widget, list(TEXT_FORMS)], timeout=timeout_ms)


# Every piece of text the demo on screen shows, at the size the room sees it: CSS font size
# times the zoom the deck's stylesheet applies (``currentCSSZoom``) for HTML, font size times
# the SVG's scale on screen (``getScreenCTM``, which includes zoom) for SVG text. A bitmap
# (a matplotlib figure) is listed as ``<img CLASSES>`` with its scale on screen (rendered over
# natural height) instead: the code that drew it knows its text's size. Hidden text and
# empty strings do not count.
TEXT_SIZES = """(slide) => {
  const out = [];
  const visible = (el) => el.getClientRects().length > 0 &&
                          getComputedStyle(el).visibility !== 'hidden';
  for (const area of document.querySelectorAll(slide + ' .jp-OutputArea')) {
    const walker = document.createTreeWalker(area, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      const el = node.parentElement;
      if (!text || !el || !visible(el)) continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      const m = el instanceof SVGElement ? el.getScreenCTM() : null;   // rotated text too
      const scale = m ? Math.hypot(m.a, m.b) : (el.currentCSSZoom ?? 1);
      out.push({text: text.slice(0, 40), px: Math.round(size * scale * 10) / 10});
    }
    for (const img of area.querySelectorAll('img')) {
      if (!visible(img) || !img.naturalHeight) continue;
      out.push({text: '<img ' + img.className + '>', classes: img.className,
                scale: img.getBoundingClientRect().height / img.naturalHeight});
    }
  }
  return out;
}"""


def text_sizes(frame):
    """[{text, px}] and [{text: '<img ...>', classes, scale}] of the slide on screen
    (``TEXT_SIZES``)."""
    return frame.evaluate(TEXT_SIZES, SLIDE)
