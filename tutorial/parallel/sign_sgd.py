"""signSGD with majority vote (Bernstein et al., 2018): a sign up, a sign down.

Every worker k computes its gradient g_k on its own shard and sends only its signs; the
server adds the K signs and sends back the sign of the sum, the majority vote::

    vote = sign(sum_k sign(g_k))            (a tie, or all zeros, gives 0)
    w    = w - lr * vote                    on every worker (the weights stay equal)

Each way a value is -1, 0 or +1: a worker's gradient can be exactly 0 (an input pixel
that is always 0, a ReLU that is off for its whole shard), and with an even number of
workers the vote can tie. Three values take 2 bits (packed 16 to a 32-bit word,
``compression.BITS``); one bit per value would need a rule that turns every 0 into +1 or
-1, and then the step would no longer be MXNet's ``signum``, whose sign(0) is 0. The step is the course's
Signum with momentum 0 applied to the vote: ``sign(vote) = vote``. With one worker it is
MXNet's own ``signum`` optimizer with ``momentum=0`` (``signsgd_update``); with K workers
it is that optimizer applied to the kvstore's SUM of the workers' signs
(``tests/parallel/test_sign_sgd.py`` checks both, and a NumPy step written by hand).

>>> majority_vote([[1.0, -2.0, 3.0], [-1.0, -1.0, 2.0], [0.5, 4.0, 1.0]]).tolist()
[1.0, -1.0, 1.0]
>>> majority_vote([[1.0, 0.0], [-2.0, 0.0]]).tolist()          # a tie, and no gradient
[0.0, 0.0]
>>> sign_sgd_step([1.0, 1.0], [[0.5, -2.0], [3.0, -1.0], [-1.0, 4.0]], lr=0.5).tolist()
[0.5, 1.5]
"""

import mxnet as mx
import numpy as np


def majority_vote(grads):
    """sign(sum_k sign(g_k)) over the workers' gradients (a tie gives 0)."""
    signs = [np.sign(np.asarray(g, dtype=np.float32)) for g in grads]
    if not signs:
        raise ValueError("majority_vote needs the gradients of at least one worker, got none")
    for k, sign in enumerate(signs[1:], start=1):
        if sign.shape != signs[0].shape:
            raise ValueError(f"worker {k}'s gradient has shape {sign.shape} but worker 0's "
                             f"{signs[0].shape}: every worker votes on the same parameter")
    return np.sign(np.sum(signs, axis=0))


def sign_sgd_step(weights, grads, lr):
    """One step of signSGD with majority vote in NumPy: ``w - lr * vote`` (float32)."""
    w = np.asarray(weights, dtype=np.float32)
    return (w - np.float32(lr) * majority_vote(grads)).astype(np.float32)


def majority_aggregation(grad_lists):
    """signSGD's server, as an aggregation: every device's gradient becomes the vote.

    Plugs into the course's ``DataParallelTrainer`` with ``Signum(momentum=0)``, whose
    step is then ``lr * sign(vote) = lr * vote``.
    """
    for grads in grad_lists:
        vote = majority_vote([g.asnumpy() for g in grads])
        for g in grads:
            g[:] = mx.nd.array(vote, ctx=g.context)
