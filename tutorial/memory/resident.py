"""What the machine holds: the process's resident memory, read from the kernel.

On Linux the kernel keeps two numbers for every process in ``/proc/self/status``:
``VmRSS``, the bytes of memory it holds now, and ``VmHWM``, the most it held since the
last reset ("high-water mark"); writing ``5`` to ``/proc/self/clear_refs`` resets the mark
to the present size (Linux 4.0 and later). So the peak of one training step is measured
by the kernel itself, with nothing sampled and nothing missed: reset, step, read.

The resident size follows the arrays a program keeps only when three things hold, and
:data:`ENV` sets them for a fresh process (they must be set before it starts):

- glibc gives every block over 128 kB its own mapping and returns it to the system when
  it is freed (``MALLOC_MMAP_THRESHOLD_=131072``; left alone, the threshold grows after
  the first large block is freed, and later blocks come from a heap that is not returned).
  Smaller blocks still come from the heap, which keeps what is freed for reuse: arrays
  under 128 kB can be measured short, so a measurement uses a model of larger ones;
- MXNet's engine is synchronous (``MXNET_ENGINE_TYPE=NaiveEngine``), so an array is
  freed when Python lets go of it, not when a worker thread gets round to it;
- oneDNN is off (``MXNET_MKLDNN_ENABLED=0``), so no cache of its kernels' buffers grows.

On CPU contexts MXNet keeps no pool: a freed array goes back to the C allocator at once
(a slice keeps its whole parent alive until the slice goes). On a GPU MXNet keeps a pool
unless ``MXNET_GPU_MEM_POOL_TYPE=Unpooled``, and reports the device's used memory
(:func:`gpu_used`): there the peak is sampled (:class:`PeakSampler`), not kept by a kernel.

>>> probe = Resident()
>>> probe.why_not is None or isinstance(probe.why_not, str)
True
"""

import os
import re
import sys
import threading
import time

ENV = {"MALLOC_MMAP_THRESHOLD_": "131072", "MXNET_ENGINE_TYPE": "NaiveEngine",
       "MXNET_MKLDNN_ENABLED": "0", "MXNET_GPU_MEM_POOL_TYPE": "Unpooled",
       "MXNET_STORAGE_FALLBACK_LOG_VERBOSE": "0"}

_STATUS, _CLEAR = "/proc/self/status", "/proc/self/clear_refs"


def _field(name, text):
    found = re.search(rf"^{name}:\s+(\d+)\s+kB", text, re.MULTILINE)
    if not found:
        raise RuntimeError(f"{_STATUS} has no {name} line")
    return int(found.group(1)) * 1024


class Resident:
    """The kernel's resident-memory counters for this process (Linux).

    ``why_not`` is None where they can be read and reset, else a sentence saying why not
    (another system, or a kernel that does not let the mark be reset).
    """

    def __init__(self):
        self.why_not = None
        if not sys.platform.startswith("linux") or not os.path.exists(_STATUS):
            self.why_not = (f"resident memory is read from {_STATUS}, which this system "
                            f"({sys.platform}) does not have: the counts stand alone here")
            return
        try:
            self.reset_peak()
        except OSError as err:
            self.why_not = (f"the kernel does not let its high-water mark be reset "
                            f"({_CLEAR}: {err.strerror}): the peak of a step cannot be read")

    def now(self):
        """Bytes resident now (VmRSS)."""
        with open(_STATUS) as f:
            return _field("VmRSS", f.read())

    def peak(self):
        """The most bytes resident since the last :meth:`reset_peak` (VmHWM)."""
        with open(_STATUS) as f:
            return _field("VmHWM", f.read())

    def reset_peak(self):
        with open(_CLEAR, "w") as f:
            f.write("5")


def gpu_used(device_id):
    """Bytes in use on GPU ``device_id``, as MXNet reports it (total - free)."""
    import mxnet as mx
    free, total = mx.context.gpu_memory_info(device_id)
    return total - free


class PeakSampler:
    """The most ``read()`` returned while the sampler ran, read every ``every`` seconds on
    a daemon thread (for a GPU, whose driver keeps no high-water mark).

    >>> values = iter([5, 9, 7] + [3] * 10000)
    >>> with PeakSampler(lambda: next(values), every=0.0001) as s:
    ...     time.sleep(0.05)
    >>> s.peak
    9
    """

    def __init__(self, read, every=0.0005):
        self.read, self.every, self.peak = read, every, None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while True:
            value = self.read()
            self.peak = value if self.peak is None else max(self.peak, value)
            if self._stop.wait(self.every):
                return

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.read()) if self.peak is not None else self.read()
        return False
