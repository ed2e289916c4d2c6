"""Give MXNet 1.9.1 the six numpy aliases that numpy 1.24 removed, in every process.

MXNet 1.9.1 still writes ``np.bool``, ``np.int``, ``np.float``, ``np.complex``,
``np.object`` and ``np.str``. numpy 1.20 deprecated them and 1.24 removed them; each was
the builtin of the same name. numpy 1.26.4 is the newest numpy below 2.0 (which MXNet
needs) and the oldest with wheels for Python 3.12, so the course puts the six names back,
each the builtin, exactly as numpy < 1.24 had them.

Where: the set-up (``python -m tutorial.install.mxnet_build install``) copies this file into the
environment's site-packages as ``_tutorial_numpy_aliases.py`` and writes
``_tutorial_numpy_aliases.pth`` beside it. Python runs that ``.pth`` line at start-up in
every process of the environment (the Jupyter kernel, nbval, cluster workers and servers,
Horovod ranks, ``python -c`` children), and the line only puts a finder at the front of
``sys.meta_path``: nothing is imported until something imports ``mxnet``. Then the finder
imports numpy, restores the aliases that are missing, steps aside and lets the ordinary
import go on. A process that never touches MXNet pays nothing.

>>> import types
>>> fake = types.SimpleNamespace(int=int)
>>> sorted(restore(fake))
['bool', 'complex', 'float', 'object', 'str']
>>> fake.bool is bool and fake.int is int
True
>>> restore(fake)
[]
"""

import builtins
import sys

ALIASES = ("bool", "int", "float", "complex", "object", "str")
INSTALLED_NAME = "_tutorial_numpy_aliases"


def restore(numpy):
    """Set each missing alias on ``numpy`` to the builtin; return the names it set."""
    added = []
    for name in ALIASES:
        if name not in vars(numpy):
            setattr(numpy, name, getattr(builtins, name))
            added.append(name)
    return added


class BeforeMXNet:
    """A meta-path finder that restores the aliases just before ``mxnet`` is imported."""

    def find_spec(self, name, path=None, target=None):
        if name == "mxnet" or name.startswith("mxnet."):
            disarm()
            import numpy
            restore(numpy)
        return None          # the ordinary finders import mxnet itself

    def __repr__(self):
        return "<numpy aliases for mxnet>"


def arm():
    """Put the finder in front of ``sys.meta_path`` (once); the ``.pth`` line calls this."""
    if not any(isinstance(f, BeforeMXNet) or type(f).__name__ == "BeforeMXNet"
               for f in sys.meta_path):
        sys.meta_path.insert(0, BeforeMXNet())


def disarm():
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "BeforeMXNet"]


def install(site_packages):
    """Copy this module into ``site_packages`` and write the ``.pth`` line that arms it."""
    from pathlib import Path
    site = Path(site_packages)
    (site / f"{INSTALLED_NAME}.py").write_text(Path(__file__).read_text())
    (site / f"{INSTALLED_NAME}.pth").write_text(
        f"import {INSTALLED_NAME}; {INSTALLED_NAME}.arm()\n")
    return site / f"{INSTALLED_NAME}.pth"
