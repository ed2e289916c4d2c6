"""The deck as a static page for a room without a kernel: ``make slides-html``.

    python -m tutorial.deck.export slides/workshop.ipynb build/slides

writes ``build/slides/workshop.html`` with ``assets/`` (reveal.js, require.js, the widget
renderer and MathJax, copied from :mod:`tutorial.deck.assets`) and the deck's stylesheet
beside it: open the page from a USB stick, no network, no kernel. It shows the committed
outputs: each widget is drawn by @jupyter-widgets/html-manager from the state saved in
the notebook, that is the last frame of the fast-mode run (sliders move, nothing
recomputes). Collapsed code stays collapsed; cells of slide type "skip" are left out.
Before returning, the export scans the page and every file it loads
(:func:`tutorial.deck.offline.scan`) and refuses to leave a page that would use the
network or lacks a file.
"""

import shutil
import sys
from pathlib import Path

from tutorial.deck import assets
from tutorial.deck.offline import scan

TEMPLATES = Path(__file__).resolve().parent / "templates"
NO_CDN = "assets/no-cdn"          # where the widget renderer would look for modules it lacks
SIZE = (1280, 720)                # a projector's pixels: the deck is laid out for them


class ExportError(RuntimeError):
    """The page would need the network, or a file it loads is missing."""


def _copy_assets(target, root):
    for asset in assets.ASSETS:
        shutil.copytree(Path(root) / asset.folder, target / "assets" / asset.folder,
                        ignore=shutil.ignore_patterns(".*"), dirs_exist_ok=True)


def exporter(notebook_metadata):
    """nbconvert's SlidesExporter with every URL local and RISE's settings of the deck."""
    from nbconvert import SlidesExporter

    rise = dict(notebook_metadata.get("rise", {}))
    number = rise.get("slideNumber", "")
    return SlidesExporter(
        template_name="offline_reveal", extra_template_basedirs=[str(TEMPLATES)],
        reveal_url_prefix="assets/reveal.js", reveal_theme=rise.get("theme", "white"),
        reveal_transition=rise.get("transition", "none"),
        reveal_number=number if isinstance(number, str) else ("c/t" if number else ""),
        reveal_width=str(SIZE[0]), reveal_height=str(SIZE[1]),
        require_js_url="assets/requirejs/require.js",
        mathjax_url="assets/mathjax/es5/tex-svg.js",
        widget_renderer_url="assets/html-manager/dist/embed-amd.js",
        jquery_url="", mermaid_js_url="")


def export(notebook, out_dir, asset_root=assets.ASSET_DIR):
    """Write ``out_dir/<name>.html`` and what it loads; return the page's path."""
    import nbformat

    notebook, out_dir = Path(notebook), Path(out_dir)
    if not notebook.is_file():
        raise FileNotFoundError(f"no notebook at {notebook}: pass the deck, e.g. "
                                f"slides/workshop.ipynb")
    assets.require(asset_root)
    nb = nbformat.read(notebook, as_version=4)
    stylesheet = notebook.with_suffix(".css")          # RISE's own: workshop.css
    out_dir.mkdir(parents=True, exist_ok=True)
    _copy_assets(out_dir, asset_root)
    resources = {"offline": {"widgets_dir": "assets/html-manager/dist", "no_cdn": NO_CDN,
                             "stylesheet": stylesheet.name},
                 "metadata": {"name": notebook.stem}}
    if stylesheet.is_file():
        shutil.copy(stylesheet, out_dir / stylesheet.name)
    body, _ = exporter(nb.metadata).from_notebook_node(nb, resources=resources)
    page = out_dir / f"{notebook.stem}.html"
    page.write_text(body, encoding="utf-8")
    report = scan(page)
    if report.remote or report.missing:
        problems = [f"{Path(f).name} loads {ref} from the network" for f, ref in report.remote]
        problems += [f"{Path(f).name} loads {ref}, which is not there" for f, ref in report.missing]
        raise ExportError(f"{page} would not work offline: " + "; ".join(problems[:10]))
    return page


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m tutorial.deck.export DECK.ipynb OUT_DIR", file=sys.stderr)
        return 2
    try:
        page = export(*argv)
    except (assets.AssetError, ExportError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {page}: open it in a browser (no network, no kernel needed); F for "
          f"full screen, S for the speaker notes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
