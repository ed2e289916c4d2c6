"""The course's pins, read from pyproject.toml by any python3, with their Python markers.

``make`` reads them through the machine's own ``python3`` before any environment exists, so
this module needs neither ``tomllib`` (3.11+) nor ``packaging``: it reads the few TOML
arrays it needs with a regular expression and evaluates the one kind of environment marker
the pins use, ``python_version`` compared with a version (joined by ``and``). Anything else
is refused by name, so a marker nobody evaluates can never select a pin silently.

Two stacks, split at Python 3.13 (README, "Two commands"): numpy 1.26.4 and the versions
built against it on 3.10 to 3.12; numpy 2.3.5 with scipy, pandas and matplotlib releases
that have wheels for 3.13 and 3.14.

>>> applies("numpy==2.3.5; python_version >= '3.13'", (3, 12))
False
>>> applies("numpy==2.3.5; python_version >= '3.13'", (3, 14))
True
>>> pin("scipy==1.16.3 ; python_version >= '3.13' and python_version < '3.15'")
('scipy', '1.16.3')
>>> applies("numpy==2; sys_platform == 'linux'")
Traceback (most recent call last):
ValueError: pyproject.toml: only python_version markers are understood here, not "sys_platform == 'linux'"
"""

import operator
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
# The Pythons the course runs on: pyproject.toml's requires-python, the Makefile's SUPPORTED
# and the self-check agree with this (tests/check/test_environment.py).
SUPPORTED = ((3, 10), (3, 14))

_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
            "==": operator.eq, "!=": operator.ne}
_MARKER = re.compile(r"""^python_version\s*(<=|>=|==|!=|<|>)\s*['"](\d+)\.(\d+)['"]$""")


def toml_array(text, table, key):
    """The strings of ``key = [...]`` in ``[table]`` of a simple TOML text."""
    head = re.search(rf"^\[{re.escape(table)}\]\s*$", text, re.M)
    if head is None:
        raise KeyError(f"no [{table}] in pyproject.toml")
    body = re.split(r"^\[", text[head.end():], maxsplit=1, flags=re.M)[0]
    body = re.sub(r"#[^\n]*", "", body)
    found = re.search(rf"^{re.escape(key)}\s*=\s*\[(.*?)\]", body, re.M | re.S)
    if found is None:
        raise KeyError(f"no {key} in [{table}] of pyproject.toml")
    return re.findall(r'"([^"]+)"', found.group(1))


def applies(requirement, python=None):
    """Whether ``requirement``'s marker (if any) holds for ``python`` (this one by default)."""
    python = tuple(python or sys.version_info[:2])
    if ";" not in requirement:
        return True
    for clause in requirement.split(";", 1)[1].split(" and "):
        found = _MARKER.match(clause.strip())
        if found is None:
            raise ValueError(f"pyproject.toml: only python_version markers are understood "
                             f'here, not "{clause.strip()}"')
        op, major, minor = found.groups()
        if not _COMPARE[op](python, (int(major), int(minor))):
            return False
    return True


def bare(requirement):
    """The requirement without its marker: ``numpy==2.3.5``."""
    return requirement.split(";", 1)[0].strip()


def name(requirement):
    return re.match(r"[A-Za-z0-9_.\-]+", requirement).group(0).lower()


def pin(requirement):
    """(name, version) of an exact ``name==version`` pin."""
    found = re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", bare(requirement))
    if found is None:
        raise ValueError(f"pyproject.toml: {requirement!r} is not pinned with ==")
    return found.group(1).lower(), found.group(2)


def requirements(pyproject=None, python=None):
    """The pins that apply to ``python``, without their markers:

    - ``course``: the project's dependencies and its test extra;
    - ``cpu``: the CPU build of MXNet, installed without its own requirements (it declares
      numpy < 2; ``tutorial.install.numpy_compat`` makes numpy 2 serve it);
    - ``gpu``: the GPU build and its CUDA wheels, likewise;
    - ``nodeps``: packages whose own pins are stale (d2l).
    """
    text = Path(pyproject or ROOT / "pyproject.toml").read_text()
    tables = {"course": [("project", "dependencies"),
                         ("project.optional-dependencies", "test")],
              "cpu": [("tool.tutorial.cpu", "requires")],
              "gpu": [("tool.tutorial.gpu", "requires")],
              "nodeps": [("tool.tutorial.nodeps", "requires")]}
    return {group: [bare(r) for table, key in where for r in toml_array(text, table, key)
                    if applies(r, python)]
            for group, where in tables.items()}


def versions(python=None, pyproject=None):
    """{name: version} of every pin that applies to ``python``."""
    return dict(pin(r) for group in requirements(pyproject, python).values() for r in group)


def supported(python=None):
    """Whether the course runs on ``python`` (this one by default)."""
    low, high = SUPPORTED
    return low <= tuple(python or sys.version_info[:2]) <= high
