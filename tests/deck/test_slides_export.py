"""`make slides-html`: the deck as a page that needs no network, and the checks behind it.

The scanner and the pinned assets are tested on small made-up files; the export of the
real deck needs the assets that `make` fetches once at setup (without them the test skips,
and fails under CI, where `make test` has fetched them). The page is also opened in a
browser with the network cut off: tests/deck/test_slides_export_browser.py.
"""

import dataclasses
import hashlib
import io
import json
import os
import re
import tarfile

import nbformat
import pytest

from tutorial.deck import assets, export, offline
from tutorial.jupyter.lab import SLIDES

DECK = SLIDES / "workshop.ipynb"


def _page(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_scanner_follows_stylesheets_and_reports_what_would_use_the_network(tmp_path):
    _page(tmp_path, "css/a.css", "@import 'b.css'; /* @import url(https://old.example); */\n"
                                 "i { background: url(data:image/png;base64,AAAA) }")
    _page(tmp_path, "css/b.css", "@font-face { src: url(//fonts.example/f.woff2) }")
    _page(tmp_path, "app.js", "s.textContent = 'p { background: url(https://img.example/x) }';"
                              "a.href = 'https://docs.example';  x.src = y;")
    page = _page(tmp_path, "index.html",
                 "<!-- <script src='https://commented.example/x.js'></script> -->"
                 "<link rel=stylesheet href='css/a.css'><script src=app.js></script>"
                 "<img src='missing.png'><a href='#top'>top</a>"
                 "<script>var u = 'http://inline.example/u';\nel.src = u;</script>")
    report = offline.scan(page)
    assert sorted(ref for _, ref in report.remote) == \
        ["//fonts.example/f.woff2", "https://img.example/x"]
    assert [ref for _, ref in report.missing] == ["missing.png"]
    assert [os.path.basename(f) for f in report.files] == ["index.html", "a.css", "app.js",
                                                           "b.css"]


@pytest.mark.parametrize("ref, remote", [("https://unpkg.com/x", True), ("http://a/b", True),
                                         ("//cdn.example/x.js", True), ("assets/x.js", False),
                                         ("data:font/woff2;base64,AA", False),
                                         ("file:///tmp/x", False), ("#slide-3", False)])
def test_what_counts_as_remote(ref, remote):
    assert offline.is_remote(ref) is remote


def _tarball(files):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_an_asset_is_unpacked_only_from_the_pinned_tarball(tmp_path):
    data = _tarball({"package/dist/x.js": b"x", "package/dist/x.js.map": b"map",
                     "package/../../evil.js": b"no", "package/LICENSE": b"MIT"})
    pinned = assets.Asset("@scope/x", "1.0.0", hashlib.sha256(data).hexdigest(),
                          ("LICENSE", "dist/*.js"))
    with pytest.raises(assets.AssetError, match="not the pinned"):
        assets.unpack(dataclasses.replace(pinned, sha256="0" * 64), data, tmp_path)
    assert not (tmp_path / "x").exists()
    assert assets.unpack(pinned, data, tmp_path) == 2
    assert sorted(p.name for p in (tmp_path / "x").rglob("*")) == \
        [".sha256", "LICENSE", "dist", "x.js"]
    assert not list(tmp_path.parent.rglob("evil.js"))


def test_a_failed_download_says_the_assets_come_at_setup(tmp_path):
    def offline_download(url):
        raise OSError("Network is unreachable")

    with pytest.raises(assets.AssetError, match="fetched once, at setup"):
        assets.fetch(tmp_path, download=offline_download, log=lambda line: None)
    with pytest.raises(assets.AssetError, match="make slides-html"):
        export.export(DECK, tmp_path / "out", asset_root=tmp_path)


def _assets_or_skip():
    if assets.missing():
        reason = (f"the offline deck's assets are not in {assets.ASSET_DIR}: "
                  f"run `make slides-html` once (it fetches them)")
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI is set: make test fetches them)")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    _assets_or_skip()
    out = tmp_path_factory.mktemp("slides")
    return export.export(DECK, out)


def test_the_page_and_every_file_it_loads_stay_on_this_machine(exported):
    report = offline.scan(exported)
    assert report.remote == [] and report.missing == []
    html = exported.read_text()
    for script in ("assets/reveal.js/dist/reveal.js", "assets/requirejs/require.js",
                   "assets/html-manager/dist/embed-amd.js", "assets/mathjax/es5/tex-svg.js"):
        assert script in html
        assert (exported.parent / script).is_file()
    assert len(report.files) > 5 and (exported.parent / "workshop.css").is_file()


def test_every_widget_shown_has_its_saved_state_in_the_page(exported):
    html = exported.read_text()
    state = json.loads(re.search(r'<script type="application/vnd.jupyter.widget-state\+json">'
                                 r"(.*?)</script>", html, re.DOTALL).group(1))["state"]
    views = [json.loads(v)["model_id"] for v in re.findall(
        r'<script type="application/vnd.jupyter.widget-view\+json">(.*?)</script>', html,
        re.DOTALL)]
    assert len(views) >= 6
    assert all(v in state for v in views)
    assert "VBox(children" not in html and "Tab(children" not in html


def test_collapsed_code_and_skipped_cells_stay_out(exported):
    text = re.sub(r"<[^>]+>", "", exported.read_text())     # code is split by highlighting
    nb = nbformat.read(DECK, as_version=4)
    hidden = [c for c in nb.cells if c.metadata.get("jupyter", {}).get("source_hidden")]
    assert hidden and "build_straggler_model" not in text and "costmodel.predict" not in text
    assert "drop, x = Dropout(0.5)" in text           # code that is the slide's content stays
    assert "Not presented" not in text


def test_a_remote_reference_is_refused(tmp_path):
    _assets_or_skip()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "<img src='https://example.com/logo.png'>")])
    nb.cells[0].metadata["slideshow"] = {"slide_type": "slide"}
    nbformat.write(nb, tmp_path / "deck.ipynb")
    with pytest.raises(export.ExportError, match="logo.png from the network"):
        export.export(tmp_path / "deck.ipynb", tmp_path / "out")
