"""Reading what a learner's process sent back, without running anything it chose.

``pickle.loads`` calls whatever function a pickle names, and a learner's answer runs in the
child that writes the pickle: it could name ``os.system``, or a class of its own whose
``__eq__`` always says yes. :func:`safe_loads` reads plain data only: Python's numbers,
strings and containers, NumPy arrays, scalars and generators, MXNet NDArrays, and the
library's own dataclasses and named tuples (a pipeline ``Task``, a collective's
``Schedule``), from modules this process has already imported. Anything else is refused
with :class:`Unreadable`, which names it.

>>> import numpy as np
>>> safe_loads(pickle.dumps([1, (2.5, "x"), np.arange(3)], protocol=4))
[1, (2.5, 'x'), array([0, 1, 2])]
>>> safe_loads(pickle.dumps(np.arange(3), protocol=5))   # Python 3.14's default protocol
array([0, 1, 2])
>>> safe_loads(pickle.dumps(np.random.default_rng(0))).random() == np.random.default_rng(0).random()
True
>>> import os
>>> safe_loads(pickle.dumps(os.getcwd))
Traceback (most recent call last):
...
tutorial.check.unpickle.Unreadable: posix.getcwd is not plain data
"""

import dataclasses
import io
import pickle
import sys

PLAIN = {
    ("builtins", "bytearray"), ("builtins", "complex"), ("builtins", "frozenset"),
    ("builtins", "range"), ("builtins", "set"), ("builtins", "slice"),
    ("numpy", "dtype"), ("numpy", "ndarray"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "scalar"),
    # pickle protocol 5 (Python 3.14's default) rebuilds an array from its buffer
    ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "scalar"),
    # numpy's random generators: 1.26 pickles them through these constructors; numpy 2
    # names the bit generator's class and its seed sequence too
    ("numpy.random._pickle", "__generator_ctor"),
    ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random._pickle", "__randomstate_ctor"),
    ("numpy.random._mt19937", "MT19937"), ("numpy.random._pcg64", "PCG64"),
    ("numpy.random._pcg64", "PCG64DXSM"), ("numpy.random._philox", "Philox"),
    ("numpy.random._sfc64", "SFC64"),
    ("numpy.random.bit_generator", "SeedSequence"),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
    ("mxnet.ndarray.ndarray", "NDArray"),
}


class Unreadable(pickle.UnpicklingError):
    """The pickle names something that is not plain data."""


def _library_record(module, name):
    """The class ``module.name`` if it is a dataclass or a named tuple of this library."""
    if module != "tutorial" and not module.startswith("tutorial."):
        return None
    found = getattr(sys.modules.get(module), name, None)
    if isinstance(found, type) and (dataclasses.is_dataclass(found)
                                    or (issubclass(found, tuple) and hasattr(found, "_fields"))):
        return found
    return None


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in PLAIN:
            return super().find_class(module, name)
        record = _library_record(module, name)
        if record is None:
            raise Unreadable(f"{module}.{name} is not plain data")
        return record


def safe_loads(data):
    """``pickle.loads(data)`` for plain data only (see the module docstring)."""
    return _PlainUnpickler(io.BytesIO(data)).load()
