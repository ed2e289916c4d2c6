"""signSGD with majority vote: the vote and its ties, one NumPy step, and training with
the course's trainer pinned against two independent references: a NumPy loop written
here by hand, and MXNet's own ``signum`` optimizer (momentum 0) fed the kvstore's sum of
the workers' signs."""

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon

from tutorial.compare import relative_difference
from tutorial.parallel.compression_study import train_scheme
from tutorial.parallel.scaling_workload import ScalingJob
from tutorial.parallel.sign_sgd import majority_vote, sign_sgd_step

JOB = ScalingJob(steps=6, batch_per_worker=8, workers=3, learning_rate=0.01, hidden=(16,))
DEVICES = [mx.cpu(k) for k in range(3)]


def test_majority_vote_and_its_ties():
    assert majority_vote([[1, -1, 2], [3, -2, -1], [-1, -5, 4]]).tolist() == [1, -1, 1]
    assert majority_vote([[1, -1], [-2, -3]]).tolist() == [0, -1]
    assert majority_vote([[0.0], [0.0], [5.0]]).tolist() == [1.0]   # zeros do not vote


def test_one_step_is_lr_times_the_vote_not_the_sign_of_the_summed_gradients():
    grads = [[1.0], [1.0], [-10.0]]                 # the sum is negative, the vote positive
    assert sign_sgd_step([0.0], grads, lr=0.5).tolist() == [-0.5]


def shard_gradients(net, X, y, workers):
    """Each worker's gradient (of its shard's summed loss), as NumPy arrays."""
    loss_fn, b, grads = gluon.loss.SoftmaxCrossEntropyLoss(), len(X) // workers, []
    for k in range(workers):
        with autograd.record():
            loss = loss_fn(net(mx.nd.array(X[k * b:(k + 1) * b])), mx.nd.array(y[k * b:(k + 1) * b]))
        loss.backward()
        grads.append([p.grad().asnumpy() for p in net.collect_params().values()])
    return grads


def by_hand(job):
    """signSGD written out: each shard's gradient, the signs' majority, w -= lr * vote."""
    net, batches = job.net(), job.batches()
    params = list(net.collect_params().values())
    for _ in range(job.steps):
        X, y = next(batches)
        grads = shard_gradients(net, X, y, job.workers)
        for i, p in enumerate(params):
            vote = np.sign(sum(np.sign(g[i]) for g in grads))
            p.set_data(mx.nd.array(p.data().asnumpy() - np.float32(job.learning_rate) * vote))
    return [p.data().asnumpy() for p in params]


def with_mxnet_signum(job):
    """MXNet's signum (momentum 0: w -= lr * sign(grad)) applied to the 'device'
    kvstore's sum of the workers' signs: sign(sum of signs) is the majority vote."""
    net = job.net()
    net.collect_params().reset_ctx(DEVICES)
    trainer = gluon.Trainer(net.collect_params(), "signum",
                            {"learning_rate": job.learning_rate, "momentum": 0.0},
                            kvstore="device")
    loss_fn, batches = gluon.loss.SoftmaxCrossEntropyLoss(), job.batches()
    for _ in range(job.steps):
        X, y = next(batches)
        shards = zip(gluon.utils.split_and_load(X, DEVICES), gluon.utils.split_and_load(y, DEVICES))
        with autograd.record():
            losses = [loss_fn(net(Xk), yk) for Xk, yk in shards]
        for loss in losses:
            loss.backward()
        for p in net.collect_params().values():
            for g in p.list_grad():
                g[:] = mx.nd.sign(g)                # each worker sends only its signs
        trainer.step(job.total_batch)
    return [p.list_data()[0].asnumpy() for p in net.collect_params().values()]


def test_the_library_equals_signsgd_by_hand_and_mxnets_signum():
    ours = list(train_scheme(JOB, DEVICES, "sign", learning_rate=JOB.learning_rate).params)
    assert relative_difference(ours, by_hand(JOB)) < 1e-6
    assert relative_difference(ours, with_mxnet_signum(JOB)) < 1e-6
    start = [p.data().asnumpy() for p in JOB.net().collect_params().values()]
    assert relative_difference(ours, start) > 1e-3         # and it did move


def test_every_weight_moves_by_lr_times_minus_one_zero_or_one_and_bytes_shrink_16_times():
    one = ScalingJob(steps=1, batch_per_worker=8, workers=3, hidden=(16,))
    run = train_scheme(one, DEVICES, "sign", learning_rate=0.01)
    start = [p.data().asnumpy() for p in one.net().collect_params().values()]
    steps = [(w - w0) / 0.01 for w, w0 in zip(run.params, start)]
    assert all(set(np.round(np.unique(s), 3)) <= {-1.0, 0.0, 1.0} for s in steps)
    assert run.push_bytes == run.pull_bytes < train_scheme(one, DEVICES, "none").push_bytes / 15


def test_what_the_workers_and_the_vote_send_fits_the_bits_counted_for_it():
    from tutorial.parallel.compression import BITS
    job = ScalingJob(batch_per_worker=8, workers=4)
    X, y = next(job.batches())
    grads = shard_gradients(job.net(), X, y, job.workers)
    signs = [np.sign(g) for worker in grads for g in worker]
    votes = [majority_vote([worker[i] for worker in grads]) for i in range(len(grads[0]))]
    sent = set(np.unique(np.concatenate([a.ravel() for a in signs + votes])).tolist())
    assert sent == {-1.0, 0.0, 1.0}            # zeros go up (dead inputs) and down (ties)
    assert len(sent) <= 2 ** BITS["sign"]      # a 1-bit count would fail here
