"""One broken-link mark per widget drawn from a notebook's saved frame, not one per control.

A notebook opened before its cells run shows each widget from the state saved with it; its
controls are then not connected to a kernel, and ipywidgets marks *every* disconnected
view, each control of a box included, with a red broken-link icon: thirteen on the
optimizer race, counted in Chromium. :func:`one_mark` adds to a box an invisible child holding :data:`RULE`,
which hides the marks of views nested in a disconnected view, so the widget keeps the one
mark on its outermost box (the one that says "run this cell to use me"). A ``<style>``
applies wherever its element is in the page, hidden or not, so the rule travels with the
saved frame into any notebook, the deck or an export.

>>> import ipywidgets as w
>>> box = one_mark(w.VBox([w.Button(), w.IntSlider()]))
>>> len(box.children), box.children[-1].layout.display, RULE in box.children[-1].value
(3, 'none', True)
>>> one_mark(box) is box and len(box.children)         # a second call adds nothing
3
"""

RULE = (".jupyter-widgets-disconnected .jupyter-widgets-disconnected::before "
        "{ display: none; }")
STYLE = f"<style>{RULE}</style>"


def has_mark_rule(box):
    """Whether ``box`` already carries :data:`RULE` in one of its children."""
    return any(getattr(child, "value", None) == STYLE for child in box.children)


def one_mark(box):
    """``box`` (an ipywidgets Box) with :data:`RULE` in an invisible last child."""
    import ipywidgets as w

    if not isinstance(box, w.Box):
        raise TypeError(f"one_mark takes an ipywidgets Box (VBox, HBox), got "
                        f"{type(box).__name__}")
    if not has_mark_rule(box):
        box.children = (*box.children, w.HTML(STYLE, layout=w.Layout(display="none")))
    return box
