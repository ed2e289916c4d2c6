"""What float16 and bfloat16 keep of a float32 number, and which gradients they lose.

=========  =====  ==============  ===================  ====================================
format     bytes  exponent bits   smallest normal      smallest > 0 (subnormal)
=========  =====  ==============  ===================  ====================================
float32    4      8               1.2e-38              1.4e-45
float16    2      5               6.1e-05              6.0e-08
bfloat16   2      8               1.2e-38              9.2e-41 (MXNet's cast: CPU-dependent)
=========  =====  ==============  ===================  ====================================

float16 has 10 mantissa bits but a narrow exponent, so small gradients underflow: below
about 3e-8 they round to 0, and between 6e-8 and 6.1e-5 (subnormal) they keep fewer
bits; above 65504 they overflow to inf. bfloat16 keeps float32's exponent and only 7
mantissa bits: no underflow above float32's smallest normal (1.2e-38), coarse rounding.
NumPy has no bfloat16, so :func:`to_bfloat16` rounds float32 to it (nearest,
ties to even, as IEEE arithmetic does) and returns float32 values. It keeps subnormals:
float32's below 1.2e-38 round to bfloat16's, down to 9.2e-41, like every other number.

MXNet's cast to bfloat16 (``mx.nd.amp_cast``) runs oneDNN's conversion when oneDNN is on,
MXNet's default: it rounds every normal number to the same bits as :func:`to_bfloat16`,
and keeps zeros, infinities and NaN (-0.0 may come back as 0.0). With oneDNN off
(``MXNET_MKLDNN_ENABLED=0``) MXNet casts with its own code, which truncates: it keeps
float32's top 16 bits, rounding toward zero (7e4 becomes 69632, not 70144). What oneDNN
does with float32's subnormals depends on the code path it picks for the CPU
(``DNNL_MAX_CPU_ISA``, set before MXNet is imported, caps it): on most CPUs, with AVX2 or SSE4.1 and with the native bfloat16
instruction (AVX-512 BF16), it flushes them to zero, keeping the sign; on AVX-512 without
BF16 (``AVX512_CORE``) it keeps them, rounded as :func:`to_bfloat16` rounds them.
Gradients that small (below 1.2e-38) are rare, so the difference hardly ever matters.

>>> round_trip([1e-8, 1e-6, 1e-3, 7e4], "float16").tolist()
[0.0, 1.0132789611816406e-06, 0.0010004043579101562, inf]
>>> round_trip([1e-8, 1.0 + 2 ** -9], "bfloat16").tolist()
[1.0011717677116394e-08, 1.0]
>>> BYTES["float16"], BYTES["bfloat16"], BYTES["float32"]
(2, 2, 4)
"""

import dataclasses

import numpy as np

from tutorial.validate import check_range

BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}
FLOAT16 = np.finfo(np.float16)
FLOAT16_SMALLEST_NORMAL = float(FLOAT16.tiny)           # 2**-14, about 6.1e-5
FLOAT16_SMALLEST = float(FLOAT16.smallest_subnormal)    # 2**-24, about 6.0e-8


def to_bfloat16(values):
    """float32 values rounded to bfloat16 (nearest, ties to even), returned as float32.

    Subnormals are kept and rounded like the rest, as IEEE arithmetic does; MXNet's
    oneDNN cast flushes them to zero on most CPUs (AVX2, SSE4.1, native bfloat16) and
    keeps them, as here, on AVX-512 without BF16 (see the module's docstring).

    >>> to_bfloat16([1e-39, -1e-39, 1e-45]).tolist()        # subnormals: 1e-45 rounds to 0
    [1.0101904577379033e-39, -1.0101904577379033e-39, 0.0]
    """
    x = np.ascontiguousarray(values, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isfinite(x), out, x)          # inf and NaN stay as they are


def round_trip(values, dtype):
    """``values`` (as float32) stored in ``dtype`` and read back as float32."""
    x = np.asarray(values, dtype=np.float32)
    if dtype == "bfloat16":
        return to_bfloat16(x)
    if dtype not in BYTES:
        raise ValueError(f"dtype must be one of {', '.join(BYTES)}, got {dtype!r}")
    with np.errstate(over="ignore"):
        return x.astype(dtype).astype(np.float32)


@dataclasses.dataclass(frozen=True)
class Underflow:
    scale: float             # gradients were multiplied by this before the cast
    nonzero: int             # nonzero float32 gradient entries
    flushed: float           # share of them that became 0 in float16
    subnormal: float         # share below float16's smallest normal (fewer bits kept)
    overflowed: float        # share that became inf


def underflow(gradients, scale=1.0):
    """What casting ``scale * gradients`` (nonzero float32 entries) to float16 does to them."""
    scale = check_range("scale", scale, 0.0, low_open=True)
    if isinstance(gradients, (str, bytes)) or not hasattr(gradients, "__len__") or \
            not len(gradients):
        raise ValueError("gradients must be a non-empty list of arrays (e.g. one per "
                         "parameter, as NumPy), got " + repr(gradients)[:60])
    g = np.concatenate([np.ravel(np.asarray(a, dtype=np.float32)) for a in gradients])
    g = g[g != 0] * np.float32(scale)
    if g.size == 0:
        raise ValueError("the gradients have no nonzero entry: nothing can underflow")
    with np.errstate(over="ignore"):
        h = g.astype(np.float16)
    return Underflow(float(scale), int(g.size), float(np.mean(h == 0)),
                     float(np.mean(np.abs(g) < FLOAT16_SMALLEST_NORMAL)),
                     float(np.mean(np.isinf(h))))
