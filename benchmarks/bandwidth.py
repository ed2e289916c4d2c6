"""This machine's memory bandwidth, measured in the calling process: the physical bound.

``bandwidth()`` copies a 128 MB NDArray into a preallocated one (``copyto``) and
returns the bytes read plus written per second of the best run. Work that must read and
write B bytes cannot take less than ``B / bandwidth()`` seconds: the benchmarks print
that bound next to each measurement.
"""

import time

import mxnet as mx


def bandwidth(nbytes=1 << 27, repeats=7, ctx=None):
    """Bytes per second (read + write) of the best of ``repeats`` large copies."""
    ctx = ctx or mx.cpu()
    source = mx.nd.ones((nbytes // 4,), ctx=ctx)
    target = mx.nd.zeros((nbytes // 4,), ctx=ctx)
    source.copyto(target)
    mx.nd.waitall()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        source.copyto(target)
        mx.nd.waitall()
        best = min(best, time.perf_counter() - start)
    return 2 * source.size * 4 / best


if __name__ == "__main__":
    print(f"memory bandwidth (copyto, read + write): {bandwidth() / 1e9:.1f} GB/s")
