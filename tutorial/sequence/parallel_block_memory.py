"""The activations one block's forward keeps, measured on the machine beside the count.

:func:`kept_measured` runs the block's forward under ``autograd.record()`` on K CPU
contexts, tensor parallel and then sequence parallel, in a **fresh process** started with
:data:`tutorial.memory.resident.ENV` (the settings under which resident memory follows
the live arrays, as :mod:`tutorial.memory.measured_memory` does). The weights, the input
and their gradients' buffers are made first and a whole step is run once to warm up;
then the measurement is the resident memory (VmRSS, read from the kernel) the process
holds once the forward has returned, above what it held before, less the outputs: what
autograd keeps for the backward. CPU contexts share one process, so the kernel sees the
sum over the K devices; the number per device is that sum / K (every device keeps about
as much as the others). The count beside it is
:func:`~tutorial.sequence.parallel_block_costs.kept_bytes`, summed the same way.

What the count leaves out shows up in the difference: arrays under 128 kB (the heap keeps
what they free; the count's one-number-per-position arrays), and the allocator's rounding
to whole pages. The sizes should make every counted array larger than 128 kB.
"""

import gc
import json
import sys
from typing import NamedTuple

from tutorial import fresh_process
from tutorial.validate import check_count

TIMEOUT = 300
MODES = ("tensor", "sequence")


class Measured(NamedTuple):
    """Bytes kept for the backward per device: measured (resident, sum / K) and counted.

    >>> Measured(measured=1.02e6, counted=1e6).within(0.03)
    True
    """
    measured: float
    counted: float

    def within(self, relative):
        """The measurement within ``relative`` of the count."""
        return abs(self.measured - self.counted) <= relative * self.counted


def kept_measured(batch, seq, model_dim, heads, hidden, devices, causal=False, seed=0,
                  timeout=TIMEOUT):
    """{'tensor': :class:`Measured`, 'sequence': :class:`Measured`} for one block's forward."""
    from tutorial.memory.resident import ENV
    from tutorial.sequence.parallel_block_costs import kept_bytes
    job = {"batch": check_count("batch", batch), "seq": seq, "model_dim": model_dim,
           "heads": heads, "hidden": hidden, "devices": devices, "causal": bool(causal),
           "seed": seed}
    counted = {mode: sum(kept_bytes(batch, seq, model_dim, heads, hidden, devices,
                                    mode == "sequence", causal)) / devices for mode in MODES}
    got = fresh_process.run("the measuring process", module=__name__, args=[job], env=ENV,
                            timeout=timeout, hint="the machine is busy or the sizes too "
                                                  "large; pass smaller sizes or a larger "
                                                  "timeout=")
    return {mode: Measured(got[mode] / devices, counted[mode]) for mode in MODES}


# ---- the measuring process --------------------------------------------------------------

def _settle():
    import mxnet as mx
    mx.nd.waitall()
    gc.collect()


def _measure(job):
    import mxnet as mx
    import numpy as np
    from mxnet import autograd

    from tutorial.memory.resident import Resident
    from tutorial.sequence import sequence_parallel_block as sp
    from tutorial.sequence import tensor_parallel_block as tp
    from tutorial.sequence.block import init_block
    probe = Resident()
    if probe.why_not:
        raise RuntimeError(probe.why_not)
    contexts = [mx.cpu(i) for i in range(job["devices"])]
    sharding = tp.tensor_sharding(job["model_dim"], job["heads"], job["hidden"], len(contexts))
    weights = init_block(job["model_dim"], job["heads"], job["hidden"], job["seed"])
    x = np.random.default_rng(job["seed"]).normal(
        size=(job["batch"], job["seq"], job["model_dim"])).astype(np.float32)
    out = {}
    for mode in MODES:
        run = tp.tensor_parallel_block if mode == "tensor" else sp.sequence_parallel_block
        xs = tp.replicate(x, contexts) if mode == "tensor" else sp.split_positions(x, contexts)
        shards = tp.shard_weights(weights, sharding, contexts)
        tp.attach_gradients(shards)
        for a in xs:
            a.attach_grad()
        with autograd.record():                    # warm-up: a whole step, then let go
            result = run(xs, shards, sharding, job["causal"])
        autograd.backward(result.outputs, [mx.nd.ones_like(y) for y in result.outputs])
        del result
        _settle()
        base = probe.now()
        with autograd.record():
            result = run(xs, shards, sharding, job["causal"])
        _settle()
        outputs = sum(y.size * np.dtype(y.dtype).itemsize for y in result.outputs)
        out[mode] = probe.now() - base - outputs
        del result
        _settle()
    return out


if __name__ == "__main__":
    print(json.dumps(_measure(json.loads(sys.argv[1]))))
