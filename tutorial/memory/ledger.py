"""What each device holds, by kind, and the most it held at once: the count the code keeps.

A :class:`Ledger` is told when an array is kept and when it is let go (``hold`` /
``drop``), adds up ``size x itemsize`` per device and per kind (weights, gradients,
optimizer state, activations, and two kinds no count of the "big four" shows: the
gradient the backward passes from layer to layer, and the optimizer's workspace, arrays it
keeps from one update to the next for its intermediate values) and remembers the most bytes a device
held at once (:meth:`Ledger.peak`, all kinds together) and the most of each kind
(:meth:`Ledger.peak_by_kind`, reached at different moments). It is bookkeeping, not a
measurement: it sees the arrays the algorithm keeps, not the temporaries an operator
makes inside itself. What the machine really holds is measured beside it by
:mod:`tutorial.memory.resident` (the process's resident memory, or a GPU's used memory).

>>> import mxnet as mx
>>> book = Ledger(2)
>>> book.hold(0, "weights", "w", mx.nd.zeros((3, 4)))
>>> book.hold(0, "activations", "x0", mx.nd.zeros(5))
>>> book.drop(0, "activations", "x0")
>>> book.now(0), book.peak(0), book.peak_by_kind(0)["activations"]
(48, 68, 20)
"""

import numpy as np

KINDS = ("weights", "gradients", "optimizer state", "activations")
WORKSPACE = "optimizer workspace"
PASSING = "activation gradients"        # the gradient the backward passes down, for a moment
ALL_KINDS = KINDS + (PASSING, WORKSPACE)


def nbytes(arrays):
    """Bytes of an NDArray, or of every NDArray in nested tuples, lists and dicts."""
    if arrays is None:
        return 0
    if isinstance(arrays, dict):
        return sum(nbytes(a) for a in arrays.values())
    if isinstance(arrays, (tuple, list)):
        return sum(nbytes(a) for a in arrays)
    return int(arrays.size) * np.dtype(arrays.dtype).itemsize


class Ledger:
    """Arrays held per device and kind; ``now``/``peak`` in bytes."""

    def __init__(self, num_devices):
        self._held = [{kind: {} for kind in ALL_KINDS} for _ in range(num_devices)]
        self._peak = [0] * num_devices
        self._peak_kind = [dict.fromkeys(ALL_KINDS, 0) for _ in range(num_devices)]

    def hold(self, device, kind, key, arrays):
        """Device ``device`` now keeps ``arrays`` (replacing what it kept under ``key``)."""
        self._held[device][kind][key] = nbytes(arrays)
        self._update(device)

    def drop(self, device, kind, key):
        self._held[device][kind].pop(key, None)

    def _update(self, device):
        self._peak[device] = max(self._peak[device], self.now(device))
        for kind in ALL_KINDS:
            self._peak_kind[device][kind] = max(self._peak_kind[device][kind],
                                                self.now(device, kind))

    def now(self, device, kind=None):
        kinds = ALL_KINDS if kind is None else (kind,)
        return sum(sum(self._held[device][k].values()) for k in kinds)

    def peak(self, device):
        """The most bytes the device held at once."""
        return self._peak[device]

    def peak_by_kind(self, device):
        """The most bytes of each kind the device held (not necessarily at the same time)."""
        return dict(self._peak_kind[device])
