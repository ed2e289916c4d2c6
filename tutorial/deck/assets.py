"""The JavaScript the offline deck needs, pinned: fetched once at setup, never at run time.

``make slides-html`` (and ``make test``) run ``python -m tutorial.deck.assets fetch``
after the environment is installed, as pip fetches wheels: each package's tarball comes
from the npm registry, its sha256 is checked against :data:`ASSETS`, and only the files
the deck uses are unpacked into the environment (:data:`ASSET_DIR`). Exporting the deck
afterwards needs no network, and neither does the exported page.

- reveal.js: the slideshow (the 4.x line nbconvert's reveal template is written for);
- requirejs: the module loader reveal's template and the widget renderer use;
- @jupyter-widgets/html-manager: draws the widgets from the state saved in the notebook
  (the version for ipywidgets 8 and @jupyter-widgets/controls 2.0 models), with its fonts;
- mathjax: typesets the slides' formulas (SVG output: no font files to load).

>>> [a.folder for a in ASSETS]
['reveal.js', 'requirejs', 'html-manager', 'mathjax']
>>> ASSETS[2].url
'https://registry.npmjs.org/@jupyter-widgets/html-manager/-/html-manager-1.0.10.tgz'
"""

import dataclasses
import fnmatch
import hashlib
import io
import shutil
import sys
import tarfile
import urllib.request
from pathlib import Path
from typing import Tuple

ASSET_DIR = Path(sys.prefix) / "share" / "tutorial-offline"
REGISTRY = "https://registry.npmjs.org"
FONTS = ("dist/*.woff2", "dist/*.woff", "dist/*.ttf", "dist/*.eot", "dist/*.svg")


@dataclasses.dataclass(frozen=True)
class Asset:
    package: str                 # its npm name
    version: str
    sha256: str                  # of the registry's tarball
    files: Tuple[str, ...]       # what to unpack: patterns under the tarball's package/

    @property
    def folder(self):
        """Where it is unpacked, under :data:`ASSET_DIR` (and under ``assets/`` in an export)."""
        return self.package.split("/")[-1]

    @property
    def url(self):
        return f"{REGISTRY}/{self.package}/-/{self.folder}-{self.version}.tgz"


ASSETS = (
    Asset("reveal.js", "4.0.2",
          "0c234d5bfe539606c1af4bcc031f0d21ed99e264d90b7859abad34f7e3a0c587",
          ("LICENSE", "dist/reveal.js", "dist/reveal.css", "dist/theme/white.css",
           "dist/theme/fonts/source-sans-pro/*", "plugin/notes/notes.js")),
    Asset("requirejs", "2.3.6",
          "1d1a8a5ea21b941f5c80f7caf3ac7f3e1cb8cf2903a706d5c0d15434eaedd326",
          ("require.js",)),
    Asset("@jupyter-widgets/html-manager", "1.0.10",
          "d506f2ab201366a24be243ff0f4dcf6a2c6ad3d77dd395a22c8b02990c705337",
          ("LICENSE", "dist/embed-amd.js", *FONTS)),
    Asset("mathjax", "3.2.2",
          "1b9c0a1c44df864e915690558e72adb9cc5203360daefd385084ced3b6c64c09",
          ("LICENSE", "es5/tex-svg.js")),
)


class AssetError(RuntimeError):
    """An asset is missing, or its download is not the file pinned here."""


def stamp(asset, root=ASSET_DIR):
    """The file whose presence says ``asset`` was unpacked from the checked tarball."""
    return Path(root) / asset.folder / ".sha256"


def missing(root=ASSET_DIR):
    """The assets not (completely) unpacked under ``root``."""
    return [a for a in ASSETS if not stamp(a, root).is_file()
            or stamp(a, root).read_text().strip() != a.sha256]


def unpack(asset, data, root=ASSET_DIR):
    """Check ``data`` (the tarball's bytes) against the pin and unpack the asset's files."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != asset.sha256:
        raise AssetError(f"{asset.package} {asset.version}: the download's sha256 is {digest}, "
                         f"not the pinned {asset.sha256}. Nothing was unpacked; the download "
                         f"was damaged or the registry served another file: try again, and if "
                         f"it persists, do not use it.")
    target = Path(root) / asset.folder
    if target.exists():
        shutil.rmtree(target)                   # no file of another version stays behind
    kept = 0
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            inside = member.name.split("/", 1)[-1]         # drop the leading package/
            if not member.isfile() or ".." in Path(inside).parts or inside.startswith("/"):
                continue
            if any(fnmatch.fnmatch(inside, pattern) for pattern in asset.files):
                path = target / inside
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(tar.extractfile(member).read())
                kept += 1
    if kept == 0:
        raise AssetError(f"{asset.package} {asset.version}: none of {asset.files} is in its "
                         f"tarball")
    stamp(asset, root).write_text(asset.sha256 + "\n")
    return kept


def _download(url, timeout=120):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read()


def fetch(root=ASSET_DIR, download=_download, log=print):
    """Download and unpack every asset not yet there (the only step that needs a network)."""
    for asset in missing(root):
        log(f"fetching {asset.package} {asset.version} from {asset.url}")
        try:
            data = download(asset.url)
        except OSError as error:
            raise AssetError(f"could not download {asset.url} ({error}). The offline deck's "
                             f"scripts are fetched once, at setup, like pip's wheels: run "
                             f"this again where the npm registry can be reached.") from error
        log(f"  {unpack(asset, data, root)} files unpacked into {Path(root) / asset.folder}")


def require(root=ASSET_DIR):
    """Raise AssetError, saying how to fetch them, if any asset is missing."""
    absent = missing(root)
    if absent:
        names = ", ".join(f"{a.package} {a.version}" for a in absent)
        raise AssetError(f"the offline deck's scripts are not installed in {root} ({names}): "
                         f"run `make slides-html` (it fetches them once), or "
                         f"`python -m tutorial.deck.assets fetch`.")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv not in (["fetch"], ["check"]):
        print("usage: python -m tutorial.deck.assets fetch|check", file=sys.stderr)
        return 2
    try:
        fetch() if argv == ["fetch"] else require()
    except AssetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"offline deck assets ready in {ASSET_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
