"""Expert parallelism against the one-device mixture of experts: outputs and gradients.

:func:`moe_errors` runs the layer of ``weights`` on one device
(:func:`~tutorial.experts.moe.moe`) and expert parallel on ``devices``
(:func:`~tutorial.experts.expert_parallel.expert_parallel_moe`), back-propagates the same
output gradient through both, and returns the largest differences relative to the largest
value: the output, and the worst of the gradients of the tokens, of the router (the
devices' copies summed: each saw only its own tokens) and of every expert's weights.
It also says whether both dropped the same choices, and returns the parallel run.

>>> from tutorial.experts.moe import init_moe
>>> w = init_moe(model_dim=4, hidden=6, num_experts=3, seed=0)
>>> x = np.random.default_rng(1).normal(size=(7, 4)).astype(np.float32)
>>> e = moe_errors(w, x, [mx.cpu(0), mx.cpu(1)], k=2, capacity_factor=1.0)
>>> e.output < 1e-5 and e.gradients < 1e-5 and e.same_drops
True
"""

from typing import NamedTuple

import mxnet as mx
import numpy as np
from mxnet import autograd

from tutorial.experts.expert_parallel import (ExpertParallelResult, expert_parallel_moe,
                                              join_tokens, place_moe, split_tokens)
from tutorial.experts.moe import moe, to_nd
from tutorial.sequence.equivalence import relative


class Errors(NamedTuple):
    output: float
    gradients: float
    same_drops: bool
    run: ExpertParallelResult


def _arrays(router, experts):
    return [router] + [a for expert in experts for a in expert]


def moe_errors(weights, x, devices, k=1, capacity_factor=1.0, seed=0):
    """The layer of ``weights`` (NumPy, :func:`~tutorial.experts.moe.init_moe`) on tokens
    ``x`` (NumPy (tokens, model_dim)), expert parallel on ``devices``, against one device."""
    head = np.random.default_rng(seed).normal(size=x.shape).astype(np.float32)
    whole, x1 = to_nd(weights), mx.nd.array(x)
    for a in [x1] + _arrays(whole.router, whole.experts):
        a.attach_grad()
    with autograd.record():
        one = moe(x1, whole, k, capacity_factor)
    one.output.backward(mx.nd.array(head))
    placed = place_moe(weights, devices)
    pieces = split_tokens(mx.nd.array(x), devices)
    for a in pieces + _arrays(placed.routers[0], placed.experts) + placed.routers[1:]:
        a.attach_grad()
    with autograd.record():
        run = expert_parallel_moe(pieces, placed, k, capacity_factor)
        joined = join_tokens(run.outputs)
    joined.backward(mx.nd.array(head, ctx=joined.context))
    router_grad = sum(r.grad.asnumpy() for r in placed.routers)
    worst = max([relative(join_tokens([p.grad for p in pieces]).asnumpy(),
                          x1.grad.asnumpy()),
                 relative(router_grad, whole.router.grad.asnumpy())] +
                [relative(a.grad.asnumpy(), b.grad.asnumpy())
                 for ea, eb in zip(placed.experts, whole.experts) for a, b in zip(ea, eb)])
    return Errors(relative(joined.asnumpy(), one.output.asnumpy()), worst,
                  run.routing.slots == one.routing.slots, run)
