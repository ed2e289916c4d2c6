"""The instructor's deck outside JupyterLab: a static HTML export that works with no network.

``assets``: the pinned JavaScript (reveal.js, require.js, the widget renderer, MathJax),
fetched once at setup; ``export``: the deck as ``build/slides/workshop.html`` with its
widgets drawn from their saved state; ``offline``: finds remote references in a page and
every file it loads.
"""
