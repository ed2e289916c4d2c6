"""tutorial.largebatch pieces against independent references: the family loop against a
plain Gluon net with MXNet's own SGD, the noise scale against per-example gradients in
NumPy, the critical-batch fit and Hessian eigenvalue against exact answers, and the
ImageNet table's derived columns against the lecture's own totals."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.data import DataError
from tutorial.largebatch import imagenet
from tutorial.largebatch.critical_batch import fit_critical_batch
from tutorial.largebatch.minima import Setting, train_to_loss
from tutorial.largebatch.mlp_family import MLPFamily
from tutorial.largebatch.noise_scale import noise_scale, per_example_reference
from tutorial.largebatch.runs import Dataset, train_family
from tutorial.largebatch.sharpness import MLPLoss, sharpness, top_hessian_eigenvalue
from tutorial.largebatch.sweep import batch_size_sweep


def _toy(n=120, d=6, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int32) + (X[:, 1] > 0.5).astype(np.int32)
    return Dataset(X[:90], y[:90], X[90:], y[90:])


def test_family_members_equal_separate_gluon_runs_with_mxnet_sgd():
    data, lrs, batch, steps = _toy(), [0.05, 0.2], 16, 12
    start = {}

    def grab(step, net):
        if step == 0:
            start["w"] = [p.data().asnumpy() for p in net.member_params(0)]

    runs, family = train_family(data, batch, lrs, hidden=(8,), max_steps=steps, stop="never",
                                seed=3, on_step=grab, return_net=True, targets=(1.0,))
    assert [r.steps_run for r in runs] == [steps, steps]
    rng = np.random.default_rng(3)                    # the family's batch order
    per_epoch = len(data.X_train) // batch
    batches = []
    for step in range(steps):
        if step % per_epoch == 0:
            order = rng.permutation(len(data.X_train))
        k = step % per_epoch
        batches.append(order[k * batch:(k + 1) * batch])
    for g, lr in enumerate(lrs):
        net = gluon.nn.Sequential()
        net.add(gluon.nn.Dense(8, activation="relu", in_units=6), gluon.nn.Dense(3, in_units=8))
        net.initialize()
        for p, w in zip(net.collect_params().values(), start["w"]):
            p.set_data(mx.nd.array(w))
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": lr,
                                                              "momentum": 0.9})
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        for idx in batches:
            with autograd.record():
                loss = loss_fn(net(mx.nd.array(data.X_train[idx])),
                               mx.nd.array(data.y_train[idx]))
            loss.backward()
            trainer.step(batch)
        for ref, ours in zip(net.collect_params().values(), family.member_params(g)):
            np.testing.assert_allclose(ours.data().asnumpy(), ref.data().asnumpy(),
                                       rtol=1e-5, atol=1e-6)


def test_divergence_is_reported_as_divergence():
    runs = train_family(_toy(), 16, [0.05, 50.0], hidden=(8,), max_steps=60, targets=(0.6,))
    assert not runs[0].diverged and runs[0].steps_to[0.6] is not None
    assert runs[1].diverged and runs[1].steps_to[0.6] is None


def test_a_high_first_loss_is_not_divergence():
    """Inputs scaled up make the first loss exceed 2 ln(classes); a small rate still trains."""
    toy = _toy()
    big = Dataset(40 * toy.X_train, toy.y_train, 40 * toy.X_val, toy.y_val)
    runs = train_family(big, 16, [1e-4, 50.0], hidden=(8,), max_steps=60, targets=(0.6,),
                        stop="never", check_every=1)
    assert runs[0].train_loss[0] > 2 * np.log(3), runs[0].train_loss[:3]     # the premise
    assert not runs[0].diverged
    assert runs[1].diverged


@pytest.mark.parametrize("kwargs, message", [
    (dict(batch_size=0, lrs=[0.1]), "batch_size must be a whole number from 1 to the 90"),
    (dict(batch_size=91, lrs=[0.1]), "batch_size must be"),
    (dict(batch_size=8, lrs=[]), "lrs must be a non-empty list"),
    (dict(batch_size=8, lrs=[0.1], targets=(95,)),
     r"targets\[0\]=95 is out of range: use a number in \(0.0, 1.0\]"),
    (dict(batch_size=8, lrs=[0.1], stop="never!"), "stop must be 'all', 'best' or 'never'"),
])
def test_train_family_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        train_family(_toy(), **kwargs)


def test_sweep_over_seeds_keeps_the_median_seed():
    data, lrs = _toy(), [0.05, 0.2]
    kw = dict(targets=(0.7,), max_steps=200)
    single = [batch_size_sweep(data, [16], lrs, seeds=(s,), **kw)[0].steps[0.7] for s in (0, 1, 2)]
    (median,) = batch_size_sweep(data, [16], lrs, seeds=(0, 1, 2), **kw)
    assert None not in single
    assert median.steps[0.7] == sorted(single)[1]
    with pytest.raises(ValueError, match="at least one seed"):
        batch_size_sweep(data, [16], lrs, seeds=())


def test_noise_scale_equals_per_example_numpy_reference():
    data = _toy(n=60)
    net = MLPFamily(1, 6, hidden=(), classes=3)       # softmax regression: exact gradients
    mx.random.seed(1)
    net.initialize(mx.init.Normal(0.5))
    W, b = (p.data().asnumpy() for p in net.member_params(0))     # W (3, 6), b (3,)
    X, y = data.X_train.astype(np.float64), data.y_train
    logits = X @ W.T + b
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    delta = p - np.eye(3)[y]                                       # dloss/dlogits per example
    per_example = np.concatenate([(delta[:, :, None] * X[:, None, :]).reshape(len(X), -1),
                                  delta], axis=1)
    trace, grad_sq = per_example_reference(per_example)
    (exact,) = noise_scale(net, data.X_train, data.y_train, batch_size=1)
    assert exact.trace_sigma == pytest.approx(trace, rel=1e-4)
    assert exact.grad_sq == pytest.approx(grad_sq, rel=1e-4)
    (batched,) = noise_scale(net, data.X_train, data.y_train, batch_size=8)
    assert batched.b_simple == pytest.approx(trace / grad_sq, rel=0.5)   # an estimate
    with pytest.raises(ValueError, match="fewer than the 60 examples"):
        noise_scale(net, data.X_train, data.y_train, batch_size=60)


def test_critical_batch_fit_recovers_exact_curve_and_refuses_bad_input():
    B = np.array([8, 32, 128, 512, 2048])
    fit = fit_critical_batch(B, 40.0 * (1 + 300.0 / B))
    assert fit.s_min == pytest.approx(40.0) and fit.b_crit == pytest.approx(300.0)
    assert fit.examples(300.0) == pytest.approx(2 * fit.e_min)
    with pytest.raises(ValueError, match="two or more different batch sizes"):
        fit_critical_batch([16], [100])
    with pytest.raises(ValueError, match="leave out batch sizes that never reached"):
        fit_critical_batch([16, 32], [100, float("nan")])
    with pytest.raises(ValueError, match="no plateau"):
        fit_critical_batch([16, 32, 64], [400, 200, 100])    # still perfect scaling: S_min ~ 0


def test_top_eigenvalue_and_sharpness_on_a_quadratic_with_known_answer():
    rng = np.random.default_rng(0)
    Q = rng.normal(size=(5, 5))
    H = Q @ Q.T + np.eye(5)

    def f(params):
        x = params[0]
        return float(0.5 * x @ H @ x), [H @ x]

    assert top_hessian_eigenvalue([np.zeros(5)], f, iterations=60) == \
        pytest.approx(np.linalg.eigvalsh(H).max(), rel=1e-4)
    # at the minimum of a convex quadratic the box maximum is at a corner: brute force it.
    # Sign ascent finds a corner, not always the best one: a lower bound, exact when the
    # loss is separable (diagonal H)
    corners = np.array(np.meshgrid(*[[-1, 1]] * 5)).reshape(5, -1).T * 0.01
    best = max(0.5 * c @ H @ c for c in corners)
    found = sharpness([np.zeros(5)], f, eps=0.01, steps=30)
    assert found <= 100 * best * (1 + 1e-9)
    assert any(found == pytest.approx(100 * 0.5 * c @ H @ c) for c in corners)
    H = np.diag(rng.uniform(1, 5, size=5))
    assert sharpness([np.zeros(5)], f, eps=0.01, steps=30) == \
        pytest.approx(100 * 0.5 * np.trace(H) * 1e-4)


def test_mlp_loss_gradient_matches_finite_differences():
    data = _toy()
    f = MLPLoss(data.X_train, data.y_train, 6, hidden=(5,), classes=3)
    rng = np.random.default_rng(0)
    params = [rng.normal(scale=0.5, size=p.shape) for p in f.params]
    _, grads = f(params)
    direction = [rng.normal(size=p.shape) for p in params]
    h = 1e-2
    up = f([p + h * d for p, d in zip(params, direction)])[0]
    down = f([p - h * d for p, d in zip(params, direction)])[0]
    slope = sum(float(np.sum(g * d)) for g, d in zip(grads, direction))
    assert (up - down) / (2 * h) == pytest.approx(slope, rel=1e-2)


def test_train_to_loss_takes_each_model_at_the_first_step_its_training_loss_is_that_low():
    data, setting = _toy(), Setting("toy", 16, 0.2, 40)
    whole = MLPLoss(data.X_train, data.y_train, 6, classes=3)
    history = {}                  # step -> training loss of each model, measured apart

    def record(step, net):
        history[step] = [whole.loss_and_accuracy([p.data().asnumpy() for p in
                                                  net.member_params(g)])[0] for g in range(2)]

    train_family(data, setting.batch_size, [setting.lr] * 2, max_steps=setting.steps,
                 stop="never", same_init=False, targets=(1.0,), on_step=record)
    target = history[10][0] + 1e-5
    first = min(step for step, losses in history.items() if losses[0] <= target)
    assert first <= 10 and all(history[s][0] > target + 1e-5 for s in range(first))  # no near miss
    found = train_to_loss(data, setting, [target, 0.0])
    assert found[1] is None                               # a loss of 0 is never reached
    step, params = found[0]
    assert step == first
    assert whole.loss_and_accuracy(params)[0] == pytest.approx(history[first][0], rel=1e-5)
    for bad, message in (([], "losses must be a list"), ([0.1, float("nan")], r"losses\[1\]=nan")):
        with pytest.raises(ValueError, match=message):
            train_to_loss(data, setting, bad)


def test_imagenet_derived_columns_agree_with_the_lectures_totals():
    steps = imagenet.steps_table()
    assert len(steps) == 8
    for row in steps:    # steps x time/step gives the time column back (rounded on slides)
        assert row["steps_times_step_time_s"] == pytest.approx(row["time_s"], rel=0.03)
    goyal = steps[0]
    assert goyal["epochs"] == pytest.approx(90.0, abs=0.01)
    assert goyal["images_per_s"] == pytest.approx(8192 / 0.255)
    records = imagenet.records_table()
    assert records[0]["speedup"] == 1.0 and records[-1]["speedup"] == pytest.approx(1450.0)
    assert records[2]["steps_90_epochs"] is None        # Smith et al. grow the batch
    assert records[1]["steps_90_epochs"] == pytest.approx(14076, rel=1e-3)   # vs table 2


def test_imagenet_table_refuses_a_changed_file_and_bad_cells(tmp_path):
    changed = tmp_path / "records.csv"
    changed.write_text("work,batch_size\nMe,1\n")
    with pytest.raises(DataError, match="corrupt or a different version"):
        imagenet.records_table(path=changed)
    with pytest.raises(ValueError, match="cannot read the duration '3 fortnights'"):
        imagenet.parse_duration("3 fortnights")
