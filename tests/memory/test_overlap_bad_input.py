"""OverlapTrainer on bad input: no hang, no thread left behind, no silent NaN.

Its communication thread used to be a non-daemon thread blocked on its queue whenever a
step raised (a frozen parameter, Ctrl-C), so the process never exited; an error in the
thread was lost and the step returned a loss while the replicas drifted apart.
"""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import mxnet as mx
import numpy as np
import pytest

from bounded import within
from tutorial.finite import TrainingDiverged
from tutorial.memory.overlap import OverlapTrainer
from tutorial.parallel.workload import digits_batches, mlp

DEVICES = [mx.cpu(0), mx.cpu(1)]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def threads():
    return {t for t in threading.enumerate() if t.name == "overlap-communication"}


@pytest.mark.parametrize("overlap", [True, False])
@pytest.mark.parametrize("frozen", [0, 1])
def test_frozen_parameters_are_left_out(frozen, overlap):
    net = mlp((16,), seed=0)
    net[frozen].weight.grad_req = "null"
    before = net[frozen].weight.data().asnumpy()
    trainer = OverlapTrainer(net, DEVICES, bucket_bytes=0, overlap=overlap)
    batches = digits_batches(32, seed=0)
    with within(60, "a step with a frozen parameter"):
        losses = [trainer.step(*next(batches))[0] for _ in range(3)]
    assert all(np.isfinite(losses)) and losses[-1] < losses[0]
    for ctx in DEVICES:
        np.testing.assert_array_equal(net[frozen].weight.data(ctx).asnumpy(), before)
    assert net[frozen].weight.name not in trainer.by_name
    assert not threads()


def test_a_net_with_nothing_to_train_or_grad_req_add_is_refused():
    net = mlp((16,), seed=0)
    net.collect_params().setattr("grad_req", "null")
    with pytest.raises(ValueError, match="no trainable parameter"):
        OverlapTrainer(net, DEVICES)
    net = mlp((16,), seed=0)
    net[0].bias.grad_req = "add"
    with pytest.raises(ValueError, match="grad_req='add'.*set grad_req='write'"):
        OverlapTrainer(net, DEVICES)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"algorithm": "bogus"}, ValueError,
     "algorithm must be one of 'ps', 'tree', 'butterfly', 'ring', got 'bogus'"),
    ({"overlap": "False"}, TypeError, "overlap must be True or False, got 'False'"),
])
def test_refuses_bad_settings_at_construction(kwargs, error, message):
    with pytest.raises(error, match=message):
        OverlapTrainer(mlp((16,), seed=0), DEVICES, **kwargs)


def test_refuses_a_net_that_is_not_a_sequential():
    net = mx.gluon.nn.Dense(10, in_units=64)
    with pytest.raises(TypeError, match="net must be a Sequential of layers"):
        OverlapTrainer(net, DEVICES)


def test_an_error_in_the_communication_thread_is_raised_by_step():
    trainer = OverlapTrainer(mlp((16,), seed=0), DEVICES, bucket_bytes=0)
    trainer.algorithm = "bogus"                   # as if the allreduce itself failed
    with within(60, "a step whose thread fails"), \
            pytest.raises(ValueError, match="unknown algorithm 'bogus'"):
        trainer.step(*next(digits_batches(32, seed=0)))
    assert not threads()


@pytest.mark.parametrize("overlap", [True, False])
def test_nan_data_stops_with_training_diverged(overlap):
    trainer = OverlapTrainer(mlp((16,), seed=0), DEVICES, overlap=overlap)
    batches = digits_batches(32, seed=0)
    trainer.step(*next(batches))
    X, y = next(batches)
    X = X.copy()
    X[3, 5] = np.nan
    before = [p.data(DEVICES[1]).asnumpy() for p in trainer.by_name.values()]
    with pytest.raises(TrainingDiverged, match=r"the batch of step 2 holds NaN \(sample 3\)"):
        trainer.step(X, y)
    for p, w in zip(trainer.by_name.values(), before):        # the update was not applied
        np.testing.assert_array_equal(p.data(DEVICES[1]).asnumpy(), w)
    assert not threads()


def test_a_nan_weight_stops_with_training_diverged_naming_it():
    net = mlp((16,), seed=0)
    trainer = OverlapTrainer(net, DEVICES)
    net[0].weight.set_data(mx.nd.full(net[0].weight.shape, np.nan))
    with pytest.raises(TrainingDiverged, match=f"weight {net[0].weight.name} holds NaN"):
        trainer.step(*next(digits_batches(32, seed=0)))


def test_labels_beyond_the_classes_are_refused():
    X, y = next(digits_batches(32, seed=0))
    y = y.copy()
    y[4] = 10
    with pytest.raises(ValueError, match=r"label 10 \(sample 4\) is not a class of this net"):
        OverlapTrainer(mlp((16,), seed=0), DEVICES).step(X, y)


CTRL_C = textwrap.dedent("""
    import mxnet as mx
    from tutorial.memory.overlap import OverlapTrainer
    from tutorial.parallel.workload import digits_batches, mlp
    trainer = OverlapTrainer(mlp((256,) * 6, seed=0), [mx.cpu(0), mx.cpu(1)], bucket_bytes=0)
    batches = digits_batches(64, seed=0)
    trainer.step(*next(batches))
    print("training", flush=True)
    while True:
        trainer.step(*next(batches))
""")


@pytest.mark.slow
def test_ctrl_c_during_training_ends_the_program():
    child = subprocess.Popen([sys.executable, "-c", CTRL_C], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert child.stdout.readline().strip() == "training", child.stderr.read()
        time.sleep(1.0)
        child.send_signal(signal.SIGINT)
        child.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the training did not exit within 20 s of Ctrl-C: a thread hangs")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert "KeyboardInterrupt" in child.stderr.read()
