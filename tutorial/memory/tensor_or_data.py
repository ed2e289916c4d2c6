"""Tensor or data parallel? The batch at which their bytes per step cross.

Per step, a device of data parallelism allreduces the gradient of every weight, whatever
the batch (:func:`~tutorial.parallel.pipeline.data_or_model.data_bytes`: 2(N-1)/N x 4W for
W parameters). A device of tensor parallelism allreduces activations, batch x width
numbers at every pair of layers (:func:`~tutorial.memory.tensor_parallel.bytes_per_step`),
so its bytes grow in proportion to the batch. The two are equal at one batch, the
**crossover**: below it tensor parallelism sends less, above it more. Both counts carry the
same 2(N-1)/N x 4 bytes per number, so the crossover does not depend on N: it is W over
the numbers one sample puts through the allreduces.

For L dense layers of width w (L even) that is L(w^2 + w) over (L - 1) w (L/2 allreduces
forward, L/2 - 1 backward): L(w + 1)/(L - 1), a little more than the width. A convolution
puts a whole feature map through each allreduce for few weights, so its crossover is a few
samples. The batch counts rows: for a transformer, every token of the step.

>>> from tutorial.parallel.pipeline.data_or_model import conv_stack, dense_stack
>>> round(crossover_batch(dense_stack([1024] * 9), devices=4), 2)     # 8 x 1025 / 7
1171.43
>>> round(crossover_batch(conv_stack(channels=256, size=28, layers=8), devices=4), 2)
3.36
"""

import math

from tutorial.memory.tensor_parallel import bytes_per_step
from tutorial.parallel.pipeline.data_or_model import Layer, data_bytes
from tutorial.validate import check_count


def crossover_batch(layers, devices):
    """The batch at which tensor parallelism over ``devices`` devices (``layers``, a list of
    ``data_or_model.Layer``, split in column-row pairs) sends as many bytes per step as
    data parallelism; it sends fewer below it. ``math.inf`` when it sends nothing at all
    (fewer than two layers: no pair to split)."""
    layers = [Layer(*layer) for layer in layers]
    n = check_count("devices", devices, low=2,
                    what="on one device neither strategy sends anything")
    per_sample = bytes_per_step(layers, 1, n)      # proportional to the batch
    if per_sample == 0:
        return math.inf
    return data_bytes(layers, n) / per_sample
