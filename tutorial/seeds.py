"""Other seeds for the same course: the one place that reads ``TUTORIAL_SEED``.

A compared check (tests/README.md) must hold for more than the seed its notebook happens
to use. ``TUTORIAL_SEED=K`` shifts every seed the notebooks and the library draw by ``K``,
without editing a notebook: ``make test-seeds`` runs every notebook in fast mode under
K = 1, 2 and 3 (:mod:`tutorial.jupyter.notebook_runs`) and fails on any check that prints False.
Unset, or 0, nothing changes.

What shifts, once :func:`install` ran (``import tutorial`` runs it when the variable is
set, so the Jupyter kernel and every worker process of a cluster shift alike):

- ``np.random.default_rng(s)``: an integer ``s`` becomes ``s + K``; a list of integers
  ``[s, ...]`` (a seed with a stream number) becomes ``[s + K, ...]``;
- ``np.random.seed(s)``, ``random.seed(s)`` and ``mx.random.seed(s)``: ``s + K``
  (MXNet's once ``mxnet`` is imported: a hook waits for that import, so that
  :mod:`tutorial.engine` can still set MXNet's engine variables first).

``None``, a ``SeedSequence`` or a ``Generator`` pass unchanged: they are no fixed seed.

>>> shift(0, 3), shift([7, 1], 3), shift(None, 3)
(3, [10, 1], None)
>>> offset({"TUTORIAL_SEED": "2"}), offset({})
(2, 0)
"""

import importlib.util
import numbers
import os
import random
import sys

ENV_VAR = "TUTORIAL_SEED"


def offset(env=None):
    """The shift ``TUTORIAL_SEED`` asks for: a whole number >= 0 (0 when it is unset)."""
    value = (os.environ if env is None else env).get(ENV_VAR, "").strip() or "0"
    if not value.isdigit():
        raise ValueError(f"{ENV_VAR} must be a whole number >= 0 (the shift added to every "
                         f"seed), got {value!r}")
    return int(value)


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def shift(seed, k):
    """``seed`` moved by ``k`` if it is a fixed seed (an integer, or a list of them)."""
    if _is_int(seed):
        return int(seed) + k
    if isinstance(seed, (list, tuple)) and seed and all(_is_int(s) for s in seed):
        return type(seed)([int(seed[0]) + k, *seed[1:]])
    return seed


def _shifted(function, k):
    """``function`` with its first argument (the seed) shifted by ``k``."""
    original = getattr(function, "unshifted", function)

    def seeded(seed=None, *args, **kwargs):
        return original(shift(seed, k), *args, **kwargs)

    seeded.unshifted = original
    seeded.shift = k
    seeded.__name__, seeded.__doc__ = original.__name__, original.__doc__
    return seeded


def _shift_mxnet(mxnet, k):
    mxnet.random.seed = _shifted(mxnet.random.seed, k)


class _AfterMXNet:
    """A meta-path finder that shifts ``mx.random.seed`` right after ``mxnet`` is imported."""

    def __init__(self, k):
        self.k = k

    def find_spec(self, name, path=None, target=None):
        if name != "mxnet":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        load, k = spec.loader.exec_module, self.k

        def exec_module(module):
            load(module)
            _shift_mxnet(module, k)

        spec.loader.exec_module = exec_module
        return spec


def install(k):
    """Shift every seed drawn from now on by ``k`` (again with another ``k`` replaces it)."""
    import numpy

    numpy.random.default_rng = _shifted(numpy.random.default_rng, k)
    numpy.random.seed = _shifted(numpy.random.seed, k)
    random.seed = _shifted(random.seed, k)
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _AfterMXNet)]
    if "mxnet" in sys.modules:
        _shift_mxnet(sys.modules["mxnet"], k)
    else:
        sys.meta_path.insert(0, _AfterMXNet(k))


def uninstall():
    """Put the unshifted functions back (and drop the hook waiting for ``mxnet``)."""
    import numpy

    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _AfterMXNet)]
    modules = [numpy.random, random] + ([sys.modules["mxnet"].random]
                                        if "mxnet" in sys.modules else [])
    for module in modules:
        for name in ("default_rng", "seed"):
            function = getattr(module, name, None)
            if hasattr(function, "unshifted"):
                setattr(module, name, function.unshifted)


def install_from_env(env=None):
    """:func:`install` the shift ``TUTORIAL_SEED`` asks for; nothing when it is 0 or unset."""
    k = offset(env)
    if k:
        install(k)
    return k
