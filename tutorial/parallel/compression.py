"""Gradient compression: MXNet's 2-bit quantiser with error feedback, and payload bytes.

**2-bit with error feedback** (MXNet's ``kv.set_gradient_compression({'type': '2bit',
'threshold': t})``). Every worker keeps a residual r (zeros at first) per parameter::

    r <- r + g                             add this step's gradient to what is owed
    q = +t where r >= t, -t where r <= -t, 0 elsewhere     (2 bits: +, -, or 0)
    r <- r - q                             keep what was not sent (error feedback)

and sends q: 2 bits per value, 16 values packed in one 32-bit word. Nothing is lost,
only delayed: after n steps, sum(q) = sum(g) - r. But at most t leaves per step, so a
value whose gradient stays above t piles up in r (the 1.5 below). MXNet
quantises the gradient as the worker hands it over, BEFORE ``rescale_grad``: with
``trainer.step(n)`` that is the gradient of the SUMMED loss, so t is compared with sums.

signSGD with majority vote is :mod:`tutorial.parallel.sign_sgd`. Its signs take three values,
-1, 0 and +1 (a gradient can be exactly 0, and a vote of an even number of workers can
tie), so it is counted as 2 bits per value too: a one-bit code would have to turn every
0 into +1 or -1, which MXNet's ``sign`` and ``signum`` do not do.

>>> q, r = two_bit_quantise([0.3, 0.6, -0.7, 1.5], [0.0, 0.0, 0.0, 0.0], threshold=0.5)
>>> q.tolist(), r.astype(float).round(2).tolist()
([0.0, 0.5, -0.5, 0.5], [0.3, 0.1, -0.2, 1.0])
>>> q, r = two_bit_quantise([0.3, 0.6, -0.7, 1.5], r, threshold=0.5)
>>> q.tolist(), r.astype(float).round(2).tolist()
([0.5, 0.5, -0.5, 0.5], [0.1, 0.2, -0.4, 2.0])
>>> payload_bytes(4874, "none"), payload_bytes(4874, "2bit"), payload_bytes(4874, "sign")
(19496, 1220, 1220)
"""

import mxnet as mx
import numpy as np

from tutorial.finite import TrainingDiverged
from tutorial.parallel.aggregation import KVStoreAggregation
from tutorial.validate import as_host_array, check_count, check_range

SCHEMES = ("none", "2bit", "sign")
BITS = {"none": 32, "2bit": 2, "sign": 2}     # sign: -1, 0 or +1


def two_bit_quantise(grad, residual, threshold):
    """One step of the 2-bit quantiser: ``(q, new_residual)`` as float32 NumPy arrays
    (``grad`` and ``residual`` may be NumPy arrays, NDArrays or lists)."""
    threshold = check_range("threshold", threshold, 0.0, low_open=True)
    g, r = (np.asarray(as_host_array(x), dtype=np.float32) for x in (grad, residual))
    if r.shape != g.shape:
        raise ValueError(f"residual has shape {r.shape} but the gradient {g.shape}: keep "
                         f"one residual per parameter, shaped like it")
    for name, values in (("gradient", g), ("residual", r)):
        bad = ~np.isfinite(values)
        if bad.any():
            what = "NaN" if np.isnan(values).any() else "an infinity"
            raise TrainingDiverged(
                f"the {name} holds {what} (value {int(np.argmax(bad.ravel()))}): the quantiser "
                f"would send 0 for it and keep it in the residual forever. Find where it came "
                f"from (the inputs, or a learning rate too high) and start again.")
    r = r + g
    t = np.float32(threshold)
    q = np.where(r >= t, t, np.where(r <= -t, -t, np.float32(0))).astype(np.float32)
    return q, r - q


def payload_bytes(size, scheme, word_bits=32):
    """Bytes one tensor of ``size`` values takes under ``scheme``: values packed into
    32-bit words (MXNet packs 16 two-bit values per float), headers not counted."""
    size = check_count("size", size, what="values in the tensor")
    if scheme not in BITS:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")
    per_word = word_bits // BITS[scheme]
    return -(-size // per_word) * word_bits // 8


class TwoBitAggregation:
    """The aggregation seam, from scratch: quantise every device's gradient with its own
    residual, then sum the quantised values on every device (what MXNet's compressed
    'device' kvstore does)."""

    def __init__(self, threshold):
        self.threshold = check_range("threshold", threshold, 0.0, low_open=True)
        self.residuals = {}                       # (parameter, device) -> residual

    def __call__(self, grad_lists):
        for key, grads in enumerate(grad_lists):
            sent = []
            for k, g in enumerate(grads):
                r = self.residuals.get((key, k), np.zeros(g.shape, np.float32))
                q, self.residuals[key, k] = two_bit_quantise(g.asnumpy(), r, self.threshold)
                sent.append(q)
            total = np.sum(sent, axis=0)
            for g in grads:
                g[:] = mx.nd.array(total, ctx=g.context)


class MXNetTwoBitAggregation(KVStoreAggregation):
    """MXNet's own: a 'device' kvstore with 2-bit compression (CPU contexts work too;
    a 'local' kvstore refuses compression)."""

    def __init__(self, threshold):
        threshold = check_range("threshold", threshold, 0.0, low_open=True)
        super().__init__("device")
        self.kvstore.set_gradient_compression({"type": "2bit", "threshold": threshold})

