"""What each device holds, by kind, and the most it ever held: the memory we can measure.

On a GPU MXNet reports the device's free memory (``mx.context.gpu_memory_info``); on CPU
contexts there is no such counter, and MXNet's storage pool keeps freed blocks, so the
process's resident size says little about one step. What we *can* measure honestly is
the arrays the code keeps alive: a :class:`Ledger` is told when an array is kept and when
it is let go (``hold`` / ``drop``), adds up ``size x itemsize`` per device and per kind
(weights, gradients, optimizer state, activations) and remembers the peak. It counts the
arrays the algorithm holds, not MXNet's workspace or temporaries inside an operator.

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
        self._held = [{kind: {} for kind in KINDS} for _ in range(num_devices)]
        self._peak = [0] * num_devices
        self._peak_kind = [dict.fromkeys(KINDS, 0) for _ in range(num_devices)]

    def hold(self, device, kind, key, arrays):
        """Device ``device`` now keeps ``arrays`` (replacing what it kept under ``key``)."""
        self._held[device][kind][key] = nbytes(arrays)
        self._update(device)

    def drop(self, device, kind, key):
        self._held[device][kind].pop(key, None)

    def _update(self, device):
        self._peak[device] = max(self._peak[device], self.now(device))
        for kind in KINDS:
            self._peak_kind[device][kind] = max(self._peak_kind[device][kind],
                                                self.now(device, kind))

    def now(self, device, kind=None):
        kinds = KINDS if kind is None else (kind,)
        return sum(sum(self._held[device][k].values()) for k in kinds)

    def peak(self, device):
        """The most bytes the device held at once."""
        return self._peak[device]

    def peak_by_kind(self, device):
        """The most bytes of each kind the device held (not necessarily at the same time)."""
        return dict(self._peak_kind[device])
