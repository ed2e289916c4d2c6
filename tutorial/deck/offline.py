r"""Does a page work with no network? Its remote references, and the local files it lacks.

:func:`scan` reads an HTML page, and every local stylesheet and script it loads (and what
those stylesheets import), and reports each reference a browser would fetch: ``src=`` and
``href=`` attributes, CSS ``url(...)`` and ``@import``. A reference is remote when it
names a scheme with a host (``http://``, ``https://``) or is protocol-relative (``//cdn``);
``data:`` URIs and ``#fragments`` load nothing. Comments are skipped (a commented-out
``@import`` fetches nothing). Scripts are scanned for CSS they inject (``url(...)``); what a
script computes at run time only a browser can tell (the export's browser test blocks
every request that is not a local file).

>>> refs = references("<link href='https://cdn.example/x.css'><img src=\"a.png\">"
...                   "<style>/* url(//old) */ b { background: url( 'b.svg' ) }</style>")
>>> [(r, is_remote(r)) for r in refs]
[('https://cdn.example/x.css', True), ('a.png', False), ('b.svg', False)]
"""

import dataclasses
import re
from pathlib import Path
from typing import List, Tuple
from urllib.parse import unquote, urlsplit

_COMMENTS = re.compile(r"<!--.*?-->|/\*.*?\*/", re.DOTALL)
_SCRIPTS = re.compile(r"(<script\b[^>]*>)(.*?)(</script>)", re.DOTALL | re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""\b(?:src|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""",
                        re.IGNORECASE)
_CSS = (re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]+))\s*\)""", re.IGNORECASE),
        re.compile(r"""@import\s+(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE))
_SCRIPT_SRC = re.compile(r"""\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)')""")   # quoted: not a variable
_FOLLOWED = (".css", ".js")                    # local files whose references count too


def _find(patterns, text):
    found = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            found.append((match.start(), next(g for g in match.groups() if g is not None)))
    return found


def references(text, script=False):
    """Every reference in ``text`` a browser would fetch, in order, comments left out.

    Markup gives ``src=``/``href=`` attributes and CSS references; a script (``script=True``,
    and the body of each ``<script>`` in markup) gives the CSS it injects and quoted ``src``
    strings: a link a reader may click (``href`` in a script) loads nothing by itself.
    """
    if script:
        found = _find(_CSS + (_SCRIPT_SRC,), _COMMENTS.sub(" ", text))
    else:
        bodies = []
        markup = _SCRIPTS.sub(lambda m: bodies.append(m.group(2)) or m.group(1) + m.group(3),
                              text)
        found = _find((_ATTRIBUTE,) + _CSS, _COMMENTS.sub(" ", markup))
        for body in bodies:
            found += [(len(markup), ref) for ref in references(body, script=True)]
    refs = [ref.strip() for _, ref in sorted(found, key=lambda f: f[0])]
    return [ref for ref in refs if ref and not ref.startswith("+")]   # '"+x+"': concatenation


def is_remote(ref):
    """True for a reference that leaves the machine (``http(s)://``, ``//host``, ...)."""
    if ref.startswith("//"):
        return True
    parts = urlsplit(ref)
    return bool(parts.scheme) and parts.scheme not in ("data", "file", "blob", "about",
                                                       "javascript", "mailto") \
        and len(parts.scheme) > 1                      # 'c:' is a Windows drive, not a host


def _local_path(base, ref):
    parts = urlsplit(ref)
    if parts.scheme or not parts.path or ref.startswith("#"):
        return None
    return (base.parent / unquote(parts.path)).resolve()


@dataclasses.dataclass(frozen=True)
class Report:
    remote: List[Tuple[str, str]]      # (file, reference) that would use the network
    missing: List[Tuple[str, str]]     # (file, reference) to a local file that is not there
    files: List[str]                   # every file scanned, the page first


def scan(page):
    """Scan ``page`` and the local stylesheets and scripts it loads, recursively."""
    page = Path(page).resolve()
    remote, absent, seen, todo = [], [], [], [page]
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.append(path)
        text = path.read_text(errors="replace")
        for ref in references(text, script=path.suffix == ".js"):
            if is_remote(ref):
                remote.append((str(path), ref))
                continue
            local = _local_path(path, ref)
            if local is None or path.suffix == ".js":
                continue                       # a script's paths are resolved at run time
            if not local.exists():
                absent.append((str(path), ref))
            elif local.suffix in _FOLLOWED:
                todo.append(local)
    return Report(remote, absent, [str(p) for p in seen])
