"""Give MXNet 1.9.1 the numpy names it reads that numpy 1.24 and 2.0 removed, in every process.

MXNet 1.9.1 (and Horovod 0.28's Python, d2l 1.0.3 beside it) was written for numpy < 1.24.
numpy 1.24 removed the builtins' aliases (``np.bool`` was ``bool``); numpy 2.0 removed a
set of constants, type aliases, renamed functions and ``np.compat`` (NEP 52), and stopped
answering for the financial functions NEP 32 had moved out (numpy 1.26 still returned a
stub that raises when called). MXNet reads some of each at import, so without them
``import mxnet`` fails on numpy >= 1.24, and worse on numpy 2.

:data:`REMOVED` holds exactly the names those packages read that some supported numpy
lacks, each as numpy < 2 had it. It is derived, not guessed:
``tests/install/test_numpy_compat.py`` reads every attribute the installed ``mxnet``,
``d2l`` and ``horovod`` take from ``numpy`` (their source, and MXNet's dispatch lists),
and fails when one is missing from numpy and from this table, or when the table holds a
name none of them reads. A name numpy still has is never replaced: under numpy 2,
``np.bool`` stays numpy's own ``bool_``.

Where: the set-up (``python -m tutorial.install.mxnet_build install``) copies this file into
the environment's site-packages as ``_tutorial_numpy_compat.py`` and writes
``_tutorial_numpy_compat.pth`` beside it. Python runs that ``.pth`` line at start-up in every
process of the environment (the Jupyter kernel, nbval, cluster workers and servers, Horovod
ranks, ``python -c`` children), and the line only puts a finder at the front of
``sys.meta_path``: nothing is imported until something imports ``mxnet``, ``d2l`` or
``horovod``. Then the finder imports numpy, restores what is missing, steps aside and lets
the ordinary import go on. A process that never touches them pays nothing.

>>> import types
>>> fake = types.SimpleNamespace(int=int, all=all, any=any, prod=None, round=round)
>>> added = restore(fake)
>>> "int" in added, "bool" in added, fake.bool is bool, fake.NINF
(False, True, True, -inf)
>>> fake.alltrue is all
True
>>> restore(fake)
[]
"""

import builtins
import sys
import types
import warnings

INSTALLED_NAME = "_tutorial_numpy_compat"
OLD_INSTALLED_NAMES = ("_tutorial_numpy_aliases",)     # written by earlier set-ups
# Importing any of these first restores the names (they all read numpy < 2's names).
READERS = ("mxnet", "d2l", "horovod")

_FINANCIAL = ("The function {} was removed from NumPy version 1.20 (NEP 32). A replacement "
              "is available in the numpy_financial library: https://pypi.org/project/"
              "numpy-financial")


def _builtin(name):
    return lambda numpy: getattr(builtins, name)


def _alias(target):
    return lambda numpy: getattr(numpy, target)


def _constant(value):
    return lambda numpy: value


def _expired(name):
    """numpy 1.20 to 1.26's stub for a financial function: callable, raises when called."""
    def make(numpy):
        def expired(*args, **kwargs):
            raise RuntimeError(_FINANCIAL.format(name))
        expired.__name__ = expired.__qualname__ = name
        return expired
    return make


def _msort(numpy):
    def msort(a):
        """numpy < 2's ``msort``: a copy sorted along the first axis."""
        b = numpy.array(a, subok=True, copy=True)
        b.sort(0)
        return b
    return msort


def _compat(numpy):
    """numpy < 2's ``numpy.compat``, with the names MXNet reads from it (py3 spellings)."""
    module = types.ModuleType("numpy.compat", "numpy < 2's Python 2/3 helpers (restored)")
    module.basestring, module.long, module.unicode = str, int, str
    module.integer_types = (int,)
    return module


# name -> how to make it from the numpy module, as numpy < 2 had it. Who reads it (file of
# the installed package) and which numpy removed it, for each group.
REMOVED = {
    # numpy 1.24 removed the builtins' aliases (each was the builtin itself):
    # mxnet/numpy/utils.py, ndarray/numpy/_op.py (bool), test_utils.py (int),
    # horovod/spark/common/util.py (bool, str)
    "bool": _builtin("bool"), "int": _builtin("int"), "str": _builtin("str"),
    # numpy 2.0 removed these constants (they were Python floats): mxnet/numpy/utils.py,
    # gluon/contrib/estimator/event_handler.py (Inf)
    "PZERO": _constant(0.0), "NZERO": _constant(-0.0), "PINF": _constant(float("inf")),
    "NINF": _constant(float("-inf")), "Inf": _constant(float("inf")),
    "NaN": _constant(float("nan")), "NAN": _constant(float("nan")),
    # numpy 2.0 removed alltrue (it was all) and msort (sort along axis 0):
    # mxnet/numpy/fallback.py binds both at import
    "alltrue": _alias("all"), "msort": _msort,
    # numpy 2.0 removed sometrue, product and round_ (any, prod, round): MXNet's
    # numpy_dispatch_protocol.py looks each up by name at import (_NUMPY_ARRAY_FUNCTION_LIST)
    "sometrue": _alias("any"), "product": _alias("prod"), "round_": _alias("round"),
    # numpy 2.0 removed numpy.compat: mxnet/ndarray/numpy/_op.py and symbol/numpy/_symbol.py
    # read compat.basestring
    "compat": _compat,
    # NEP 32 (numpy 1.20) moved them out; numpy 1.20-1.26 answered with a stub that raises
    # when called, numpy 2 raises at the lookup: mxnet/numpy/fallback.py binds them
    **{name: _expired(name) for name in ("mirr", "npv", "pmt", "ppmt", "pv", "rate")},
}


def has(numpy, name):
    """True when ``numpy`` answers for ``name`` itself (a deprecated name included)."""
    if name in vars(numpy):
        return True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            getattr(numpy, name)
        except (AttributeError, RuntimeError):
            return False
    return True


def restore(numpy):
    """Set each name of :data:`REMOVED` that ``numpy`` lacks; return the names it set."""
    added = []
    for name, make in REMOVED.items():
        if not has(numpy, name):
            setattr(numpy, name, make(numpy))
            added.append(name)
    return added


class BeforeMXNet:
    """A meta-path finder that restores the names just before a reader is imported."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in READERS:
            disarm()
            import numpy
            restore(numpy)
        return None          # the ordinary finders import the package itself

    def __repr__(self):
        return "<numpy compatibility for mxnet>"


def arm():
    """Put the finder in front of ``sys.meta_path`` (once); the ``.pth`` line calls this."""
    if not any(type(f).__name__ == "BeforeMXNet" for f in sys.meta_path):
        sys.meta_path.insert(0, BeforeMXNet())


def disarm():
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "BeforeMXNet"]


def install(site_packages):
    """Copy this module into ``site_packages`` and write the ``.pth`` line that arms it
    (removing what earlier set-ups wrote under other names)."""
    from pathlib import Path
    site = Path(site_packages)
    for old in OLD_INSTALLED_NAMES:
        for suffix in (".py", ".pth"):
            (site / f"{old}{suffix}").unlink(missing_ok=True)
    (site / f"{INSTALLED_NAME}.py").write_text(Path(__file__).read_text())
    (site / f"{INSTALLED_NAME}.pth").write_text(
        f"import {INSTALLED_NAME}; {INSTALLED_NAME}.arm()\n")
    return site / f"{INSTALLED_NAME}.pth"
